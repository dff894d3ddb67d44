/**
 * The Firefox package end to end in Debian's firefox-esr (140), over WebDriver BiDi: installed as
 * a temporary add-on, signed in through Firefox's own `launchWebAuthFlow` window, saving pages,
 * and the toolbar folder following the clicks. Skipped when Firefox ESR is absent, failing under
 * CI (see programs.ts).
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { GECKO_ID } from "../../extension/build";
import { EMAIL, PASSWORD, stackForFile, waitUntil } from "../support/extension.stack";
import { launchFirefox, type Bidi } from "../support/firefox";
import { tapHeaders } from "../support/header-tap";
import { FIREFOX, requireProgram } from "../support/programs";

const TIMEOUT_MS = 120_000;
/** Fixed through a pref, so the test knows the extension's pages' addresses. */
const UUID = "6c1f6a3e-2f4b-4c1e-9a57-3d0e5b8f2a41";
const BASE = `moz-extension://${UUID}`;
const present = requireProgram(FIREFOX);

const running = stackForFile(present, TIMEOUT_MS);

/** The toolbar's "linkshelf" folder, read inside the extension (Firefox's bookmarks toolbar is `toolbar_____`). */
const READ_FOLDER = `browser.bookmarks.getChildren("toolbar_____").then(async (children) => {
  const folder = children.find((node) => node.url === undefined && node.title === "linkshelf");
  const inside = folder ? await browser.bookmarks.getChildren(folder.id) : [];
  return JSON.stringify({ bar: children.map((node) => node.title), folder: inside.map((node) => ({ title: node.title, url: node.url })) });
})`;

async function pinned(bidi: Bidi, context: string): Promise<{ bar: string[]; folder: { title: string; url: string }[] }> {
  return JSON.parse(await bidi.text(context, READ_FOLDER));
}

