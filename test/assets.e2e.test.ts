/**
 * The web app manifest as Chromium reads it: the sign-in page links it, the browser parses it
 * without errors or warnings, share target included.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser } from "playwright-core";
import { keepLocal, launchChromium, startServer, type LiveServer } from "./browser";
import { CHROMIUM, requireProgram } from "./programs";

let browser: Browser;
let server: LiveServer;
const present = requireProgram(CHROMIUM);

beforeAll(async () => {
  if (!present) return;
  server = startServer();
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.skipIf(!present)("the web app manifest in Chromium", () => {
  it("is found from the sign-in page and parsed without errors or warnings, share target included", async () => {
    const page = await browser.newPage();
    await keepLocal(page, server.origin);
    await page.goto(`${server.origin}/login`);
    const cdp = await page.context().newCDPSession(page);
    const manifest = (await cdp.send("Page.getAppManifest")) as { url: string; errors: { message: string; critical: number }[]; data?: string };
    expect(manifest.url).toBe(`${server.origin}/manifest.webmanifest`);
    expect(manifest.errors).toEqual([]);
    const data = JSON.parse(manifest.data!);
    expect(data.share_target).toEqual({ action: "/links/new", method: "GET", enctype: "application/x-www-form-urlencoded", params: { title: "title", text: "text", url: "url" } });
    await page.close();
  }, 30_000);
});
