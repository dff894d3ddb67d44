/**
 * Read later in Chromium: the reading list and archive buttons of a list's row are posted by
 * the pages' script without leaving the page (the same document stays, its buttons and the top
 * bar's count follow), and work as plain forms with scripts off.
 */
import { describe, expect, it } from "bun:test";
import { Shelf } from "../../src/shelf/shelf";
import { createUser } from "../../src/users/service";
import { browserForFile } from "../support/browser";

const TIMEOUT_MS = 60_000;
let owner: { id: number } = { id: 0 };
let linkId = 0;

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
});
