/**
 * A browser without a session that opens a private `/l/:id` (a pinned favorite after its session
 * lapsed) is offered to sign in and come back; sessions slide, so an active browser rarely lapses.
 */
import { describe, expect, it } from "bun:test";
import { SESSION_RENEW_WITHIN_MS, SESSION_TTL_MS } from "../../src/auth/sessions";
import { hashSecret } from "../../src/common/token-secrets";
import { createCollection, createLink, createUser, get, makeEnv, request, sessionCookie, snapshot, submitForm, type TestEnv } from "../support/helpers";

const BROWSER = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
const PRIVATE_PAGE = "This link is private or does not exist";
const DAY = 24 * 60 * 60 * 1000;

const clicksOf = (env: TestEnv, id: number) => (env.db.$client.query("SELECT clicks FROM links WHERE id = ?").get(id) as { clicks: number }).clicks;
const expiryOf = (env: TestEnv, cookie: string) =>
  (env.db.$client.query("SELECT expires_at FROM sessions WHERE id_hash = ?").get(hashSecret(cookie.split("=")[1]!)) as { expires_at: number }).expires_at;

/** signInHref reads the Sign in link of a page, entities undone. */
const signInHref = (page: string) => /<a href="([^"]*)">Sign in<\/a>/.exec(page)?.[1]?.replaceAll("&amp;", "&");

describe("GET /l/:id for a browser without a session", () => {
  it("answers 404 saying the link is private or does not exist, with Sign in coming back to it; nothing counted", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const before = snapshot(env);
    const response = await get(env, `/l/${link.id}`, { headers: BROWSER });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.text).toContain(PRIVATE_PAGE);
    expect(signInHref(response.text)).toBe(`/login?next=${encodeURIComponent(`/l/${link.id}`)}`);
    expect(response.text).not.toContain(link.url);
    expect(snapshot(env)).toBe(before);
  });

  it("shows the same page for an id that does not exist or is malformed, so nothing leaks", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const pageFor = async (id: string) => {
      const response = await get(env, `/l/${id}`, { headers: BROWSER });
      expect(response.status).toBe(404);
      return response.text.replaceAll(encodeURIComponent(`/l/${id}`), "NEXT");
    };
    const privatePage = await pageFor(String(link.id));
    for (const id of ["999999", "0", "abc", "1e3"]) expect(await pageFor(id)).toBe(privatePage);
    // HEAD answers the same status and counts nothing.
    expect((await request(env, "HEAD", `/l/${link.id}`, { headers: BROWSER })).status).toBe(404);
    expect(clicksOf(env, link.id)).toBe(0);
  });

  it("leaves other answers as they were: JSON for programs, today's page for a browser with a session, public links open", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const link = await createLink(env, alice);
    const program = await get(env, `/l/${link.id}`);
    expect(program.status).toBe(404);
    expect(program.body).toEqual({ message: "There is nothing here.", code: "NOT_FOUND" });
    const bobs = await get(env, `/l/${link.id}`, { headers: { ...BROWSER, cookie: sessionCookie(env, bob.user.id) } });
    expect(bobs.status).toBe(404);
    expect(bobs.text).toContain("There is nothing here.");
    expect(bobs.text).not.toContain(PRIVATE_PAGE);
    expect(signInHref(bobs.text)).toBeUndefined();
    const shared = await createCollection(env, alice, { name: "Shared", visibility: "PUBLIC" });
    const open = await createLink(env, alice, { collectionIds: [shared.id], url: "https://example.org/open" });
    const anonymous = await get(env, `/l/${open.id}`, { headers: BROWSER });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toBe("https://example.org/open");
  });

  it("after signing in through the page, lands on the link and counts the click", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const href = signInHref((await get(env, `/l/${link.id}`, { headers: BROWSER })).text)!;
    const form = await get(env, href, { headers: BROWSER });
    expect(form.status).toBe(200);
    const next = /<input type="hidden" name="next" value="([^"]*)">/.exec(form.text)![1]!;
    expect(next).toBe(`/l/${link.id}`);

    const signedIn = await submitForm(env, "/login", { email: alice.user.email, password: alice.password, next }, { headers: { origin: "http://localhost" } });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(`/l/${link.id}`);
    const cookie = signedIn.headers.getSetCookie()[0]!.split(";")[0]!;
    const open = await get(env, signedIn.headers.get("location")!, { headers: { ...BROWSER, cookie } });
    expect(open.status).toBe(302);
    expect(open.headers.get("location")).toBe(link.url);
    expect(clicksOf(env, link.id)).toBe(1);
  });
});

