import { describe, expect, it } from "bun:test";
import { revokeAnyToken } from "../../src/shelf/tokens";
import { createUser } from "../../src/users/service";
import { answerExtensionCallbacks, answeredStatus, browserForFile, checkLooks, keepLocal } from "../support/browser";

const EXTENSION_ID = "abcdefghijklmnopabcdefghijklmnop";
const CALLBACK = `https://${EXTENSION_ID}.chromiumapp.org/cb`;
const EMAIL = "owner@example.test";
const PASSWORD = "correct horse battery";
const TIMEOUT_MS = 60_000;

const e2e = browserForFile({
  setUp: (server) => createUser(server.db, { email: EMAIL, name: "Owner", password: PASSWORD }, Date.now()),
});

describe.skipIf(!e2e.present)("in Chromium", () => {
  it("signs in from the extension handoff and hands over a working token", async () => {
    const { origin } = e2e.server;
    const context = await (await e2e.browser).newContext();
    try {
      const page = await context.newPage();
      // Not keepLocal here: Playwright's own routing would swallow the redirect hop. The page
      // loads nothing but the test server (CSP default-src 'none') and the callback.
      const callbacks = await answerExtensionCallbacks(page);
      // The handoffs are read from Chromium's own network events, not Playwright's: a listener for
      // Playwright's response events makes it report every request's end with its response, and
      // one reported after the next document let that response go fails the test (see keepLocal).
      const handoffs: string[] = [];
      const network = await context.newCDPSession(page);
      network.on("Network.requestWillBeSent", ({ redirectResponse }) => {
        if (redirectResponse && new URL(redirectResponse.url).pathname === "/extension/authorize" && redirectResponse.status === 302) {
          const location = Object.entries(redirectResponse.headers).find(([name]) => name.toLowerCase() === "location");
          handoffs.push(String(location?.[1]));
        }
      });
      await network.send("Network.enable");

      const authorize = `${origin}/extension/authorize?redirect_uri=${encodeURIComponent(CALLBACK)}`;
      await page.goto(authorize);
      expect(new URL(page.url()).pathname).toBe("/login");
      expect(new URL(page.url()).searchParams.get("next")).toBe(authorize.slice(origin.length));
      expect(await page.title()).toContain("Sign in");

      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password").fill(PASSWORD);
      // The first sign-in of this extension id asks; Allow posts and the handoff follows.
      await Promise.all([
        page.waitForURL((url) => url.pathname === "/extension/authorize"),
        page.getByRole("button", { name: "Sign in" }).click(),
      ]);
      expect(await page.title()).toContain("Connect a browser extension");
      expect(handoffs).toHaveLength(0);
      await Promise.all([
        page.waitForURL((url) => url.hostname.endsWith(".chromiumapp.org")),
        page.getByRole("button", { name: "Allow" }).click(),
      ]);

      expect(handoffs).toHaveLength(1);
      const location = handoffs[0]!;
      expect(location).toStartWith(`${CALLBACK}#token=`);
      expect(page.url()).toBe(location);
      // The fragment stays in the browser: no request to the callback host carries the token.
      // (Chromium may also ask that host for /favicon.ico once the page has loaded.)
      expect(callbacks.filter((url) => !url.endsWith("/favicon.ico"))).toEqual([CALLBACK]);
      expect(callbacks.every((url) => !url.includes("lks_"))).toBe(true);
      expect(await page.textContent("p")).toBe("extension callback");
      const token = decodeURIComponent(new URL(page.url()).hash.slice("#token=".length));
      expect(token).toMatch(/^lks_[A-Za-z0-9_-]{43}$/);

      const response = await fetch(`${origin}/api/v1/collections`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { collections: { name: string; isDefault: boolean }[] };
      expect(body.collections).toHaveLength(1);
      expect(body.collections[0]).toMatchObject({ name: "Inbox", isDefault: true });

      const cookies = await context.cookies(origin);
      const session = cookies.find((cookie) => cookie.name === "linkshelf_session");
      expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/", secure: false });

      // Within a minute of that token the server hands over no other: its 429 page, nothing minted.
      await page.goto(authorize);
      expect(await page.evaluate<number>("performance.getEntriesByType('navigation')[0].responseStatus")).toBe(429);
      expect(await page.textContent("body")).toContain("This extension was handed a token less than a minute ago.");
      expect(handoffs).toHaveLength(1);
      expect((await fetch(`${origin}/api/v1/collections`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

      // Once that token is revoked (as `linkshelf token revoke` does), the approved extension
      // signs in again straight to the callback, with a new token.
      const minted = e2e.server.db.$client.query("SELECT id FROM api_tokens WHERE grant_id IS NOT NULL").all() as { id: number }[];
      expect(minted).toHaveLength(1);
      expect(revokeAnyToken(e2e.server.db, minted[0]!.id)).toBe(true);
      await page.goto(authorize);
      expect(page.url()).toStartWith(`${CALLBACK}#token=`);
      expect(handoffs).toHaveLength(2);
      expect(handoffs[1]).not.toBe(handoffs[0]);

      // A page on another port of this host (the same site, so the session cookie goes along)
      // that shows this address as 20 images mints nothing, even with no token to wait for:
      // Chromium marks them `Sec-Fetch-Dest: image`.
      const extensionTokens = () => e2e.server.db.$client.query("SELECT id FROM api_tokens WHERE grant_id IS NOT NULL").all() as { id: number }[];
      for (const { id } of extensionTokens()) revokeAnyToken(e2e.server.db, id);
      const images = Array.from({ length: 20 }, (_, i) => `<img src="${authorize}&amp;n=${i}" alt="">`).join("");
      const hostile = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(`<!doctype html><title>images</title>${images}`, { headers: { "content-type": "text/html" } }) });
      try {
        await page.goto(`http://127.0.0.1:${hostile.port}/`, { waitUntil: "load" });
      } finally {
        hostile.stop(true);
      }
      expect(extensionTokens()).toEqual([]);
      expect(handoffs).toHaveLength(2);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("shows the wrong-password message in the page and stays on the login form", async () => {
    const { origin } = e2e.server;
    const context = await (await e2e.browser).newContext();
    try {
      const page = await context.newPage();
      await keepLocal(page, origin);
      await page.goto(`${origin}/login`);
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password").fill("not the password");
      expect(await answeredStatus(page, () => page.getByRole("button", { name: "Sign in" }).click())).toBe(401);
      await expect(page.getByRole("alert").textContent()).resolves.toBe("The email or password is not right.");
      expect(await page.getByLabel("Email").inputValue()).toBe(EMAIL);
      expect(await context.cookies(origin)).toEqual([]);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("renders the login page on a phone and a desktop, light and dark (screenshots)", async () => {
    const { origin } = e2e.server;
    const checked = await checkLooks("login-screenshots", async ({ viewport }) => (await e2e.browser).newContext({ viewport }), async (page, check, { colorScheme }) => {
      await keepLocal(page, origin);
      await page.emulateMedia({ colorScheme });
      await page.goto(`${origin}/login?next=/`);
      await check("login");
    });
    expect(checked).toHaveLength(4);
  }, TIMEOUT_MS);
});
