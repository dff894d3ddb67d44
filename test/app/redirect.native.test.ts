/**
 * A listening server answers `/l/:id` from Bun's own router, outside Elysia's hooks (see
 * src/redirect/link-redirect.ts), while `app.handle` and the paths Bun's router does not match go
 * through Elysia's. Both must be the same redirect: here every kind of answer is asked for both
 * ways, over one app and one database, and compared header by header, with the clicks counted
 * and the access log lines written.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { SESSION_RENEW_WITHIN_MS, SESSION_TTL_MS } from "../../src/auth/sessions";
import { createCollection, createLink, createUser, makeEnv, sessionCookie, type TestEnv, type TestUser } from "../support/helpers";

const BROWSER = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
/** `<ISO time> <address> <method> <path> <status> <ms>ms` */
const ACCESS_LINE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z (\S+) ([A-Z]+) (\S+) (\d{3}) \d+\.\dms$/;
/** Requests per minute each way: the scenarios below stay under it, the last one goes over. */
const LIMIT = 40;

/** What two answers must share: status, body, and every header but the ones that name the moment. */
async function shapeOf(response: Response) {
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !["date", "ratelimit-remaining", "set-cookie", "content-length"].includes(name)));
  return { status: response.status, headers, body: await response.text() };
}

describe("GET and HEAD /l/:id from Bun's router", () => {
  let env: TestEnv;
  let origin: string;
  let alice: TestUser;
  let open: number;
  let closed: number;
  const lines: string[] = [];
  /** Requests to /l/ sent so far, both ways. */
  let sent = 0;

  beforeAll(async () => {
    env = makeEnv({ LINKSHELF_LOG: "access", LINKSHELF_RATE_LIMIT: `${LIMIT}/60` }, { log: (line) => void lines.push(line) });
    alice = await createUser(env);
    const shared = await createCollection(env, alice, { name: "Shared", visibility: "PUBLIC" });
    open = (await createLink(env, alice, { url: "https://example.com/open", collectionIds: [shared.id] })).id;
    closed = (await createLink(env, alice, { url: "https://example.com/closed" })).id;
    env.app.listen({ port: 0, hostname: "127.0.0.1" });
    origin = `http://127.0.0.1:${env.app.server!.port}`;
  });
  afterAll(async () => {
    await env.app.stop(true);
  });

  const clicksOf = (id: number) => (env.db.$client.query("SELECT clicks FROM links WHERE id = ?").get(id) as { clicks: number }).clicks;
  /**
   * both sends one request through the listening server, then the same through app.handle (peer
   * 127.0.0.1 both ways); `handledHeaders` when app.handle's request must carry its own (a session of its own).
   */
  const both = async (method: string, path: string, headers: Record<string, string> = {}, handledHeaders = headers) => {
    const served = await fetch(`${origin}${path}`, { method, headers, redirect: "manual" });
    const handled = await env.app.handle(new Request(`${origin}${path}`, { method, headers: handledHeaders }));
    sent += 2;
    return [served, handled] as const;
  };

  it("is registered with Bun's router, and the listening server serves it there", async () => {
    const routes = (env.app.config.serve as { routes?: Record<string, unknown> } | undefined)?.routes ?? {};
    expect(Object.keys(routes)).toEqual(["/l/:id"]);
    expect(Object.keys(routes["/l/:id"] as object).sort()).toEqual(["GET", "HEAD"]);
  });

  it("answers 302 with the same headers both ways, counting a click each time; HEAD counts none", async () => {
    const before = clicksOf(open);
    const [served, handled] = await both("GET", `/l/${open}`);
    expect(await shapeOf(served)).toEqual(await shapeOf(handled));
    expect([served.status, served.headers.get("location"), served.headers.get("cache-control")]).toEqual([302, "https://example.com/open", "no-store"]);
    expect(served.headers.get("ratelimit-limit")).toBe(String(LIMIT));
    // One bucket (the same peer): the second answer has one request fewer left.
    expect(Number(served.headers.get("ratelimit-remaining")) - Number(handled.headers.get("ratelimit-remaining"))).toBe(1);
    expect(clicksOf(open)).toBe(before + 2);

    const [servedHead, handledHead] = await both("HEAD", `/l/${open}`);
    expect(await shapeOf(servedHead)).toEqual(await shapeOf(handledHead));
    expect(servedHead.status).toBe(302);
    expect(clicksOf(open)).toBe(before + 2);
  });

  it("answers the same 404 both ways: JSON for a program, the sign-in page for a browser, for a private link and for ids that do not exist", async () => {
    for (const id of [String(closed), "999999", "abc"]) {
      for (const headers of [{}, BROWSER]) {
        const [served, handled] = await both("GET", `/l/${id}`, headers);
        const shape = await shapeOf(served);
        expect(shape).toEqual(await shapeOf(handled));
        expect(shape.status).toBe(404);
        if (headers === BROWSER) expect(shape.body).toContain("This link is private or does not exist");
        else expect(JSON.parse(shape.body)).toEqual({ message: "There is nothing here.", code: "NOT_FOUND" });
        expect(served.headers.get("ratelimit-limit")).toBe(String(LIMIT));
      }
    }
    expect(clicksOf(closed)).toBe(0);
  });

  it("opens the owner's private link by token or session, and renews a session in the last half of its life both ways", async () => {
    const before = clicksOf(closed);
    const [byToken, byTokenHandled] = await both("GET", `/l/${closed}`, { authorization: `Bearer ${alice.token}` });
    expect(await shapeOf(byToken)).toEqual(await shapeOf(byTokenHandled));
    expect(byToken.status).toBe(302);

    const cookies = [sessionCookie(env, alice.user.id), sessionCookie(env, alice.user.id)];
    env.clock.now += SESSION_TTL_MS - SESSION_RENEW_WITHIN_MS + 60_000;
    const [served, handled] = await both("GET", `/l/${closed}`, { cookie: cookies[0]!, ...BROWSER }, { cookie: cookies[1]!, ...BROWSER });
    expect(await shapeOf(served)).toEqual(await shapeOf(handled));
    expect(served.status).toBe(302);
    for (const [response, cookie] of [[served, cookies[0]!], [handled, cookies[1]!]] as const) {
      expect(response.headers.get("set-cookie")).toStartWith(`${cookie}; `);
      expect(response.headers.get("set-cookie")).toContain("HttpOnly");
    }
    expect(clicksOf(closed)).toBe(before + 4);
  });

  it("logs each answer in one access line, the same both ways", async () => {
    const logged = () => lines.map((line) => ACCESS_LINE.exec(line)).filter((match) => match?.[3]?.startsWith("/l/")).map((match) => match!.slice(1).join(" "));
    // app.handle's line is written once the answer has gone (after the response), so it may come after the next request's: count, not order.
    for (let turn = 0; turn < 100 && logged().length < sent; turn++) await Bun.sleep(1);
    const redirects = logged();
    expect(redirects).toHaveLength(sent);
    const tally = new Map<string, number>();
    for (const line of redirects) tally.set(line, (tally.get(line) ?? 0) + 1);
    // Every request above was sent both ways: each line is there an even number of times.
    expect([...tally].filter(([, times]) => times % 2 === 1)).toEqual([]);
    expect([...tally.keys()].sort()).toEqual([
      `127.0.0.1 GET /l/${closed} 302`, `127.0.0.1 GET /l/${closed} 404`, `127.0.0.1 GET /l/${open} 302`, "127.0.0.1 GET /l/999999 404",
      "127.0.0.1 GET /l/abc 404", `127.0.0.1 HEAD /l/${open} 302`,
    ].sort());
  });

  it("refuses over the limit with the same 429 both ways, never counting more clicks than the limit lets through", async () => {
    const before = clicksOf(open);
    let served: Response;
    let handled: Response;
    do [served, handled] = await both("GET", `/l/${open}`); while (handled.status === 302);
    const shape = await shapeOf(handled);
    expect(shape.status).toBe(429);
    expect(shape.headers["retry-after"]).toMatch(/^\d+$/);
    // The server's request may have been the last one allowed; the next pair is refused both ways.
    [served, handled] = await both("GET", `/l/${open}`);
    expect(await shapeOf(served)).toEqual(await shapeOf(handled));
    expect(served.status).toBe(429);
    const allowed = clicksOf(open) - before;
    expect(allowed).toBeLessThanOrEqual(LIMIT);
  });
});
