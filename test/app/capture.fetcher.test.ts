/**
 * The background fetcher of saved pages against fake origins on 127.0.0.1: what it reads and
 * refuses, its limits, its queue (per host, spacing, concurrency, bound) on a clock the test
 * moves, and its stop. Names resolve through a table; `mappedConnect` reaches the made-up public
 * address at 127.0.0.1 and refuses to contact anything else.
 */
import { describe, expect, it } from "bun:test";
import type { CapturedContent } from "../../src/shelf/types";
import { CAPTURE_OFF, ContentFetcher, cpuShareOf, createContentCapture, FETCHER_LIMITS, type CaptureOptions } from "../../src/capture/fetcher";
import { fetchPage, PAGE_LIMITS, PAGE_USER_AGENT } from "../../src/capture/page";
import { loadConfig } from "../../src/common/config";
import { pinnedConnect, type OutboundPolicy } from "../../src/outbound/fetch";
import { deferred, htmlPage, manualTimers, until } from "../support/capture.fixtures";
import { FAKE_PUBLIC, mappedConnect, redirectTo, resolverOf, stoppedAfterEach, type FakeOrigin } from "../support/favicon.fixtures";

const { origin, worker } = stoppedAfterEach<ContentFetcher>();

/** Every test name resolves to the made-up public address, which mappedConnect reaches at 127.0.0.1. */
const NAMES = Object.fromEntries(["site.test", "a.test", "b.test", "c.test", "d.test", "e.test"].map((name) => [name, [FAKE_PUBLIC]]));

function policy(overrides: Partial<OutboundPolicy> = {}): OutboundPolicy & { connect: ReturnType<typeof mappedConnect> } {
  const connect = mappedConnect();
  return { resolve: resolverOf(NAMES), allowPrivate: false, userAgent: PAGE_USER_AGENT, signal: AbortSignal.timeout(5000), ...overrides, connect };
}

interface Stored {
  linkId: number;
  userId: number;
  content: CapturedContent;
  now: number;
}

/** makeFetcher: a fetcher on hand-moved timers, recording what it stores and logs. */
function makeFetcher(options: CaptureOptions & { allowPrivate?: boolean; store?: (linkId: number) => void } = {}) {
  const { allowPrivate = false, store, ...rest } = options;
  const time = manualTimers();
  const stored: Stored[] = [];
  const logs: string[] = [];
  const connect = mappedConnect();
  const fetcher = new ContentFetcher({
    allowPrivate,
    clock: () => time.clock.now,
    log: (line) => void logs.push(line),
    store: (linkId, userId, content, now) => {
      store?.(linkId);
      stored.push({ linkId, userId, content, now });
    },
  }, { resolve: resolverOf(NAMES), connect, timers: time.timers, ...rest });
  worker(fetcher);
  return { fetcher, time, stored, logs, connect };
}

