import { afterEach, describe, expect, it } from "bun:test";
import { declaredSize, discoverIcons } from "../../src/favicon/discover";
import { placeholderHue, placeholderLetter, placeholderSvg } from "../../src/favicon/placeholder";
import { etagOf, FAVICON_LIMITS } from "../../src/favicon/service";
import { isSvgDocument, sniffIcon } from "../../src/favicon/sniff";
import {
  bytesOf,
  fakeOrigin,
  GIF,
  getFavicon,
  ICO,
  JPEG,
  makeFaviconEnv,
  page,
  PNG,
  pngOfSize,
  redirectTo,
  resolverOf,
  SVG,
  WEBP,
  type FakeOrigin,
  type Handler,
} from "../support/favicon.fixtures";

const DAY = 24 * 60 * 60 * 1000;
const MINUTE = 60 * 1000;
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

const origins: FakeOrigin[] = [];
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const origin of origins.splice(0)) origin.stop();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** origin starts a fake origin on 127.0.0.1 that is stopped after the test. */
function origin(routes: Record<string, Handler>): FakeOrigin {
  const started = fakeOrigin(routes);
  origins.push(started);
  return started;
}

/** An app allowed to reach the 127.0.0.1 fake origins. */
const allowedEnv = (options: Parameters<typeof makeFaviconEnv>[0] = {}) => makeFaviconEnv({ allowPrivate: true, ...options });

