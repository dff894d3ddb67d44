import { describe, expect, it } from "bun:test";
import { ApiError, createClient } from "../../extension/src/api";
import { MENU_ITEMS, MENU_LINK, MENU_PAGE, menuPopupQuery } from "../../extension/src/menu";
import { linkName, saveAllTabs, summarize, type SaveAllReport } from "../../extension/src/tabs";
import type { Tab } from "../../extension/src/webext";
import { APP_ORIGIN, appFetch } from "../support/extension.fakes";
import { createCollection, createLink, createUser, makeEnv, type TestEnv } from "../support/helpers";

/** A window's tabs as `tabs.query` lists them with the `tabs` permission. */
const WINDOW: Tab[] = [
  { id: 1, windowId: 7, url: "https://news.example/story", title: "A story" },
  { id: 2, windowId: 7, url: "chrome://settings/", title: "Settings" },
  { id: 3, windowId: 7, url: "https://docs.example/guide/?utm_source=feed", title: "The guide" },
  { id: 4, windowId: 7, url: "http://blog.example/post", title: "" },
  { id: 5, windowId: 7, url: "about:blank", title: "" },
  { id: 6, windowId: 7, url: "HTTPS://Shop.example:443/item#", title: "An item" },
  { id: 7, windowId: 7, url: "https://news.example/story/", title: "The story again" },
  { id: 8, windowId: 7, url: "https://recipes.example/soup", title: "Soup" },
];

/** storedUrls lists every stored link's address, oldest first, read from the database (a rate-limited token could not ask). */
function storedUrls(env: TestEnv): string[] {
  return env.db.$client.query<{ url: string }, []>("SELECT url FROM links ORDER BY id").all().map((row) => row.url);
}

describe("saveAllTabs against the real app", () => {
  it("saves each web page not yet saved into the chosen collection, skipping other schemes and saved pages by the normalized address", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const reading = await createCollection(env, alice, { name: "Reading", icon: "📚" });
    await createLink(env, alice, { name: "Guide", url: "https://docs.example/guide" });
    await createLink(env, alice, { name: "Item", url: "https://shop.example/item" });
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) });

    const report = await saveAllTabs({ client, tabs: WINDOW, collections: await client.listCollections(), collectionId: reading.id });

    expect(report.saved.map((link) => [link.name, link.url, link.collectionIds])).toEqual([
      ["A story", "https://news.example/story", [reading.id]],
      ["http://blog.example/post", "http://blog.example/post", [reading.id]],
      ["Soup", "https://recipes.example/soup", [reading.id]],
    ]);
    expect(report.alreadySaved.map((tab) => tab.url)).toEqual(["https://docs.example/guide/?utm_source=feed", "HTTPS://Shop.example:443/item#", "https://news.example/story/"]);
    expect(report.notWeb.map((tab) => tab.url)).toEqual(["chrome://settings/", "about:blank"]);
    expect(report).toMatchObject({ refused: [], notTried: [], stoppedBy: null });
    expect(summarize(report)).toBe("Saved 3, already saved 3 (skipped), not web pages 2.");
    expect(storedUrls(env)).toEqual([
      "https://docs.example/guide", "https://shop.example/item", "https://news.example/story", "http://blog.example/post", "https://recipes.example/soup",
    ]);
  });

  it("stops at a rate limit half-way, keeping what was saved and reporting the rest as not saved with when to try again", async () => {
    // One request for the collections, then two saves; the third save is refused.
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "3/60" });
    const alice = await createUser(env);
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) });
    const collections = await client.listCollections();

    const report = await saveAllTabs({ client, tabs: WINDOW, collections, collectionId: collections[0]!.id });

    expect(report.saved.map((link) => link.url)).toEqual(["https://news.example/story", "https://docs.example/guide/?utm_source=feed"]);
    expect(report.stoppedBy?.kind).toBe("rate-limited");
    const seconds = report.stoppedBy!.retryAfterSeconds;
    expect(seconds).toBeGreaterThan(0);
    expect(report.notTried.map((tab) => tab.url)).toEqual(["http://blog.example/post", "HTTPS://Shop.example:443/item#", "https://recipes.example/soup"]);
    // The tab after the first one's duplicate is still known as already saved: it was saved in this run.
    expect(report.alreadySaved.map((tab) => tab.url)).toEqual(["https://news.example/story/"]);
    expect(summarize(report)).toBe(`Saved 2, already saved 1 (skipped), not web pages 2. Too many requests for now. Try again in ${seconds} s. 3 tabs were not saved.`);
    expect(storedUrls(env)).toEqual(["https://news.example/story", "https://docs.example/guide/?utm_source=feed"]);
  });

  it("stops when the token is revoked half-way, as unauthorized, and tries no further tab", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const seen: Request[] = [];
    const send = appFetch(env, seen);
    // The token is revoked on the server right after the first link is saved.
    const revoking = (async (input: string, init?: RequestInit) => {
      const response = await send(input, init);
      if (seen.filter((request) => request.method === "POST").length === 1) env.db.$client.run("DELETE FROM api_tokens");
      return response;
    }) as typeof fetch;
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: revoking });
    const tabs = WINDOW.filter((tab) => tab.url!.startsWith("http"));

    const collections = await client.listCollections();

    const report = await saveAllTabs({ client, tabs, collections, collectionId: collections[0]!.id });

    expect(report.saved.map((link) => link.url)).toEqual(["https://news.example/story"]);
    expect(report.stoppedBy?.kind).toBe("unauthorized");
    expect(report.notTried.map((tab) => tab.url)).toEqual(["https://docs.example/guide/?utm_source=feed", "http://blog.example/post", "https://recipes.example/soup"]);
    expect(seen.filter((request) => request.method === "POST")).toHaveLength(2);
    expect(summarize(report)).toBe(
      "Saved 1, already saved 1 (skipped), not web pages 0. The server no longer accepts this browser's token (it was revoked). Sign in again. 3 tabs were not saved.",
    );
  });

  it("notes a page the server refuses with its reason and goes on with the next tab", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) });
    const long = `https://long.example/?q=${"x".repeat(2100)}`;
    const report = await saveAllTabs({
      client,
      tabs: [{ url: long, title: "Too long" }, { url: "https://ok.example/", title: "Fine" }],
      collections: await client.listCollections(),
      collectionId: (await client.listCollections())[0]!.id,
    });
    expect(report.saved.map((link) => link.url)).toEqual(["https://ok.example/"]);
    expect(report.refused).toHaveLength(1);
    expect(report.refused[0]).toMatchObject({ url: long, title: "Too long" });
    expect(report.refused[0]!.reason).toContain("url:");
    expect(report.stoppedBy).toBeNull();
    expect(summarize(report)).toBe("Saved 1, already saved 0 (skipped), not web pages 0, refused 1.");
  });
});