describe("fetchPage", () => {
  it("reads an HTML page's text, sending linkshelf's User-Agent and the Host it was asked for", async () => {
    let agent = "";
    const site = origin({ "/a": (request) => ((agent = request.headers.get("user-agent") ?? ""), htmlPage("Hello", "Body text here.")) });
    const result = await fetchPage(new URL(`http://site.test:${site.port}/a`), policy());
    expect(result).toMatchObject({ kind: "page", truncated: false, content: { title: "Hello", text: "Body text here.", lang: "en" } });
    expect(agent).toBe(PAGE_USER_AGENT);
    expect(site.hosts).toEqual([`site.test:${site.port}`]);
  });

  it.each(["text/html", "TEXT/HTML; charset=utf-8", "application/xhtml+xml", "text/html;charset=windows-1252"])("reads an answer of type %p", async (type) => {
    const site = origin({ "/": () => htmlPage("Typed", "x", type) });
    expect(await fetchPage(new URL(`http://site.test:${site.port}/`), policy())).toMatchObject({ kind: "page", content: { title: "Typed" } });
  });

  it.each(["application/pdf", "application/json", "text/plain", "image/png", "text/htmlx", ""])("does not read an answer of type %p: not a page", async (type) => {
    const site = origin({ "/": () => new Response("<title>sneaky</title>", { headers: type === "" ? {} : { "content-type": type } }) });
    const result = await fetchPage(new URL(`http://site.test:${site.port}/`), policy());
    expect(result.kind).toBe("not-a-page");
  });

  it.each([404, 500, 204, 206])("does not read a %p answer", async (status) => {
    const site = origin({ "/": () => new Response(status === 204 ? null : "<title>x</title>", { status, headers: { "content-type": "text/html" } }) });
    expect(await fetchPage(new URL(`http://site.test:${site.port}/`), policy())).toEqual({ kind: "failed", reason: `HTTP ${status}` });
  });

  /** A page of `bytes` bytes whose last characters are the text `tail:` and then `end`. */
  const pageOf = (bytes: number, end: string) => {
    const head = "<title>big</title><!--";
    const tail = `--><p>tail:${end}`;
    return head + " ".repeat(bytes - head.length - tail.length) + tail;
  };

  it("reads a page of exactly 2 MiB whole, and stops at 2 MiB when there is one byte more", async () => {
    expect(PAGE_LIMITS.bytes).toBe(2 * 1024 * 1024);
    const site = origin({
      "/exact": () => new Response(pageOf(PAGE_LIMITS.bytes, "A"), { headers: { "content-type": "text/html" } }),
      "/over": () => new Response(pageOf(PAGE_LIMITS.bytes + 1, "AB"), { headers: { "content-type": "text/html" } }),
    });
    const exact = await fetchPage(new URL(`http://site.test:${site.port}/exact`), policy());
    expect(exact).toMatchObject({ kind: "page", truncated: false, content: { text: "tail:A" } });
    const over = await fetchPage(new URL(`http://site.test:${site.port}/over`), policy());
    expect(over).toMatchObject({ kind: "page", truncated: true, content: { text: "tail:A" } });
  });

  it("stops reading an endless page at 2 MiB and keeps its text", async () => {
    let sent = 0;
    const site = origin({
      "/": () => new Response(new ReadableStream({
        pull(controller) {
          const chunk = new TextEncoder().encode(sent === 0 ? "<title>endless</title><p>" + "word ".repeat(13_000) : "word ".repeat(13_000));
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }), { headers: { "content-type": "text/html" } }),
    });
    const result = await fetchPage(new URL(`http://site.test:${site.port}/`), policy());
    expect(result).toMatchObject({ kind: "page", truncated: true, content: { title: "endless" } });
    if (result.kind === "page") expect(result.content!.text.length).toBeLessThanOrEqual(PAGE_LIMITS.bytes);
  });

  it("gives up when the whole fetch takes longer than its time limit (a short one here): headers or body", async () => {
    const never = deferred<Response>();
    const site = origin({
      "/silent": () => never.promise,
      "/stalled": () => new Response(new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("<title>slow</title>"));
        },
      }), { headers: { "content-type": "text/html" } }),
    });
    for (const path of ["/silent", "/stalled"]) {
      const result = await fetchPage(new URL(`http://site.test:${site.port}${path}`), policy({ signal: AbortSignal.timeout(100) }));
      expect(result).toEqual({ kind: "failed", reason: "timeout" });
    }
    never.resolve(new Response("late"));
  });

  it("refuses a private or loopback target without contacting it", async () => {
    const site = origin({ "/": () => htmlPage("secret") });
    for (const url of [`http://127.0.0.1:${site.port}/`, `http://localhost:${site.port}/`, `http://[::ffff:127.0.0.1]:${site.port}/`, "http://10.1.2.3/", "http://169.254.169.254/latest/meta-data/"]) {
      const used = policy();
      const result = await fetchPage(new URL(url), used);
      expect(result.kind).toBe("failed");
      expect(result.kind === "failed" && result.reason).toStartWith("refused:");
      expect(used.connect.addresses).toEqual([]);
    }
    expect(site.hits).toEqual([]);
  });

  it("refuses a redirect to a private address: the first hop is read, the private one never contacted", async () => {
    const site: FakeOrigin = origin({ "/": () => redirectTo(`http://127.0.0.1:${site.port}/secret`), "/secret": () => htmlPage("secret") });
    const used = policy();
    const result = await fetchPage(new URL(`http://site.test:${site.port}/`), used);
    expect(result).toEqual({ kind: "failed", reason: "refused: loopback address", refused: "loopback" });
    expect(site.hits).toEqual(["/"]);
    expect(used.connect.addresses).toEqual([FAKE_PUBLIC]);
  });

  it("refuses a redirect to link-local (cloud metadata) even when private addresses are allowed", async () => {
    const site = origin({ "/": () => redirectTo("http://169.254.169.254/latest/meta-data/") });
    const used = policy({ allowPrivate: true });
    expect(await fetchPage(new URL(`http://site.test:${site.port}/`), used)).toEqual({ kind: "failed", reason: "refused: link-local address", refused: "link-local" });
    expect(used.connect.addresses).toEqual([FAKE_PUBLIC]);
  });

  it("follows redirects to allowed hosts, each checked, at most 3", async () => {
    const site: FakeOrigin = origin({
      "/1": () => redirectTo("/2"), "/2": () => redirectTo(`http://a.test:${site.port}/3`), "/3": () => htmlPage("Arrived"),
      "/loop": () => redirectTo("/loop"),
    });
    const result = await fetchPage(new URL(`http://site.test:${site.port}/1`), policy());
    expect(result).toMatchObject({ kind: "page", content: { title: "Arrived" } });
    if (result.kind === "page") expect(result.url.href).toBe(`http://a.test:${site.port}/3`);
    expect(await fetchPage(new URL(`http://site.test:${site.port}/loop`), policy())).toEqual({ kind: "failed", reason: "too many redirects" });
    expect(site.hitsOf("/loop")).toBe(4);
  });

  it("reaches loopback when private addresses are allowed (LINKSHELF_FAVICON_ALLOW_PRIVATE=1)", async () => {
    const site = origin({ "/": () => htmlPage("Local") });
    const result = await fetchPage(new URL(`${site.url}/`), { ...policy({ allowPrivate: true }), connect: pinnedConnect() });
    expect(result).toMatchObject({ kind: "page", content: { title: "Local" } });
  });
});

