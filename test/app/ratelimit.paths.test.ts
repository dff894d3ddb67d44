/**
 * Rate limits belong to the limited routes (`/api/v1/*`, "/l/:id", `/favicon`, the search page): every path
 * the router sends to one of them is limited and counted, and a path it sends nowhere is a
 * 404 that counts nothing. Through `app.handle`, one user and one anonymous bucket: a request
 * is "counted" when the remaining budget seen by the canonical path drops by it.
 */
import { describe, expect, it } from "bun:test";
import { createCollection, createLink, createUser, get, makeEnv, request, sessionCookie, snapshot, type ApiResponse, type TestEnv } from "../support/helpers";

interface Variant {
  path: string;
  /** The status the variant gets; a router 404 is `404` with `reaches: false`. */
  status: number;
  /** Does the router send it to the limited route (so it must be limited and counted)? */
  reaches: boolean;
}

interface Route {
  name: string;
  /** The canonical path, used to read the bucket before and after each variant. */
  canonical: string;
  token: boolean;
  /** Sent with the owner's session cookie (a signed-in page). */
  session?: boolean;
  variants: Variant[];
}

const remainingOf = (response: ApiResponse) => Number(response.headers.get("ratelimit-remaining"));

/** A user with a PUBLIC link, made in a window that is over by the time the test starts. */
async function world(rateLimit = "1000/60") {
  const env = makeEnv({ LINKSHELF_RATE_LIMIT: rateLimit });
  const owner = await createUser(env);
  const shared = await createCollection(env, owner, { name: "Shared", visibility: "PUBLIC" });
  const link = await createLink(env, owner, { collectionIds: [shared.id] });
  env.clock.now += 61_000;
  return { env, owner, link };
}

const clicksOf = (env: TestEnv, id: number) =>
  env.db.$client.query<{ clicks: number }, [number]>("SELECT clicks FROM links WHERE id = ?").get(id)!.clicks;

/** Paths name the link as `:id`. */
const ROUTES: Route[] = [
  {
    name: "the favicon proxy (anonymous, an invalid url: 400)",
    canonical: "/favicon?url=javascript:x",
    token: false,
    variants: [
      { path: "/favicon?url=javascript:x", status: 400, reaches: true },
      { path: "/favicon/?url=javascript:x", status: 400, reaches: true },
      { path: "//favicon?url=javascript:x", status: 404, reaches: false },
      { path: "/favicon//?url=javascript:x", status: 404, reaches: false },
      { path: "/FAVICON?url=javascript:x", status: 404, reaches: false },
      { path: "/Favicon/?url=javascript:x", status: 404, reaches: false },
    ],
  },
  {
    name: "the redirect (anonymous, a public link: 302)",
    canonical: "/l/:id",
    token: false,
    variants: [
      { path: "/l/:id", status: 302, reaches: true },
      { path: "/l/:id/", status: 302, reaches: true },
      { path: "/l/:id?x=1", status: 302, reaches: true },
      { path: "//l/:id", status: 404, reaches: false },
      { path: "/l//:id", status: 404, reaches: false },
      { path: "/l/:id//", status: 404, reaches: false },
      { path: "/L/:id", status: 404, reaches: false },
    ],
  },
  {
    name: "the API with a token (200; unknown API paths reach the API's catch-all: 404)",
    canonical: "/api/v1/collections",
    token: true,
    variants: [
      { path: "/api/v1/collections", status: 200, reaches: true },
      { path: "/api/v1/collections/", status: 200, reaches: true },
      { path: "/api/v1//collections", status: 404, reaches: true },
      { path: "/api/v1/collections//", status: 404, reaches: true },
      { path: "/api/v1/COLLECTIONS", status: 404, reaches: true },
      { path: "//api/v1/collections", status: 404, reaches: false },
      { path: "/api//v1/collections", status: 404, reaches: false },
      { path: "/API/v1/collections", status: 404, reaches: false },
      { path: "/api/V1/collections", status: 404, reaches: false },
    ],
  },
  {
    name: "the API without a token (401 wherever the API is reached)",
    canonical: "/api/v1/collections",
    token: false,
    variants: [
      { path: "/api/v1/collections/", status: 401, reaches: true },
      { path: "/api/v1//collections", status: 401, reaches: true },
      { path: "/api/v1/Collections", status: 401, reaches: true },
      { path: "//api/v1/collections", status: 404, reaches: false },
      { path: "/Api/v1/collections", status: 404, reaches: false },
    ],
  },
  {
    name: "the search page, signed in (200)",
    canonical: "/search?q=link",
    token: false,
    session: true,
    variants: [
      { path: "/search?q=link", status: 200, reaches: true },
      { path: "/search/?q=link", status: 200, reaches: true },
      { path: "//search?q=link", status: 404, reaches: false },
      { path: "/search//?q=link", status: 404, reaches: false },
      { path: "/SEARCH?q=link", status: 404, reaches: false },
    ],
  },
];