const expectCachingHeaders = (headers: Headers) => {
  expect(headers.get("cache-control")).toBe("public, max-age=86400");
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  expect(headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
};

const expectPlaceholder = (response: Awaited<ReturnType<typeof getFavicon>>) => {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("image/svg+xml");
  expect(response.headers.get("content-security-policy")).toBe(SVG_CSP);
  expectCachingHeaders(response.headers);
  expect(response.text).toStartWith('<svg xmlns="http://www.w3.org/2000/svg"');
  expect(response.text).toContain("<rect");
};

describe("GET /favicon finds the site's icon", () => {
  it("serves a <link rel=icon> PNG with its real type, whatever the origin claims", async () => {
    const site = origin({ "/": () => page('<link rel="icon" href="/static/icon.png">'), "/static/icon.png": () => bytesOf(PNG, "text/html") });
    const response = await getFavicon(allowedEnv(), `${site.url}/some/page?q=1`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("content-security-policy")).toBeNull();
    expectCachingHeaders(response.headers);
    expect(response.headers.get("etag")).toBe(etagOf(PNG));
    expect(response.bytes).toEqual(PNG);
    expect(site.hits).toEqual(["/", "/static/icon.png"]);
  });

  it("serves an SVG icon with the sandboxing Content-Security-Policy", async () => {
    const site = origin({ "/": () => page('<link rel="icon" type="image/svg+xml" href="/icon.svg">'), "/icon.svg": () => bytesOf(SVG) });
    const response = await getFavicon(allowedEnv(), site.url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(response.headers.get("content-security-policy")).toBe(SVG_CSP);
    expect(response.text).toBe(SVG);
  });

  it.each([
    ["x-icon", ICO, "image/x-icon"],
    ["gif", GIF, "image/gif"],
    ["jpeg", JPEG, "image/jpeg"],
    ["webp", WEBP, "image/webp"],
  ] as const)("recognises %s by its magic bytes", async (_name, bytes, type) => {
    const site = origin({ "/": () => page('<link rel="shortcut icon" href="/i">'), "/i": () => bytesOf(bytes, "image/png") });
    const response = await getFavicon(allowedEnv(), site.url);
    expect(response.headers.get("content-type")).toBe(type);
    expect(response.bytes).toEqual(bytes);
  });

  it("prefers the largest declared size, so a 180 px apple-touch-icon beats 16 and 32 px icons", async () => {
    const big = pngOfSize(300);
    const site = origin({
      "/": () => page(
        '<link rel="icon" sizes="16x16" href="/16.png">' +
        '<link rel="apple-touch-icon" sizes="180x180" href="/180.png">' +
        '<link rel="icon" sizes="32x32" href="/32.png">',
      ),
      "/16.png": () => bytesOf(PNG),
      "/32.png": () => bytesOf(PNG),
      "/180.png": () => bytesOf(big),
    });
    const response = await getFavicon(allowedEnv(), site.url);
    expect(response.bytes).toEqual(big);
    expect(site.hits).toEqual(["/", "/180.png"]);
  });

  it("counts an apple-touch-icon without sizes as 180 px, an SVG and sizes=any as larger than any size", async () => {
    const site = origin({
      "/": () => page(
        '<link rel="icon" href="/plain.ico">' +
        '<link rel="apple-touch-icon" href="/touch.png">' +
        '<link rel="icon" sizes="512x512" href="/512.png">' +
        '<link rel="icon" href="/vector.svg">',
      ),
      "/vector.svg": () => bytesOf(SVG),
    });
    const response = await getFavicon(allowedEnv(), site.url);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(site.hits).toEqual(["/", "/vector.svg"]);
  });

  it("falls back to the next declared icon when the best one is not an image", async () => {
    const site = origin({
      "/": () => page('<link rel="apple-touch-icon" href="/broken.png"><link rel="icon" sizes="16x16" href="/ok.png">'),
      "/broken.png": () => bytesOf("<html><body>Not found</body></html>", "image/png"),
      "/ok.png": () => bytesOf(PNG),
    });
    const response = await getFavicon(allowedEnv(), site.url);
    expect(response.bytes).toEqual(PNG);
    expect(site.hits).toEqual(["/", "/broken.png", "/ok.png"]);
  });

  it("falls back to /favicon.ico when the page declares no icon", async () => {
    const site = origin({ "/": () => page('<link rel="stylesheet" href="/s.css">'), "/favicon.ico": () => bytesOf(ICO, "text/plain") });
    const response = await getFavicon(allowedEnv(), site.url);
    expect(response.headers.get("content-type")).toBe("image/x-icon");
    expect(response.bytes).toEqual(ICO);
    expect(site.hits).toEqual(["/", "/favicon.ico"]);
  });

  it("falls back to /favicon.ico when the root page itself fails", async () => {
    const site = origin({ "/": () => new Response("boom", { status: 500 }), "/favicon.ico": () => bytesOf(ICO) });
    const response = await getFavicon(allowedEnv(), site.url);
    expect(response.bytes).toEqual(ICO);
  });

  it("resolves a relative href against the page URL after redirects", async () => {
    const site = origin({
      "/": () => redirectTo("/home/"),
      "/home/": () => page('<link rel="icon" href="img/icon.png">'),
      "/home/img/icon.png": () => bytesOf(PNG),
    });
    const response = await getFavicon(allowedEnv(), site.url);
    expect(response.bytes).toEqual(PNG);
    expect(site.hits).toEqual(["/", "/home/", "/home/img/icon.png"]);
  });

  it("honours <base href> for relative hrefs", async () => {
    const site = origin({ "/": () => page('<base href="/assets/"><link rel="icon" href="icon.png">'), "/assets/icon.png": () => bytesOf(PNG) });
    expect((await getFavicon(allowedEnv(), site.url)).bytes).toEqual(PNG);
  });

  it("resolves a protocol-relative href to another host, reached through the checked address with its own Host", async () => {
    const cdn = origin({ "/icons/site.png": () => bytesOf(PNG) });
    const site = origin({ "/": () => page(`<link rel="icon" href="//cdn.test:${cdn.port}/icons/site.png">`) });
    const resolve = resolverOf({ "cdn.test": ["127.0.0.1"] });
    const response = await getFavicon(allowedEnv({ resolve }), site.url);
    expect(response.bytes).toEqual(PNG);
    expect(cdn.hits).toEqual(["/icons/site.png"]);
    expect(cdn.hosts).toEqual([`cdn.test:${cdn.port}`]);
    expect(resolve.asked).toEqual(["cdn.test"]);
  });

  it("sends GET with a User-Agent naming linkshelf", async () => {
    let seen: Request | undefined;
    const site = origin({ "/": (request) => ((seen = request), page("")) });
    await getFavicon(allowedEnv(), site.url);
    expect(seen?.method).toBe("GET");
    expect(seen?.headers.get("user-agent")).toMatch(/^linkshelf\/\d+\.\d+\.\d+ \(favicon fetcher\)$/);
  });
});

describe("GET /favicon answers a placeholder when there is no usable icon", () => {
  it("draws the host's first letter when the page has no icon and there is no /favicon.ico", async () => {
    const site = origin({ "/": () => page("") });
    const resolve = resolverOf({ "www.zebra.test": ["127.0.0.1"] });
    const response = await getFavicon(allowedEnv({ resolve }), `http://www.zebra.test:${site.port}/`);
    expectPlaceholder(response);
    expect(response.text).toBe(placeholderSvg("www.zebra.test"));
    expect(response.text).toContain(">Z</text>");
    expect(site.hits).toEqual(["/", "/favicon.ico"]);
  });

  it("never passes HTML through, whatever it is called and whatever type it claims", async () => {
    const html = "<!DOCTYPE html><html><head></head><body><script>alert(1)</script></body></html>";
    const site = origin({
      "/": () => page('<link rel="icon" href="/icon.png"><link rel="icon" href="/icon.svg">'),
      "/icon.png": () => bytesOf(html, "image/png"),
      "/icon.svg": () => bytesOf(`<html><body><svg xmlns="http://www.w3.org/2000/svg"></svg><script>alert(1)</script></body></html>`, "image/svg+xml"),
      "/favicon.ico": () => bytesOf(html, "image/x-icon"),
    });
    const response = await getFavicon(allowedEnv(), site.url);
    expectPlaceholder(response);
    expect(response.text).not.toContain("script");
    expect(site.hitsOf("/icon.png") + site.hitsOf("/icon.svg") + site.hitsOf("/favicon.ico")).toBe(3);
  });

  it("ignores an icon over 512 KiB and takes the next one", async () => {
    const site = origin({
      "/": () => page('<link rel="icon" sizes="512x512" href="/huge.png">'),
      "/huge.png": () => bytesOf(pngOfSize(FAVICON_LIMITS.iconBytes + 1)),
      "/favicon.ico": () => bytesOf(ICO),
    });
    const response = await getFavicon(allowedEnv(), site.url);
    expect(response.bytes).toEqual(ICO);
    expect(site.hits).toEqual(["/", "/huge.png", "/favicon.ico"]);
  });

  it("accepts an icon of exactly 512 KiB", async () => {
    const icon = pngOfSize(FAVICON_LIMITS.iconBytes);
    const site = origin({ "/": () => page('<link rel="icon" href="/big.png">'), "/big.png": () => bytesOf(icon) });
    expect((await getFavicon(allowedEnv(), site.url)).bytes).toEqual(icon);
  });

  it("stops reading an endless icon at the cap instead of downloading it", async () => {
    let sent = 0;
    let cancelled = false;
    const endless = () =>
      new Response(new ReadableStream({
        pull(controller) {
          const chunk = pngOfSize(64 * 1024);
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
        cancel() {
          cancelled = true;
        },
      }), { headers: { "content-type": "image/png" } });
    const site = origin({ "/": () => page('<link rel="icon" href="/endless.png">'), "/endless.png": endless, "/favicon.ico": endless });
    const response = await getFavicon(allowedEnv(), site.url);
    expectPlaceholder(response);
    expect(cancelled).toBe(true);
    // Whatever sat in socket buffers aside, nowhere near an unbounded download.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it("answers the placeholder when the origin is too slow for the lookup's time budget", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    cleanups.push(() => release());
    const site = origin({ "/": async () => (await gate, page("")) });
    const env = allowedEnv({ timeoutMillis: 150 });
    const response = await getFavicon(env, site.url);
    expectPlaceholder(response);
    expect(site.hitsOf("/favicon.ico")).toBe(0);
  });

  it("follows 3 redirects", async () => {
    const site = origin({
      "/": () => redirectTo("/r1", 301),
      "/r1": () => redirectTo("/r2", 307),
      "/r2": () => redirectTo("/r3", 308),
      "/r3": () => page('<link rel="icon" href="/icon.png">'),
      "/icon.png": () => bytesOf(PNG),
    });
    expect((await getFavicon(allowedEnv(), site.url)).bytes).toEqual(PNG);
  });

  it("gives up on a fourth redirect without following it", async () => {
    const site = origin({
      "/": () => redirectTo("/r1"),
      "/r1": () => redirectTo("/r2"),
      "/r2": () => redirectTo("/r3"),
      "/r3": () => redirectTo("/r4"),
      "/r4": () => page('<link rel="icon" href="/icon.png">'),
      "/icon.png": () => bytesOf(PNG),
    });
    const response = await getFavicon(allowedEnv(), site.url);
    expectPlaceholder(response);
    expect(site.hitsOf("/r4")).toBe(0);
    expect(site.hitsOf("/icon.png")).toBe(0);
  });

  it("counts the redirects of an icon separately and caps them too", async () => {
    const site = origin({
      "/": () => page('<link rel="icon" href="/i0">'),
      "/i0": () => redirectTo("/i1"),
      "/i1": () => redirectTo("/i2"),
      "/i2": () => redirectTo("/i3"),
      "/i3": () => redirectTo("/i4"),
      "/i4": () => bytesOf(PNG),
    });
    expectPlaceholder(await getFavicon(allowedEnv(), site.url));
    expect(site.hitsOf("/i4")).toBe(0);
  });

  it("answers the placeholder when the host does not resolve", async () => {
    const response = await getFavicon(allowedEnv({ resolve: resolverOf({}) }), "https://nowhere.test/");
    expectPlaceholder(response);
    expect(response.text).toContain(">N</text>");
  });
});

describe("GET /favicon ETags", () => {
  it("answers 304 without a body to a matching If-None-Match, strong or weak, and 200 otherwise", async () => {
    const site = origin({ "/": () => page('<link rel="icon" href="/i.png">'), "/i.png": () => bytesOf(PNG) });
    const env = allowedEnv();
    const first = await getFavicon(env, site.url);
    const etag = first.headers.get("etag")!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await getFavicon(env, site.url, { "if-none-match": ifNoneMatch });
      expect(again.status).toBe(304);
      expect(again.bytes.length).toBe(0);
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe("public, max-age=86400");
    }
    const changed = await getFavicon(env, site.url, { "if-none-match": '"something-else"' });
    expect(changed.status).toBe(200);
    expect(changed.bytes).toEqual(PNG);
  });

  it("gives the placeholder a stable ETag too", async () => {
    const env = allowedEnv({ resolve: resolverOf({}) });
    const first = await getFavicon(env, "https://nowhere.test/");
    const again = await getFavicon(env, "https://nowhere.test/", { "if-none-match": first.headers.get("etag")! });
    expect(again.status).toBe(304);
  });
});

describe("GET /favicon refuses a bad url parameter", () => {
  it.each([
    ["a missing parameter", null],
    ["an empty parameter", ""],
    ["javascript:", "javascript:alert(1)"],
    ["ftp:", "ftp://example.com/favicon.ico"],
    ["file:", "file:///etc/passwd"],
    ["data:", "data:image/png;base64,iVBORw0KGgo="],
    ["a relative URL", "/favicon.ico"],
    ["a host-less relative URL", "example.com"],
    ["garbage", "ht!tp://::not a url"],
    ["an unparsable host", "http://exa mple.com/"],
    ["an over-long URL", `https://example.com/${"a".repeat(2100)}`],
  ])("answers 400 INVALID_URL for %s, without any outbound lookup", async (_name, target) => {
    const resolve = resolverOf({});
    const response = await getFavicon(makeFaviconEnv({ resolve }), target);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect(response.body).toEqual({ message: expect.any(String), code: "INVALID_URL" });
    expect(resolve.asked).toEqual([]);
  });
});

describe("the favicon cache", () => {
  const iconSite = () => origin({ "/": () => page('<link rel="icon" href="/i.png">'), "/i.png": () => bytesOf(PNG) });

  it("answers the second request for an origin without contacting it, whatever the path", async () => {
    const site = iconSite();
    const env = allowedEnv();
    await getFavicon(env, `${site.url}/a`);
    expect(site.hits.length).toBe(2);
    const again = await getFavicon(env, `${site.url}/b?c=d`);
    expect(again.bytes).toEqual(PNG);
    expect(again.headers.get("etag")).toBe(etagOf(PNG));
    expect(site.hits.length).toBe(2);
  });

  it("keeps a found icon for 7 days, then fetches it again", async () => {
    const site = iconSite();
    const env = allowedEnv();
    await getFavicon(env, site.url);
    env.clock.now += 7 * DAY - MINUTE;
    await getFavicon(env, site.url);
    expect(site.hitsOf("/")).toBe(1);
    env.clock.now += 2 * MINUTE;
    expect((await getFavicon(env, site.url)).bytes).toEqual(PNG);
    expect(site.hitsOf("/")).toBe(2);
  });

  it("keeps a miss for 1 day, then looks again", async () => {
    const site = origin({ "/": () => page("") });
    const env = allowedEnv();
    expectPlaceholder(await getFavicon(env, site.url));
    env.clock.now += DAY - MINUTE;
    expectPlaceholder(await getFavicon(env, site.url));
    expect(site.hitsOf("/")).toBe(1);
    env.clock.now += 2 * MINUTE;
    await getFavicon(env, site.url);
    expect(site.hitsOf("/")).toBe(2);
  });

  it("stores a found icon with its type and ETag, and a miss without bytes", async () => {
    const found = iconSite();
    const missing = origin({ "/": () => page("") });
    const env = allowedEnv();
    await getFavicon(env, found.url);
    await getFavicon(env, missing.url);
    const rows = env.db.$client.query("SELECT origin, content_type, length(bytes) AS size, etag, expires_at - fetched_at AS ttl FROM favicon_cache ORDER BY fetched_at").all();
    expect(rows).toEqual([
      { origin: found.url, content_type: "image/png", size: PNG.length, etag: etagOf(PNG), ttl: 7 * DAY },
      { origin: missing.url, content_type: null, size: null, etag: null, ttl: DAY },
    ]);
  });

  it("shares one outbound lookup among 50 concurrent requests for a new origin", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    cleanups.push(() => release());
    let reached!: () => void;
    const rootRequested = new Promise<void>((resolve) => (reached = resolve));
    const site = origin({
      "/": async () => (reached(), await gate, page('<link rel="icon" href="/i.png">')),
      "/i.png": () => bytesOf(PNG),
    });
    const env = allowedEnv();
    const pending = Array.from({ length: 50 }, () => getFavicon(env, site.url));
    // The origin holds its answer until the lookup has reached it, with all 50 requests made.
    await rootRequested;
    release();
    const responses = await Promise.all(pending);
    expect(responses.every((r) => r.status === 200 && r.headers.get("content-type") === "image/png")).toBe(true);
    expect(site.hitsOf("/")).toBe(1);
    expect(site.hitsOf("/i.png")).toBe(1);
  });

  it("keeps separate entries for different ports of one host", async () => {
    const a = iconSite();
    const b = iconSite();
    const env = allowedEnv();
    await getFavicon(env, a.url);
    await getFavicon(env, b.url);
    expect(a.hitsOf("/")).toBe(1);
    expect(b.hitsOf("/")).toBe(1);
  });

  it("is bounded: storing past 10,000 origins drops the oldest", async () => {
    const env = allowedEnv();
    const insert = env.db.$client.prepare("INSERT INTO favicon_cache (origin, fetched_at, expires_at) VALUES (?1, ?2, ?3)");
    env.db.$client.transaction(() => {
      for (let i = 0; i < FAVICON_LIMITS.cacheRows; i++) insert.run(`https://old${i}.test`, env.clock.now - DAY + i, env.clock.now + DAY);
    })();
    await getFavicon(env, iconSite().url);
    const count = env.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM favicon_cache").all()[0]!.n;
    expect(count).toBe(FAVICON_LIMITS.cacheRows);
    expect(env.db.$client.query("SELECT 1 FROM favicon_cache WHERE origin = 'https://old0.test'").all()).toEqual([]);
    expect(env.db.$client.query("SELECT 1 FROM favicon_cache WHERE origin = 'https://old1.test'").all()).toEqual([{ 1: 1 }]);
  });

  it("sweeps expired entries when it stores a new one", async () => {
    const env = allowedEnv();
    env.db.$client.run("INSERT INTO favicon_cache (origin, fetched_at, expires_at) VALUES ('https://stale.test', 0, 1)");
    await getFavicon(env, iconSite().url);
    expect(env.db.$client.query("SELECT origin FROM favicon_cache WHERE origin = 'https://stale.test'").all()).toEqual([]);
  });
});

describe("concurrent lookups", () => {
  /** heldSites: one fake origin answering for `count` made-up names, each root page held until `release`. */
  function heldSites(count: number) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    cleanups.push(() => release());
    let running = 0;
    let mostAtOnce = 0;
    const waiters: { count: number; resolve: () => void }[] = [];
    const site = origin({
      "/": async () => {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        for (const waiter of waiters) if (site.hitsOf("/") >= waiter.count) waiter.resolve();
        await gate;
        running--;
        return page('<link rel="icon" href="/i.png">');
      },
      "/i.png": () => bytesOf(PNG),
    });
    const names = Array.from({ length: count }, (_, i) => `site${i}.test`);
    const resolve = resolverOf(Object.fromEntries(names.map((name) => [name, ["127.0.0.1"]])));
    return {
      site,
      resolve,
      urls: names.map((name) => `http://${name}:${site.port}/`),
      release: () => release(),
      mostAtOnce: () => mostAtOnce,
      /** reached resolves once the origin has seen `count` root page requests. */
      reached: (count: number) => new Promise<void>((resolve) => (site.hitsOf("/") >= count ? resolve() : waiters.push({ count, resolve }))),
    };
  }

  const expectBusy = (response: Awaited<ReturnType<typeof getFavicon>>) => {
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ message: "The favicon proxy is busy looking up other sites' icons. Try again shortly.", code: "BUSY" });
    expect(response.headers.get("retry-after")).toBe("5");
    expect(response.headers.get("cache-control")).toBeNull();
  };

  it("runs 8 lookups at once, queues 32 more and refuses the rest with 503 and Retry-After, then serves the queued ones", async () => {
    const { concurrentLookups, queuedLookups } = FAVICON_LIMITS;
    expect([concurrentLookups, queuedLookups]).toEqual([8, 32]);
    const sites = heldSites(concurrentLookups + queuedLookups + 5);
    const env = allowedEnv({ resolve: sites.resolve });
    const pending = sites.urls.map((url) => getFavicon(env, url));
    await sites.reached(concurrentLookups);
    const refused = await Promise.all(pending.slice(concurrentLookups + queuedLookups));
    for (const response of refused) expectBusy(response);
    expect(sites.site.hitsOf("/")).toBe(concurrentLookups);

    sites.release();
    const served = await Promise.all(pending.slice(0, concurrentLookups + queuedLookups));
    expect(served.every((r) => r.status === 200 && r.headers.get("content-type") === "image/png")).toBe(true);
    expect(sites.mostAtOnce()).toBe(concurrentLookups);
    expect(sites.site.hitsOf("/")).toBe(concurrentLookups + queuedLookups);
    // A refused origin was not cached as a miss: asked again, it is looked up.
    expect((await getFavicon(env, sites.urls.at(-1)!)).headers.get("content-type")).toBe("image/png");
  });

  it("refuses a lookup that waited longer than its queue time, and answers cached origins meanwhile", async () => {
    const sites = heldSites(3);
    const env = allowedEnv({ resolve: sites.resolve, concurrentLookups: 1, queueMillis: 20 });
    const cached = origin({ "/": () => page('<link rel="icon" href="/i.png">'), "/i.png": () => bytesOf(PNG) });
    expect((await getFavicon(env, cached.url)).status).toBe(200);

    const first = getFavicon(env, sites.urls[0]!);
    await sites.reached(1);
    const waited = await getFavicon(env, sites.urls[1]!);
    expect(waited.status).toBe(503);
    expect(waited.headers.get("retry-after")).toBe("1");
    expect((await getFavicon(env, cached.url)).status).toBe(200);
    expect(cached.hitsOf("/")).toBe(1);
    sites.release();
    expect((await first).status).toBe(200);
  });

  it("gives requests for one origin one place in the queue and one lookup", async () => {
    const sites = heldSites(3);
    const env = allowedEnv({ resolve: sites.resolve, concurrentLookups: 1, queuedLookups: 1 });
    const first = getFavicon(env, sites.urls[0]!);
    await sites.reached(1);
    const same = Array.from({ length: 50 }, (_, i) => getFavicon(env, `${sites.urls[1]}page${i}`));
    expectBusy(await getFavicon(env, sites.urls[2]!));
    sites.release();
    const answers = await Promise.all([first, ...same]);
    expect(answers.every((r) => r.status === 200)).toBe(true);
    expect(sites.site.hitsOf("/")).toBe(2);
  });
});