describe("the queue", () => {
  it("stores what it reads, with the link and user it was queued for and the clock's time", async () => {
    const site = origin({ "/": () => htmlPage("Stored", "The text.") });
    const { fetcher, stored, time } = makeFetcher();
    fetcher.enqueue(7, 3, `http://site.test:${site.port}/`);
    await fetcher.whenIdle();
    expect(stored).toEqual([{ linkId: 7, userId: 3, now: time.clock.now, content: { title: "Stored", text: "The text.", excerpt: "The text.", byline: "", lang: "en" } }]);
    expect(fetcher.counts).toMatchObject({ stored: 1, failed: 0, notAPage: 0 });
  });

  it("remembers why a fetch stored nothing for at most problemsKept links, forgetting the oldest", async () => {
    const site = origin({});
    const { fetcher } = makeFetcher({ problemsKept: 2, hostSpacingMillis: 0 });
    for (const linkId of [1, 2, 3]) {
      fetcher.enqueue(linkId, 1, `http://site.test:${site.port}/gone-${linkId}`);
      await fetcher.whenIdle();
    }
    expect([1, 2, 3].map((linkId) => fetcher.problemOf(linkId)?.detail)).toEqual([undefined, "HTTP 404", "HTTP 404"]);
    expect(fetcher.problemOf(3)).toMatchObject({ kind: "failed" });
  });

  it("records a non-HTML answer as not a page, stores nothing and never asks again", async () => {
    const site = origin({ "/file.pdf": () => new Response("%PDF-1.7", { headers: { "content-type": "application/pdf" } }) });
    const { fetcher, stored, time } = makeFetcher();
    fetcher.enqueue(1, 1, `http://site.test:${site.port}/file.pdf`);
    await fetcher.whenIdle();
    time.advance(24 * 60 * 60 * 1000);
    expect(time.due()).toEqual([]);
    expect(fetcher.queued + fetcher.active).toBe(0);
    expect(site.hits).toEqual(["/file.pdf"]);
    expect(stored).toEqual([]);
    expect(fetcher.counts).toMatchObject({ notAPage: 1, stored: 0 });
  });

  it("tries a failing page once: no retry after an error status, a refusal or a broken connection", async () => {
    const site = origin({ "/gone": () => new Response("gone", { status: 410 }) });
    const { fetcher, time } = makeFetcher();
    fetcher.enqueue(1, 1, `http://site.test:${site.port}/gone`);
    fetcher.enqueue(2, 1, "http://127.0.0.1:1/");
    fetcher.enqueue(3, 1, "http://unknown.test/");
    await fetcher.whenIdle();
    time.advance(60_000);
    await fetcher.whenIdle();
    expect(site.hits).toEqual(["/gone"]);
    expect(fetcher.counts.failed).toBe(3);
  });

  it("sends one request at a time to a host and waits the spacing after each before the next", async () => {
    const gates = [deferred(), deferred(), deferred()];
    let served = 0;
    const site = origin({ "/": async () => (await gates[served++]!.promise, htmlPage("page")) });
    const { fetcher, stored, time } = makeFetcher({ hostSpacingMillis: 1000, concurrency: 2 });
    for (const id of [1, 2, 3]) fetcher.enqueue(id, 1, `http://site.test:${site.port}/`);
    await until(() => site.hits.length === 1, "the first request");
    expect([fetcher.active, fetcher.queued]).toEqual([1, 2]);

    gates[0]!.resolve();
    await until(() => stored.length === 1 && fetcher.active === 0, "the first page stored");
    expect(time.due()).toEqual([time.clock.now + 1000]);
    time.advance(999);
    expect([fetcher.active, fetcher.queued, site.hits.length]).toEqual([0, 2, 1]);
    time.advance(1);
    await until(() => site.hits.length === 2, "the second request, 1000 ms after the first ended");
    expect(fetcher.active).toBe(1);
    gates[1]!.resolve();
    await until(() => stored.length === 2 && fetcher.active === 0, "the second page stored");
    time.advance(1000);
    gates[2]!.resolve();
    await fetcher.whenIdle();
    expect(stored.map((entry) => entry.linkId)).toEqual([1, 2, 3]);
  });

  it("runs at most `concurrency` fetches at once, taking other hosts while one waits its spacing", async () => {
    const gate = deferred();
    const site = origin({ "/": async () => (await gate.promise, htmlPage("page")) });
    const { fetcher, stored } = makeFetcher({ hostSpacingMillis: 1000, concurrency: 2 });
    const hosts = ["a.test", "a.test", "b.test", "c.test", "d.test"];
    hosts.forEach((host, i) => fetcher.enqueue(i + 1, 1, `http://${host}:${site.port}/`));
    await until(() => site.hits.length === 2, "two requests");
    expect(site.hosts).toEqual([`a.test:${site.port}`, `b.test:${site.port}`]);
    expect([fetcher.active, fetcher.queued]).toEqual([2, 3]);
    gate.resolve();
    await until(() => stored.length === 4, "the other hosts' pages");
    // The second page of a.test still waits for its spacing; the others were taken meanwhile.
    expect(stored.map((entry) => entry.linkId).sort()).toEqual([1, 3, 4, 5]);
    expect(fetcher.queued).toBe(1);
  });

  it("drops the oldest waiting link when the queue is full, and counts it", async () => {
    const gate = deferred();
    const site = origin({ "/": async () => (await gate.promise, htmlPage("page")) });
    const { fetcher, stored } = makeFetcher({ concurrency: 1, queuedLinks: 3, hostSpacingMillis: 0 });
    fetcher.enqueue(1, 1, `http://a.test:${site.port}/`);
    await until(() => fetcher.active === 1, "the first fetch");
    for (const id of [2, 3, 4]) fetcher.enqueue(id, 1, `http://b.test:${site.port}/`);
    expect([fetcher.queued, fetcher.counts.dropped]).toEqual([3, 0]);
    fetcher.enqueue(5, 1, `http://c.test:${site.port}/`);
    expect([fetcher.queued, fetcher.counts.dropped]).toEqual([3, 1]);
    gate.resolve();
    await fetcher.whenIdle();
    // Hosts take turns: c.test's link comes before b.test's second.
    expect(stored.map((entry) => entry.linkId)).toEqual([1, 3, 5, 4]);
  });

  it("bounds the URL characters waiting too, dropping the oldest", () => {
    const { fetcher } = makeFetcher({ concurrency: 0, queuedChars: 120 });
    // Each URL is 54 characters: two fit in 120, three do not.
    fetcher.enqueue(1, 1, `http://a.test/${"x".repeat(40)}`);
    fetcher.enqueue(2, 1, `http://a.test/${"y".repeat(40)}`);
    expect([fetcher.queued, fetcher.counts.dropped]).toEqual([2, 0]);
    fetcher.enqueue(3, 1, `http://a.test/${"z".repeat(40)}`);
    expect([fetcher.queued, fetcher.counts.dropped]).toEqual([2, 1]);
  });

  it("queues a link once: queued again before its fetch, it is fetched once, at its new URL", async () => {
    const gate = deferred();
    const site = origin({ "/busy": async () => (await gate.promise, htmlPage("Busy")), "/old": () => htmlPage("Old"), "/new": () => htmlPage("New") });
    const { fetcher, stored } = makeFetcher({ concurrency: 1 });
    fetcher.enqueue(9, 1, `http://a.test:${site.port}/busy`);
    fetcher.enqueue(1, 1, `http://site.test:${site.port}/old`);
    fetcher.enqueue(1, 1, `http://site.test:${site.port}/new`);
    expect(fetcher.queued).toBe(1);
    gate.resolve();
    await fetcher.whenIdle();
    expect(stored.map((entry) => entry.content.title)).toEqual(["Busy", "New"]);
    expect(site.hits).toEqual(["/busy", "/new"]);
  });

  it("stores content read elsewhere at once, without fetching", () => {
    const { fetcher, stored, connect } = makeFetcher();
    const content = { title: "Given", text: "t", excerpt: "", byline: "", lang: "" };
    fetcher.enqueue(4, 2, "http://site.test/", content);
    expect(stored).toMatchObject([{ linkId: 4, userId: 2, content }]);
    expect(connect.addresses).toEqual([]);
  });

  it("fetches at most 4 pages at once for fetchNow; a fifth gets no page, and a sixth after one ended does", async () => {
    const gate = deferred();
    const site = origin({ "/slow": async () => (await gate.promise, htmlPage("Slow")), "/fast": () => htmlPage("Fast") });
    const { fetcher } = makeFetcher();
    expect(FETCHER_LIMITS.concurrentNow).toBe(4);
    const slow = [1, 2, 3, 4].map(() => fetcher.fetchNow(`http://site.test:${site.port}/slow`));
    await until(() => site.hitsOf("/slow") === 4, "four fetches");
    expect(await fetcher.fetchNow(`http://site.test:${site.port}/fast`)).toBeNull();
    expect(site.hitsOf("/fast")).toBe(0);
    gate.resolve();
    expect((await Promise.all(slow)).map((page) => page?.title)).toEqual(["Slow", "Slow", "Slow", "Slow"]);
    expect((await fetcher.fetchNow(`http://site.test:${site.port}/fast`))?.title).toBe("Fast");
  });

  it("ignores a URL that is not http(s)", () => {
    const { fetcher } = makeFetcher({ concurrency: 0 });
    for (const url of ["javascript:alert(1)", "file:///etc/passwd", "not a url", "ftp://site.test/"]) fetcher.enqueue(1, 1, url);
    expect(fetcher.queued).toBe(0);
  });

  it("survives a store that throws: logs it and stores the next page", async () => {
    const site = origin({ "/": () => htmlPage("page") });
    const { fetcher, stored, logs } = makeFetcher({
      hostSpacingMillis: 0,
      store: (linkId) => {
        if (linkId === 1) throw new Error("FOREIGN KEY constraint failed");
      },
    });
    fetcher.enqueue(1, 1, `http://a.test:${site.port}/`);
    fetcher.enqueue(2, 1, `http://b.test:${site.port}/`);
    await fetcher.whenIdle();
    expect(stored.map((entry) => entry.linkId)).toEqual([2]);
    expect(fetcher.counts.storeErrors).toBe(1);
    expect(logs).toEqual(["linkshelf: storing the page of link 1 failed: FOREIGN KEY constraint failed"]);
  });

  it("stops: aborts the fetch in flight, drops what waits, stores nothing more and takes no new link", async () => {
    let aborted = false;
    const site = origin({
      "/": (request) => new Promise<Response>((resolve) => {
        request.signal.addEventListener("abort", () => {
          aborted = true;
          resolve(new Response("late"));
        });
      }),
    });
    const { fetcher, stored, time } = makeFetcher({ concurrency: 1 });
    fetcher.enqueue(1, 1, `http://a.test:${site.port}/`);
    fetcher.enqueue(2, 1, `http://b.test:${site.port}/`);
    await until(() => site.hits.length === 1, "the first request");
    await fetcher.stop();
    expect([fetcher.active, fetcher.queued]).toEqual([0, 0]);
    await until(() => aborted, "the origin to see the request abandoned");
    fetcher.enqueue(3, 1, `http://c.test:${site.port}/`);
    expect(fetcher.queued).toBe(0);
    expect(await fetcher.fetchNow(`http://c.test:${site.port}/`)).toBeNull();
    time.advance(10_000);
    expect(site.hits).toEqual(["/"]);
    expect(stored).toEqual([]);
  });
});

