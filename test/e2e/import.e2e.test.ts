/**
 * The import / export page in Chromium: sign in, import a browser's bookmarks file through the
 * page (preview, then confirm), find its folders as collections, download the export, import
 * that into a fresh user and find the same links, names and folders; a file over the limit gets
 * the 413 page in the browser too. Screenshots of the preview and report pages (phone and
 * desktop, light and dark) go to a temp folder whose path is printed.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { UserRow } from "../../src/db/schema";
import { createUser } from "../../src/users/service";
import { MAX_IMPORT_FILE_BYTES } from "../../src/web/imports";
import { answeredStatus, browserForFile, checkLooks, keepLocal, openInPage, type ContextOptions } from "../support/browser";
import { testDir } from "../support/dirs";
import { Shelf } from "../../src/shelf/shelf";

const PASSWORD = "correct horse battery";
const TIMEOUT_MS = 120_000;
const FIXTURE = join(import.meta.dir, "..", "fixtures", "bookmarks", "chromium.html");

const e2e = browserForFile();

let users = 0;
const newUser = (name: string) => createUser(e2e.server.db, { email: `importer${++users}@example.test`, name, password: PASSWORD }, Date.now());

/** signedInContext is a browser whose session cookie was made directly (the sign-in form is tried once, below). */
const signedInContext = (user: UserRow, options: ContextOptions = {}) => e2e.signedInContext(user, options);

/** What must survive an export and an import: every link with its collections, every collection. */
function holdings(userId: number) {
  const db = e2e.server.db.$client;
  const links = db.query(`
    SELECT l.url, l.name, l.description, l.favorite,
      (SELECT group_concat(name, ' | ') FROM (SELECT CASE WHEN c.is_default THEN '(Inbox)' ELSE c.name END AS name
         FROM link_collections lc JOIN collections c ON c.id = lc.collection_id WHERE lc.link_id = l.id ORDER BY 1)) AS collections
    FROM links l WHERE l.user_id = ? ORDER BY l.url`).all(userId);
  const collections = db.query("SELECT name, description, icon FROM collections WHERE user_id = ? AND is_default = 0 ORDER BY name").all(userId);
  return { links, collections };
}

/** importThroughPage uploads a file on /import, checks the preview, confirms and returns the report page's counts. */
async function importThroughPage(page: Page, file: string | { name: string; mimeType: string; buffer: Buffer }): Promise<string[]> {
  const { origin } = e2e.server;
  await openInPage(page, `${origin}/import`);
  await page.getByLabel("Bookmarks file").setInputFiles(file);
  await page.getByRole("button", { name: "Preview import" }).click();
  await page.waitForURL(/\/import\/[0-9a-f-]{36}$/);
  expect(await page.locator("h1").textContent()).toBe("Import preview");
  const previewCounts = await page.locator(".counts dd").allTextContents();
  // The report is a new document at the preview's address: its load is waited for, so the old page cannot answer.
  expect(await answeredStatus(page, () => page.getByRole("button", { name: /^Import \d+ links?$/ }).click())).toBe(200);
  expect(await page.locator("h1").textContent()).toBe("Import done");
  const doneCounts = await page.locator(".counts dd").allTextContents();
  // The preview's dry run said exactly what the import then did.
  expect(doneCounts).toEqual(previewCounts);
  return doneCounts;
}

