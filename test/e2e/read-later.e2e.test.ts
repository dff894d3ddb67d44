/**
 * Read later in Chromium: the reading list and archive buttons of a list's row are posted by
 * the pages' script without leaving the page (the same document stays, its buttons and the top
 * bar's count follow), and work as plain forms with scripts off; the reading view lays the saved
 * text out in a column of at most 70 characters. With LINKSHELF_DOCS_SCREENSHOT=1 the reading
 * view, desktop and light, is written to docs/reading-view.png.
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { Shelf } from "../../src/shelf/shelf";
import { createUser } from "../../src/users/service";
import { browserForFile, keepLocal, VIEWPORTS } from "../support/browser";

const TIMEOUT_MS = 60_000;
let owner: { id: number } = { id: 0 };
let linkId = 0;
const ARTICLE = [
  "Twice a day the sea leaves the shore and comes back. Between the two, the rock pools keep a little of it: warm water, trapped light, and everything that did not leave in time.",
  "A pool high on the shore is a hard place to live. The sun heats it, the rain freshens it, and the salt climbs as it dries. What lives there has learned to wait for the tide.",
  "Lower down, the pools are deeper and calmer. Anemones open, small crabs cross the sand, and a blenny watches from under a ledge, ready to hide at the first shadow.",
  "Go at low water, on a falling tide, and turn every stone back the way you found it. The pool will still be there tomorrow, and so will the people who come after you.",
].join("\n\n");

const e2e = browserForFile({
  setUp: async (server) => {
    const user = await createUser(server.db, { email: "reader@example.test", name: "Reader", password: "correct horse battery" }, Date.now());
    owner = user;
    const shelf = new Shelf(server.db, user);
    shelf.links.create({ name: "Kept for later", url: "https://later.example/", favorite: false, toRead: true }, Date.now());
    linkId = shelf.links.create({ name: "Another to read", url: "https://another.example/", favorite: false, toRead: true }, Date.now()).id;
  },
});

const flagsOf = (id: number) => new Shelf(e2e.server.db, { id: owner.id } as never).links.get(id);

describe.skipIf(!e2e.present)("read later in Chromium", () => {
  it("Mark read and Archive post without a reload; the buttons and the To read count follow", async () => {
    const context = await e2e.signedInContext(owner);
    try {
      const page = await context.newPage();
      await page.goto(`${e2e.server.origin}/links`);
      expect(await page.textContent("#to-read-count")).toBe("2");
      // A mark on this document: a reload would lose it.
      await page.evaluate(() => void ((globalThis as unknown as { stayed: boolean }).stayed = true));
      const row = page.locator(`li[data-link="${linkId}"]`);
      await row.getByRole("button", { name: /^Mark read/ }).click();
      await row.getByRole("button", { name: /^Read later/ }).waitFor();
      expect(await page.textContent("#to-read-count")).toBe("1");
      await row.getByRole("button", { name: /^Archive/ }).click();
      await row.getByRole("button", { name: /^Unarchive/ }).waitFor();
      expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
      expect(flagsOf(linkId)).toMatchObject({ toRead: false, archived: true });
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("without scripts the same buttons are a form that returns to the page", async () => {
    const context = await e2e.signedInContext(owner, { javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${e2e.server.origin}/links/${linkId}`);
      await Promise.all([page.waitForURL(`${e2e.server.origin}/links/${linkId}`), page.locator("form.flags").getByRole("button", { name: /^Unarchive/ }).click()]);
      await page.locator("form.flags").getByRole("button", { name: /^Archive/ }).waitFor();
      expect(flagsOf(linkId)).toMatchObject({ archived: false });
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("the reading view shows the saved text in a column of at most 70 characters, then Mark read and next", async () => {
    const shelf = new Shelf(e2e.server.db, { id: owner.id } as never);
    const articleId = shelf.links.create({ name: "What the tide leaves behind", url: "https://shore.example/rock-pools", favorite: false, toRead: true }, Date.now()).id;
    shelf.links.setContent(articleId, { text: ARTICLE, title: "What the tide leaves behind", byline: "Mara Oyelaran", lang: "en" }, "browser", Date.now());
    const context = await e2e.signedInContext(owner, { viewport: VIEWPORTS.desktop, colorScheme: "light" });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await page.goto(`${e2e.server.origin}/links/${articleId}/read`);
      expect(await page.textContent("#reading-title")).toBe("What the tide leaves behind");
      expect(await page.textContent("#reading-facts")).toContain("shore.example · Mara Oyelaran · saved ");
      expect(await page.locator("#reading-text p").count()).toBe(4);
      expect(await page.textContent("#read-next")).toBe("Mark read and next");
      // The measure: the text's width in the width of a "0" of its font.
      const measure = await page.evaluate<number>(`(() => { const text = document.querySelector("#reading-text p"); const zero = document.createElement("span");
        zero.textContent = "0".repeat(100); zero.style.whiteSpace = "nowrap"; text.append(zero); const ch = zero.getBoundingClientRect().width / 100; zero.remove();
        return text.getBoundingClientRect().width / ch; })()`);
      expect(measure).toBeLessThanOrEqual(70);
      expect(measure).toBeGreaterThan(40);
      if (process.env.LINKSHELF_DOCS_SCREENSHOT === "1") await page.screenshot({ path: join(import.meta.dir, "..", "docs", "reading-view.png") });
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);
});
