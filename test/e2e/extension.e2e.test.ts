/**
 * The extension end to end in Debian's Chromium: the compiled server, the built extension loaded
 * unpacked into a persistent profile, and the real sign-in window of `identity.launchWebAuthFlow`
 * (headless Chromium opens it as an ordinary page, which the test fills in). Skipped when
 * Chromium is absent, failing under CI (see programs.ts).
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import type { Page, Worker } from "playwright-core";
import { Database } from "bun:sqlite";
import { cleanEnv, runBinary, startServer } from "../support/binary";
import { tapHeaders, type RequestHead } from "../support/header-tap";
import { grantLoopback, launchWithExtension as launch, type ChromeApi, type LaunchedExtension } from "../support/extension.chromium";
import { EMAIL, PASSWORD, stackForFile, waitUntil } from "../support/extension.stack";
import { CHROMIUM, requireProgram } from "../support/programs";

declare const chrome: ChromeApi;

const TIMEOUT_MS = 120_000;
const present = requireProgram(CHROMIUM);

const running = stackForFile(present, TIMEOUT_MS);

/** launchWithExtension starts Chromium with the extension on a new profile, closed after the file. */
async function launchWithExtension(profile: string): Promise<LaunchedExtension> {
  const launched = await launch(running.stack, profile);
  running.closeAfter(() => launched.context.close());
  return launched;
}

/** pinned reads the "linkshelf" folder on the bookmarks bar from inside the extension. */
function pinned(worker: Worker): Promise<{ bar: string[]; folder: { title: string; url: string }[] }> {
  return worker.evaluate(async () => {
    const [bar] = await chrome.bookmarks.getChildren("0");
    const children = await chrome.bookmarks.getChildren(bar!.id);
    const folder = children.find((node) => node.url === undefined && node.title === "linkshelf");
    const inside = folder ? await chrome.bookmarks.getChildren(folder.id) : [];
    return {
      bar: children.map((node) => (node.url === undefined ? `${node.title}/` : `${node.title} ${node.url}`)),
      folder: inside.map((node) => ({ title: node.title, url: node.url ?? "" })),
    };
  });
}