describe("icon discovery", () => {
  const pageUrl = new URL("https://example.test/dir/page.html");
  const discover = (html: string) => discoverIcons(new TextEncoder().encode(html), pageUrl).map((c) => [c.url.href, c.size]);

  it("reads rel tokens case-insensitively and skips rels that are not icons", () => {
    expect(discover(
      '<link rel="Shortcut Icon" href="/a.ico"><link rel="mask-icon" href="/m.svg"><link rel="stylesheet" href="/s.css">' +
      '<link rel="apple-touch-icon-precomposed" href="/p.png"><link rel="preload icon" href="/b.png">',
    )).toEqual([["https://example.test/p.png", 180], ["https://example.test/a.ico", 0], ["https://example.test/b.png", 0]]);
  });

  it("keeps http(s) icons only, once each, without fragments", () => {
    expect(discover(
      '<link rel="icon" href="data:image/png;base64,AAAA"><link rel="icon" href="javascript:alert(1)">' +
      '<link rel="icon" href="icon.png#x"><link rel="icon" href="/dir/icon.png"><link rel="icon" href="">',
    )).toEqual([["https://example.test/dir/icon.png", 0]]);
  });

  it("reads sizes as the largest dimension and any as unbounded", () => {
    expect(declaredSize("16x16 32x32 48x24")).toBe(48);
    expect(declaredSize("any")).toBe(Infinity);
    expect(declaredSize("16X16")).toBe(16);
    expect(declaredSize("big")).toBeNull();
    expect(declaredSize(null)).toBeNull();
  });

  it("ignores icon-looking text outside link elements", () => {
    expect(discover('<!-- <link rel="icon" href="/c.png"> --><script>"<link rel=icon href=/s.png>"</script><p>rel="icon"</p>')).toEqual([]);
  });
});

