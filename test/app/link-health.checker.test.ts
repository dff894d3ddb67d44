/**
 * The link checker against fake origins on 127.0.0.1: how each answer is classified, the confirm
 * rule on a clock the test moves, and the background scheduling (order, pacing, per-host spacing,
 * concurrency, stop) on hand-moved timers. Made-up names resolve to a made-up public address that
 * `mappedConnect` reaches at 127.0.0.1; links written as 127.0.0.1 need the private opt-in.
 */
import { describe, expect, it } from "bun:test";
import { loadConfig, type LinkCheckConfig } from "../../src/common/config";
import { CHECKER_LIMITS, LinkChecker, type CheckerOptions } from "../../src/link-health/checker";
import { CHECK_USER_AGENT } from "../../src/link-health/probe";
import type { Probe } from "../../src/shelf/link-checks";
import { recordCheck } from "../../src/shelf/link-checks";
import { deferred, manualTimers, until } from "../support/capture.fixtures";
import { FAKE_PUBLIC, mappedConnect, redirectTo, resolverOf, stoppedAfterEach } from "../support/favicon.fixtures";
import { createUser, get, makeEnv, shelfFor, type TestEnv } from "../support/helpers";

const DAY = 86_400_000;
const { origin, worker } = stoppedAfterEach<LinkChecker>();

const NAMES = Object.fromEntries(["site.test", "a.test", "b.test", "c.test", "d.test", "e.test", "f.test", "new.test"].map((name) => [name, [FAKE_PUBLIC]]));
const RULE: LinkCheckConfig = { periodMs: 7 * DAY, allowPrivate: false, confirmFailures: 3, confirmSpanMs: 7 * DAY };

/** world: an empty database with one user, whose links the test adds. */
async function world() {
  const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" });
  const alice = await createUser(env);
  const shelf = shelfFor(env, alice);
  const add = (url: string, clicks = 0, lastClickedAt: number | null = null) => {
    const link = shelf.links.create({ name: url, url, favorite: false }, env.clock.now++);
    env.db.$client.query("UPDATE links SET clicks = ?, last_clicked_at = ? WHERE id = ?").run(clicks, lastClickedAt, link.id);
    return link.id;
  };
  return { env, alice, shelf, add };
}

/** checkerOf: a checker on hand-moved timers over `env`'s database. */
function checkerOf(env: TestEnv, config: Partial<LinkCheckConfig> = {}, options: CheckerOptions = {}) {
  const time = manualTimers();
  const connect = mappedConnect();
  const logs: string[] = [];
  const checker = new LinkChecker(
    { db: env.db, clock: () => time.clock.now, log: (line) => void logs.push(line), config: { ...RULE, ...config } },
    { resolve: resolverOf(NAMES), connect, timers: time.timers, timeoutMillis: 2000, ...options },
  );
  worker(checker);
  return { checker, time, connect, logs };
}

const healthOf = (env: TestEnv, id: number) =>
  env.db.$client.query<{ state: string; broken: number; failures: number; moved_to: string | null; checks: string }, [number]>(
    "SELECT state, broken, failures, moved_to, checks FROM link_health WHERE link_id = ?").get(id);