describe("summarize", () => {
  const empty: SaveAllReport = { saved: [], alreadySaved: [], notWeb: [], refused: [], notTried: [], stoppedBy: null };
  it("says one tab left in the singular and an unreachable server's reason", () => {
    const stoppedBy = new ApiError("unreachable", "Cannot reach http://127.0.0.1:9. Check the address and that linkshelf is running there.");
    expect(summarize({ ...empty, notTried: [{ title: "A", url: "https://a.example/" }], stoppedBy })).toBe(
      "Saved 0, already saved 0 (skipped), not web pages 0. Cannot reach http://127.0.0.1:9. Check the address and that linkshelf is running there. 1 tab was not saved.",
    );
  });
});

describe("linkName", () => {
  it("is the tab's title, else its address, cut to 254 characters without splitting one", () => {
    expect(linkName("  A story ", "https://a.example/")).toBe("A story");
    expect(linkName("", "https://a.example/")).toBe("https://a.example/");
    expect(linkName(undefined, "https://a.example/")).toBe("https://a.example/");
    const emoji = linkName("🌊".repeat(300), "https://a.example/");
    expect(Array.from(emoji)).toHaveLength(254);
    expect(emoji.toWellFormed()).toBe(emoji);
  });
});

describe("the right-click menu", () => {
  const tab: Tab = { id: 12, windowId: 3, url: "https://news.example/front", title: "Front page" };

  it("has a page item on pages and a link item on links", () => {
    expect(MENU_ITEMS.map((item) => [item.title, item.contexts])).toEqual([["Save page to linkshelf…", ["page"]], ["Save link to linkshelf…", ["link"]]]);
  });

  it("opens the popup for the page with its tab, whose text is read after saving, and its window", () => {
    const query = menuPopupQuery({ menuItemId: MENU_PAGE, pageUrl: "https://news.example/front" }, tab);
    expect(Object.fromEntries(query!)).toEqual({ url: "https://news.example/front", title: "Front page", tabId: "12", windowId: "3" });
  });

  it("opens the popup for a link with the link's address and text, no tab to read or edit, and the tab's window", () => {
    const firefox = menuPopupQuery({ menuItemId: MENU_LINK, pageUrl: tab.url!, linkUrl: "https://news.example/story", linkText: " A story " }, tab);
    expect(Object.fromEntries(firefox!)).toEqual({ url: "https://news.example/story", title: "A story", kind: "link", windowId: "3" });
    const selected = menuPopupQuery({ menuItemId: MENU_LINK, pageUrl: tab.url!, linkUrl: "https://news.example/story", selectionText: "Selected words" }, tab);
    expect(selected!.get("title")).toBe("Selected words");
    const chromium = menuPopupQuery({ menuItemId: MENU_LINK, pageUrl: tab.url!, linkUrl: "https://news.example/story" }, tab);
    expect(Object.fromEntries(chromium!)).toEqual({ url: "https://news.example/story", title: "https://news.example/story", kind: "link", windowId: "3" });
  });

  it("ignores another menu's item", () => {
    expect(menuPopupQuery({ menuItemId: "other", pageUrl: tab.url! }, tab)).toBeNull();
  });
});