describe.skipIf(!present)("the extension in Chromium", () => {
  it("signs in from the options page, saves pages, and pins favorites to the bookmarks bar in click order", async () => {
    const { stack } = running;
    const { origin } = stack.server;
    const { context, worker, id, options } = await launchWithExtension("chromium-profile");
    const requested: string[] = [];
    context.on("request", (request) => void requested.push(request.url()));

    // One bookmark of the user's own, which must stay as it is.
    await worker.evaluate(() => chrome.bookmarks.create({ parentId: "1", title: "Mine", url: "https://mine.example/" }));
    await grantLoopback(context, id, options);


    // An address with nothing behind it is reported before any sign-in window opens.
    const nothing = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const deadAddress = `http://127.0.0.1:${nothing.port}`;
    nothing.stop(true);
    await options.fill("#server", deadAddress);
    await options.click("#sign-in");
    await options.waitForSelector("#message.error");
    expect(await options.textContent("#message")).toBe(`Cannot reach ${deadAddress}. Check the address and that linkshelf is running there.`);
    expect(context.pages().some((page) => page.url().includes("/login"))).toBe(false);
    // Sign in: the options page opens the real launchWebAuthFlow window on the server's login form.
    await options.fill("#server", origin);
    const [login] = await Promise.all([context.waitForEvent("page"), options.click("#sign-in")]);
    await login.waitForURL((url) => url.pathname === "/login");
    await login.getByLabel("Email").fill(EMAIL);
    await login.getByLabel("Password").fill(PASSWORD);
    await login.getByRole("button", { name: "Sign in" }).click();
    // The first sign-in of this extension asks for approval in the same window: Allow.
    await login.waitForURL((url) => url.pathname === "/extension/authorize");
    expect(await login.textContent("code")).toBe(id);
    await login.getByRole("button", { name: "Allow" }).click();
    await options.waitForSelector("#message.ok");
    expect(await options.textContent("#message")).toBe("Signed in. Your favorites appear in the “linkshelf” folder on the bookmarks bar.");
    expect(await options.textContent("#account-server")).toBe(origin);
    const token = await worker.evaluate(async () => (await chrome.storage.local.get(["token"])).token as string);
    expect(token).toMatch(/^lks_[A-Za-z0-9_-]{43}$/);

    // Save three pages as favorites through the popup (as the context menu opens it).
    const pages = ["a", "b", "c"].map((name) => ({ url: `${stack.siteOrigin}/${name}`, title: `Page ${name}` }));
    const save = async (page: { url: string; title: string }): Promise<Page> => {
      const popup = await context.newPage();
      await popup.goto(`chrome-extension://${id}/popup.html?${new URLSearchParams(page)}`);
      await popup.waitForSelector("#collections input");
      return popup;
    };
    for (const page of pages) {
      const popup = await save(page);
      expect(await popup.inputValue("#name")).toBe(page.title);
      expect(await popup.isChecked("#collections input")).toBe(true);
      await popup.check("#favorite");
      await popup.click("#submit");
      await popup.waitForSelector("#result.ok");
      expect(await popup.textContent("#result")).toBe("Saved to Inbox.");
      await popup.close();
    }
    const saved = await waitUntil(() => pinned(worker), (state) => state.folder.length === 3, "the folder after saving");
    expect(saved.folder.map((node) => node.title)).toEqual(["Page a", "Page b", "Page c"]);
    expect(saved.folder.every((node) => node.url.startsWith(`${origin}/l/`))).toBe(true);
    expect(saved.bar).toEqual(["Mine https://mine.example/", "linkshelf/"]);

    // The same page again: the popup says where it is and offers to edit it; it lists favorites with icons from the server.
    const again = await save(pages[0]!);
    await again.waitForSelector("#duplicate:not([hidden])");
    expect(await again.textContent("#duplicate")).toBe("Already saved, in 📥 Inbox. Update it here, or save it again as a new link.");
    expect(await again.textContent("#submit")).toBe("Update");
    const icons = await again.$$eval("#favorites img", (images) => images.map((image) => image.getAttribute("src")));
    expect(icons).toEqual(pages.map((page) => `${origin}/favicon?url=${encodeURIComponent(page.url)}`));
    await again.close();

    // Read later in one key: R in the popup saves the page on the reading list (not a favorite: the folder stays).
    const later = await save({ url: `${stack.siteOrigin}/d`, title: "Page d" });
    await later.keyboard.press("r");
    await later.waitForSelector("#result.ok");
    expect(await later.textContent("#result")).toBe("Saved to Inbox, to read.");
    await later.close();
    const reading = await (await fetch(`${origin}/api/v1/links?toRead=true`, { headers: { authorization: `Bearer ${token}` } })).json() as { links: { name: string }[] };
    expect(reading.links.map((link) => link.name)).toEqual(["Page d"]);

    // Click through the pinned bookmarks: c three times, b once. The folder follows the clicks.
    const byTitle = new Map(saved.folder.map((node) => [node.title, node.url]));
    const browse = await context.newPage();
    for (const title of ["Page c", "Page c", "Page b", "Page c"]) {
      await browse.goto(byTitle.get(title)!);
      expect(await browse.title()).toBe(title);
    }
    await options.click("#refresh");
    // The extension moves bookmarks one at a time: wait for the whole order, not its first step.
    const ranked = await waitUntil(() => pinned(worker), (state) => state.folder.map((node) => node.title).join() === "Page c,Page b,Page a", "the folder after clicks");
    expect(ranked.folder.map((node) => node.title)).toEqual(["Page c", "Page b", "Page a"]);

    // Fewer pins: the folder keeps the two most clicked.
    await options.fill("#pin-count", "2");
    await options.press("#pin-count", "Tab");
    const fewer = await waitUntil(() => pinned(worker), (state) => state.folder.length === 2, "the folder after pinning fewer");
    expect(fewer.folder.map((node) => node.title)).toEqual(["Page c", "Page b"]);
    expect(fewer.bar).toEqual(["Mine https://mine.example/", "linkshelf/"]);

    // Revoking the token on the server signs the extension out, and it says so.
    const tokens = await runBinary(stack.binary, ["token", "list", "--email", EMAIL, "--data-dir", stack.dataDir], { cwd: stack.root });
    // The extension named its token after its browser and system.
    const extensionToken = tokens.stdout.split("\n").find((line) => line.includes("Chromium on Linux"))!.split("\t")[0]!;
    const revoked = await runBinary(stack.binary, ["token", "revoke", "--id", extensionToken, "--data-dir", stack.dataDir], { cwd: stack.root });
    expect(revoked.exitCode).toBe(0);
    await options.click("#refresh");
    await options.waitForSelector("#message.error");
    expect(await options.textContent("#message")).toBe("The server no longer accepts this browser's token (it was revoked). Sign in again.");
    expect(await options.isHidden("#account")).toBe(true);
    expect(await options.textContent("#sign-in")).toBe("Sign in");
    const signedOut = await context.newPage();
    await signedOut.goto(`chrome-extension://${id}/popup.html`);
    await signedOut.waitForSelector("#signed-out:not([hidden])");
    expect(await signedOut.textContent("#notice")).toBe("The server no longer accepts this browser's token (it was revoked). Sign in again.");
    expect((await pinned(worker)).folder.length).toBe(2);

    // Signing in again: the browser still has its session and the extension its approval, but
    // Chromium's sign-in window comes as a navigation from another site (Sec-Fetch-Site:
    // cross-site), so the server asks once more and mints on Allow.
    const windows = context.pages().length;
    const [asked] = await Promise.all([context.waitForEvent("page"), options.click("#sign-in")]);
    await asked.waitForURL((url) => url.pathname === "/extension/authorize");
    await asked.waitForSelector("#allowed-before");
    await asked.getByRole("button", { name: "Allow" }).click();
    await options.waitForSelector("#message.ok");
    const renewed = await worker.evaluate(async () => (await chrome.storage.local.get(["token"])).token as string);
    expect(renewed).toMatch(/^lks_[A-Za-z0-9_-]{43}$/);
    expect(renewed).not.toBe(token);
    expect(context.pages().filter((page) => page.url().includes("/login") || page.url().includes("/extension/authorize"))).toEqual([]);
    expect(context.pages().length).toBeLessThanOrEqual(windows);

    // Nothing but the server and the saved pages was asked for, besides the sign-in window's
    // callback address, which Chromium catches itself; a fragment is never part of a request.
    const callback = `${id}.chromiumapp.org`;
    const web = requested.filter((url) => /^https?:/.test(url));
    expect([...new Set(web.map((url) => new URL(url).hostname))].filter((host) => host !== callback)).toEqual(["127.0.0.1"]);
    expect(web.filter((url) => url.includes("lks_"))).toEqual([]);
  }, TIMEOUT_MS);

  it("signs in and in again through Chromium's sign-in window (Sec-Fetch-Site cross-site, then same-origin after the form), and a link on another site leads to the consent page, not a new token", async () => {
    const { stack } = running;
    // A server of its own, behind a relay that keeps what the browser sends.
    const dataDir = join(stack.root, "cross-site-data");
    const cli = { cwd: stack.root, env: cleanEnv() };
    await runBinary(stack.binary, ["user", "create", "--email", EMAIL, "--name", "Owner", "--data-dir", dataDir], { ...cli, stdin: `${PASSWORD}\n` });
    const server = await startServer(stack.binary, { cwd: stack.root, dataDir });
    const tap = tapHeaders(server.origin);
    const others = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        const target = new URL(request.url).searchParams.get("to")!;
        const body = new URL(request.url).pathname === "/script"
          ? `<!doctype html><title>Another site</title><script>location = ${JSON.stringify(target)};</script>`
          : `<!doctype html><title>Another site</title><a id="go" href="${Bun.escapeHTML(target)}">A prize</a>`;
        return new Response(body, { headers: { "content-type": "text/html" } });
      },
    });
    try {
      const origin = tap.origin;
      const { context, worker, id, options } = await launchWithExtension("chromium-cross-site-profile");
      // Nothing may leave the machine: the extension's callback host is caught by Chromium only in its sign-in window.
      await context.route(/^https:\/\/[a-p]{32}\.chromiumapp\.org\//, (route) => route.abort());
      await grantLoopback(context, id, options);
      const authorizeHeads = (): { method: string; site: string | undefined }[] => tap.heads()
        .filter((head: RequestHead) => head.target.startsWith("/extension/authorize?"))
        .map((head) => ({ method: head.method, site: head.headers["sec-fetch-site"] }));
      const heldToken = () => worker.evaluate(async () => (await chrome.storage.local.get(["token"])).token as string);

      // The first sign-in: the window opens on the handoff, which sends it to the sign-in form, back, and to the consent page.
      await options.fill("#server", origin);
      const [login] = await Promise.all([context.waitForEvent("page"), options.click("#sign-in")]);
      await login.waitForURL((url) => url.pathname === "/login");
      await login.getByLabel("Email").fill(EMAIL);
      await login.getByLabel("Password").fill(PASSWORD);
      await login.getByRole("button", { name: "Sign in" }).click();
      await login.waitForURL((url) => url.pathname === "/extension/authorize");
      await login.getByRole("button", { name: "Allow" }).click();
      await options.waitForSelector("#message.ok");
      const first = await heldToken();
      // Chromium's window says cross-site (the extension opened it), with no Referer: as a script on another site can.
      expect(authorizeHeads()).toEqual([{ method: "GET", site: "cross-site" }, { method: "GET", site: "same-origin" }, { method: "POST", site: "same-origin" }]);

      // Sign in again: the extension revokes its token; the window, already signed in, asks again, and Allow mints.
      const [again] = await Promise.all([context.waitForEvent("page"), options.click("#sign-in")]);
      await again.waitForURL((url) => url.pathname === "/extension/authorize");
      await again.waitForSelector("#allowed-before");
      await again.getByRole("button", { name: "Allow" }).click();
      const second = await waitUntil(heldToken, (token) => token !== first, "signing in again");
      expect(authorizeHeads().slice(3)).toEqual([{ method: "GET", site: "cross-site" }, { method: "POST", site: "same-origin" }]);
      expect((await fetch(`${origin}/api/v1/collections`, { headers: { authorization: `Bearer ${second}` } })).status).toBe(200);

      // As if the extension had signed in two minutes ago: the server hands an extension one token a
      // minute, which would otherwise hide a token minted for the other site.
      const db = new Database(join(dataDir, "linkshelf.db"));
      db.run("PRAGMA busy_timeout = 10000");
      db.run("UPDATE api_tokens SET created_at = created_at - 120000 WHERE grant_id IS NOT NULL");
      const tokens = () => db.query("SELECT id, token_hash FROM api_tokens ORDER BY id").all();
      const before = tokens();
      const authorize = `${origin}/extension/authorize?redirect_uri=${encodeURIComponent(`https://${id}.chromiumapp.org/`)}`;
      const seen = authorizeHeads().length;
      // A link on another site (localhost: cross-site), and a script on another port of 127.0.0.1 (same-site).
      for (const [page, how] of [[`http://localhost:${others.port}/link`, "link"], [`http://127.0.0.1:${others.port}/script`, "script"]] as const) {
        const tab = await context.newPage();
        await tab.goto(`${page}?${new URLSearchParams({ to: authorize })}`, { waitUntil: how === "link" ? "load" : "commit" });
        if (how === "link") await tab.click("#go");
        await tab.waitForURL((url) => url.pathname === "/extension/authorize");
        await tab.waitForSelector("#allowed-before");
        expect(await tab.textContent("h1")).toBe("Connect a browser extension?");
        expect(await tab.textContent("code")).toBe(id);
        await tab.close();
      }
      expect(authorizeHeads().slice(seen)).toEqual([{ method: "GET", site: "cross-site" }, { method: "GET", site: "same-site" }]);
      expect(tokens()).toEqual(before);
      db.close();
      // The extension's token still works, and the extension still reaches the server with it.
      expect(await heldToken()).toBe(second);
      expect((await fetch(`${origin}/api/v1/collections`, { headers: { authorization: `Bearer ${second}` } })).status).toBe(200);
      const lastSync = () => worker.evaluate(async () => ((await chrome.storage.local.get(["lastSync"])).lastSync ?? null) as { ok: boolean; at: number } | null);
      const previous = (await lastSync())?.at ?? 0;
      await options.click("#refresh");
      const refreshed = await waitUntil(lastSync, (last) => (last?.at ?? 0) > previous, "a refresh with the token");
      expect(refreshed!.ok).toBe(true);
      expect(await options.isVisible("#account")).toBe(true);
    } finally {
      others.stop(true);
      tap.stop();
      await server.stop();
    }
  }, TIMEOUT_MS);

  it("holds the Save button and says when to retry when the server rate-limits", async () => {
    const { stack } = running;
    // A server of its own, allowing 4 requests a minute per user.
    const dataDir = join(stack.root, "limited-data");
    const cli = { cwd: stack.root, env: cleanEnv() };
    await runBinary(stack.binary, ["user", "create", "--email", EMAIL, "--name", "Owner", "--data-dir", dataDir], { ...cli, stdin: `${PASSWORD}\n` });
    const token = (await runBinary(stack.binary, ["token", "create", "--email", EMAIL, "--data-dir", dataDir], cli)).stdout.trim();
    const limited = await startServer(stack.binary, { cwd: stack.root, dataDir, env: cleanEnv({ LINKSHELF_RATE_LIMIT: "4/60" }) });
    try {
      const launched = await launchWithExtension("chromium-limited-profile");
      const { context, worker, id } = launched;
      await grantLoopback(context, id, launched.options);
      // Closed while the requests are counted: an open options page lists the collections for its
      // Sync section at every change of the extension's storage, the sign-in's included.
      await launched.options.close();
      // Requests 1 and 2: the background's refresh after the settings change (favorites, then broken links).
      await worker.evaluate(([server, token]) => chrome.storage.local.set({ server, token }), [limited.origin, token]);
      const lastSync = () => worker.evaluate(async () => ((await chrome.storage.local.get(["lastSync"])).lastSync ?? null) as { ok: boolean } | null);
      await waitUntil(lastSync, (last) => last?.ok === true, "the refresh after signing in");
      // Requests 3 and 4: the popup's collections and favorites. Saving is the fifth.
      const popup = await context.newPage();
      await popup.goto(`chrome-extension://${id}/popup.html?${new URLSearchParams({ url: `${stack.siteOrigin}/x`, title: "Page x" })}`);
      await popup.waitForSelector("#collections input");
      await popup.click("#submit");
      await popup.waitForSelector("#notice.error");
      expect(await popup.textContent("#notice")).toMatch(/^Too many requests for now\. Try again in [1-6]?\d s\.$/);
      expect(await popup.isDisabled("#submit")).toBe(true);
      expect(await popup.textContent("#result")).toBe("");
      // The background's refresh hears the same, and the options page shows it.
      const options = await context.newPage();
      await options.goto(`chrome-extension://${id}/options.html`);
      await options.click("#refresh");
      await options.waitForSelector("#last-sync.error");
      expect(await options.textContent("#last-sync")).toMatch(/^Too many requests for now\. Try again in [1-6]?\d s\. \(/);
    } finally {
      await limited.stop();
    }
  }, TIMEOUT_MS);
});