describe("stopping an immediate fetch", () => {
  it("aborts a fetchNow in flight: it answers null", async () => {
    const site = origin({ "/": (request) => new Promise<Response>((resolve) => request.signal.addEventListener("abort", () => resolve(new Response("late")))) });
    const { fetcher } = makeFetcher();
    const pending = fetcher.fetchNow(`http://site.test:${site.port}/`);
    await until(() => site.hits.length === 1, "the request");
    await fetcher.stop();
    expect(await pending).toBeNull();
  });
});

describe("the CPU share of reading pages", () => {
  it("waits after each step so that the work stays within its share, steps of every fetch queued together", async () => {
    expect(FETCHER_LIMITS.cpuShare).toBe(0.03);
    let now = 1000;
    const sleeps: number[] = [];
    const pace = cpuShareOf(0.1, () => now, async (millis) => void sleeps.push(millis));
    await pace(10);
    await pace(10);
    expect(sleeps).toEqual([90, 180]);
    now += 500;
    await pace(5);
    expect(sleeps.at(-1)).toBe(45);
    await pace(0);
    expect(sleeps.at(-1)).toBe(45);
    now += 45;
    await pace(0);
    expect(sleeps.at(-1)).toBe(0);
  });

  it("paces the extraction of a large page step by step", async () => {
    const site = origin({ "/": () => new Response(new TextEncoder().encode(`<title>t</title><p>${"word ".repeat(40_000)}</p>`), { headers: { "content-type": "text/html" } }) });
    const spent: number[] = [];
    const result = await fetchPage(new URL(`http://site.test:${site.port}/`), policy(), async (millis) => void spent.push(millis));
    expect(result.kind).toBe("page");
    // 200,000 characters are read 32 Ki at a time: 7 steps, and the choice of text at the end.
    expect(spent).toHaveLength(8);
  });
});

