/**
 * Saved pages and search through the extension in Debian's Chromium, against the compiled
 * server: the popup saves an article tab and its text is read in that tab (scripting with
 * Readability) and stored as the link's content; the popup recognises the page at another
 * spelling of its address and offers to edit it; the `ls` keyword's handlers, called in the
 * service worker, suggest the link from the server's search and open it through `/l/<id>`.
 * Skipped when Chromium is absent, failing under CI (see programs.ts).
 */
import { describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import type { ContentItemJson } from "../../src/contract/content";
import type { LinkItemJson, LinkPageJson } from "../../src/contract/links";
import type { OmniboxHandlers } from "../../extension/src/omnibox";
import type { Suggestion } from "../../extension/src/webext";
import { ARTICLE_KEEPS } from "../support/capture.fixtures";
import { launchSignedIn, type ChromeApi } from "../support/extension.chromium";
import { EMAIL, PASSWORD, stackForFile, waitUntil } from "../support/extension.stack";
import { CHROMIUM, requireProgram } from "../support/programs";

declare const chrome: ChromeApi;
declare const linkshelfOmnibox: OmniboxHandlers;

const TIMEOUT_MS = 180_000;
const present = requireProgram(CHROMIUM);
/** A sentence of the article's body, and a word of the site's navigation around it. */
const PHRASE = ARTICLE_KEEPS[0]!;
const NAVIGATION = "Subscribe today";

const running = stackForFile(present, TIMEOUT_MS);

describe.skipIf(!present)("saved pages and search through the extension in Chromium", () => {
  it("captures the article's text on save, offers to edit the page at another spelling of its address, and finds and opens it from the ls keyword", async () => {
    const { stack } = running;
    const { origin } = stack.server;
    const { context, worker, id, token } = await launchSignedIn(running, "chromium-search-profile");
    const api = async <T>(path: string): Promise<T> => {
      const response = await fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${token}` } });
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      return (await response.json()) as T;
    };

    /** openPopup opens the popup for `url` as the context menu does, for the tab showing `tabUrl` when given. */
    const openPopup = async (url: string, tab?: Page): Promise<Page> => {
      const query = new URLSearchParams({ url, title: "Tide pools" });
      if (tab) {
        const [found] = await worker.evaluate((address) => chrome.tabs.query({ url: address }), tab.url());
        query.set("tabId", String(found!.id));
      }
      const popup = await context.newPage();
      await popup.goto(`chrome-extension://${id}/popup.html?${query}`);
      await popup.waitForSelector("#collections input");
      return popup;
    };

    // Save the article from its tab: the link is created, then the tab's text is read and stored.
    const articleUrl = `${stack.siteOrigin}/article`;
    const article = await context.newPage();
    await article.goto(articleUrl);
    const popup = await openPopup(articleUrl, article);
    expect(await popup.textContent("#heading")).toBe("Save to linkshelf");
    expect(await popup.isHidden("#duplicate")).toBe(true);
    await popup.click("#submit");
    await popup.waitForSelector("#result.ok");
    await popup.waitForSelector("#captured:not([hidden])");
    expect(await popup.textContent("#captured")).toBe("The page's text is saved for search.");
    expect(await popup.textContent("#notice")).toBe("");
    await popup.close();
    const [link] = (await api<LinkPageJson>("/api/v1/links")).links;
    expect(link!.url).toBe(articleUrl);
    const first = (await api<ContentItemJson>(`/api/v1/links/${link!.id}/content`)).content;
    expect(first).toMatchObject({ source: "browser", byline: "Mara Oyelaran", lang: "en" });
    expect(first.text).toContain(PHRASE);
    expect(first.text).not.toContain(NAVIGATION);

    // Keep a copy of the tab as shown: the popup (editing the saved link) sends it, the server serves it back.
    const keep = await openPopup(articleUrl, article);
    await keep.waitForSelector("#save-new:not([hidden])");
    await keep.click("#keep-copy");
    await keep.waitForSelector("#copy-result.ok");
    expect(await keep.textContent("#copy-result")).toStartWith("Copy kept, ");
    await keep.close();
    const kept = await fetch(`${origin}/api/v1/links/${link!.id}/copy`, { headers: { Authorization: `Bearer ${token}` } });
    expect(kept.status).toBe(200);
    const copy = await kept.text();
    expect(copy).toContain(PHRASE);
    expect(copy).not.toMatch(/<script/i);
    expect((await api<LinkItemJson>(`/api/v1/links/${link!.id}`)).link.copy).toMatchObject({ bytes: Buffer.byteLength(copy) });

    // "Keep a copy of every page I save": saving a page keeps its copy too, without another click.
    await worker.evaluate(() => chrome.storage.local.set({ keepCopies: true }));
    const otherUrl = `${articleUrl}?part=2`;
    const otherTab = await context.newPage();
    await otherTab.goto(otherUrl);
    const every = await openPopup(otherUrl, otherTab);
    await every.click("#submit");
    await every.waitForSelector("#copy-result.ok");
    await every.close();
    await worker.evaluate(() => chrome.storage.local.set({ keepCopies: false }));
    const otherLink = (await api<LinkPageJson>("/api/v1/links")).links.find((saved) => saved.url === otherUrl)!;
    expect(otherLink.copy).not.toBeNull();
    await otherTab.close();
    await fetch(`${origin}/api/v1/links/${otherLink.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${token}` } });

    // The same page at other spellings of its address is recognised: the popup offers to edit it.
    const variants = [`${articleUrl}?utm_source=x`, `${articleUrl}/`, articleUrl.replace("http://", "HTTP://")];
    for (const variant of variants) {
      const again = await openPopup(variant);
      await again.waitForSelector("#save-new:not([hidden])");
      expect({ variant, heading: await again.textContent("#heading"), button: await again.textContent("#submit") }).toEqual({ variant, heading: "Edit in linkshelf", button: "Update" });
      expect(await again.textContent("#duplicate")).toBe("Already saved, in 📥 Inbox. Update it here, or save it again as a new link.");
      expect(await again.inputValue("#url")).toBe(articleUrl);
      await again.close();
    }

    // Updating from a tab at such a spelling edits the link, saves no second one, and reads the page again.
    const variantTab = await context.newPage();
    await variantTab.goto(`${articleUrl}/?utm_source=newsletter`);
    const edit = await openPopup(variantTab.url(), variantTab);
    await edit.fill("#description", "Read on the beach");
    await edit.check("#favorite");
    await edit.click("#submit");
    await edit.waitForSelector("#result.ok");
    expect(await edit.textContent("#result")).toBe("Updated, in Inbox.");
    await edit.waitForSelector("#captured:not([hidden])");
    await edit.close();
    const links = (await api<LinkPageJson>("/api/v1/links")).links;
    expect(links.map((saved) => [saved.id, saved.url, saved.description, saved.favorite])).toEqual([[link!.id, articleUrl, "Read on the beach", true]]);
    const second = (await api<ContentItemJson>(`/api/v1/links/${link!.id}/content`)).content;
    expect(second.source).toBe("browser");
    expect(Date.parse(second.capturedAt)).toBeGreaterThan(Date.parse(first.capturedAt));

    // "Save as a new link anyway" turns the form back into a new link for the page.
    const anyway = await openPopup(`${articleUrl}?utm_source=x`);
    await anyway.click("#save-new");
    expect(await anyway.textContent("#submit")).toBe("Save");
    expect(await anyway.inputValue("#url")).toBe(`${articleUrl}?utm_source=x`);
    expect(await anyway.textContent("#duplicate")).toBe("Already saved, in 📥 Inbox.");
    await anyway.close();

    // The ls keyword: the handlers the omnibox listeners call, asked in the service worker, find
    // the article by a phrase of its text from the real server.
    const suggestions = await worker.evaluate(
      (text) => new Promise<Suggestion[]>((resolve) => void linkshelfOmnibox.inputChanged(text, resolve)),
      `"${PHRASE}"`,
    );
    expect(suggestions.map((suggestion) => suggestion.content)).toEqual([`${origin}/l/${link!.id}`]);
    expect(suggestions[0]!.description).toStartWith("Tide pools <dim>—</dim> ");
    expect(suggestions[0]!.description).toContain("<match>");

    // Choosing it opens /l/<id> in a new tab, which the server redirects to the article and, the
    // browser being signed in to it, counts as a click.
    const login = await context.newPage();
    await login.goto(`${origin}/login`);
    await login.getByLabel("Email").fill(EMAIL);
    await login.getByLabel("Password").fill(PASSWORD);
    await Promise.all([login.waitForURL(`${origin}/`), login.getByRole("button", { name: "Sign in" }).click()]);
    const [opened] = await Promise.all([
      context.waitForEvent("page"),
      worker.evaluate((content) => linkshelfOmnibox.inputEntered(content, "newForegroundTab"), suggestions[0]!.content),
    ]);
    await opened.waitForURL(articleUrl);
    const clicked = await waitUntil(() => api<LinkItemJson>(`/api/v1/links/${link!.id}`), (item) => item.link.clicks === 1, "the click count");
    expect(clicked.link.clicks).toBe(1);

    // Enter on text that is no suggestion opens the server's search page.
    const [search] = await Promise.all([context.waitForEvent("page"), worker.evaluate(() => linkshelfOmnibox.inputEntered("tide pools", "newForegroundTab"))]);
    await search.waitForURL(`${origin}/search?q=tide%20pools`);
    expect(await search.locator("body").textContent()).toContain("Tide pools");
  }, TIMEOUT_MS);
});
