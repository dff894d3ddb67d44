/**
 * The extension handoff asks once per extension: the first sign-in of an extension id shows a
 * consent page whose Allow button POSTs; an approved id goes straight through, with one live
 * token at a time, minted at most once a minute; the account page lists approvals and removes
 * one with its tokens; HEAD never mints, nor does a request that is no top-level page.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { hashSecret } from "../../src/common/token-secrets";
import { binaryWorkspace, cleanEnv, queryFile, runBinary, startServer, type BinaryWorkspace, type RunningServer } from "../support/binary";
import { createUser, get, ISO, makeEnv, post, request, sessionCookie, snapshot, submitForm, type TestEnv } from "../support/helpers";

const CHROMIUM_ID = "abcdefghijklmnopabcdefghijklmnop";
const FIREFOX_ID = "0123456789abcdef0123456789abcdef01234567";
const CALLBACK = `https://${CHROMIUM_ID}.chromiumapp.org/cb?state=s1`;
const FIREFOX_CALLBACK = `https://${FIREFOX_ID}.extensions.allizom.org/`;
const authorizePath = (callback: string) => `/extension/authorize?redirect_uri=${encodeURIComponent(callback)}`;
const AUTHORIZE = authorizePath(CALLBACK);
const SAME_SITE = { origin: "http://localhost" };
const MINUTE = 60_000;

interface GrantRow { id: number; user_id: number; browser: string; extension_id: string; approved_at: number }
interface TokenRow { id: number; user_id: number; name: string; token_hash: string; grant_id: number | null }

const grants = (env: TestEnv) => env.db.$client.query("SELECT * FROM extension_grants ORDER BY id").all() as GrantRow[];
const tokens = (env: TestEnv) => env.db.$client.query("SELECT id, user_id, name, token_hash, grant_id FROM api_tokens ORDER BY id").all() as TokenRow[];

/** tokenOf reads the token from a handoff's Location, which must be exactly the callback with it in a new fragment. */
function tokenOf(response: { headers: Headers }, callback = CALLBACK): string {
  const location = response.headers.get("location")!;
  const token = decodeURIComponent(location.slice(location.indexOf("#token=") + "#token=".length));
  expect(location).toBe(`${callback.split("#")[0]}#token=${encodeURIComponent(token)}`);
  return token;
}

/** allow presses Allow on the consent page of `path`. */
const allow = (env: TestEnv, cookie: string, path = AUTHORIZE) => post(env, path, { headers: { cookie, ...SAME_SITE } });

async function signedIn(env: TestEnv) {
  const user = await createUser(env);
  return { ...user, cookie: sessionCookie(env, user.user.id) };
}

describe("the first sign-in of an extension", () => {
  it("shows a consent page (200) naming the browser, the extension id and what the token can do, and changes nothing", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    const before = snapshot(env);
    const response = await get(env, AUTHORIZE, { headers: { cookie: alice.cookie, accept: "text/html" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("location")).toBeNull();
    expect(response.headers.get("cache-control")).toBe("no-store");
    const page = response.text;
    expect(page).toContain("Chromium");
    expect(page).toContain(CHROMIUM_ID);
    expect(page).toContain(alice.user.email);
    expect(page).toContain("read, add, change and delete your links and collections");
    // Allow posts to this very address; Cancel goes back to the extension, saying no.
    expect(page).toContain(`<form method="post" action="${AUTHORIZE.replaceAll("&", "&amp;")}">`);
    expect(page).toMatch(/<button type="submit">Allow<\/button>/);
    expect(page).toContain(`<a href="https://${CHROMIUM_ID}.chromiumapp.org/cb?state=s1#error=access_denied">Cancel</a>`);
    expect(page).not.toContain("lks_");
    expect(snapshot(env)).toBe(before);
  });

  it("cannot be framed, so no other site can trick a click on Allow", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    const response = await get(env, AUTHORIZE, { headers: { cookie: alice.cookie } });
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("names Firefox for a Firefox callback", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    const response = await get(env, authorizePath(FIREFOX_CALLBACK), { headers: { cookie: alice.cookie } });
    expect(response.status).toBe(200);
    expect(response.text).toContain("Firefox");
    expect(response.text).toContain(FIREFOX_ID);
  });
});

describe("Allow", () => {
  it("records the approval, mints a token linked to it and 302s to the callback as the handoff always did", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    const response = await allow(env, alice.cookie);
    expect(response.status).toBe(302);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    const token = tokenOf(response);
    const [grant] = grants(env);
    expect(grants(env)).toHaveLength(1);
    expect(grant).toMatchObject({ user_id: alice.user.id, browser: "chromium", extension_id: CHROMIUM_ID });
    expect(typeof grant!.approved_at).toBe("number");
    expect(tokens(env).at(-1)).toMatchObject({ user_id: alice.user.id, name: "Browser extension", token_hash: hashSecret(token), grant_id: grant!.id });
    expect((await get(env, "/api/v1/collections", { token })).status).toBe(200);
  });

  it("is refused from another site (403), by Origin or by Referer, changing nothing", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    const before = snapshot(env);
    const crossSite: Record<string, string>[] = [{ origin: "http://evil.test" }, { referer: "http://evil.test/page" }, { origin: "null" }];
    for (const headers of crossSite) {
      const response = await post(env, AUTHORIZE, { headers: { cookie: alice.cookie, accept: "text/html", ...headers } });
      expect(response.status).toBe(403);
      expect(response.headers.get("location")).toBeNull();
    }
    expect(snapshot(env)).toBe(before);
  });

  it("without a session sends the browser to sign in and back to the consent page, changing nothing", async () => {
    const env = makeEnv();
    await createUser(env);
    const before = snapshot(env);
    for (const cookie of [undefined, `linkshelf_session=${"A".repeat(43)}`]) {
      const response = await post(env, AUTHORIZE, { headers: { ...SAME_SITE, ...(cookie ? { cookie } : {}) } });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(`/login?next=${encodeURIComponent(AUTHORIZE)}`);
    }
    expect(snapshot(env)).toBe(before);
  });

  it("pressed twice keeps one approval and one token: within a minute the second is 429 and changes nothing, later it replaces the token", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    const first = tokenOf(await allow(env, alice.cookie));
    const before = snapshot(env);
    const refused = await allow(env, alice.cookie);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(snapshot(env)).toBe(before);
    env.clock.now += MINUTE;
    const second = tokenOf(await allow(env, alice.cookie));
    expect(first).not.toBe(second);
    expect(grants(env)).toHaveLength(1);
    expect(tokens(env).filter((row) => row.grant_id === grants(env)[0]!.id).map((row) => row.token_hash)).toEqual([hashSecret(second)]);
  });
});