describe("magic-byte sniffing", () => {
  const text = (s: string) => new TextEncoder().encode(s);

  it("names each accepted type and nothing else", () => {
    expect(sniffIcon(PNG)).toBe("image/png");
    expect(sniffIcon(ICO)).toBe("image/x-icon");
    expect(sniffIcon(GIF)).toBe("image/gif");
    expect(sniffIcon(JPEG)).toBe("image/jpeg");
    expect(sniffIcon(WEBP)).toBe("image/webp");
    expect(sniffIcon(text(SVG))).toBe("image/svg+xml");
    expect(sniffIcon(new Uint8Array([0, 0, 1, 0, 0, 0]))).toBeNull();
    expect(sniffIcon(text("RIFF0000WAVEfmt "))).toBeNull();
    expect(sniffIcon(new Uint8Array([0x89, 0x50]))).toBeNull();
    expect(sniffIcon(new Uint8Array(0))).toBeNull();
  });

  it.each([
    ['<svg xmlns="http://www.w3.org/2000/svg"/>', true],
    ["\uFEFF  <!-- made by hand -->\n<svg>", true],
    ['<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg>', true],
    ["<!DOCTYPE html><svg>", false],
    ['<!DOCTYPE svg [<!ENTITY x "y">]><svg>', false],
    ["<html><svg></svg></html>", false],
    ["<SVG>", false],
    ["<svgx>", false],
    ["<svg", false],
    ["hello <svg>", false],
    ["<!-- unterminated <svg>", false],
  ])("takes %p as an SVG document: %p", (source, expected) => {
    expect(isSvgDocument(new TextEncoder().encode(source))).toBe(expected);
  });
});

