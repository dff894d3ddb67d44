/**
 * The web app manifest as Chromium reads it: the sign-in page links it, the browser parses it
 * without errors or warnings, share target included.
 */
import { describe, expect, it } from "bun:test";
import { browserForFile, keepLocal } from "../support/browser";

const e2e = browserForFile();

describe.skipIf(!e2e.present)("the web app manifest in Chromium", () => {
  it("is found from the sign-in page and parsed without errors or warnings, share target included", async () => {
    const { origin } = e2e.server;
    const page = await (await e2e.browser).newPage();
    try {
      await keepLocal(page, origin);
      await page.goto(`${origin}/login`);
      const cdp = await page.context().newCDPSession(page);
      const manifest = (await cdp.send("Page.getAppManifest")) as { url: string; errors: { message: string; critical: number }[]; data?: string };
      expect(manifest.url).toBe(`${origin}/manifest.webmanifest`);
      expect(manifest.errors).toEqual([]);
      const data = JSON.parse(manifest.data!);
      expect(data.share_target).toEqual({ action: "/links/new", method: "GET", enctype: "application/x-www-form-urlencoded", params: { title: "title", text: "text", url: "url" } });
    } finally {
      await page.close();
    }
  }, 30_000);
});
