/**
 * "Save all tabs in this window" in Debian's Chromium against the compiled server: pages of the
 * loopback site open in one window, one of them already saved at another spelling of its
 * address; the popup, opened as a window of its own like the context menu opens it, saves the
 * others into the chosen collection and reports what it skipped. Skipped when Chromium is
 * absent, failing under CI (see programs.ts).
 */
import { describe, expect, it } from "bun:test";
import type { CollectionCreatedJson, CollectionItemJson } from "../../src/contract/collections";
import type { LinkPageJson } from "../../src/contract/links";
import { launchSignedIn, type ChromeApi } from "../support/extension.chromium";
import { stackForFile } from "../support/extension.stack";
import { CHROMIUM, requireProgram } from "../support/programs";

declare const chrome: ChromeApi & { tabs: { query(query: { windowId: number }): Promise<{ url?: string }[]> } };

const TIMEOUT_MS = 120_000;
const present = requireProgram(CHROMIUM);

const running = stackForFile(present, TIMEOUT_MS);

describe.skipIf(!present)("saving all tabs of a window through the extension in Chromium", () => {
  it("saves the window's web pages into the chosen collection, skips the one already saved and the extension's own page, and says so", async () => {
    const { stack } = running;
    const { origin } = stack.server;
    const { context, worker, id, token } = await launchSignedIn(running, "chromium-tabs-profile");
    const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect({ path, ok: response.ok }).toEqual({ path, ok: true });
      return (await response.json()) as T;
    };
    const site = stack.siteOrigin;
    const reading = (await api<CollectionCreatedJson>("POST", "/api/v1/collections", { name: "Reading", visibility: "PRIVATE", icon: "📚" })).collection;
    await api("POST", "/api/v1/links", { name: "Saved before", url: `${site}/saved/`, favorite: false });

    // The window: the options page, three new pages, the saved one at another spelling of its
    // address, and a page of no web site (its address is visible through the tabs permission alone).
    const note = "data:text/html,<title>Note</title>";
    const urls = [`${site}/one`, `${site}/two`, note, `${site}/three`, `${site}/saved?utm_source=feed`];
    for (const url of urls) await (await context.newPage()).goto(url);
    const [first] = await worker.evaluate((url) => chrome.tabs.query({ url }), urls[0]!);
    const windowId = (first as { windowId?: number }).windowId!;
    const inWindow = await worker.evaluate((windowId) => chrome.tabs.query({ windowId }), windowId);
    expect(inWindow.map((tab) => tab.url)).toEqual([`chrome-extension://${id}/options.html`, ...urls]);

    // The popup in a window of its own, for that window, as the context menu opens it.
    const [popup] = await Promise.all([
      context.waitForEvent("page"),
      worker.evaluate((url) => chrome.windows.create({ url, type: "popup", width: 440, height: 640 }), `chrome-extension://${id}/popup.html?windowId=${windowId}`),
    ]);
    await popup.waitForSelector("#save-all-section:not([hidden])");
    expect(await popup.$$eval("#save-all-collection option", (choices) => choices.map((choice) => [choice.textContent, (choice as { selected?: boolean }).selected]))).toEqual([
      ["📥 Inbox", true],
      ["📚 Reading", false],
    ]);
    await popup.selectOption("#save-all-collection", String(reading.id));
    await popup.click("#save-all");
    await popup.waitForSelector("#save-all-result.ok");
    expect(await popup.textContent("#save-all-result")).toBe("Saved 3, already saved 1 (skipped), not web pages 2.");
    expect(await popup.$$eval("#save-all-lists li", (items) => items.map((item) => item.textContent))).toEqual([
      `Page saved — ${site}/saved?utm_source=feed`,
      `linkshelf settings — chrome-extension://${id}/options.html`,
      `Note — ${note}`,
    ]);

    // The three pages are in Reading, named by their titles; the saved page is still there once.
    const links = (await api<LinkPageJson>("GET", "/api/v1/links")).links;
    expect(links.map((link) => [link.name, link.url]).sort()).toEqual([
      ["Page one", `${site}/one`], ["Page three", `${site}/three`], ["Page two", `${site}/two`], ["Saved before", `${site}/saved/`],
    ]);
    const inReading = (await api<CollectionItemJson>("GET", `/api/v1/collections/${reading.id}`)).collection.links;
    expect(inReading.map((link) => link.url).sort()).toEqual([`${site}/one`, `${site}/three`, `${site}/two`]);
  }, TIMEOUT_MS);
});