describe("a limited route reached by another spelling of its path", () => {
  for (const route of ROUTES) {
    it(`is limited and counted whenever the router sends it there, and a plain 404 otherwise: ${route.name}`, async () => {
      const { env, owner, link } = await world();
      const at = (path: string) => path.replace(":id", String(link.id));
      const options = route.token ? { token: owner.token } : route.session ? { headers: { cookie: sessionCookie(env, owner.user.id) } } : {};
      const seen: { path: string; status: number; limited: boolean; counted: boolean }[] = [];
      for (const variant of route.variants) {
        const before = remainingOf(await get(env, at(route.canonical), options));
        const answer = await get(env, at(variant.path), options);
        const after = remainingOf(await get(env, at(route.canonical), options));
        if (variant.status === 404) expect(answer.body).toEqual({ message: expect.any(String), code: "NOT_FOUND" });
        seen.push({ path: variant.path, status: answer.status, limited: answer.headers.get("ratelimit-limit") === "1000", counted: before - after === 2 });
      }
      expect(seen).toEqual(route.variants.map((variant) => ({
        path: variant.path, status: variant.status, limited: variant.reaches, counted: variant.reaches,
      })));
    });
  }

  it("refuses /favicon/ with 429 once the budget is spent, as /favicon", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "3/60" });
    for (let i = 0; i < 3; i++) expect((await get(env, "/favicon/?url=javascript:x")).status).toBe(400);
    // JSON even to a browser, as on /favicon.
    const refused = await get(env, "/favicon/?url=javascript:x", { headers: { accept: "text/html,*/*" } });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("RATE_LIMITED");
    expect((await get(env, "/favicon?url=javascript:x")).status).toBe(429);
  });

  it("counts clicks on /l/:id/ under the limit, none over it, and none for a spelling the router does not serve", async () => {
    const { env, link } = await world("2/60");
    expect((await get(env, `/l/${link.id}/`)).status).toBe(302);
    expect((await get(env, `/L/${link.id}`)).status).toBe(404);
    expect((await get(env, `//l/${link.id}`)).status).toBe(404);
    expect((await get(env, `/l/${link.id}/`)).status).toBe(302);
    expect(clicksOf(env, link.id)).toBe(2);
    const before = snapshot(env);
    const refused = await get(env, `/l/${link.id}/`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("location")).toBeNull();
    expect(snapshot(env)).toBe(before);
  });

  it("decides 401 before reading the body on every API spelling, and refuses before 413 or 415", async () => {
    const { env } = await world();
    const before = snapshot(env);
    for (const path of ["/api/v1/links", "/api/v1/links/", "/api/v1//links", "/api/v1/LINKS"]) {
      const wrongType = await request(env, "POST", path, { body: "x", headers: { "content-type": "text/plain" } });
      expect({ path, status: wrongType.status, code: wrongType.body.code }).toEqual({ path, status: 401, code: "UNAUTHORIZED" });
      const huge = await request(env, "POST", path, { body: "x".repeat(1024 * 1024 + 1), headers: { "content-type": "application/json" } });
      expect({ path, status: huge.status }).toEqual({ path, status: 401 });
      expect(huge.headers.get("www-authenticate")).toBe("Bearer");
      expect(huge.headers.get("ratelimit-limit")).toBe("1000");
    }
    expect(snapshot(env)).toBe(before);
  });

  it("counts a request with a body once, though its user is decided before the body is read", async () => {
    const { env, owner } = await world();
    const remaining: number[] = [];
    for (const path of ["/api/v1/links", "/api/v1/links/"]) {
      const created = await request(env, "POST", path, { token: owner.token, body: { name: "Once", url: "https://example.org/", favorite: false } });
      expect(created.status).toBe(201);
      remaining.push(remainingOf(created));
      remaining.push(remainingOf(await get(env, "/api/v1/collections", { token: owner.token })));
    }
    expect(remaining).toEqual([999, 998, 997, 996]);
  });
});
