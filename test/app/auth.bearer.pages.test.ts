/**
 * A bearer token is an API key, not a browser session: the web pages, their forms and the
 * extension handoff accept only the session cookie; `/api/v1`, `/l/:id` and `/favicon` keep
 * taking the token.
 */
import { describe, expect, it } from "bun:test";
import { SignInThrottle } from "../../src/auth/throttle";
import { webPages } from "../../src/web/pages";
import { createLink, createUser, get, makeEnv, request, sessionCookie, snapshot, submitForm, type TestEnv } from "../support/helpers";
import { Shelf } from "../../src/shelf/shelf";
import { pageGuard } from "../../src/web/guard";

const CALLBACK = "https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/cb";
const AUTHORIZE = `/extension/authorize?redirect_uri=${encodeURIComponent(CALLBACK)}`;

/** Every page and form of the signed-in web pages (not their scripts), from the pages' own plugin, with its ids filled in. */
function pageRoutes(env: TestEnv): { method: string; path: string }[] {
  const deps = { db: env.db, config: env.config, clock: () => env.clock.now };
  return webPages(deps, pageGuard(deps, () => ({})), new SignInThrottle()).routes
    .filter((route) => !route.path.startsWith("/assets/"))
    .map((route) => ({ method: route.method, path: route.path.replace(":id", "1").replace(":key", "k") }));
}

describe("a bearer token on the web pages", () => {
  it("counts as no session on every page: 303 to sign in, with the page as next", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    await createLink(env, alice);
    const pages = pageRoutes(env).filter((route) => route.method === "GET");
    expect(pages.map((route) => route.path)).toEqual(expect.arrayContaining(["/", "/account", "/import", "/links/new", "/export"]));
    for (const { path } of pages) {
      const response = await get(env, path, { token: alice.token, headers: { accept: "text/html" } });
      expect({ path, status: response.status, location: response.headers.get("location") })
        .toEqual({ path, status: 303, location: `/login?next=${encodeURIComponent(path)}` });
      expect(response.text).not.toContain(alice.user.email);
    }
    // The same pages open with the session cookie.
    const cookie = sessionCookie(env, alice.user.id);
    expect((await get(env, "/account", { headers: { cookie } })).status).toBe(200);
  });

  it("counts as no session on every form: nothing changes, 303 to sign in", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    await createLink(env, alice);
    const forms = pageRoutes(env).filter((route) => route.method === "POST");
    expect(forms.map((route) => route.path)).toEqual(expect.arrayContaining(["/account/tokens", "/account/tokens/1/revoke", "/account/password", "/account/extensions/1/remove"]));
    const before = snapshot(env);
    for (const { path } of forms) {
      const response = await submitForm(env, path, { name: "minted by a token", current: alice.password, password: "new password here", confirm: "new password here" }, {
        token: alice.token,
        headers: { origin: "http://localhost" },
      });
      expect({ path, status: response.status, location: response.headers.get("location") }).toEqual({ path, status: 303, location: "/login?next=%2F" });
    }
    expect(snapshot(env)).toBe(before);
  });

  it("cannot mint a token on the account page, nor revoke one, but the session can", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const spare = new Shelf(env.db, alice.user).tokens.create("spare", env.clock.now++);
    const before = snapshot(env);
    expect((await submitForm(env, "/account/tokens", { name: "new" }, { token: alice.token })).status).toBe(303);
    expect((await submitForm(env, `/account/tokens/${spare.info.id}/revoke`, {}, { token: alice.token })).status).toBe(303);
    expect(snapshot(env)).toBe(before);

    const cookie = sessionCookie(env, alice.user.id);
    expect((await submitForm(env, `/account/tokens/${spare.info.id}/revoke`, {}, { headers: { cookie } })).headers.get("location")).toBe("/account?done=token-revoked");
    expect(new Shelf(env.db, alice.user).tokens.list().map((token) => token.id)).not.toContain(spare.info.id);
  });

  it("is not a session on /extension/authorize: 303 to sign in, no token minted", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    for (const method of ["GET", "POST"]) {
      const response = await request(env, method, AUTHORIZE, { token: alice.token });
      expect({ method, status: response.status, location: response.headers.get("location") })
        .toEqual({ method, status: 303, location: `/login?next=${encodeURIComponent(AUTHORIZE)}` });
    }
    expect(snapshot(env)).toBe(before);
  });

  it("is not a session on the sign-in page either: it shows the form instead of moving on", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const response = await get(env, "/login?next=/account", { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.text).toContain('name="password"');
  });
});

describe("a bearer token where it is meant to work", () => {
  it("still opens the API, the owner's private link and counts against its user on /favicon", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "5/60" });
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    expect((await get(env, "/api/v1/collections", { token: alice.token })).status).toBe(200);
    const open = await get(env, `/l/${link.id}`, { token: alice.token, headers: { accept: "text/html" } });
    expect(open.status).toBe(302);
    expect(open.headers.get("location")).toBe(link.url);
    // The fourth of alice's requests (creating the link was one): the count is the user's, not the address's.
    const icon = await get(env, "/favicon?url=not-a-url", { token: alice.token });
    expect(icon.headers.get("ratelimit-remaining")).toBe("1");
  });
});

describe("revoking a token on the account page", () => {
  it("reaches only the signed-in user's own tokens: another user's id is a 404 and changes nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const bobToken = new Shelf(env.db, bob.user).tokens.list()[0]!;
    const cookie = sessionCookie(env, alice.user.id);
    const before = snapshot(env);
    const response = await submitForm(env, `/account/tokens/${bobToken.id}/revoke`, {}, { headers: { cookie, accept: "text/html", origin: "http://localhost" } });
    expect(response.status).toBe(404);
    expect(snapshot(env)).toBe(before);
    expect((await get(env, "/api/v1/collections", { token: bob.token })).status).toBe(200);
  });
});