describe("checking one link", () => {
  async function check(url: string, config: Partial<LinkCheckConfig> = {}, options: CheckerOptions = {}): Promise<Probe> {
    const { env } = await world();
    return checkerOf(env, config, options).checker.checkNow(1, url);
  }

  it("finds a page that answers 200 ok, asking with HEAD and a browser-like User-Agent", async () => {
    const seen: string[] = [];
    const site = origin({ "/page": (request) => (seen.push(`${request.method} ${request.headers.get("user-agent")}`), new Response("hi")) });
    expect(await check(`http://site.test:${site.port}/page`)).toEqual({ outcome: "ok", status: 200, detail: "HTTP 200" });
    expect(seen).toEqual([`HEAD ${CHECK_USER_AGENT}`]);
    expect(CHECK_USER_AGENT).toStartWith("Mozilla/5.0 ");
  });

  it("asks again with GET when HEAD is refused (405), and believes the GET", async () => {
    const methods: string[] = [];
    const site = origin({ "/page": (request) => (methods.push(request.method), request.method === "HEAD" ? new Response(null, { status: 405 }) : new Response("x".repeat(200_000))) });
    expect(await check(`http://site.test:${site.port}/page`)).toMatchObject({ outcome: "ok", status: 200 });
    expect(methods).toEqual(["HEAD", "GET"]);
  });

  it("calls a chain of permanent redirects (301 then 308) moved, offering where it ends", async () => {
    const site = origin({
      "/old": () => redirectTo("/older", 301),
      "/older": () => redirectTo(`http://new.test:${site.port}/new`, 308),
      "/new": () => new Response("here"),
    });
    expect(await check(`http://site.test:${site.port}/old`)).toEqual({
      outcome: "moved", status: 200, detail: `moved permanently to http://new.test:${site.port}/new`, movedTo: `http://new.test:${site.port}/new`,
    });
  });

  it("calls a temporary redirect ok, not moved", async () => {
    const site = origin({ "/a": () => redirectTo("/b", 302), "/b": () => new Response("b") });
    expect(await check(`http://site.test:${site.port}/a`)).toMatchObject({ outcome: "ok", status: 200 });
  });

  it("calls a deep path redirected to the site's home page a soft 404", async () => {
    const site = origin({ "/2019/some/article": () => redirectTo("/", 301), "/": () => new Response("home") });
    expect(await check(`http://site.test:${site.port}/2019/some/article`)).toMatchObject({ outcome: "soft-404", status: 200 });
  });

  it.each([404, 410])("calls %p gone", async (status) => {
    const site = origin({ "/removed": () => new Response("gone", { status: 410 }) });
    const path = status === 404 ? "/missing" : "/removed";
    expect(await check(`http://site.test:${site.port}${path}`)).toEqual({ outcome: "gone", status, detail: `HTTP ${status}` });
  });

  it("calls a name that does not resolve gone, and a 500 failing", async () => {
    const site = origin({ "/broken": () => new Response("oops", { status: 500 }) });
    expect(await check("http://nowhere.test/page")).toEqual({ outcome: "gone", status: null, detail: "the name does not resolve" });
    expect(await check(`http://site.test:${site.port}/broken`)).toEqual({ outcome: "failing", status: 500, detail: "HTTP 500" });
  });

  it("calls a server that never answers failing once the time limit passes", async () => {
    const never = deferred<Response>();
    const site = origin({ "/slow": () => never.promise });
    const started = performance.now();
    expect(await check(`http://site.test:${site.port}/slow`, {}, { timeoutMillis: 100 })).toEqual({ outcome: "failing", status: null, detail: "timeout" });
    expect(performance.now() - started).toBeLessThan(1000);
    never.resolve(new Response("late"));
  });

  it("calls a connection reset failing", async () => {
    const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: (socket) => void socket.terminate() } });
    try {
      expect(await check(`http://site.test:${server.port}/`)).toMatchObject({ outcome: "failing", status: null });
    } finally {
      server.stop(true);
    }
  });

  it("calls a server that is down failing (connection refused), and ok when it is back", async () => {
    const site = origin({ "/": () => new Response("up") });
    const url = `http://site.test:${site.port}/`;
    site.stop();
    expect(await check(url)).toMatchObject({ outcome: "failing", status: null, detail: "connection refused" });
    const back = Bun.serve({ hostname: "127.0.0.1", port: site.port, fetch: () => new Response("back") });
    try {
      expect(await check(url)).toMatchObject({ outcome: "ok", status: 200 });
    } finally {
      back.stop(true);
    }
  });

  it("does not check a loopback link without the private opt-in: nothing is sent", async () => {
    const site = origin({ "/": () => new Response("router") });
    expect(await check(`http://127.0.0.1:${site.port}/`)).toEqual({ outcome: "unchecked", status: null, detail: "private address" });
    expect(site.hits).toEqual([]);
    expect(await check(`http://127.0.0.1:${site.port}/`, { allowPrivate: true })).toMatchObject({ outcome: "ok", status: 200 });
    expect(site.hits).toEqual(["/"]);
  });
});

