/**
 * The Link health page in headless Chromium (Debian's, through playwright-core), against the real
 * app on 127.0.0.1: what it shows, its forms working without JavaScript, no sideways scrolling on
 * a phone. With LINKSHELF_DOCS_SCREENSHOT=1 the desktop light page is written to docs/health-page.png.
 * Link addresses are `.localhost` names: loopback by definition, never resolved, never contacted.
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import type { UserRow } from "../../src/db/schema";
import type { Probe } from "../../src/shelf/link-checks";
import { recordCheck } from "../../src/shelf/link-checks";
import { Shelf } from "../../src/shelf/shelf";
import { createUser } from "../../src/users/service";
import { browserForFile, checkLooks, keepLocal, type ContextOptions } from "../support/browser";

const TIMEOUT_MS = 30_000;
const DAY = 86_400_000;
let user: UserRow | undefined;

const e2e = browserForFile({
  setUp: async (server) => {
    user = await createUser(server.db, { email: "links@example.test", name: "Link Keeper", password: "correct horse battery" }, Date.now());
    const shelf = new Shelf(server.db, user);
    const add = (name: string, url: string) => shelf.links.create({ name, url, favorite: false }, Date.now()).id;
    const rule = { periodMs: 7 * DAY, allowPrivate: false, confirmFailures: 3, confirmSpanMs: 7 * DAY };
    const record = (id: number, probe: Probe, daysAgo: number) => recordCheck(server.db, id, probe, Date.now() - daysAgo * DAY, rule);
    const gone = add("Conference talk notes (2019)", "https://blog.localhost/2019/talk-notes");
    for (const days of [15, 11, 8]) record(gone, { outcome: "gone", status: 404, detail: "HTTP 404" }, days);
    const failing = add("Home-made bread recipes", "https://bakery.localhost/recipes");
    for (const days of [9, 5, 1]) record(failing, { outcome: "failing", status: 503, detail: "HTTP 503" }, days);
    const moved = add("Project documentation", "http://docs.localhost/v1/guide");
    record(moved, { outcome: "moved", status: 200, detail: "moved permanently to https://docs.localhost/guide/", movedTo: "https://docs.localhost/guide/" }, 2);
    add("Still fine", "https://fine.localhost/");
  },
});

const signedInContext = (options: ContextOptions = {}) => e2e.signedInContext(user!, { javaScriptEnabled: false, ...options });

describe.skipIf(!e2e.present)("the Link health page in Chromium", () => {
  it("shows broken and moved links with their evidence on a phone and a desktop, light and dark", async () => {
    const checked = await checkLooks("health-screenshots", (options) => signedInContext(options), async (page, check, { device, colorScheme }) => {
      await keepLocal(page, e2e.server.origin);
      await page.goto(`${e2e.server.origin}/health`);
      expect(await page.locator("#main h2").allTextContents()).toEqual(["Broken (2)", "Moved (1)", "Ignored (0)"]);
      expect(await page.locator("nav[aria-label=Account] a[href='/health']").textContent()).toBe("Link health 2");
      await check("health");
      if (device === "desktop" && colorScheme === "light" && process.env.LINKSHELF_DOCS_SCREENSHOT === "1") {
        await page.screenshot({ path: join(import.meta.dir, "..", "..", "docs", "health-page.png"), fullPage: true });
      }
    });
    expect(checked).toHaveLength(4);
  }, TIMEOUT_MS);

  it("ignores a link with its button, without JavaScript", async () => {
    const context = await signedInContext();
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await page.goto(`${e2e.server.origin}/health`);
      await Promise.all([page.waitForURL(/done=link-ignored/), page.getByRole("button", { name: "Stop flagging Home-made bread recipes" }).click()]);
      expect(await page.getByRole("status").textContent()).toBe("The link will not be flagged again. Its checks go on.");
      expect(await page.locator("#main h2").allTextContents()).toEqual(["Broken (1)", "Moved (1)", "Ignored (1)"]);
      // The ignored link is listed with its Un-ignore button, which flags it again.
      await Promise.all([page.waitForURL(/done=link-unignored/), page.getByRole("button", { name: "Flag Home-made bread recipes again when it fails" }).click()]);
      expect(await page.locator("#main h2").allTextContents()).toEqual(["Broken (2)", "Moved (1)", "Ignored (0)"]);
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);
});
