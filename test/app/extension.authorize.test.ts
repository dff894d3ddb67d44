import { describe, expect, it } from "bun:test";
import { SESSION_TTL_MS } from "../../src/auth/sessions";
import { hashSecret } from "../../src/common/token-secrets";
import { createUser, get, makeEnv, post, request, sessionCookie, snapshot, type TestEnv } from "../support/helpers";

const CALLBACK = "https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/cb?state=s1";
const AUTHORIZE = `/extension/authorize?redirect_uri=${encodeURIComponent(CALLBACK)}`;

interface TokenRow {
  id: number;
  user_id: number;
  name: string;
  token_hash: string;
}

const tokenRows = (env: TestEnv) => env.db.$client.query("SELECT id, user_id, name, token_hash FROM api_tokens ORDER BY id").all() as TokenRow[];

const MINUTE = 60_000;

/** allow presses the consent page's Allow button: a same-origin form POST to the same address (from `ip` when the proxy is trusted). */
const allow = (env: TestEnv, cookie: string, ip?: string) =>
  post(env, AUTHORIZE, { headers: { cookie, origin: "http://localhost", ...(ip ? { "x-forwarded-for": ip } : {}) } });

const statusCounts = (answers: { status: number }[]) => {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
};

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

  it("names the token as the extension says its browser and system, within the name rules, else Browser extension", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const named = (name: string) => `${AUTHORIZE}&name=${encodeURIComponent(name)}`;
    // The consent page's Allow keeps the name: its form posts to the same address.
    const consent = await get(env, named("Chromium on Linux"), { headers: { cookie } });
    expect(consent.text).toContain(`action="${named("Chromium on Linux").replaceAll("&", "&amp;")}"`);
    await post(env, named("Chromium on Linux"), { headers: { cookie, origin: "http://localhost" } });
    expect(tokenRows(env).at(-1)!.name).toBe("Chromium on Linux");
    for (const [given, stored] of [
      ["  Firefox on Windows  ", "Firefox on Windows"],
      ["", "Browser extension"],
      ["Evil\u0007bell", "Browser extension"],
      ["x".repeat(101), "Browser extension"],
      ["\u202Eswapped", "Browser extension"],
    ] as const) {
      env.clock.now += MINUTE;
      const response = await get(env, named(given), { headers: { cookie } });
      expect(response.status).toBe(302);
      expect({ given, name: tokenRows(env).at(-1)!.name }).toEqual({ given, name: stored });
    }
    // Two names: neither is taken.
    env.clock.now += MINUTE;
    await get(env, `${AUTHORIZE}&name=One&name=Two`, { headers: { cookie } });
    expect(tokenRows(env).at(-1)!.name).toBe("Browser extension");
  });

  it("hands the extension one live token: a new one, a minute after the last, revokes it", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const first = tokenOf((await allow(env, cookie)).headers.get("location"));
    const mintedAt = () => (env.db.$client.query("SELECT max(created_at) AS at FROM api_tokens WHERE grant_id IS NOT NULL").get() as { at: number }).at;
    env.clock.now = mintedAt() + MINUTE;
    const response = await get(env, AUTHORIZE, { headers: { cookie } });
    expect(response.status).toBe(302);
    const second = tokenOf(response.headers.get("location"));
    expect(second).not.toBe(first);
    const extensionTokens = tokenRows(env).filter((row) => row.name === "Browser extension");
    expect(extensionTokens.map((row) => row.token_hash)).toEqual([hashSecret(second)]);
    expect((await get(env, "/api/v1/collections", { token: first })).status).toBe(401);
    expect((await get(env, "/api/v1/collections", { token: second })).status).toBe(200);
    // The user's other tokens are not the extension's: they stay.
    expect((await get(env, "/api/v1/collections", { token: alice.token })).status).toBe(200);
  });

  it("refuses a new token less than a minute after the last with 429 and Retry-After, changing nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const first = tokenOf((await allow(env, cookie)).headers.get("location"));
    const mintedAt = (env.db.$client.query("SELECT created_at AS at FROM api_tokens WHERE token_hash = ?").get(hashSecret(first)) as { at: number }).at;
    const before = snapshot(env);
    for (const [at, retryAfter] of [[mintedAt + 1, "60"], [mintedAt + 30_000, "30"], [mintedAt + MINUTE - 1, "1"]] as const) {
      env.clock.now = at;
      const refused = await get(env, AUTHORIZE, { headers: { cookie, accept: "text/html" } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe(retryAfter);
      expect(refused.headers.get("location")).toBeNull();
      expect(refused.headers.get("content-type")).toStartWith("text/html");
      expect(refused.text).toContain("This extension was handed a token less than a minute ago.");
      expect(snapshot(env)).toBe(before);
    }
    expect((await get(env, "/api/v1/collections", { token: first })).status).toBe(200);
  });

  it("mints nothing for an image, a frame, a script or a fetch (Sec-Fetch-Dest other than document): 403, nothing changes", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const first = tokenOf((await allow(env, cookie)).headers.get("location"));
    env.clock.now += MINUTE;
    const before = snapshot(env);
    for (const dest of ["image", "iframe", "frame", "embed", "object", "script", "style", "empty", "font", "worker", "Document", ""]) {
      const response = await get(env, AUTHORIZE, { headers: { cookie, "sec-fetch-dest": dest } });
      expect({ dest, status: response.status, location: response.headers.get("location") }).toEqual({ dest, status: 403, location: null });
      expect(response.headers.get("content-type")).toStartWith("text/html");
    }
    // Nor does an unapproved extension's consent page open inside another page, nor Allow from one.
    const other = `/extension/authorize?redirect_uri=${encodeURIComponent(`https://${"p".repeat(32)}.chromiumapp.org/`)}`;
    expect((await get(env, other, { headers: { cookie, "sec-fetch-dest": "iframe" } })).status).toBe(403);
    expect((await post(env, other, { headers: { cookie, origin: "http://localhost", "sec-fetch-dest": "iframe" } })).status).toBe(403);
    expect(snapshot(env)).toBe(before);
    expect((await get(env, "/api/v1/collections", { token: first })).status).toBe(200);
    // The browser's own top-level navigation does mint.
    const navigation = await get(env, AUTHORIZE, { headers: { cookie, "sec-fetch-dest": "document", "sec-fetch-mode": "navigate" } });
    expect(navigation.status).toBe(302);
    tokenOf(navigation.headers.get("location"));
  });

  it("mints nothing for a navigation another site started (Sec-Fetch-Site cross-site or same-site): the consent page, and the extension's token still works", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const held = tokenOf((await allow(env, cookie)).headers.get("location"));
    env.clock.now += 2 * MINUTE;
    const before = snapshot(env);
    for (const site of ["cross-site", "same-site"]) {
      const navigation = { cookie, "sec-fetch-site": site, "sec-fetch-dest": "document", "sec-fetch-mode": "navigate" };
      const response = await get(env, AUTHORIZE, { headers: navigation });
      expect({ site, status: response.status, location: response.headers.get("location") }).toEqual({ site, status: 200, location: null });
      expect(response.text).toContain("You allowed this extension before.");
      expect(response.text).not.toContain("Later sign-ins of this extension go straight through.");
      expect(response.text).toContain(`<form method="post" action="${AUTHORIZE.replaceAll("&", "&amp;")}">`);
    }
    expect(snapshot(env)).toBe(before);
    expect((await get(env, "/api/v1/collections", { token: held })).status).toBe(200);
    // Allow on that page is a form POST from this server's own page: it mints, as for a first grant.
    const allowed = await post(env, AUTHORIZE, { headers: { cookie, origin: "http://localhost", "sec-fetch-site": "same-origin" } });
    expect(allowed.status).toBe(302);
    const renewed = tokenOf(allowed.headers.get("location"));
    expect((await get(env, "/api/v1/collections", { token: held })).status).toBe(401);
    expect((await get(env, "/api/v1/collections", { token: renewed })).status).toBe(200);
    // The same POST sent by another site is refused, changing nothing.
    env.clock.now += 2 * MINUTE;
    const unchanged = snapshot(env);
    expect((await post(env, AUTHORIZE, { headers: { cookie, origin: "http://evil.test", "sec-fetch-site": "cross-site" } })).status).toBe(403);
    expect(snapshot(env)).toBe(unchanged);
  });

  it("goes straight through for the browser's sign-in window (Sec-Fetch-Site none), after this server's sign-in form (same-origin), and without the header", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    let held = tokenOf((await allow(env, cookie)).headers.get("location"));
    for (const site of ["none", "same-origin", undefined]) {
      env.clock.now += MINUTE;
      const response = await get(env, AUTHORIZE, { headers: { cookie, "sec-fetch-dest": "document", ...(site ? { "sec-fetch-site": site } : {}) } });
      expect({ site, status: response.status }).toEqual({ site, status: 302 });
      const token = tokenOf(response.headers.get("location"));
      expect((await get(env, "/api/v1/collections", { token: held })).status).toBe(401);
      held = token;
    }
  });

  it("shows a first-time consent page the same whoever sent the browser there, without the allowed-before notice", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const before = snapshot(env);
    for (const site of ["cross-site", "none"]) {
      const consent = await get(env, AUTHORIZE, { headers: { cookie, "sec-fetch-site": site } });
      expect(consent.status).toBe(200);
      expect(consent.text).toContain("Connect a browser extension?");
      expect(consent.text).not.toContain("You allowed this extension before.");
      expect(consent.text).toContain("Later sign-ins of this extension go straight through.");
    }
    expect(snapshot(env)).toBe(before);
  });

  it("mints no token for a page with 200 images of this address; without Sec-Fetch-Dest, at most one", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1" });
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    await allow(env, cookie);
    env.clock.now += MINUTE;
    const count = () => (env.db.$client.query("SELECT count(*) AS n FROM api_tokens WHERE grant_id IS NOT NULL").get() as { n: number }).n;
    const load = (ip: string, headers: Record<string, string>) =>
      Promise.all(Array.from({ length: 200 }, () => get(env, AUTHORIZE, { headers: { cookie, "x-forwarded-for": ip, ...headers } })));
    const before = snapshot(env);
    expect(statusCounts(await load("192.0.2.1", { "sec-fetch-dest": "image" }))).toEqual({ 403: 30, 429: 170 });
    expect(snapshot(env)).toBe(before);
    // A browser that does not say what it loads: one handoff, then the minute's and the address's limits.
    expect(statusCounts(await load("192.0.2.2", {}))).toEqual({ 302: 1, 429: 199 });
    expect(count()).toBe(1);
  });

  it("answers an address's 31st request in 15 minutes with 429 and Retry-After, whatever it asks; other addresses go on", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1" });
    const alice = await createUser(env);
    const cookie = sessionCookie(env, alice.user.id);
    const from = (ip: string, headers: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": ip, ...headers } });
    const asks = [
      () => get(env, AUTHORIZE, from("192.0.2.9")),
      () => get(env, "/extension/authorize?redirect_uri=x", from("192.0.2.9")),
      () => get(env, AUTHORIZE, from("192.0.2.9", { cookie })),
      () => request(env, "HEAD", AUTHORIZE, from("192.0.2.9", { cookie })),
    ];
    for (let i = 0; i < 30; i++) expect([200, 303, 400]).toContain((await asks[i % asks.length]!()).status);
    const before = snapshot(env);
    for (const ask of [...asks, () => allow(env, cookie, "192.0.2.9")]) {
      const refused = await ask();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(15 * MINUTE / 1000);
    }
    expect(snapshot(env)).toBe(before);
    expect((await allow(env, cookie, "192.0.2.10")).status).toBe(302);
    env.clock.now += 15 * MINUTE;
    expect((await get(env, AUTHORIZE, from("192.0.2.9", { cookie }))).status).toBe(302);
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
