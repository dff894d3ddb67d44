/**
 * Route declarations (src/request/surface.ts): every route says where it is defined which surface it
 * belongs to, whether it is rate-limited and who may call it; the error mapping answers each
 * surface's errors in its own way (JSON, or an HTML page), and routes never translate errors
 * themselves (an unexpected error on a public page is a 500, not a 404).
 */
import { describe, expect, it } from "bun:test";
import { Elysia } from "elysia";
import { API_ROUTE, SURFACE_KEY, surfaceOf, surfaces, undeclaredRoutes } from "../../src/request/surface";
import { createCollection, createLink, createUser, get, makeEnv, request, sessionCookie, shelfFor, snapshot, type ApiResponse } from "../support/helpers";

const BROWSER = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

describe("route declarations", () => {
  it("are given by every route the app serves, and stay out of the OpenAPI document", async () => {
    const env = makeEnv();
    expect(env.app.routes.length).toBeGreaterThan(40);
    expect(undeclaredRoutes(env.app.routes)).toEqual([]);
    expect((await get(env, "/api/v1/openapi.json")).text).not.toContain(SURFACE_KEY);
  });

  it("would name a route added without one", () => {
    const app = new Elysia().use(surfaces)
      .get("/declared", () => "yes", { surface: API_ROUTE })
      .get("/forgotten", () => "no");
    expect(undeclaredRoutes(app.routes)).toEqual(["GET /forgotten"]);
    expect(surfaceOf(app.routes[0]!)).toEqual(API_ROUTE);
  });

  it("say truly which routes are rate-limited: exactly those answer with the RateLimit headers", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "1000/60" });
    const seen: string[] = [];
    const expected: string[] = [];
    for (const route of env.app.routes) {
      const path = route.path.replace(/:\w+/g, "1").replace("*", "anything");
      const response = await request(env, route.method === "ALL" ? "GET" : route.method, path);
      const where = `${route.method} ${route.path}`;
      seen.push(`${where}: ${response.headers.has("ratelimit-limit")}`);
      expected.push(`${where}: ${surfaceOf(route)!.limited}`);
    }
    expect(seen).toEqual(expected);
    // Both kinds are there.
    expect(expected.some((line) => line.endsWith("true"))).toBe(true);
    expect(expected.some((line) => line.endsWith("false"))).toBe(true);
  });
});

describe("the rate limit a route declares", () => {
  /** The budget of every key: each route is asked once more than it. */
  const BUDGET = 2;

  it("is the one it gets: a route declared limited is counted and refused past its budget, whoever asks; one not limited never is", async () => {
    // The failed sign-ins of the forms are logged: kept out of the test's output.
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: `${BUDGET}/60` }, { log: () => {} });
    const alice = await createUser(env);
    // A credential of its own for each request, all of one user: a route may end the session or revoke the token it was sent.
    const callers: Record<string, () => Record<string, string>> = {
      anyone: () => ({}),
      session: () => ({ cookie: sessionCookie(env, alice.user.id) }),
      token: () => ({ authorization: `Bearer ${shelfFor(env, alice).tokens.create("limit", env.clock.now++).token}` }),
    };
    const seen: string[] = [];
    const declared: string[] = [];
    for (const route of env.app.routes) {
      const path = route.path.replace(/:\w+/g, "1").replace("*", "anything");
      for (const [caller, credentials] of Object.entries(callers)) {
        // A new window: every key has its whole budget.
        env.clock.now += 61_000;
        const answers: ApiResponse[] = [];
        for (let sent = 0; sent <= BUDGET; sent++) answers.push(await request(env, route.method === "ALL" ? "GET" : route.method, path, { headers: credentials() }));
        const refused = answers.map((answer) => answer.status === 429 && answer.headers.has("retry-after"));
        const counted = answers.map((answer) => answer.headers.has("ratelimit-limit"));
        const limited = counted.every(Boolean) && refused.join() === [...Array(BUDGET).fill(false), true].join();
        const never = !counted.some(Boolean) && !refused.some(Boolean);
        const where = `${route.method} ${route.path} (${caller})`;
        seen.push(`${where}: ${limited ? "limited" : never ? "not limited" : `neither: ${answers.map((answer) => answer.status).join(", ")}`}`);
        declared.push(`${where}: ${surfaceOf(route)!.limited ? "limited" : "not limited"}`);
      }
    }
    expect(seen).toEqual(declared);
    expect(declared.filter((line) => line.endsWith(": limited")).length).toBeGreaterThan(30);
  });
});