describe.skipIf(!e2e.present)("the import / export page in Chromium", () => {
  it("imports a browser's file, shows its folders as collections, exports, and re-imports the export into a fresh user", async () => {
    const { origin, db } = e2e.server;
    const owner = await newUser("Ida Importer");
    const fresh = await newUser("Fred Fresh");
    const context = await (await e2e.browser).newContext({ acceptDownloads: true });
    try {
      const page = await context.newPage();
      await keepLocal(page, origin);
      await openInPage(page, `${origin}/account`);
      await page.getByLabel("Email").fill(owner.email);
      await page.getByLabel("Password").fill(PASSWORD);
      await Promise.all([page.waitForURL(`${origin}/account`), page.getByRole("button", { name: "Sign in" }).click()]);
      await page.getByRole("link", { name: "Import bookmarks" }).click();
      expect(new URL(page.url()).pathname).toBe("/import");

      const counts = await importThroughPage(page, FIXTURE);
      // The collections it created: the destinations listed as new (the Inbox, if listed, is an existing one), each by its place in the tree.
      const paths = await page.locator(".destinations li").filter({ has: page.locator(".facts", { hasText: /^New collection/ }) }).locator(".entry").allTextContents();
      expect(paths).toContain("Bookmarks bar › Dev › JavaScript");
      const created = paths.map((path) => path.split(" › ").at(-1)!);
      expect(created.length).toBeGreaterThan(1);
      expect(counts.slice(0, 2)).toEqual([String(holdings(owner.id).links.length), String(created.length)]);
      expect(await page.getByRole("status").textContent()).toContain(`Imported ${counts[0]} links`);
      // Skipped entries are listed with the reason.
      await expect(page.locator("#skipped-heading").textContent()).resolves.toBe("Skipped");
      expect(await page.locator(".entries .reason").first().textContent()).toContain("linkshelf keeps only http and https links");

      await page.getByRole("link", { name: "See your links" }).click();
      const sidebar = page.getByRole("navigation", { name: "Collections" });
      const shown = (await sidebar.locator(".name").allTextContents()).map((name) => name.trim());
      expect(shown).toEqual(expect.arrayContaining(created));

      // The export, through the browser's download.
      await openInPage(page, `${origin}/import`);
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download bookmarks file" }).click()]);
      expect(download.suggestedFilename()).toBe(`linkshelf-bookmarks-${new Date().toISOString().slice(0, 10)}.html`);
      const exported = join(testDir("export"), download.suggestedFilename());
      await download.saveAs(exported);
      expect(readFileSync(exported, "utf8").startsWith("<!DOCTYPE NETSCAPE-Bookmark-file-1>")).toBe(true);

      // A fresh user imports the export and holds the same links, names and folders.
      const freshContext = await signedInContext(fresh);
      try {
        const freshPage = await freshContext.newPage();
        await keepLocal(freshPage, origin);
        const again = await importThroughPage(freshPage, exported);
        expect(again.slice(2)).toEqual(["0", "0"]);
      } finally {
        await freshContext.close();
      }
      const original = holdings(owner.id);
      expect(original.links.length).toBe(Number(counts[0]));
      expect(holdings(fresh.id)).toEqual(original);
      expect(db.$client.query("SELECT count(*) AS n FROM links").get()).toEqual({ n: 2 * original.links.length });
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("shows the 413 page for a file over the limit, storing nothing", async () => {
    const { origin, db } = e2e.server;
    const user = await newUser("Big Bertha");
    const context = await signedInContext(user);
    try {
      const page = await context.newPage();
      await keepLocal(page, origin);
      const before = db.$client.query("SELECT count(*) AS n FROM links").get();
      await openInPage(page, `${origin}/import`);
      // From a file on disk: the browser reads it itself (a buffer would go through Playwright's connection).
      const huge = join(testDir("import-huge"), "huge.html");
      writeFileSync(huge, Buffer.alloc(MAX_IMPORT_FILE_BYTES + 1024, " "));
      await page.getByLabel("Bookmarks file").setInputFiles(huge);
      // The answer is a new document at the same address: its load is waited for, not the old one's.
      expect(await answeredStatus(page, () => page.getByRole("button", { name: "Preview import" }).click())).toBe(413);
      await expect(page.locator("#file-error").textContent()).resolves.toContain("The file is larger than 32.0 MiB");
      expect(db.$client.query("SELECT count(*) AS n FROM links").get()).toEqual(before);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("renders the preview and report pages on a phone and a desktop, light and dark (screenshots)", async () => {
    const { origin } = e2e.server;
    const checked = await checkLooks("import-screenshots", async (options) => {
      const user = await newUser("Sam Shots");
      // One URL of the file is there already, so the pages list a duplicate too.
      new Shelf(e2e.server.db, user).links.create({ name: "Example", url: "https://example.com/", description: "", favorite: false, collectionIds: [] }, Date.now());
      return signedInContext(user, options);
    }, async (page, check) => {
      await keepLocal(page, origin);
      await openInPage(page, `${origin}/import`);
      await check("import");
      await page.getByLabel("Bookmarks file").setInputFiles(FIXTURE);
      await page.getByRole("button", { name: "Preview import" }).click();
      await page.waitForURL(/\/import\/[0-9a-f-]{36}$/);
      await check("preview");
      await page.getByRole("button", { name: /^Import \d+ links$/ }).click();
      await page.waitForSelector("text=Import done");
      await check("report");
      await openInPage(page, `${origin}/account`);
      await check("account");
    });
    expect(checked).toHaveLength(16);
  }, TIMEOUT_MS);
});