describe("LINKSHELF_FETCH_CONTENT", () => {
  const store = () => undefined;
  const log = () => undefined;

  it("off: the capture is the one that never fetches, queued links and immediate fetches alike", async () => {
    const site = origin({ "/": () => htmlPage("page") });
    const config = loadConfig({}, { LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_FAVICON_ALLOW_PRIVATE: "1" });
    const capture = createContentCapture({ config, clock: Date.now, log }, store, { connect: mappedConnect() });
    expect(capture).toBe(CAPTURE_OFF);
    capture.enqueue(1, 1, `${site.url}/`);
    expect(await capture.fetchNow(`${site.url}/`)).toBeNull();
    await capture.stop();
    expect(site.hits).toEqual([]);
  });

  it("on (the default): a fetcher under the favicon proxy's address rule", async () => {
    const site = origin({ "/": () => htmlPage("Local page") });
    for (const [allow, expected] of [["0", null], ["1", "Local page"]] as const) {
      const config = loadConfig({}, { LINKSHELF_FAVICON_ALLOW_PRIVATE: allow });
      const capture = createContentCapture({ config, clock: Date.now, log }, store, { connect: mappedConnect() });
      expect(capture).toBeInstanceOf(ContentFetcher);
      expect((await capture.fetchNow(`${site.url}/`))?.title ?? null).toBe(expected);
      await capture.stop();
    }
    expect(site.hits).toEqual(["/"]);
  });

  it("LINKSHELF_FETCH_PRIVATE=1 lets page fetches reach loopback by itself; 0 or unset does not", async () => {
    const site = origin({ "/": () => htmlPage("Local page") });
    for (const [env, expected] of [[{ LINKSHELF_FETCH_PRIVATE: "1" }, "Local page"], [{ LINKSHELF_FETCH_PRIVATE: "0" }, null], [{}, null]] as const) {
      const config = loadConfig({}, env);
      const capture = createContentCapture({ config, clock: Date.now, log }, store, { connect: mappedConnect() });
      expect((await capture.fetchNow(`${site.url}/`))?.title ?? null).toBe(expected);
      await capture.stop();
    }
    expect(site.hits).toEqual(["/"]);
  });
});