describe("an extension the user approved", () => {
  it("goes straight to the callback with a new token, which replaces the one before, at each sign-in a minute apart", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    await allow(env, alice.cookie);
    const grant = grants(env)[0]!;
    for (let i = 0; i < 2; i++) {
      env.clock.now += MINUTE;
      const response = await get(env, AUTHORIZE, { headers: { cookie: alice.cookie } });
      expect(response.status).toBe(302);
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      const token = tokenOf(response);
      expect(tokens(env).filter((row) => row.grant_id === grant.id)).toEqual([expect.objectContaining({ token_hash: hashSecret(token), user_id: alice.user.id })]);
    }
    expect(grants(env)).toHaveLength(1);
  });

  it("is approved for that user, that browser and that id only", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    const bob = await signedIn(env);
    await allow(env, alice.cookie);
    const before = snapshot(env);
    const otherId = `https://${"p".repeat(32)}.chromiumapp.org/`;
    expect((await get(env, authorizePath(otherId), { headers: { cookie: alice.cookie } })).status).toBe(200);
    expect((await get(env, authorizePath(FIREFOX_CALLBACK), { headers: { cookie: alice.cookie } })).status).toBe(200);
    expect((await get(env, AUTHORIZE, { headers: { cookie: bob.cookie } })).status).toBe(200);
    expect(snapshot(env)).toBe(before);
  });
});

describe("HEAD /extension/authorize", () => {
  it("never mints nor approves, before or after approval", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    const before = snapshot(env);
    const first = await request(env, "HEAD", AUTHORIZE, { headers: { cookie: alice.cookie } });
    expect(first.status).toBe(200);
    expect(first.headers.get("location")).toBeNull();
    expect(snapshot(env)).toBe(before);

    await allow(env, alice.cookie);
    const approved = snapshot(env);
    const again = await request(env, "HEAD", AUTHORIZE, { headers: { cookie: alice.cookie } });
    expect(again.status).toBe(200);
    expect(again.headers.get("location")).toBeNull();
    expect(snapshot(env)).toBe(approved);
  });
});

