import { describe, expect, it } from "bun:test";
import { hostPermission, parseServerAddress } from "../../extension/src/address";
import { authorizeUrl, deviceName, signIn, tokenFromRedirect } from "../../extension/src/auth";
import type { Identity } from "../../extension/src/webext";
import { createSession } from "../../src/auth/sessions";
import { APP_ORIGIN } from "../support/extension.fakes";
import { createUser, get, makeEnv, post, type TestEnv } from "../support/helpers";

const REDIRECT = "https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/";
const FIREFOX_REDIRECT = "https://0123456789abcdef0123456789abcdef01234567.extensions.allizom.org/";

describe("parseServerAddress", () => {
  const cases: [string, string | null][] = [
    ["http://192.168.1.20:3000", "http://192.168.1.20:3000"],
    ["192.168.1.20:3000", "http://192.168.1.20:3000"],
    ["  nas.local:3000/  ", "http://nas.local:3000"],
    ["https://links.example.org", "https://links.example.org"],
    ["HTTP://NAS.LOCAL:3000", "http://nas.local:3000"],
    ["http://[fd00::20]:3000", "http://[fd00::20]:3000"],
    ["", null],
    ["ftp://nas.local", null],
    ["javascript:alert(1)", null],
    ["http://me:secret@nas.local:3000", null],
    ["http://nas.local:3000/linkshelf", null],
    ["http://nas.local:3000/?x=1", null],
    ["http://nas.local:99999", null],
  ];
  for (const [input, origin] of cases) {
    it(`${origin ? "accepts" : "refuses"} ${JSON.stringify(input)}`, () => {
      const result = parseServerAddress(input);
      expect(result.ok ? result.origin : null).toBe(origin);
      if (!result.ok) expect(result.reason.length).toBeGreaterThan(10);
    });
  }
});

describe("hostPermission", () => {
  it("names the server's host only, without the port Firefox refuses in match patterns", () => {
    expect(hostPermission("http://192.168.1.20:3000")).toBe("http://192.168.1.20/*");
    expect(hostPermission("https://links.example.org")).toBe("https://links.example.org/*");
    expect(hostPermission("http://[fd00::20]:3000")).toBe("http://[fd00::20]/*");
  });
});

describe("the handoff URLs", () => {
  it("asks the server's authorize route to come back to the extension's callback", () => {
    const url = new URL(authorizeUrl("http://192.168.1.20:3000", REDIRECT));
    expect(url.origin + url.pathname).toBe("http://192.168.1.20:3000/extension/authorize");
    expect([...url.searchParams]).toEqual([["redirect_uri", REDIRECT]]);
  });

  it("asks for the token to be named after this browser and system when given", () => {
    const url = new URL(authorizeUrl("http://192.168.1.20:3000", REDIRECT, "Chromium on Linux"));
    expect([...url.searchParams]).toEqual([["redirect_uri", REDIRECT], ["name", "Chromium on Linux"]]);
  });

  it("names this browser by its callback's host or its brand, and its system", () => {
    expect(deviceName(REDIRECT, "linux")).toBe("Chromium on Linux");
    expect(deviceName(FIREFOX_REDIRECT, "win")).toBe("Firefox on Windows");
    expect(deviceName(FIREFOX_REDIRECT, "mac", [{ brand: "Google Chrome" }])).toBe("Firefox on macOS");
    expect(deviceName(REDIRECT, "win", [{ brand: "Not)A;Brand" }, { brand: "Google Chrome" }, { brand: "Chromium" }])).toBe("Google Chrome on Windows");
    expect(deviceName(REDIRECT, "cros", [{ brand: "Chromium" }, { brand: "Not_A Brand" }])).toBe("Chromium on ChromeOS");
    expect(deviceName(REDIRECT, "plan9")).toBe("Chromium");
    expect(deviceName(REDIRECT, undefined)).toBe("Chromium");
  });

  it("reads the token from the callback's fragment, decoded", () => {
    expect(tokenFromRedirect(`${REDIRECT}#token=lks_abc%2Bdef-_`, REDIRECT)).toEqual({ ok: true, token: "lks_abc+def-_" });
    expect(tokenFromRedirect(`${FIREFOX_REDIRECT}cb?x=1#token=lks_x`, FIREFOX_REDIRECT)).toEqual({ ok: true, token: "lks_x" });
  });

  it("refuses a final URL that is not the extension's callback, or carries no token", () => {
    for (const [url, because] of [
      [undefined, "did not come back"],
      ["not a url", "did not come back"],
      [`https://evil.example/#token=lks_x`, "did not come back"],
      [`https://bbcdefghijklmnopabcdefghijklmnop.chromiumapp.org/#token=lks_x`, "did not come back"],
      [`${REDIRECT}?token=lks_x`, "did not hand over a token"],
      [`${REDIRECT}#token=`, "did not hand over a token"],
      [`${REDIRECT}#error=denied`, "did not hand over a token"],
      [`${REDIRECT}#error=access_denied`, "the extension was not allowed"],
    ] as const) {
      const result = tokenFromRedirect(url, REDIRECT);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toContain(because);
    }
  });
});

/**
 * A browser's sign-in window, faked at the identity API: it opens the URL in a browser that has
 * `cookie` (or none), follows the server's redirects and stops, like the browser does, at the
 * first URL on the callback's origin. On the consent page this fake user presses Allow (or
 * Cancel, as `consent` says). Without a session it lands on the login form, which this fake
 * user then closes.
 */