describe("the confirm rule", () => {
  const failure: Probe = { outcome: "gone", status: 404, detail: "HTTP 404" };
  const success: Probe = { outcome: "ok", status: 200, detail: "HTTP 200" };

  it("does not call a link broken after three failures within a day", async () => {
    const { env, add } = await world();
    const id = add("https://example.com/a");
    for (const hour of [0, 6, 12]) recordCheck(env.db, id, failure, 1_000_000 + hour * 3_600_000, RULE);
    expect(healthOf(env, id)).toMatchObject({ state: "gone", broken: 0, failures: 3 });
  });

  it("calls a link broken after three failures over seven days, and a success clears it", async () => {
    const { env, add } = await world();
    const id = add("https://example.com/a");
    for (const day of [0, 3.5, 7]) recordCheck(env.db, id, failure, 1_000_000 + day * DAY, RULE);
    expect(healthOf(env, id)).toMatchObject({ broken: 1, failures: 3 });
    recordCheck(env.db, id, success, 1_000_000 + 8 * DAY, RULE);
    expect(healthOf(env, id)).toMatchObject({ state: "ok", broken: 0, failures: 0 });
  });

  it("starts over after a success in between: three failures in all, but not three in a row", async () => {
    const { env, add } = await world();
    const id = add("https://example.com/a");
    recordCheck(env.db, id, failure, 1_000_000, RULE);
    recordCheck(env.db, id, failure, 1_000_000 + 3 * DAY, RULE);
    recordCheck(env.db, id, success, 1_000_000 + 4 * DAY, RULE);
    recordCheck(env.db, id, failure, 1_000_000 + 8 * DAY, RULE);
    expect(healthOf(env, id)).toMatchObject({ broken: 0, failures: 1 });
  });

  it("keeps the last five checks, newest first", async () => {
    const { env, add } = await world();
    const id = add("https://example.com/a");
    for (let i = 0; i < 7; i++) recordCheck(env.db, id, { outcome: "failing", status: 500 + i, detail: `HTTP ${500 + i}` }, 1_000_000 + i * DAY, RULE);
    expect(JSON.parse(healthOf(env, id)!.checks).map((check: { status: number }) => check.status)).toEqual([506, 505, 504, 503, 502]);
  });

  it("is kept by the background checker: a 404 at every check breaks the link at the third, a period apart", async () => {
    const { env, add } = await world();
    const site = origin({});
    const id = add(`http://site.test:${site.port}/missing`);
    const { checker, time } = checkerOf(env);
    checker.start();
    for (let round = 0; round < 3; round++) {
      await until(() => site.hits.length === round + 1, `check ${round + 1}`);
      await checker.whenIdle();
      if (round < 2) expect(healthOf(env, id)).toMatchObject({ broken: 0, failures: round + 1 });
      time.advance(7 * DAY);
    }
    expect(healthOf(env, id)).toMatchObject({ state: "gone", broken: 1, failures: 3 });
  });
});