describe("the placeholder", () => {
  it("uses the first letter of the host after www., upper-cased, and decodes punycode", () => {
    expect(placeholderLetter("www.example.com")).toBe("E");
    expect(placeholderLetter("github.com")).toBe("G");
    expect(placeholderLetter("xn--bcher-kva.example")).toBe("B");
    expect(placeholderLetter("xn--80ak6aa92e.com")).toBe("А");
    expect(placeholderLetter("192.168.1.20")).toBe("1");
    expect(placeholderLetter("::1")).toBe("1");
    expect(placeholderLetter("-.-")).toBe("?");
  });

  it("derives a stable colour from the host", () => {
    expect(placeholderHue("example.com")).toBe(placeholderHue("EXAMPLE.com"));
    expect(placeholderHue("example.com")).not.toBe(placeholderHue("example.org"));
    expect(placeholderSvg("example.com")).toContain(`fill="hsl(${placeholderHue("example.com")}, 45%, 40%)"`);
  });

  it("is well-formed XML with only the letter as text", () => {
    const svg = placeholderSvg("www.example.com");
    const texts: string[] = [];
    new HTMLRewriter().on("text", { text: (chunk) => void texts.push(chunk.text) }).transform(svg);
    expect(texts.join("")).toBe("E");
    expect(isSvgDocument(new TextEncoder().encode(svg))).toBe(true);
  });
});