function fakeIdentity(env: TestEnv, cookie: string | undefined, redirectUrl = REDIRECT, consent: "allow" | "cancel" = "allow"): Identity & { opened: string[]; consents: number } {
  const opened: string[] = [];
  const identity = {
    opened,
    consents: 0,
    getRedirectURL: () => redirectUrl,
    async launchWebAuthFlow({ url, interactive }: { url: string; interactive: boolean }) {
      expect(interactive).toBe(true);
      opened.push(url);
      let next = url;
      for (let hop = 0; hop < 5; hop++) {
        if (new URL(next).origin === new URL(redirectUrl).origin) return next;
        const headers: Record<string, string> = cookie ? { cookie } : {};
        let response = await get(env, next.slice(APP_ORIGIN.length), { headers });
        const action = /<form method="post" action="([^"]*)">\n<button type="submit">Allow<\/button>/.exec(response.text)?.[1];
        if (response.status === 200 && action !== undefined) {
          identity.consents++;
          if (consent === "cancel") {
            next = /<a href="([^"]*)">Cancel<\/a>/.exec(response.text)![1]!.replaceAll("&amp;", "&");
            continue;
          }
          response = await post(env, action.replaceAll("&amp;", "&"), { headers: { ...headers, origin: "http://localhost" } });
        }
        const location = response.headers.get("location");
        if (response.status < 300 || response.status > 399 || !location) break;
        next = new URL(location, next).href;
      }
      throw new Error("The user did not approve access.");
    },
  };
  return identity;
}

describe("signIn against the real server", () => {
  it("comes back with a working token when the browser has a session", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = `linkshelf_session=${createSession(env.db, alice.user.id, env.clock.now++).id}`;
    const identity = fakeIdentity(env, cookie);
    const result = await signIn(identity, APP_ORIGIN);
    expect(identity.opened).toEqual([authorizeUrl(APP_ORIGIN, REDIRECT)]);
    if (!result.ok) throw new Error(result.reason);
    expect(result.token).toMatch(/^lks_[A-Za-z0-9_-]{43}$/);
    const response = await get(env, "/api/v1/collections", { token: result.token });
    expect(response.status).toBe(200);
    expect(response.body.collections[0].authorId).toBe(alice.user.id);
  });

  it("names the token after the browser and system it was given", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = `linkshelf_session=${createSession(env.db, alice.user.id, env.clock.now++).id}`;
    const result = await signIn(fakeIdentity(env, cookie, FIREFOX_REDIRECT), APP_ORIGIN, { os: "win" });
    if (!result.ok) throw new Error(result.reason);
    const names = env.db.$client.query("SELECT name FROM api_tokens WHERE grant_id IS NOT NULL").all();
    expect(names).toEqual([{ name: "Firefox on Windows" }]);
  });

  it("asks for consent on the first sign-in only: the second goes straight through, and replaces the first token", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = `linkshelf_session=${createSession(env.db, alice.user.id, env.clock.now++).id}`;
    const first = fakeIdentity(env, cookie);
    const signedIn = await signIn(first, APP_ORIGIN);
    expect(first.consents).toBe(1);
    if (!signedIn.ok) throw new Error(signedIn.reason);
    // Within a minute of the first token the server hands over no other: the window shows its 429 page.
    const tooSoon = fakeIdentity(env, cookie);
    expect((await signIn(tooSoon, APP_ORIGIN)).ok).toBe(false);
    expect(tooSoon.consents).toBe(0);
    expect((await get(env, "/api/v1/collections", { token: signedIn.token })).status).toBe(200);
    env.clock.now += 60_000;
    const second = fakeIdentity(env, cookie);
    const again = await signIn(second, APP_ORIGIN);
    expect(second.consents).toBe(0);
    if (!again.ok) throw new Error(again.reason);
    expect((await get(env, "/api/v1/collections", { token: again.token })).status).toBe(200);
    expect((await get(env, "/api/v1/collections", { token: signedIn.token })).status).toBe(401);
  });

  it("says so when the user presses Cancel on the consent page, and nothing is minted or approved", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = `linkshelf_session=${createSession(env.db, alice.user.id, env.clock.now++).id}`;
    const identity = fakeIdentity(env, cookie, REDIRECT, "cancel");
    const result = await signIn(identity, APP_ORIGIN);
    expect(identity.consents).toBe(1);
    expect(result).toEqual({ ok: false, reason: "Sign-in was cancelled: the extension was not allowed on the server." });
    expect(env.db.$client.query("SELECT name FROM api_tokens").all()).toEqual([{ name: "test" }]);
    expect(env.db.$client.query("SELECT * FROM extension_grants").all()).toEqual([]);
  });

  it("works with Firefox's callback address too", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = `linkshelf_session=${createSession(env.db, alice.user.id, env.clock.now++).id}`;
    const result = await signIn(fakeIdentity(env, cookie, FIREFOX_REDIRECT), APP_ORIGIN);
    expect(result.ok).toBe(true);
  });

  it("says the sign-in was cancelled when the window is closed on the login form", async () => {
    const env = makeEnv();
    await createUser(env);
    const result = await signIn(fakeIdentity(env, undefined), APP_ORIGIN);
    expect(result).toEqual({ ok: false, reason: "Sign-in was cancelled, or the sign-in page could not be shown." });
    expect(env.db.$client.query("SELECT name FROM api_tokens").all()).toEqual([{ name: "test" }]);
  });
});