describe("a failing link is checked again sooner, never later", () => {
  const failure: Probe = { outcome: "gone", status: 404, detail: "HTTP 404" };
  const success: Probe = { outcome: "ok", status: 200, detail: "HTTP 200" };
  const MINUTE = 60_000;
  const HOUR = 3_600_000;

  it.each([
    { period: "7d", confirm: "3/7d", periodMs: 7 * DAY, afterFailure: 3.5 * DAY },
    { period: "7d", confirm: "3/0s", periodMs: 7 * DAY, afterFailure: HOUR },
    { period: "1h", confirm: "3/7d", periodMs: HOUR, afterFailure: HOUR },
    { period: "30m", confirm: "3/2h", periodMs: 30 * MINUTE, afterFailure: 30 * MINUTE },
    { period: "1m", confirm: "2/1m", periodMs: MINUTE, afterFailure: MINUTE },
    { period: "2s", confirm: "3/0s", periodMs: 2000, afterFailure: 2000 },
    { period: "1s", confirm: "1/0s", periodMs: 1000, afterFailure: 1000 },
  ])("with LINKSHELF_LINK_CHECK=$period and $confirm, a failure is checked again after $afterFailure ms, a success after the period", async ({ period, confirm, periodMs, afterFailure }) => {
    const { env, add } = await world();
    const rule = loadConfig({}, { LINKSHELF_LINK_CHECK: period, LINKSHELF_LINK_CHECK_CONFIRM: confirm }).linkCheck;
    const failing = add("https://example.com/failing");
    const working = add("https://example.com/working");
    const nextAfter = (id: number, probe: Probe) => {
      const row = recordCheck(env.db, id, probe, 1_000_000, rule)!;
      return row.nextAt - row.checkedAt!;
    };
    expect([nextAfter(failing, failure), nextAfter(working, success)]).toEqual([afterFailure, periodMs]);
    expect(afterFailure).toBeLessThanOrEqual(periodMs);
  });

  it("with the shortest period (1s) and 3/0s, a link answering 404 on 127.0.0.1 is broken at its third check, two periods after the first", async () => {
    const { env, alice, add } = await world();
    const site = origin({});
    const id = add(`http://127.0.0.1:${site.port}/missing`);
    const rule = loadConfig({}, { LINKSHELF_LINK_CHECK: "1s", LINKSHELF_LINK_CHECK_CONFIRM: "3/0s", LINKSHELF_LINK_CHECK_ALLOW_PRIVATE: "1" }).linkCheck;
    // The per-host spacing (10 s, its own rule below) set under the period, so that the period alone paces the link.
    const { checker, time } = checkerOf(env, rule, { hostSpacingMillis: 0 });
    expect(rule.periodMs).toBe(1000);
    checker.start();
    await until(() => site.hits.length === 1, "the first check");
    await checker.whenIdle();
    for (const round of [2, 3]) {
      expect(healthOf(env, id)).toMatchObject({ state: "gone", broken: 0, failures: round - 1 });
      time.advance(1000);
      await until(() => site.hits.length === round, `check ${round}, a period after the one before`);
      await checker.whenIdle();
    }
    expect(healthOf(env, id)).toMatchObject({ state: "gone", broken: 1, failures: 3 });
    const broken = await get(env, "/api/v1/links/health?state=broken", { token: alice.token });
    expect(broken.body.links.map((item: { link: { id: number } }) => item.link.id)).toEqual([id]);
  });

  it("with the default spacing of a host's requests, a 404 link on a 1s period is checked every 10 s and broken at its third check", async () => {
    const { env, add } = await world();
    const site = origin({});
    const id = add(`http://site.test:${site.port}/missing`);
    const { checker, time } = checkerOf(env, { periodMs: 1000, confirmFailures: 3, confirmSpanMs: 0 });
    checker.start();
    await until(() => site.hits.length === 1, "the first check");
    await checker.whenIdle();
    for (const round of [2, 3]) {
      time.advance(9_999);
      await Bun.sleep(5);
      expect(site.hits.length).toBe(round - 1);
      time.advance(1);
      await until(() => site.hits.length === round, `check ${round}, 10 s after the one before`);
      await checker.whenIdle();
    }
    expect(healthOf(env, id)).toMatchObject({ broken: 1, failures: 3 });
  });

  it("waits idle no longer than until the next link falls due: after a check that outlasts the pace, the link is checked a period after it ended, not at the idle minute", async () => {
    const { env, add } = await world();
    const gate = deferred();
    const site = origin({ "/": async () => (await gate.promise, new Response("ok")) });
    add(`http://site.test:${site.port}/`);
    const { checker, time } = checkerOf(env, { periodMs: 30_000 });
    expect(CHECKER_LIMITS.idleMillis).toBe(60_000);
    checker.start();
    await until(() => site.hits.length === 1, "the first check");
    // The pacing's 30 s pass while the check runs: with nothing else due, the checker waits idle.
    time.advance(40_000);
    gate.resolve();
    await until(() => checker.active === 0, "the first check's end");
    await checker.whenIdle();
    expect(time.due()).toEqual([time.clock.now + 30_000]);
    time.advance(29_999);
    await Bun.sleep(5);
    expect(site.hits.length).toBe(1);
    time.advance(1);
    await until(() => site.hits.length === 2, "the second check, a period after the first ended");
  });

  it("with no link due, looks again after the idle minute, or after the period when that is shorter: a link added meanwhile is checked then", async () => {
    const { env, add } = await world();
    const site = origin({ "/": () => new Response("ok") });
    const daily = checkerOf(env, { periodMs: DAY });
    daily.checker.start();
    expect(daily.time.due()).toEqual([daily.time.clock.now + CHECKER_LIMITS.idleMillis]);
    await daily.checker.stop();
    const { checker, time } = checkerOf(env, { periodMs: 1000 });
    checker.start();
    expect(time.due()).toEqual([time.clock.now + 1000]);
    add(`http://site.test:${site.port}/`);
    time.advance(1000);
    await until(() => site.hits.length === 1, "the new link's check, a period later");
  });
});

