/**
 * What the server logs, through `app.handle` with a log sink injected into the app: unexpected
 * errors in a bounded number of lines, and with `LINKSHELF_LOG=access` one line per request
 * that carries no secret. The same through the real binary is in http.binary.test.ts.
 */
import { describe, expect, it } from "bun:test";
import { createSession, SESSION_COOKIE } from "../../src/auth/sessions";
import { STACKS_PER_MINUTE, unexpectedErrorLog } from "../../src/request/log";
import { createCollection, createLink, createUser, get, makeEnv, post, START } from "../support/helpers";

/** `<ISO time> <address> <method> <path> <status> <ms>ms` */
const ACCESS_LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) (\S+) ([A-Z]+) (\S+) (\d{3}) (\d+\.\d)ms$/;

/** A log sink that keeps its lines; `lines(n)` waits for the n-th (the access log writes after the answer is sent). */
function sink() {
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  return {
    lines,
    log: (line: string) => {
      lines.push(line);
      for (const waiter of waiters.splice(0)) waiter();
    },
    async count(n: number): Promise<string[]> {
      while (lines.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return lines;
    },
  };
}

describe("unexpected errors", () => {
  it("log one line per failed request and the stack once, however many requests fail", async () => {
    const { lines, log } = sink();
    const env = makeEnv({}, { log });
    const alice = await createUser(env);
    env.db.$client.run("DROP TABLE link_collections");
    for (let i = 0; i < 300; i++) {
      const response = await get(env, `/api/v1/links/favorites?secret=qs-secret-${i}`, { token: alice.token });
      expect(response.status).toBe(500);
    }
    const stacks = lines.filter((line) => line.includes("\n"));
    const oneLiners = lines.filter((line) => !line.includes("\n"));
    expect(oneLiners).toHaveLength(300);
    expect(new Set(oneLiners)).toEqual(new Set(["linkshelf: unexpected error on GET /api/v1/links/favorites: SQLiteError: no such table: link_collections"]));
    expect(stacks).toHaveLength(1);
    expect(stacks[0]).toContain("no such table: link_collections");
    expect(stacks[0]!.split("\n").length).toBeLessThanOrEqual(12);
    const text = lines.join("\n");
    expect(text).not.toContain("qs-secret-");
    expect(text).not.toContain(alice.token);
    // About one short line per request, not a stack per request.
    expect(text.length).toBeLessThan(300 * 120 + 4000);
  });

  it("log at most a few stacks a minute, each distinct failure's once, and cut every summary to one line", () => {
    const lines: string[] = [];
    let now = START;
    const report = unexpectedErrorLog((line) => void lines.push(line), () => now);
    const request = new Request("http://localhost/x?token=secret");
    const failure = (site: number, message = "boom") => {
      const error = new Error(message);
      error.stack = `Error: ${message}\n    at site${site} (src/x.ts:${site}:1)\n    at caller (src/y.ts:1:1)`;
      return error;
    };
    const stackCount = () => lines.filter((line) => line.includes("\n")).length;

    for (let site = 0; site < 10; site++) report(request, failure(site));
    expect(stackCount()).toBe(STACKS_PER_MINUTE);
    expect(lines).toHaveLength(10 + STACKS_PER_MINUTE);
    // The same places again, with other messages: no stack for those already shown.
    for (let site = 0; site < STACKS_PER_MINUTE; site++) report(request, failure(site, `boom ${site}`));
    expect(stackCount()).toBe(STACKS_PER_MINUTE);

    now += 60_000;
    for (let site = 0; site < 10; site++) report(request, failure(site));
    expect(stackCount()).toBe(2 * STACKS_PER_MINUTE);
    expect(lines.filter((line) => line.includes("\n")).map((stack) => /at (site\d+)/.exec(stack)![1]))
      .toEqual(["site0", "site1", "site2", "site3", "site4", "site5", "site6", "site7", "site8", "site9"]);

    lines.length = 0;
    report(request, failure(99, `first line\nforged line ${"x".repeat(1000)}`));
    report(request, "a thrown string\r\nwith a second line");
    expect(lines[0]).toBe("linkshelf: unexpected error on GET /x: Error: first line");
    expect(lines.at(-1)).toBe("linkshelf: unexpected error on GET /x: a thrown string");
    report(request, failure(100, "y".repeat(1000)));
    expect(lines.at(-2)!.length).toBeLessThan(400);
  });
});

describe("the access log", () => {
  it("is off by default: nothing is logged for requests that go well or badly", async () => {
    const { lines, log, count } = sink();
    const env = makeEnv({}, { log });
    await get(env, "/healthz");
    await get(env, "/api/v1/collections");
    await get(env, "/no/such/page");
    // An unexpected error is logged; had an access line been written for the requests before, it would come first.
    env.db.$client.run("DROP TABLE link_collections");
    await get(env, "/api/v1/links/favorites", { token: (await createUser(env)).token });
    await count(1);
    expect(lines[0]).toStartWith("linkshelf: unexpected error on GET /api/v1/links/favorites");
  });

  it("adds no hook to any request while off, and one after-response hook when on", () => {
    expect(makeEnv().app.event.afterResponse ?? []).toHaveLength(0);
    expect(makeEnv({ LINKSHELF_LOG: "off" }).app.event.afterResponse ?? []).toHaveLength(0);
    expect(makeEnv({ LINKSHELF_LOG: "access" }).app.event.afterResponse ?? []).toHaveLength(1);
  });

  it("logs one line per request with LINKSHELF_LOG=access: arrival time, client, method, path without query, status, milliseconds", async () => {
    const { lines, log, count } = sink();
    const env = makeEnv({ LINKSHELF_LOG: "access", LINKSHELF_RATE_LIMIT: "5/60" }, { log });
    const owner = await createUser(env);
    const shared = await createCollection(env, owner, { name: "Shared", visibility: "PUBLIC" });
    const link = await createLink(env, owner, { collectionIds: [shared.id] });
    await count(2);
    lines.length = 0;
    env.clock.now = Date.parse("2026-11-25T04:00:00.000Z");

    const session = createSession(env.db, owner.user.id, env.clock.now).id;
    const sent: [string, string, Record<string, string>, number][] = [
      ["GET", `/l/${link.id}?token=${owner.token}`, { cookie: `${SESSION_COOKIE}=${session}` }, 302],
      ["GET", "/api/v1/collections?access_token=query-secret", { authorization: `Bearer ${owner.token}` }, 200],
      ["GET", "/api/v1/collections", { authorization: "Bearer lks_not-a-real-token" }, 401],
      ["GET", "/no/such/page", {}, 404],
      ["HEAD", "/healthz", {}, 200],
    ];
    for (const [method, path, headers, status] of sent) {
      expect((await env.app.handle(new Request(`http://localhost${path}`, { method, headers }))).status).toBe(status);
    }
    const login = await post(env, "/login", { body: `email=${owner.user.email}&password=${owner.password}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    const setup = await post(env, "/setup", { body: "code=ABCD-EFGH-JKLM&email=a@b.c&name=N&password=pw-secret-123", headers: { "content-type": "application/x-www-form-urlencoded" } });
    // Over the limit of 5 for the anonymous bucket: 429 is logged like any other answer.
    for (let i = 0; i < 5; i++) await get(env, "/favicon?url=javascript:x");

    await count(12);
    expect(lines.every((line) => ACCESS_LINE.test(line))).toBe(true);
    const parsed = lines.map((line) => ACCESS_LINE.exec(line)!.slice(1));
    expect(parsed.map(([, address, method, path, status]) => [address, method, path, Number(status)])).toEqual([
      ["127.0.0.1", "GET", `/l/${link.id}`, 302],
      ["127.0.0.1", "GET", "/api/v1/collections", 200],
      ["127.0.0.1", "GET", "/api/v1/collections", 401],
      ["127.0.0.1", "GET", "/no/such/page", 404],
      ["127.0.0.1", "HEAD", "/healthz", 200],
      ["127.0.0.1", "POST", "/login", login.status],
      ["127.0.0.1", "POST", "/setup", setup.status],
      ["127.0.0.1", "GET", "/favicon", 400],
      ["127.0.0.1", "GET", "/favicon", 400],
      ["127.0.0.1", "GET", "/favicon", 400],
      ["127.0.0.1", "GET", "/favicon", 400],
      ["127.0.0.1", "GET", "/favicon", 429],
    ]);
    // The time is the app clock's at arrival, as ISO 8601 UTC.
    expect(parsed[0]![0]).toStartWith("2026-11-25T04:00:00.");
    const text = lines.join("\n");
    for (const secret of [owner.token, session, owner.password, "query-secret", "pw-secret-123", "ABCD-EFGH-JKLM", "lks_not-a-real-token"]) {
      expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
    }
  });

  it("logs a request behind a trusted proxy with the client address the rate limiter uses", async () => {
    const { log, count } = sink();
    const env = makeEnv({ LINKSHELF_LOG: "access", LINKSHELF_TRUST_PROXY: "1" }, { log });
    await get(env, "/healthz", { headers: { "x-forwarded-for": "198.51.100.7" } });
    const [line] = await count(1);
    expect(ACCESS_LINE.exec(line!)?.[2]).toBe("198.51.100.7");
  });
});
