/**
 * Arranging a collection in Chromium: links and sub-collections dragged within their list and
 * onto a collection of the sidebar, the focused link moved with Alt+↑ / Alt+↓, each move one
 * request with no reload and the scroll position kept, the order stored; without JavaScript the
 * ↑ ↓ forms come back to the moved link, not the top of the page.
 */
import { describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import type { UserRow } from "../../src/db/schema";
import { Shelf } from "../../src/shelf/shelf";
import { createUser } from "../../src/users/service";
import { browserForFile, keepLocal, openInPage, VIEWPORTS } from "../support/browser";

const TIMEOUT_MS = 120_000;

let user: UserRow | undefined;
let reading = 0;
let archive = 0;
const essays = { id: 0 };
const papers = { id: 0 };
const linkIds: number[] = [];

const e2e = browserForFile({
  setUp: async (server) => {
    user = await createUser(server.db, { email: "arrange@example.test", name: "Arranger", password: "correct horse battery" }, Date.now());
    const shelf = new Shelf(server.db, user);
    const now = Date.now();
    reading = shelf.collections.create({ name: "Reading", visibility: "PRIVATE" }, now).id;
    archive = shelf.collections.create({ name: "Archive", visibility: "PRIVATE" }, now).id;
    essays.id = shelf.collections.create({ name: "Essays", visibility: "PRIVATE", parentId: reading }, now).id;
    papers.id = shelf.collections.create({ name: "Papers", visibility: "PRIVATE", parentId: reading }, now).id;
    for (let i = 1; i <= 40; i++) {
      linkIds.push(shelf.links.create({ name: `Article ${i}`, url: `https://example.test/articles/${i}`, favorite: false, collectionIds: [reading] }, now).id);
    }
  },
});

const shelf = () => new Shelf(e2e.server.db, user!);
const orderOf = (id: number) => shelf().collections.order(id).map((item) => `${item.kind}:${item.id}`);
const linkOrder = () => orderOf(reading).filter((key) => key.startsWith("link:"));

/** until waits for the stored state to say what the page said (its request is answered after the page changed). */
async function until<T>(read: () => T, wanted: (value: T) => boolean): Promise<T> {
  for (let tries = 0; tries < 100; tries++) {
    const value = read();
    if (wanted(value)) return value;
    await Bun.sleep(50);
  }
  return read();
}

/** A mark left on the page's window: a reload would take it away. */
const MARK = "window.__notReloaded = true";
const stillThere = (page: Page) => page.evaluate<boolean>("window.__notReloaded === true");

async function openReading(page: Page, scrollTo?: number): Promise<number> {
  await openInPage(page, `${e2e.server.origin}/?collection=${reading}`);
  await page.evaluate(MARK);
  if (scrollTo !== undefined) await page.evaluate(`document.getElementById("link-${scrollTo}").scrollIntoView({ block: "center" })`);
  return page.evaluate<number>("scrollY");
}

/** reset puts Reading's order back: the sub-collections, then the links 1 to 40. */
function reset(): void {
  shelf().links.bulk({ ids: linkIds, action: "move", collectionId: reading }, Date.now());
  shelf().collections.setOrder(reading, [
    { kind: "collection", id: essays.id }, { kind: "collection", id: papers.id },
    ...linkIds.map((id) => ({ kind: "link" as const, id })),
  ], Date.now());
}

describe.skipIf(!e2e.present)("arranging a collection in Chromium", () => {
  it("drags a link before another, with no reload, the scroll position kept and the order stored", async () => {
    reset();
    const context = await e2e.signedInContext(user!, { viewport: VIEWPORTS.desktop });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      const moving = linkIds[25]!;
      const target = linkIds[21]!;
      const scrolled = await openReading(page, moving);
      expect(scrolled).toBeGreaterThan(1000);
      await page.locator(`#link-${moving}`).dragTo(page.locator(`#link-${target}`), { targetPosition: { x: 200, y: 4 } });
      const stored = await until(linkOrder, (order) => order.indexOf(`link:${moving}`) === 21);
      expect(stored.slice(20, 24)).toEqual([`link:${linkIds[20]}`, `link:${moving}`, `link:${target}`, `link:${linkIds[22]}`]);
      expect(await stillThere(page)).toBe(true);
      expect(Math.abs((await page.evaluate<number>("scrollY")) - scrolled)).toBeLessThan(2);
      expect(await page.evaluate<string[]>(`[...document.querySelectorAll("[data-arrange] > li[data-link]")].slice(20, 23).map((li) => li.id)`))
        .toEqual([`link-${linkIds[20]}`, `link-${moving}`, `link-${target}`]);
      expect(await page.locator("#arrange-status").textContent()).toBe(`Article 26 moved before Article 22.`);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("drags a sub-collection after another, and a link onto a collection of the sidebar", async () => {
    reset();
    const context = await e2e.signedInContext(user!, { viewport: VIEWPORTS.desktop });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await openReading(page);
      const essay = page.locator(`#collection-${essays.id}`);
      const paper = page.locator(`#collection-${papers.id}`);
      const box = (await paper.boundingBox())!;
      await essay.dragTo(paper, { targetPosition: { x: 100, y: box.height - 3 } });
      expect((await until(() => orderOf(reading), (order) => order[0] === `collection:${papers.id}`)).slice(0, 2))
        .toEqual([`collection:${papers.id}`, `collection:${essays.id}`]);

      const moving = linkIds[2]!;
      await page.locator(`#link-${moving}`).dragTo(page.locator(`nav.sidebar a[data-drop="${archive}"]`));
      expect(await until(() => orderOf(archive), (order) => order.length === 1)).toEqual([`link:${moving}`]);
      expect(orderOf(reading)).not.toContain(`link:${moving}`);
      expect(await page.locator(`#link-${moving}`).count()).toBe(0);
      expect(await stillThere(page)).toBe(true);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("moves the focused link with Alt+↑ and Alt+↓, keeping its focus and the scroll position", async () => {
    reset();
    const context = await e2e.signedInContext(user!, { viewport: VIEWPORTS.phone });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      const moving = linkIds[25]!;
      const scrolled = await openReading(page, moving);
      await page.locator(`#link-${moving} a.title`).focus();
      await page.keyboard.press("Alt+ArrowUp");
      await page.keyboard.press("Alt+ArrowUp");
      await until(linkOrder, (order) => order.indexOf(`link:${moving}`) === 23);
      await page.keyboard.press("Alt+ArrowDown");
      const stored = await until(linkOrder, (order) => order.indexOf(`link:${moving}`) === 24);
      expect(stored.indexOf(`link:${moving}`)).toBe(24);
      expect(await page.evaluate<string>("document.activeElement.closest('li').id")).toBe(`link-${moving}`);
      expect(await stillThere(page)).toBe(true);
      expect(Math.abs((await page.evaluate<number>("scrollY")) - scrolled)).toBeLessThan(2);
      // The ↑ button does the same, without a reload.
      await page.getByRole("button", { name: "Move up: Article 26" }).click();
      expect((await until(linkOrder, (order) => order.indexOf(`link:${moving}`) === 23)).indexOf(`link:${moving}`)).toBe(23);
      expect(await stillThere(page)).toBe(true);
      // The buttons follow the places: the first link moved down gets a ↑, the one now first loses it.
      await page.locator(`#link-${linkIds[0]} a.title`).focus();
      await page.keyboard.press("Alt+ArrowDown");
      await until(linkOrder, (order) => order[0] === `link:${linkIds[1]}`);
      expect(await page.getByRole("button", { name: "Move up: Article 1", exact: true }).isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "Move up: Article 2", exact: true }).isVisible()).toBe(false);
      expect(await page.getByRole("button", { name: "Move down: Article 2", exact: true }).isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("comes back to the moved link after a ↑ form without JavaScript", async () => {
    reset();
    const context = await e2e.signedInContext(user!, { viewport: VIEWPORTS.phone, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      const moving = linkIds[25]!;
      await openInPage(page, `${e2e.server.origin}/?collection=${reading}`);
      await Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "Move up: Article 26" }).click()]);
      expect(new URL(page.url()).hash).toBe(`#link-${moving}`);
      expect(linkOrder().indexOf(`link:${moving}`)).toBe(24);
      // The page opens at the moved link, not at its top.
      const top = await page.evaluate<number>(`document.getElementById("link-${moving}").getBoundingClientRect().top`);
      expect(await page.evaluate<number>("scrollY")).toBeGreaterThan(1000);
      expect(top).toBeGreaterThanOrEqual(-1);
      expect(top).toBeLessThan(VIEWPORTS.phone.height);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);
});