describe("approved extensions on the account page", () => {
  it("are listed with the browser, the id, when they were approved and how many of their tokens exist", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    await allow(env, alice.cookie);
    env.clock.now += MINUTE;
    expect((await get(env, AUTHORIZE, { headers: { cookie: alice.cookie } })).status).toBe(302);
    await allow(env, alice.cookie, authorizePath(FIREFOX_CALLBACK));
    const page = (await get(env, "/account", { headers: { cookie: alice.cookie } })).text;
    const section = page.slice(page.indexOf('id="extensions-heading"'), page.indexOf('id="password-heading"'));
    const rows = [...section.matchAll(/<tr>\n<td>([^<]*)<\/td>\n<td data-label="Extension id"><code>([^<]*)<\/code><\/td>\n<td data-label="Allowed"><time datetime="([^"]*)"[^\n]*<\/td>\n<td data-label="Tokens">(\d+)<\/td>\n<td><form method="post" action="\/account\/extensions\/(\d+)\/remove">/g)]
      .map(([, browser, id, approvedAt, count, grantId]) => ({ browser, id, approvedAt, count, grantId }));
    const [chromium, firefox] = grants(env);
    expect(rows).toEqual([
      { browser: "Firefox", id: FIREFOX_ID, approvedAt: new Date(firefox!.approved_at).toISOString(), count: "1", grantId: String(firefox!.id) },
      { browser: "Chromium (Chrome, Edge, Brave…)", id: CHROMIUM_ID, approvedAt: new Date(chromium!.approved_at).toISOString(), count: "1", grantId: String(chromium!.id) },
    ]);
    expect(rows[0]!.approvedAt).toMatch(ISO);
  });

  it("Remove deletes the approval and the tokens minted for it, and nothing else; the next sign-in asks again", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    const first = tokenOf(await allow(env, alice.cookie));
    env.clock.now += MINUTE;
    const minted = [first, tokenOf(await get(env, AUTHORIZE, { headers: { cookie: alice.cookie } }))];
    tokenOf(await allow(env, alice.cookie, authorizePath(FIREFOX_CALLBACK)), FIREFOX_CALLBACK);
    const [chromium, firefox] = grants(env);
    const others = tokens(env).filter((row) => row.grant_id !== chromium!.id);

    const response = await submitForm(env, `/account/extensions/${chromium!.id}/remove`, {}, { headers: { cookie: alice.cookie, ...SAME_SITE } });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/account?done=extension-removed");
    expect(grants(env)).toEqual([firefox!]);
    expect(tokens(env)).toEqual(others);
    for (const token of minted) expect((await get(env, "/api/v1/collections", { token })).status).toBe(401);
    expect((await get(env, "/api/v1/collections", { token: alice.token })).status).toBe(200);
    expect((await get(env, AUTHORIZE, { headers: { cookie: alice.cookie } })).status).toBe(200);
    expect((await get(env, "/account?done=extension-removed", { headers: { cookie: alice.cookie } })).text).toContain("Extension removed");
  });

  it("Remove of another user's approval is a 404 that changes nothing", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    const bob = await signedIn(env);
    const bobToken = tokenOf(await allow(env, bob.cookie));
    const before = snapshot(env);
    for (const id of [String(grants(env)[0]!.id), "999999", "abc"]) {
      const response = await submitForm(env, `/account/extensions/${id}/remove`, {}, { headers: { cookie: alice.cookie, accept: "text/html", ...SAME_SITE } });
      expect(response.status).toBe(404);
    }
    expect(snapshot(env)).toBe(before);
    expect((await get(env, "/api/v1/collections", { token: bobToken })).status).toBe(200);
  });

  it("Remove from another site is refused (403) and changes nothing", async () => {
    const env = makeEnv();
    const alice = await signedIn(env);
    await allow(env, alice.cookie);
    const before = snapshot(env);
    const response = await submitForm(env, `/account/extensions/${grants(env)[0]!.id}/remove`, {}, { headers: { cookie: alice.cookie, origin: "http://evil.test" } });
    expect(response.status).toBe(403);
    expect(snapshot(env)).toBe(before);
  });
});

describe("HEAD /extension/authorize against the binary", () => {
  let workspace: BinaryWorkspace;
  let server: RunningServer;
  const email = "owner@example.test";

  beforeAll(async () => {
    workspace = binaryWorkspace("consent");
    const created = await runBinary(workspace.binary, ["user", "create", "--email", email, "--name", "Owner", "--data-dir", workspace.dataDir], {
      cwd: workspace.cwd, env: cleanEnv(), stdin: "long enough password\n",
    });
    expect(created.exitCode).toBe(0);
    server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir: workspace.dataDir });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(workspace.root, { recursive: true, force: true });
  });

  it("mints nothing for a HEAD, before and after approval, nor for an image or a second sign-in within the minute, while Allow does", async () => {
    const signIn = await fetch(`${server.origin}/login`, {
      method: "POST", redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin },
      body: new URLSearchParams({ email, password: "long enough password", next: "/" }),
    });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.getSetCookie()[0]!.split(";")[0]!;
    const count = () => queryFile<{ tokens: number; grants: number }>(workspace.dbPath,
      "SELECT (SELECT count(*) FROM api_tokens) AS tokens, (SELECT count(*) FROM extension_grants) AS grants")[0];
    const send = (method: string, headers: Record<string, string> = {}) =>
      fetch(`${server.origin}${AUTHORIZE}`, { method, redirect: "manual", headers: { cookie, ...headers } });

    expect((await send("HEAD")).status).toBe(200);
    expect(count()).toEqual({ tokens: 0, grants: 0 });
    expect((await send("POST", { origin: server.origin })).status).toBe(302);
    expect(count()).toEqual({ tokens: 1, grants: 1 });
    const head = await send("HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("location")).toBeNull();
    expect(count()).toEqual({ tokens: 1, grants: 1 });
    // An image of this address, and a page load within a minute of the last token: nothing minted or revoked.
    expect((await send("GET", { "sec-fetch-dest": "image" })).status).toBe(403);
    const soon = await send("GET", { "sec-fetch-dest": "document" });
    expect(soon.status).toBe(429);
    expect(Number(soon.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(soon.headers.get("location")).toBeNull();
    expect(count()).toEqual({ tokens: 1, grants: 1 });
  }, 30_000);
});