describe("the background schedule", () => {
  it("checks the most clicked links first, then the most recently clicked, one at a time when asked to", async () => {
    const { env, add } = await world();
    const site = origin({ "/": () => new Response("ok") });
    add(`http://a.test:${site.port}/`, 0);
    add(`http://b.test:${site.port}/`, 5, 1_000);
    add(`http://c.test:${site.port}/`, 5, 9_000);
    add(`http://d.test:${site.port}/`, 10, 1_000);
    const { checker, time } = checkerOf(env, { periodMs: 4000 }, { concurrency: 1 });
    checker.start();
    for (let n = 1; n <= 4; n++) {
      await until(() => site.hosts.length === n, `check ${n}`);
      await checker.whenIdle();
      time.advance(1000);
    }
    expect(site.hosts.map((host) => host.split(":")[0])).toEqual(["d.test", "c.test", "b.test", "a.test"]);
  });

  it("reads the links again once its batch is a minute old, not before: a link clicked more, added since, goes next then", async () => {
    const { env, add } = await world();
    const site = origin({ "/": () => new Response("ok") });
    for (const host of ["a", "b", "c"]) add(`http://${host}.test:${site.port}/`);
    // Three links over 90 s: one every 30 s.
    const { checker, time } = checkerOf(env, { periodMs: 90_000 }, { concurrency: 1 });
    expect(CHECKER_LIMITS.batchMillis).toBe(60_000);
    checker.start();
    await until(() => site.hits.length === 1, "the first check");
    await checker.whenIdle();
    add(`http://d.test:${site.port}/`, 50);
    time.advance(30_000);
    await until(() => site.hits.length === 2, "the second check, from the batch read 30 s ago");
    await checker.whenIdle();
    time.advance(30_000);
    await until(() => site.hits.length === 3, "the third, from a batch read again at a minute");
    await checker.whenIdle();
    time.advance(30_000);
    await until(() => site.hits.length === 4, "the fourth");
    expect(site.hosts.map((host) => host.split(":")[0])).toEqual(["a.test", "b.test", "d.test", "c.test"]);
  });

  it("spreads the checks over the period: N links, one every period ÷ N, never a burst at start", async () => {
    const { env, add } = await world();
    const site = origin({ "/": () => new Response("ok") });
    for (const host of ["a", "b", "c", "d"]) add(`http://${host}.test:${site.port}/`);
    const { checker, time } = checkerOf(env, { periodMs: 4 * DAY });
    checker.start();
    await until(() => site.hits.length === 1, "the first check");
    await checker.whenIdle();
    expect(checker.pace).toBe(DAY);
    time.advance(DAY - 1);
    await Bun.sleep(5);
    expect(site.hits.length).toBe(1);
    time.advance(1);
    await until(() => site.hits.length === 2, "the second check, a day later");
    await checker.whenIdle();
    time.advance(DAY);
    await until(() => site.hits.length === 3, "the third");
    await checker.whenIdle();
    time.advance(DAY);
    await until(() => site.hits.length === 4, "the fourth");
    await checker.whenIdle();
    // Every link checked: the next round begins a period after the first check.
    time.advance(DAY - 1);
    await Bun.sleep(5);
    expect(site.hits.length).toBe(4);
    time.advance(1);
    await until(() => site.hits.length === 5, "the first link again, a period later");
  });

  it("sends a host one request at a time, 10 s apart", async () => {
    const { env, add } = await world();
    const site = origin({ "/1": () => new Response("1"), "/2": () => new Response("2"), "/3": () => new Response("3") });
    for (const path of ["/1", "/2", "/3"]) add(`http://site.test:${site.port}${path}`);
    const { checker, time } = checkerOf(env, { periodMs: 3 });
    expect(CHECKER_LIMITS.hostSpacingMillis).toBe(10_000);
    checker.start();
    await until(() => site.hits.length === 1, "the first check");
    await checker.whenIdle();
    time.advance(9_999);
    await Bun.sleep(5);
    expect(site.hits.length).toBe(1);
    time.advance(1);
    await until(() => site.hits.length === 2, "the second check, 10 s after the first ended");
    await checker.whenIdle();
    time.advance(10_000);
    await until(() => site.hits.length === 3, "the third");
  });

  it("runs at most 4 checks at once", async () => {
    const { env, add } = await world();
    const gate = deferred();
    const site = origin({ "/": async () => (await gate.promise, new Response("ok")) });
    for (const host of ["a", "b", "c", "d", "e", "f"]) add(`http://${host}.test:${site.port}/`);
    const { checker, time } = checkerOf(env, { periodMs: 6 });
    expect(CHECKER_LIMITS.concurrency).toBe(4);
    checker.start();
    for (let n = 0; n < 10; n++) time.advance(1);
    await until(() => site.hits.length === 4, "four checks");
    await Bun.sleep(20);
    for (let n = 0; n < 10; n++) time.advance(1);
    expect([site.hits.length, checker.active]).toEqual([4, 4]);
    gate.resolve();
    await until(() => checker.active === 0, "the four checks' ends");
    for (let n = 0; n < 10; n++) time.advance(1);
    await until(() => site.hits.length === 6, "the other two");
  });

  it("records a loopback link as not checked without the opt-in, sending nothing", async () => {
    const { env, add } = await world();
    const site = origin({ "/": () => new Response("nas") });
    const id = add(`http://127.0.0.1:${site.port}/`);
    const { checker } = checkerOf(env);
    checker.start();
    await until(() => healthOf(env, id) !== null, "the link recorded");
    expect(healthOf(env, id)).toMatchObject({ state: "unchecked", broken: 0 });
    expect(JSON.parse(healthOf(env, id)!.checks)[0]).toMatchObject({ outcome: "unchecked", detail: "private address" });
    expect(site.hits).toEqual([]);
  });

  it("does nothing when LINKSHELF_LINK_CHECK is off", async () => {
    const { env, add } = await world();
    add("http://site.test/");
    const { checker, time } = checkerOf(env, { periodMs: null });
    checker.start();
    expect(time.due()).toEqual([]);
    expect(checker.active).toBe(0);
  });

  it("stops on stop(): the check in flight is aborted and not recorded, nothing more starts", async () => {
    const { env, add } = await world();
    const never = deferred<Response>();
    const site = origin({ "/": () => never.promise });
    const id = add(`http://site.test:${site.port}/`);
    add(`http://a.test:${site.port}/`);
    const { checker, time } = checkerOf(env, { periodMs: 2 });
    checker.start();
    await until(() => site.hits.length === 1, "the first check");
    await checker.stop();
    time.advance(DAY);
    await Bun.sleep(5);
    expect([site.hits.length, checker.active, healthOf(env, id)]).toEqual([1, 0, null]);
    never.resolve(new Response("late"));
  });
});
