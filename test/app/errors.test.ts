/**
 * The edge of the HTTP surface, through `app.handle`: a request whose URL cannot be formed
 * (Bun hands over a bare path when `Host` does not parse) is 400 BAD_REQUEST before routing,
 * and the one error handler never throws. The same through the real binary is in
 * http.binary.test.ts.
 */
import { describe, expect, it } from "bun:test";
import { SESSION_COOKIE, createSession } from "../../src/auth/sessions";
import { createCollection, createLink, createUser, get, makeEnv, snapshot, type TestEnv } from "../support/helpers";

/** A request as Bun builds it when the `Host` header does not parse: its `url` is only the target, or not a URL at all. */
function requestWithUrl(url: string, headers: Record<string, string> = {}): Request {
  const request = new Request("http://localhost/", { headers });
  Object.defineProperty(request, "url", { value: url });
  return request;
}

async function publicLink(env: TestEnv) {
  const owner = await createUser(env);
  const shared = await createCollection(env, owner, { name: "Shared", visibility: "PUBLIC" });
  const link = await createLink(env, owner, { collectionIds: [shared.id] });
  // The rate-limit window these requests spent is over by the time the test starts.
  env.clock.now += 61_000;
  return { owner, link };
}

const clicksOf = (env: TestEnv, id: number) =>
  env.db.$client.query<{ clicks: number }, [number]>("SELECT clicks FROM links WHERE id = ?").get(id)!.clicks;

describe("a request whose Host does not parse", () => {
  const urls = (id: number) => [`/l/${id}`, `/l/${id}?x=1`, `/${id}`, "/favicon?url=https://example.com/", "/api/v1/collections", "/", "/login", "http://[::1/l/1", "http://a:b/l/1", "http://a:99999/l/1"];

  it("is 400 BAD_REQUEST as JSON before routing: no click, no rate-limit budget spent, nothing stored", async () => {
    const lines: string[] = [];
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "3/60" }, { log: (line) => void lines.push(line) });
    const { owner, link } = await publicLink(env);
    const before = snapshot(env);
    for (const url of urls(link.id)) {
      const variants: Record<string, string>[] = [{}, { authorization: `Bearer ${owner.token}` }, { accept: "application/json" }];
      for (const headers of variants) {
        const response = await env.app.handle(requestWithUrl(url, headers));
        expect({ url, status: response.status, type: response.headers.get("content-type") }).toEqual({ url, status: 400, type: expect.stringMatching(/^application\/json/) });
        expect(await response.json()).toEqual({ message: expect.stringContaining("Host"), code: "BAD_REQUEST" });
        expect(response.headers.get("ratelimit-limit")).toBeNull();
        expect(response.headers.get("location")).toBeNull();
      }
    }
    expect(clicksOf(env, link.id)).toBe(0);
    expect(snapshot(env)).toBe(before);
    // Nothing unexpected happened, so nothing was logged.
    expect(lines).toEqual([]);
    // The anonymous budget and the owner's are whole.
    expect((await get(env, `/l/${link.id}`)).headers.get("ratelimit-remaining")).toBe("2");
    expect((await get(env, "/api/v1/collections", { token: owner.token })).headers.get("ratelimit-remaining")).toBe("2");
  });

  it("is a 400 HTML page for a browser, on every path", async () => {
    const env = makeEnv();
    const { link } = await publicLink(env);
    for (const url of urls(link.id)) {
      const response = await env.app.handle(requestWithUrl(url, { accept: "text/html,application/xhtml+xml,*/*;q=0.8" }));
      const text = await response.text();
      expect({ url, status: response.status }).toEqual({ url, status: 400 });
      // The API and the favicon proxy answer JSON even to a browser, as for every other error.
      if (url.startsWith("/api/") || url.startsWith("/favicon")) expect(JSON.parse(text).code).toBe("BAD_REQUEST");
      else {
        expect(response.headers.get("content-type")).toStartWith("text/html");
        expect(text).toContain("<h1>Bad request</h1>");
        expect(text).toContain("Host header");
      }
    }
    expect(clicksOf(env, link.id)).toBe(0);
  });

  it("still serves a well-formed request with an odd but valid Host", async () => {
    const env = makeEnv();
    const { link } = await publicLink(env);
    const response = await env.app.handle(new Request(`http://link.example:8080/l/${link.id}`));
    expect(response.status).toBe(302);
    expect(clicksOf(env, link.id)).toBe(1);
  });
});

describe("the error handler", () => {
  it("answers a fixed 500 INTERNAL when reporting the failure fails too, and never throws", async () => {
    const env = makeEnv({}, {
      log: () => {
        throw new Error("the log is gone");
      },
    });
    const alice = await createUser(env);
    const cookie = `${SESSION_COOKIE}=${createSession(env.db, alice.user.id, env.clock.now).id}`;
    env.db.$client.run("DROP TABLE link_collections");
    for (const [path, headers] of [
      ["/api/v1/links/favorites", { authorization: `Bearer ${alice.token}` }],
      ["/", { cookie, accept: "text/html" }],
    ] as const) {
      const response = await env.app.handle(new Request(`http://localhost${path}`, { headers }));
      expect({ path, status: response.status }).toEqual({ path, status: 500 });
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ message: "Something went wrong on the server.", code: "INTERNAL" });
      expect(text).not.toContain("link_collections");
    }
  });
});