describe("the error answer of each surface", () => {
  /** `html`: the answer is an HTML page (else JSON {message, code}). */
  const cases: { name: string; path: string; method?: string; headers?: Record<string, string>; status: number; html: boolean }[] = [
    { name: "the API: JSON, even to a browser", path: "/api/v1/links/abc", headers: BROWSER, status: 401, html: false },
    { name: "the API's unknown paths: JSON, even to a browser", path: "/api/v1/nothing", headers: BROWSER, status: 401, html: false },
    { name: "the API's prefix itself, which no route serves: JSON, even to a browser", path: "/api/v1", method: "DELETE", headers: BROWSER, status: 404, html: false },
    { name: "another API version, which nothing serves: JSON, even to a browser", path: "/api/v2/links", headers: BROWSER, status: 404, html: false },
    { name: "the favicon proxy: JSON, even to a browser", path: "/favicon", headers: BROWSER, status: 400, html: false },
    { name: "the redirect, for a program: JSON", path: "/l/999999", status: 404, html: false },
    { name: "the redirect, for a browser: a page", path: "/l/999999", headers: BROWSER, status: 404, html: true },
    { name: "a public collection: a page, whoever asks", path: "/c/999999", status: 404, html: true },
    { name: "a public collection's feed: a page, whoever asks", path: "/c/999999/feed", status: 404, html: true },
    { name: "the setup page once set up: a page, whoever asks", path: "/setup", status: 404, html: true },
    { name: "a cross-site sign-out: a page, whoever asks", path: "/logout", method: "POST", headers: { origin: "https://evil.example" }, status: 403, html: true },
    { name: "a path nothing serves, for a program: JSON", path: "/nothing/here", status: 404, html: false },
    { name: "a path nothing serves, for a browser: a page", path: "/nothing/here", headers: BROWSER, status: 404, html: true },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const env = makeEnv();
      const before = snapshot(env);
      const response = await request(env, c.method ?? "GET", c.path, { headers: c.headers });
      expect(response.status).toBe(c.status);
      if (c.html) {
        expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(response.text).toStartWith("<!doctype html>");
      } else {
        expect(response.headers.get("content-type")).toStartWith("application/json");
        expect(Object.keys(response.body).sort()).toEqual(["code", "message"]);
      }
      expect(snapshot(env)).toBe(before);
    });
  }

  it("draws a signed-in page's error inside the user's shell, and the same error without a session as the plain page", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const signedIn = await get(env, "/links/999999/edit", { headers: { cookie } });
    expect(signedIn.status).toBe(404);
    expect(signedIn.text).toContain("<h1>Not found</h1>");
    expect(signedIn.text).toContain('<a href="/account">Account</a>');
    expect(signedIn.text).toContain("Back to your links");
    const anonymous = await get(env, "/c/999999");
    expect(anonymous.text).toContain("<h1>Not found</h1>");
    expect(anonymous.text).not.toContain('<a href="/account">Account</a>');
  });

  it("answers a refused redirect_uri on the extension handoff with the error page, whoever asks, and mints nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const before = snapshot(env);
    for (const headers of [{}, BROWSER]) {
      const response = await get(env, "/extension/authorize?redirect_uri=https%3A%2F%2Fevil.example%2Fcb", { headers: { ...headers, cookie } });
      expect(response.status).toBe(400);
      expect(response.text).toContain("<h1>Cannot connect the extension</h1>");
      expect(response.text).toContain("No token was created.");
    }
    expect(snapshot(env)).toBe(before);
  });

  it("answers a cross-site form post with the one 403 page on every form", async () => {
    const env = makeEnv({}, { setupCode: "code" });
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const pages = new Set<string>();
    for (const path of ["/login", "/logout", "/links", "/account/tokens", "/extension/authorize?redirect_uri=x"]) {
      const response = await request(env, "POST", path, { headers: { cookie, origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" }, body: "name=x" });
      expect({ path, status: response.status }).toEqual({ path, status: 403 });
      pages.add(response.text);
    }
    expect(pages.size).toBe(1);
    expect([...pages][0]).toContain("<h1>Request refused</h1>");
  });
});

describe("GET /c/:id", () => {
  it("answers an unexpected failure with 500, not with the 404 of an unknown collection", async () => {
    const lines: string[] = [];
    const env = makeEnv({}, { log: (line) => void lines.push(line) });
    const alice = await createUser(env);
    const shared = await createCollection(env, alice, { name: "Shared", visibility: "PUBLIC" });
    await createLink(env, alice, { collectionIds: [shared.id] });
    expect((await get(env, `/c/${shared.id}`)).status).toBe(200);
    // A cursor that names no page is still a 404, like an unknown id.
    expect((await get(env, `/c/${shared.id}?cursor=bm9wZQ`)).status).toBe(404);
    env.db.$client.run("DROP TABLE link_collections");
    const broken = await get(env, `/c/${shared.id}`, { headers: BROWSER });
    expect(broken.status).toBe(500);
    expect(broken.text).toContain("<h1>Something went wrong</h1>");
    expect(broken.text).not.toContain("link_collections");
    expect(lines.some((line) => line.includes(`unexpected error on GET /c/${shared.id}`))).toBe(true);
  });
});