describe.skipIf(!present)("the extension in Firefox", () => {
  it("installs, signs in through Firefox's sign-in window, saves pages and pins favorites in click order", async () => {
    const { stack } = running;
    // The server through a relay that keeps what Firefox sends.
    const tap = tapHeaders(stack.server.origin);
    running.closeAfter(async () => tap.stop());
    const { origin } = tap;
    const firefox = await launchFirefox(join(stack.root, "firefox-profile"), {
      "extensions.webextensions.uuids": JSON.stringify({ [GECKO_ID]: UUID }),
      // Headless Firefox cannot show the host-permission prompt; with this pref Firefox grants
      // optional permissions without asking (the request itself still needs a real click).
      "extensions.webextOptionalPermissionPrompts": false,
      "browser.shell.checkDefaultBrowser": false,
      "datareporting.policy.dataSubmissionEnabled": false,
      "browser.startup.homepage_override.mstone": "ignore",
    });
    running.closeAfter(() => firefox.stop());
    const { bidi } = firefox;
    const installed = await bidi.send<{ extension: string }>("webExtension.install", { extensionData: { type: "path", path: stack.extension("firefox") } });
    expect(installed.extension).toBe(GECKO_ID);

    // A fresh install opens the options page by itself.
    const options = (await waitUntil(() => bidi.urls(), (tabs) => tabs.some((tab) => tab.url === `${BASE}/options.html`), "the options page")).find(
      (tab) => tab.url === `${BASE}/options.html`,
    )!.context;
    await waitUntil(() => bidi.text(options, `document.readyState`), (state) => state === "complete", "the options page loading");
    expect(await bidi.text(options, "browser.identity.getRedirectURL()")).toMatch(/^https:\/\/[0-9a-f]{40}\.extensions\.allizom\.org\/$/);

    await bidi.evaluate(options, `document.querySelector("#server").value = ${JSON.stringify(origin)}`);
    await bidi.click(options, "#sign-in");
    const login = (await waitUntil(() => bidi.urls(), (tabs) => tabs.some((tab) => tab.url.startsWith(`${origin}/login`)), "the sign-in window")).find((tab) =>
      tab.url.startsWith(`${origin}/login`),
    )!.context;
    await waitUntil(() => bidi.text(login, `document.readyState`), (state) => state === "complete", "the login form loading");
    await bidi.evaluate(login, `(() => {
      document.querySelector("input[name=email]").value = ${JSON.stringify(EMAIL)};
      document.querySelector("input[name=password]").value = ${JSON.stringify(PASSWORD)};
      document.querySelector("form").requestSubmit();
    })()`);
    // The first sign-in of this extension asks for approval in the same window: Allow.
    await waitUntil(() => bidi.text(login, `document.readyState + " " + location.pathname`), (state) => state === "complete /extension/authorize", "the consent page");
    expect(await bidi.text(login, `document.querySelector("code").textContent`)).toMatch(/^[0-9a-f]{40}$/);
    await bidi.evaluate(login, `document.querySelector("form").requestSubmit()`);
    const signedIn = await waitUntil(() => bidi.text(options, `document.querySelector("#message").textContent`), (text) => text.startsWith("Signed in"), "signing in");
    expect(signedIn).toBe("Signed in. Your favorites appear in the “linkshelf” folder on the bookmarks bar.");
    expect(await bidi.text(options, `browser.storage.local.get(["token"]).then((stored) => stored.token)`)).toMatch(/^lks_[A-Za-z0-9_-]{43}$/);

    // Signing in again goes straight through: the session and the approval are remembered, and the
    // token this browser held is revoked first (the server hands an extension one token a minute).
    const readToken = () => bidi.text(options, `browser.storage.local.get(["token"]).then((stored) => stored.token)`);
    const first = await readToken();
    // What Firefox sends: its sign-in flow first asks in the background, without any Sec-Fetch-*
    // header; the window it then opens says none, and same-origin after the sign-in form.
    const authorizeHeads = () => tap.heads().filter((head) => head.target.startsWith("/extension/authorize?")).map((head) => `${head.method} ${head.headers["sec-fetch-site"]}`);
    expect(authorizeHeads()).toEqual(["GET undefined", "GET none", "GET same-origin", "POST same-origin"]);
    await bidi.click(options, "#sign-in");
    const second = await waitUntil(readToken, (token) => token !== first, "the second sign-in");
    expect(second).toMatch(/^lks_[A-Za-z0-9_-]{43}$/);
    expect((await fetch(`${origin}/api/v1/collections`, { headers: { authorization: `Bearer ${first}` } })).status).toBe(401);
    expect((await fetch(`${origin}/api/v1/collections`, { headers: { authorization: `Bearer ${second}` } })).status).toBe(200);
    // The background request, with the session and the approval, is handed the token: no window opens.
    expect(authorizeHeads().slice(4)).toEqual(["GET undefined"]);
    expect((await bidi.urls()).filter((tab) => tab.url.startsWith(origin))).toEqual([]);

    // Save two pages as favorites through the popup page (as the context menu opens it).
    for (const name of ["a", "b"]) {
      const query = new URLSearchParams({ url: `${stack.siteOrigin}/${name}`, title: `Page ${name}` });
      // Firefox refuses a WebDriver navigation to a moz-extension: page; the extension opens it itself.
      const url = `${BASE}/popup.html?${query}`;
      await bidi.evaluate(options, `browser.tabs.create({ url: ${JSON.stringify(url)} }).then(() => "opened")`);
      const popup = (await waitUntil(() => bidi.urls(), (tabs) => tabs.some((tab) => tab.url === url), "the popup page")).find((tab) => tab.url === url)!.context;
      await waitUntil(() => bidi.text(popup, `String(document.querySelectorAll("#collections input").length)`), (count) => count === "1", "the collections");
      await bidi.evaluate(popup, `document.querySelector("#favorite").checked = true`);
      await bidi.click(popup, "#submit");
      expect(await waitUntil(() => bidi.text(popup, `document.querySelector("#result").textContent`), (text) => text !== "", "saving")).toBe("Saved to Inbox.");
    }
    const saved = await waitUntil(() => pinned(bidi, options), (state) => state.folder.length === 2, "the folder after saving");
    expect(saved.folder.map((node) => node.title)).toEqual(["Page a", "Page b"]);
    expect(saved.bar).toContain("linkshelf");

    // Open Page b's pinned bookmark twice: it moves to the front.
    const browse = await bidi.newTab("about:blank");
    for (let i = 0; i < 2; i++) await bidi.send("browsingContext.navigate", { context: browse, url: saved.folder[1]!.url, wait: "complete" });
    expect(await bidi.text(browse, "document.title")).toBe("Page b");
    await bidi.click(options, "#refresh");
    const ranked = await waitUntil(() => pinned(bidi, options), (state) => state.folder.map((node) => node.title).join() === "Page b,Page a", "the folder after clicks");
    expect(ranked.folder.map((node) => node.title)).toEqual(["Page b", "Page a"]);

    // Keep a copy of a tab: the popup saves the page, makes the copy in the tab (the same code as
    // in Chromium) and sends it; the server has it.
    const pageUrl = `${stack.siteOrigin}/c`;
    const pageTab = await bidi.newTab(pageUrl);
    // A match pattern cannot name a port in Firefox: the tab is found among all of them.
    const tabId = await bidi.text(options, `browser.tabs.query({}).then((tabs) => String(tabs.find((tab) => tab.url === ${JSON.stringify(pageUrl)}).id))`);
    const copyUrl = `${BASE}/popup.html?${new URLSearchParams({ url: pageUrl, title: "Page c", tabId })}`;
    await bidi.evaluate(options, `browser.tabs.create({ url: ${JSON.stringify(copyUrl)} }).then(() => "opened")`);
    const keeper = (await waitUntil(() => bidi.urls(), (tabs) => tabs.some((tab) => tab.url === copyUrl), "the popup page")).find((tab) => tab.url === copyUrl)!.context;
    await waitUntil(() => bidi.text(keeper, `String(document.querySelectorAll("#collections input").length)`), (count) => count === "1", "the collections");
    await bidi.click(keeper, "#keep-copy");
    expect(await waitUntil(() => bidi.text(keeper, `document.querySelector("#copy-result").textContent`), (text) => text !== "" && text !== "Keeping a copy…", "keeping a copy")).toStartWith("Copy kept, ");
    const token = await readToken();
    const links = (await (await fetch(`${origin}/api/v1/links`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { links: { id: number; url: string }[] };
    const kept = links.links.find((link) => link.url === pageUrl)!;
    const copy = await (await fetch(`${origin}/api/v1/links/${kept.id}/copy`, { headers: { Authorization: `Bearer ${token}` } })).text();
    expect(copy).toContain(await bidi.text(pageTab, "document.title"));
    expect(copy).not.toMatch(/<script/i);
  }, TIMEOUT_MS);
});