describe("sliding sessions", () => {
  /** A session created now, and the clock moved so that it has `left` milliseconds to live when the next request is handled. */
  async function sessionWithLeft(left: number) {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const expiresAt = expiryOf(env, cookie);
    env.clock.now = expiresAt - left;
    return { env, alice, cookie, expiresAt };
  }

  const sessionWrites = (env: TestEnv) => env.queries.filter((query) => /^update "sessions"/i.test(query)).length;

  it("are not touched while more than half their life is left: no write, no cookie", async () => {
    const { env, cookie, expiresAt } = await sessionWithLeft(SESSION_RENEW_WITHIN_MS);
    env.queries.length = 0;
    const page = await get(env, "/", { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get("set-cookie")).toBeNull();
    expect(sessionWrites(env)).toBe(0);
    expect(expiryOf(env, cookie)).toBe(expiresAt);
  });

  it("used in the last half of their life are extended to 30 days from now, with one write, and the cookie is sent again", async () => {
    const { env, cookie, expiresAt } = await sessionWithLeft(SESSION_RENEW_WITHIN_MS - 1);
    const now = env.clock.now;
    env.queries.length = 0;
    const page = await get(env, "/", { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(sessionWrites(env)).toBe(1);
    expect(expiryOf(env, cookie)).toBe(now + SESSION_TTL_MS);
    expect(expiryOf(env, cookie)).toBeGreaterThan(expiresAt);
    const [sent, ...more] = page.headers.getSetCookie();
    expect(more).toEqual([]);
    const parts = sent!.split(/;\s*/);
    expect(parts[0]).toBe(cookie);
    const attributes = new Map(parts.slice(1).map((part) => [part.split("=")[0]!.toLowerCase(), part.split("=").slice(1).join("=")]));
    expect(attributes.get("max-age")).toBe(String(SESSION_TTL_MS / 1000));
    expect(new Date(attributes.get("expires")!).getTime()).toBe(Math.floor((now + SESSION_TTL_MS) / 1000) * 1000);
    expect(attributes.get("path")).toBe("/");
    expect(attributes.get("samesite")?.toLowerCase()).toBe("lax");
    expect(attributes.has("httponly")).toBe(true);
    expect(attributes.has("secure")).toBe(false);

    // The next use is in the first half again: no second write.
    env.queries.length = 0;
    const again = await get(env, "/account", { headers: { cookie } });
    expect(again.headers.get("set-cookie")).toBeNull();
    expect(sessionWrites(env)).toBe(0);
  });

  it("keep a browser signed in past the first 30 days as long as it is used", async () => {
    const { env, cookie, expiresAt } = await sessionWithLeft(DAY);
    expect((await get(env, "/", { headers: { cookie } })).status).toBe(200);
    env.clock.now = expiresAt + 10 * DAY;
    expect((await get(env, "/", { headers: { cookie } })).status).toBe(200);
    // Unused for a whole 30 days, it ends.
    env.clock.now += SESSION_TTL_MS + 1;
    expect((await get(env, "/", { headers: { cookie } })).status).toBe(303);
  });

  it("slide on /l/:id too, on its 302 and on its 404, and on the extension handoff", async () => {
    const { env, alice, cookie } = await sessionWithLeft(DAY);
    const link = await createLink(env, alice);
    const opened = await get(env, `/l/${link.id}`, { headers: { ...BROWSER, cookie } });
    expect(opened.status).toBe(302);
    expect(opened.headers.getSetCookie()[0]).toStartWith(`${cookie};`);

    for (const path of ["/l/999999", `/extension/authorize?redirect_uri=${encodeURIComponent("https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/")}`]) {
      const other = await sessionWithLeft(DAY);
      const response = await get(other.env, path, { headers: { ...BROWSER, cookie: other.cookie } });
      expect({ path, cookie: response.headers.getSetCookie()[0]?.split(";")[0] }).toEqual({ path, cookie: other.cookie });
      expect(expiryOf(other.env, other.cookie)).toBeGreaterThan(other.expiresAt);
    }
  });

  it("never ride on /favicon, whose answers are publicly cacheable: no cookie, no write", async () => {
    const { env, cookie, expiresAt } = await sessionWithLeft(DAY);
    // A loopback target is refused without any network use: the placeholder, cacheable by anyone.
    const icon = await get(env, "/favicon?url=http://127.0.0.1/", { headers: { cookie } });
    expect(icon.status).toBe(200);
    expect(icon.headers.get("cache-control")).toStartWith("public");
    expect(icon.headers.get("set-cookie")).toBeNull();
    expect(icon.headers.get("ratelimit-remaining")).not.toBeNull();
    expect(expiryOf(env, cookie)).toBe(expiresAt);
  });

  it("do not send an ended session back: a password change in the last half keeps this browser on its new session", async () => {
    const { env, alice, cookie } = await sessionWithLeft(DAY);
    const changed = await submitForm(env, "/account/password", { current: alice.password, password: "another long password", confirm: "another long password" }, {
      headers: { cookie, origin: "http://localhost" },
    });
    expect(changed.status).toBe(303);
    // The new session (and the known-browser cookie, made with the new password), never the ended session.
    const all = changed.headers.getSetCookie().map((line) => line.split(";")[0]!);
    expect(all.filter((pair) => !pair.startsWith("linkshelf_session="))).toEqual([expect.stringMatching(/^linkshelf_known_\d+=/)]);
    const sent = all.filter((pair) => pair.startsWith("linkshelf_session="));
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toBe(cookie);
    expect((await get(env, "/account", { headers: { cookie: sent[0]! } })).status).toBe(200);
    expect((await get(env, "/account", { headers: { cookie } })).status).toBe(303);
  });

  it("re-send the cookie Secure when the request came over https", async () => {
    const { env, cookie } = await sessionWithLeft(DAY);
    const response = await env.app.handle(new Request("https://localhost/", { headers: { cookie } }));
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()[0]!.split(/;\s*/).map((part) => part.toLowerCase())).toContain("secure");
  });
});
