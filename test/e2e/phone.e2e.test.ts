/**
 * The pages on a phone (390×844) in Chromium: the content comes first, the collection tree
 * folded to one line ("Collections ▾" and what is shown), the bulk bar folded until used; the
 * first link of the home page, a collection's page and search results within the first
 * screen, with 260 collections and with 2,000 ten deep; the account page no wider than the
 * screen. On a desktop the tree shows whole.
 */
import { describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import type { UserRow } from "../../src/db/schema";
import { Shelf } from "../../src/shelf/shelf";
import { createUser } from "../../src/users/service";
import { browserForFile, keepLocal, openInPage, VIEWPORTS } from "../support/browser";

const TIMEOUT_MS = 120_000;
const PHONE = VIEWPORTS.phone;

interface Reader {
  user: UserRow;
  /** A collection with sub-collections and links, below the first screenful of the tree. */
  reading: number;
}

/**
 * shelfOf makes a reader's shelf: `count` collections (each fifth inside the one made before
 * it, down to `depth` levels), long names among them, 30 links in the Inbox and a collection
 * of 3 sub-collections and 60 links made last.
 */
function shelfOf(user: UserRow, count: number, depth: number): Reader {
  const shelf = new Shelf(e2e.server.db, user);
  const now = Date.now();
  let parent: { id: number; depth: number } | null = null;
  for (let i = 0; i < count - 5; i++) {
    const nested: boolean = parent !== null && parent.depth < depth && i % 5 !== 0;
    const name = i % 7 === 0 ? `Imported from Firefox toolbar folder ${i}` : `Folder ${i}`;
    const made = shelf.collections.create({ name, visibility: "PRIVATE", parentId: nested ? parent!.id : null }, now);
    parent = { id: made.id, depth: nested ? parent!.depth + 1 : 1 };
  }
  const reading = shelf.collections.create({ name: "Reading", visibility: "PRIVATE" }, now).id;
  for (const name of ["Essays", "Papers", "Later"]) shelf.collections.create({ name, visibility: "PRIVATE", parentId: reading }, now);
  for (let i = 0; i < 30; i++) shelf.links.create({ name: `Inbox article ${i}`, url: `https://example.test/inbox/${i}`, favorite: false }, now);
  for (let i = 0; i < 60; i++) shelf.links.create({ name: `Reading article ${i}`, url: `https://example.test/reading/${i}`, favorite: false, collectionIds: [reading] }, now);
  return { user, reading };
}

let small: Reader | undefined;
let large: Reader | undefined;

const e2e = browserForFile({
  setUp: async (server) => {
    const one = await createUser(server.db, { email: "phone@example.test", name: "Phone Reader", password: "correct horse battery" }, Date.now());
    new Shelf(server.db, one).collections.create({ name: "Recipes from my grandparents", visibility: "PRIVATE" }, Date.now());
    small = shelfOf(one, 260, 4);
    const two = await createUser(server.db, { email: "many@example.test", name: "Many Folders", password: "correct horse battery" }, Date.now());
    large = shelfOf(two, 2_000, 10);
    const shelf = new Shelf(server.db, one);
    shelf.tokens.create("laptop script with a rather long name", Date.now());
    shelf.extensions.approve({ browser: "chromium", extensionId: "abcdefghijklmnopabcdefghijklmnop" }, Date.now());
    shelf.extensions.approve({ browser: "firefox", extensionId: "0123456789abcdef0123456789abcdef01234567" }, Date.now());
  },
});

/** Runs in the page: where `main` and the list's first link start, and how tall the folded tree and bulk bar are. */
const MEASURE = `(() => {
  const top = (selector) => { const el = document.querySelector(selector); return el ? el.getBoundingClientRect().top + scrollY : null; };
  const height = (selector) => { const el = document.querySelector(selector); return el ? el.getBoundingClientRect().height : null; };
  return {
    main: top("main"),
    firstLink: top("main .links > li a.title"),
    tree: height("nav.sidebar"),
    bulk: height(".bulk-bar"),
    treeShown: document.querySelector("#sidebar-tree").checkVisibility(),
    width: document.documentElement.scrollWidth,
  };
})()`;

interface Measured {
  main: number;
  firstLink: number | null;
  tree: number;
  bulk: number | null;
  treeShown: boolean;
  width: number;
}

async function measure(page: Page, url: string): Promise<Measured> {
  await openInPage(page, `${e2e.server.origin}${url}`);
  return page.evaluate<Measured>(MEASURE);
}

describe.skipIf(!e2e.present)("the pages on a 390×844 phone", () => {
  for (const [label, reader] of [["260 collections", () => small!], ["2,000 collections 10 deep", () => large!]] as const) {
    it(`puts the first link of the home page, a collection and search results within the first screen (${label})`, async () => {
      const context = await e2e.signedInContext(reader().user, { viewport: PHONE });
      try {
        const page = await context.newPage();
        await keepLocal(page, e2e.server.origin);
        for (const url of ["/", `/?collection=${reader().reading}`, "/search?q=article"]) {
          const seen = await measure(page, url);
          expect({ url, main: seen.main < PHONE.height / 3 }).toEqual({ url, main: true });
          expect({ url, firstLink: seen.firstLink !== null && seen.firstLink < PHONE.height }).toEqual({ url, firstLink: true });
          // The tree is one line until opened; the bulk bar one line until used.
          expect(seen.tree).toBeLessThan(70);
          expect(seen.treeShown).toBe(false);
          expect(seen.bulk).toBeLessThan(50);
          expect(seen.width).toBeLessThanOrEqual(PHONE.width);
        }
        await openInPage(page, `${e2e.server.origin}/?collection=${reader().reading}`);
        const fold = page.locator("nav.sidebar summary").first();
        expect((await fold.textContent())!.replace(/\s+/g, " ").trim()).toBe("Collections ▾, showing 📁 Reading");
        await fold.click();
        expect(await page.locator("#sidebar-tree").isVisible()).toBe(true);
        expect(await page.locator("#sidebar-tree a[aria-current=page]").textContent()).toContain("Reading");
      } finally {
        await context.close();
      }
    }, TIMEOUT_MS);
  }

  it("folds the tree and the bulk bar without JavaScript too, and opens them on a click", async () => {
    const context = await e2e.signedInContext(small!.user, { viewport: PHONE, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      const seen = await measure(page, `/?collection=${small!.reading}`);
      expect(seen.firstLink).toBeLessThan(PHONE.height);
      await page.locator(".bulk-bar > summary").click();
      expect(await page.locator("#bulk-action").isVisible()).toBe(true);
      await page.locator("nav.sidebar summary").first().click();
      expect(await page.locator("#sidebar-tree").isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("opens the bulk bar when a link is ticked", async () => {
    const context = await e2e.signedInContext(small!.user, { viewport: PHONE });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await openInPage(page, `${e2e.server.origin}/`);
      expect(await page.locator("#bulk-action").isVisible()).toBe(false);
      await page.getByRole("checkbox", { name: "Select Inbox article 3" }).check();
      expect(await page.locator("#bulk-action").isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("shows the whole tree beside the content on a desktop, names as wide as the sidebar, counts at its right edge", async () => {
    const context = await e2e.signedInContext(small!.user, { viewport: VIEWPORTS.desktop });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await openInPage(page, `${e2e.server.origin}/`);
      expect(await page.locator("#sidebar-tree").isVisible()).toBe(true);
      expect(await page.locator("nav.sidebar .fold > summary").isVisible()).toBe(false);
      const rows = await page.evaluate<{ name: string; title: string; clipped: boolean; gap: number }[]>(`[...document.querySelectorAll("#sidebar-tree > li > a.item")].slice(0, 12).map((a) => {
        const name = a.querySelector(".name"), count = a.querySelector(".count");
        return { name: name.textContent, title: a.title, clipped: name.scrollWidth > name.clientWidth,
          gap: a.getBoundingClientRect().right - count.getBoundingClientRect().right };
      })`);
      for (const row of rows) {
        expect(row.title).toBe(row.name);
        // Counts sit at the row's right edge (its padding only).
        expect(row.gap).toBeLessThan(12);
      }
      // A 28-character name fits whole at the top level; a longer one ends in an ellipsis, whole in its title.
      expect(rows.find((row) => row.name === "Recipes from my grandparents")?.clipped).toBe(false);
      expect(rows.find((row) => row.name === "Imported from Firefox toolbar folder 0")?.clipped).toBe(true);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("shows the whole tree on a desktop without JavaScript too", async () => {
    const context = await e2e.signedInContext(small!.user, { viewport: VIEWPORTS.desktop, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await openInPage(page, `${e2e.server.origin}/`);
      expect(await page.locator("#sidebar-tree").isVisible()).toBe(true);
      expect(await page.locator("nav.sidebar .fold > summary").isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("keeps counts at the right edge of the opened tree on a phone", async () => {
    const context = await e2e.signedInContext(small!.user, { viewport: PHONE });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await openInPage(page, `${e2e.server.origin}/`);
      await page.locator("nav.sidebar summary").first().click();
      const gaps = await page.evaluate<number[]>(`[...document.querySelectorAll("#sidebar-tree > li > a.item")].slice(0, 12).map((a) =>
        a.getBoundingClientRect().right - a.querySelector(".count").getBoundingClientRect().right)`);
      for (const gap of gaps) expect(gap).toBeLessThan(12);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("fits the account page, with its token and extension tables, in 390 px", async () => {
    const context = await e2e.signedInContext(small!.user, { viewport: PHONE });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await openInPage(page, `${e2e.server.origin}/account`);
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE.width);
      expect(await page.getByText("0123456789abcdef0123456789abcdef01234567").isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);
});
