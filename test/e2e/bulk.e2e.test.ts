/**
 * The all-links view and the bulk form in Chromium: two links picked with the keyboard (j, k,
 * x) and favorited; the same with JavaScript off (checkboxes and a submit); the shortcuts wait
 * while the search box is typed in; `?` opens their help; the page on a phone and a desktop,
 * light and dark. With LINKSHELF_DOCS_SCREENSHOT=1 the desktop light all-links page is also
 * written to docs/all-links.png, the picture of docs/pages.md.
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import type { UserRow } from "../../src/db/schema";
import { Shelf } from "../../src/shelf/shelf";
import { createUser } from "../../src/users/service";
import { browserForFile, checkLooks, keepLocal, type ContextOptions, type LiveServer } from "../support/browser";

const TIMEOUT_MS = 90_000;

let user: UserRow | undefined;

/** Six links named A to F (F newest), in two collections. */
function library(db: LiveServer["db"], owner: UserRow) {
  const shelf = new Shelf(db, owner);
  const now = Date.now();
  const reading = shelf.collections.create({ name: "Reading", visibility: "PRIVATE", icon: "📚" }, now);
  const music = shelf.collections.create({ name: "Music", visibility: "PUBLIC", icon: "🎵" }, now);
  ["Apple pie recipe", "Bach cello suites", "Compilers course", "Debian handbook", "Espresso guide", "Fjord hiking map"].forEach((name, i) =>
    shelf.links.create({ name, url: `https://site${i}.localhost/${name.split(" ")[0]!.toLowerCase()}`, description: i % 2 ? "Kept for later." : "",
      favorite: false, collectionIds: [i % 2 ? music.id : reading.id] }, now + i));
  return shelf;
}

const e2e = browserForFile({
  setUp: async (server) => {
    user = await createUser(server.db, { email: "bulk@example.test", name: "Bulk Tester", password: "correct horse battery" }, Date.now());
    library(server.db, user);
  },
});

const signedInContext = (options: ContextOptions = {}) => e2e.signedInContext(user!, options);

const favorites = () => new Shelf(e2e.server.db, user!).links.list({ sort: "name", favorite: true }).links.map((link) => link.name);
const unfavoriteAll = () => e2e.server.db.$client.run("UPDATE links SET favorite = 0");

describe.skipIf(!e2e.present)("the all-links view in Chromium", () => {
  it("picks two links with j, k and x and favorites them from the keyboard", async () => {
    unfavoriteAll();
    const context = await signedInContext();
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await page.goto(`${e2e.server.origin}/links?sort=name`);
      await page.keyboard.press("j");
      await page.keyboard.press("x");
      await page.keyboard.press("j");
      await page.keyboard.press("j");
      await page.keyboard.press("k");
      await page.keyboard.press("j");
      await page.keyboard.press("x");
      expect(await page.locator("input.pick:checked").count()).toBe(2);
      await page.locator("#bulk-action").selectOption("favorite");
      await page.getByRole("button", { name: "Apply to selected" }).focus();
      await Promise.all([page.waitForURL(/done=bulk-favorite/), page.keyboard.press("Enter")]);
      expect(await page.getByRole("status").textContent()).toBe("2 links marked as favorites.");
      expect(favorites()).toEqual(["Apple pie recipe", "Compilers course"]);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("favorites ticked links with JavaScript off, the select-all box absent", async () => {
    unfavoriteAll();
    const context = await signedInContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await page.goto(`${e2e.server.origin}/links?sort=name`);
      expect(await page.locator("[data-select-all]").isVisible()).toBe(false);
      await page.getByRole("checkbox", { name: "Select Bach cello suites" }).check();
      await page.getByRole("checkbox", { name: "Select Espresso guide" }).check();
      // Without scripts the bar stays folded until opened.
      expect(await page.locator("#bulk-action").isVisible()).toBe(false);
      await page.locator(".bulk-bar > summary").click();
      await page.locator("#bulk-action").selectOption("favorite");
      await Promise.all([page.waitForURL(/done=bulk-favorite/), page.getByRole("button", { name: "Apply to selected" }).click()]);
      expect(await page.getByRole("status").textContent()).toBe("2 links marked as favorites.");
      expect(favorites()).toEqual(["Bach cello suites", "Espresso guide"]);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("lets the search box be typed in without firing a shortcut, and opens the help with ?", async () => {
    const context = await signedInContext();
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await page.goto(`${e2e.server.origin}/links`);
      await page.keyboard.press("/");
      expect(await page.evaluate("document.activeElement.id")).toBe("search");
      await page.keyboard.type("jkx?n e/f");
      expect(await page.locator("#search").inputValue()).toBe("jkx?n e/f");
      expect(page.url()).toBe(`${e2e.server.origin}/links`);
      expect(await page.locator("input.pick:checked").count()).toBe(0);
      expect(await page.locator("#shortcuts").isVisible()).toBe(false);
      await page.locator("#search").blur();
      await page.keyboard.press("?");
      expect(await page.locator("#shortcuts").isVisible()).toBe(true);
      expect(await page.locator("#shortcuts dt").allTextContents()).toEqual(["/", "n", "j", "k", "e", "f", "x", "?", "Alt+↑", "Alt+↓"]);
      await page.keyboard.press("Escape");
      expect(await page.locator("#shortcuts").isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("works on a page that is not a list: / focuses the search box, ? opens the help, n adds a link", async () => {
    const context = await signedInContext();
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await page.goto(`${e2e.server.origin}/account`);
      await page.keyboard.press("?");
      expect(await page.locator("#shortcuts").isVisible()).toBe(true);
      await page.keyboard.press("Escape");
      await page.keyboard.press("/");
      expect(await page.evaluate("document.activeElement.id")).toBe("search");
      await page.locator("#search").blur();
      await Promise.all([page.waitForURL(`${e2e.server.origin}/links/new`), page.keyboard.press("n")]);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("ticks every box of the page with the select-all checkbox", async () => {
    const context = await signedInContext();
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await page.goto(`${e2e.server.origin}/links`);
      await page.getByRole("checkbox", { name: "Select all on this page" }).check();
      expect(await page.locator("input.pick:checked").count()).toBe(6);
      // The bar opens to act on them.
      expect(await page.locator("#bulk-action").isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("renders the all-links page on a phone and a desktop, light and dark (screenshots)", async () => {
    unfavoriteAll();
    e2e.server.db.$client.run("UPDATE links SET favorite = 1, clicks = 4, last_clicked_at = ?1 WHERE name LIKE 'B%' OR name LIKE 'E%'", [Date.now() - 2 * 86_400_000]);
    const checked = await checkLooks("bulk-screenshots", (options) => signedInContext(options), async (page, check, { device, colorScheme }) => {
      await keepLocal(page, e2e.server.origin);
      await page.goto(`${e2e.server.origin}/links?sort=name`);
      await page.getByRole("checkbox", { name: "Select Bach cello suites" }).check();
      await check("all-links");
      if (device === "desktop" && colorScheme === "light" && process.env.LINKSHELF_DOCS_SCREENSHOT === "1") {
        await page.screenshot({ path: join(import.meta.dir, "..", "..", "docs", "all-links.png") });
      }
    });
    expect(checked).toEqual(["all-links-phone-light", "all-links-phone-dark", "all-links-desktop-light", "all-links-desktop-dark"]);
  }, TIMEOUT_MS);
});
