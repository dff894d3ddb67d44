import { describe, expect, it } from "bun:test";
import { SESSION_TTL_MS } from "../src/auth/sessions";
import { hashSecret } from "../src/auth/secrets";
import { createUser, get, makeEnv, post, sessionCookie, type TestEnv } from "./helpers";

const CALLBACK = "https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/cb?state=s1";
const AUTHORIZE = `/extension/authorize?redirect_uri=${encodeURIComponent(CALLBACK)}`;

interface TokenRow {
  id: number;
  user_id: number;
  name: string;
  token_hash: string;
}

const tokenRows = (env: TestEnv) => env.db.$client.query("SELECT id, user_id, name, token_hash FROM api_tokens ORDER BY id").all() as TokenRow[];

/** allow presses the consent page's Allow button: a same-origin form POST to the same address. */
const allow = (env: TestEnv, cookie: string) => post(env, AUTHORIZE, { headers: { cookie, origin: "http://localhost" } });

/** tokenOf reads the token out of a handoff's Location, checking the fragment's exact shape. */
function tokenOf(location: string | null): string {
  expect(location).not.toBeNull();
  const [base, fragment] = location!.split("#");
  expect(base).toBe(CALLBACK);
  expect(fragment).toMatch(/^token=/);
  const token = decodeURIComponent(fragment!.slice("token=".length));
  expect(location).toBe(`${CALLBACK}#token=${encodeURIComponent(token)}`);
  return token;
}

describe("GET /extension/authorize without a session", () => {
  it("sends the visitor to the login page with this path and query as next, minting nothing", async () => {
    const env = makeEnv();
    await createUser(env);
    const before = tokenRows(env);
    const response = await get(env, AUTHORIZE);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/login?next=${encodeURIComponent(AUTHORIZE)}`);
    expect(tokenRows(env)).toEqual(before);
  });

  it("comes back to the handoff after signing in through that next", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const toLogin = (await get(env, AUTHORIZE)).headers.get("location")!;
    const loginPage = await get(env, toLogin);
    expect(loginPage.status).toBe(200);
    const hidden = /<input type="hidden" name="next" value="([^"]*)">/.exec(loginPage.text)?.[1];
    const next = hidden!.replaceAll("&amp;", "&");
    expect(next).toBe(AUTHORIZE);

    const signIn = await post(env, "/login", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: alice.user.email, password: alice.password, next }).toString(),
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("location")).toBe(AUTHORIZE);
    const cookie = /linkshelf_session=[^;]+/.exec(signIn.headers.get("set-cookie") ?? "")![0];

    const consent = await get(env, signIn.headers.get("location")!, { headers: { cookie } });
    expect(consent.status).toBe(200);
    const handoff = await allow(env, cookie);
    expect(handoff.status).toBe(302);
    const token = tokenOf(handoff.headers.get("location"));
    expect((await get(env, "/api/v1/collections", { token })).status).toBe(200);
  });

  it("treats a session older than 30 days as no session", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    env.clock.now += SESSION_TTL_MS + 1;
    const before = tokenRows(env);
    const response = await get(env, AUTHORIZE, { headers: { cookie } });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toStartWith("/login?next=");
    expect(tokenRows(env)).toEqual(before);
  });

  it("still honours a session just before its 30 days are over", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    env.clock.now += SESSION_TTL_MS - 10;
    expect((await get(env, AUTHORIZE, { headers: { cookie } })).status).toBe(200);
  });

  it("ignores a session cookie that no session has", async () => {
    const env = makeEnv();
    await createUser(env);
    const response = await get(env, AUTHORIZE, { headers: { cookie: `linkshelf_session=${"A".repeat(43)}` } });
    expect(response.status).toBe(303);
  });
});

describe("GET /extension/authorize with a session", () => {
  it("mints a Browser extension token for the user and redirects to the callback with it in the fragment", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const before = tokenRows(env);

    const response = await allow(env, cookie);
    expect(response.status).toBe(302);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("set-cookie")).toBeNull();
    const token = tokenOf(response.headers.get("location"));
    expect(token).toMatch(/^lks_[A-Za-z0-9_-]{43}$/);

    const after = tokenRows(env);
    expect(after.length).toBe(before.length + 1);
    const minted = after.at(-1)!;
    expect(minted.name).toBe("Browser extension");
    expect(minted.user_id).toBe(alice.user.id);
    expect(minted.token_hash).toBe(hashSecret(token));
    expect(JSON.stringify(env.db.$client.query("SELECT * FROM api_tokens").all())).not.toContain(token);

    const collections = await get(env, "/api/v1/collections", { token });
    expect(collections.status).toBe(200);
    expect(collections.body.collections).toHaveLength(1);
    expect(collections.body.collections[0]).toMatchObject({ name: "Inbox", isDefault: true });
  });

  it("mints a new token on each call and leaves the earlier ones valid", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const tokens = [tokenOf((await allow(env, cookie)).headers.get("location"))];
    for (let i = 0; i < 2; i++) {
      const response = await get(env, AUTHORIZE, { headers: { cookie } });
      expect(response.status).toBe(302);
      tokens.push(tokenOf(response.headers.get("location")));
    }
    expect(new Set(tokens).size).toBe(3);
    expect(tokenRows(env).filter((row) => row.name === "Browser extension")).toHaveLength(3);
    for (const token of tokens) expect((await get(env, "/api/v1/collections", { token })).status).toBe(200);
  });

  it("does not take a bearer token as the user: 303 to sign in, no token", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = tokenRows(env);
    const response = await get(env, AUTHORIZE, { token: alice.token });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/login?next=${encodeURIComponent(AUTHORIZE)}`);
    expect(tokenRows(env)).toEqual(before);
  });

  it("lets the session cookie decide the user, whatever bearer token comes with it", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const cookie = sessionCookie(env, bob.user.id);
    for (const authorization of [`Bearer ${alice.token}`, `Bearer lks_${"x".repeat(43)}`, "Bearer nonsense", "Bearer "]) {
      const consent = await get(env, AUTHORIZE, { headers: { cookie, authorization } });
      expect(consent.status).toBe(200);
      expect(consent.text).toContain(bob.user.email);
      expect(consent.text).not.toContain(alice.user.email);
    }
    const response = await post(env, AUTHORIZE, { headers: { cookie, origin: "http://localhost", authorization: `Bearer ${alice.token}` } });
    expect(response.status).toBe(302);
    expect(tokenRows(env).at(-1)!.user_id).toBe(bob.user.id);
  });

  it("refuses a hostile redirect_uri before looking at the session", async () => {
    const env = makeEnv();
    const before = tokenRows(env);
    const response = await get(env, `/extension/authorize?redirect_uri=${encodeURIComponent("https://evil.test/")}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(tokenRows(env)).toEqual(before);
  });
});
