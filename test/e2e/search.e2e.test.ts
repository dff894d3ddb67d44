/**
 * The search page and the link page in Chromium: hostile page text stays text (no script runs),
 * matched words are marked, keyboard alone reaches a hit's page and "Capture again"; and
 * screenshots on a phone and a desktop, light and dark, into test/.artifacts/search-screenshots/.
 * With LINKSHELF_DOCS_SCREENSHOT=1 the desktop light search page is also written to
 * docs/search-page.png, the picture of docs/search.md.
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ContentFetcher } from "../../src/capture/fetcher";
import { storeFetchedContent } from "../../src/capture/store";
import type { UserRow } from "../../src/db/schema";
import { Shelf } from "../../src/shelf/shelf";
import { createUser } from "../../src/users/service";
import { browserForFile, checkLooks, keepLocal, type ContextOptions, type LiveServer } from "../support/browser";
import { mappedConnect, resolverOf } from "../support/favicon.fixtures";

const TIMEOUT_MS = 90_000;
const DAY = 86_400_000;

let fetcher: ContentFetcher | undefined;
let user: UserRow | undefined;
let firstHit = 0;
/** The page fetcher's name lookups: it knows no name, so no page is ever fetched. */
const asked = resolverOf({});

/** A small library about tea: names, descriptions and saved page text, one of them hostile. */
async function library(db: LiveServer["db"], owner: UserRow) {
  const shelf = new Shelf(db, owner);
  const now = Date.now();
  const reading = shelf.collections.create({ name: "Reading", visibility: "PRIVATE", icon: "📚" }, now);
  const kitchen = shelf.collections.create({ name: "Kitchen", visibility: "PUBLIC", icon: "🫖" }, now);
  const links = [
    { name: "Green tea brewing temperatures", url: "https://tea.localhost/guides/green-tea", description: "Water just off the boil scorches green tea.", collectionIds: [kitchen.id, reading.id],
      text: "Green tea is best brewed with water at 70 to 80 °C. Boiling water scorches the leaves and makes the cup bitter; let the kettle rest a minute first." },
    { name: "A history of the teapot", url: "https://museum.localhost/teapots", description: "", collectionIds: [reading.id],
      text: "The first teapots were made in Yixing in the 16th century. Unglazed clay absorbs the oils of the tea brewed in it, so each pot is kept for a single kind of tea." },
    { name: "Forum thread: <script> in my notes?", url: "https://forum.localhost/t/1234?sort=new&page=2", description: "", collectionIds: [kitchen.id],
      text: `Someone pasted <script>alert("tea")</script> into the page; &lt;b&gt; stays as typed. The answer: brew the tea for three minutes, not five.` },
    { name: "Kettle reviews", url: "https://reviews.localhost/kettles", description: "Which kettles hold a temperature for green tea.", collectionIds: [kitchen.id],
      text: "" },
  ];
  const ids = links.map(({ text, ...fields }, i) => {
    const link = shelf.links.create({ ...fields, favorite: i === 0 }, now + i);
    if (text) shelf.links.setContent(link.id, { text, title: fields.name, byline: "T. Leaf", lang: "en", excerpt: text.slice(0, 120) }, i === 1 ? "server" : "browser", now - i * DAY);
    return link.id;
  });
  db.$client.run("UPDATE links SET clicks = 14, last_clicked_at = ?1 WHERE id = ?2", [now - DAY, ids[0]!]);
  db.$client.run("UPDATE links SET clicks = 2, last_clicked_at = ?1 WHERE id = ?2", [now - 9 * DAY, ids[1]!]);
  return ids;
}

let store: ReturnType<typeof storeFetchedContent> = () => undefined;
const e2e = browserForFile({
  capture: () => (fetcher = new ContentFetcher({ allowPrivate: false, clock: Date.now, log: () => undefined, store: (...args) => store(...args) },
    { resolve: asked, connect: mappedConnect(), hostSpacingMillis: 0 })),
  setUp: async (server) => {
    store = storeFetchedContent(server.db);
    user = await createUser(server.db, { email: "tea@example.test", name: "Tea Drinker", password: "correct horse battery" }, Date.now());
    firstHit = (await library(server.db, user))[1]!;
  },
});

const signedInContext = (options: ContextOptions = {}) => e2e.signedInContext(user!, options);

describe.skipIf(!e2e.present)("the search page in Chromium", () => {
  it("searches from the top bar, marks the words, shows hostile text as text, and reaches a link's page by keyboard", async () => {
    const context = await signedInContext();
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      const dialogs: string[] = [];
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(`${e2e.server.origin}/`);
      await page.locator("#search").fill("tea");
      await Promise.all([page.waitForURL(/\/search\?q=tea$/), page.locator("#search").press("Enter")]);
      expect(await page.locator("ol.links > li").count()).toBe(4);
      expect(await page.locator("ol.links mark").count()).toBeGreaterThan(4);
      const hostile = page.locator("ol.links > li", { hasText: "Forum thread" });
      expect(await hostile.locator(".title").textContent()).toBe("Forum thread: <script> in my notes?");
      expect(await hostile.locator(".snippet").textContent()).toContain(`<script>alert("tea")</script>`);
      expect(await hostile.locator(".snippet").textContent()).toContain("&lt;b&gt;");
      expect(await page.locator("ol.links script").count()).toBe(0);
      expect(dialogs).toEqual([]);

      // Keyboard only: the hit's "Details", then "Capture again" on a server-fetched page.
      await page.goto(`${e2e.server.origin}/search?q=teapot`);
      const details = page.getByRole("link", { name: "Details of A history of the teapot" });
      await details.focus();
      await Promise.all([page.waitForURL(`${e2e.server.origin}/links/${firstHit}`), page.keyboard.press("Enter")]);
      expect(await page.locator("#captured").textContent()).toStartWith("Fetched by the server on ");
      await page.getByRole("button", { name: "Capture again" }).focus();
      await Promise.all([page.waitForURL(/done=capture-queued/), page.keyboard.press("Enter")]);
      expect(await page.getByRole("status").textContent()).toStartWith("The page will be fetched in the background");
      await fetcher!.whenIdle();
      // Queued and tried once: a .localhost page is refused by the outbound rule, never contacted.
      expect(fetcher!.counts).toMatchObject({ failed: 1, stored: 0 });
      expect(asked.asked).toEqual([]);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("renders the search and link pages on a phone and a desktop, light and dark (screenshots)", async () => {
    const pages: Record<string, (page: Page) => Promise<unknown>> = {
      search: (page) => page.goto(`${e2e.server.origin}/search?q=tea+brew*`),
      "search-refused": (page) => page.goto(`${e2e.server.origin}/search?q=%22green+tea`),
      link: (page) => page.goto(`${e2e.server.origin}/links/${firstHit}`),
    };
    const checked = await checkLooks("search-screenshots", (options) => signedInContext(options), async (page, check, { device, colorScheme }) => {
      await keepLocal(page, e2e.server.origin);
      for (const [name, open] of Object.entries(pages)) {
        await open(page);
        await check(name);
        if (name === "search" && device === "desktop" && colorScheme === "light" && process.env.LINKSHELF_DOCS_SCREENSHOT === "1") {
          await page.screenshot({ path: join(import.meta.dir, "..", "..", "docs", "search-page.png") });
        }
      }
    });
    expect(checked).toHaveLength(4 * Object.keys(pages).length);
  }, TIMEOUT_MS);
});
