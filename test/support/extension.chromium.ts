/**
 * Chromium with the built extension, for the extension's end-to-end tests: a persistent
 * profile with the unpacked package loaded, and the loopback host granted as a user grants it.
 */
import { expect } from "bun:test";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page, type Worker } from "playwright-core";
import type { WebExt } from "../../extension/src/webext";
import { runBinary } from "./binary";
import type { FileStack, Stack } from "./extension.stack";
import { EMAIL, waitUntil } from "./extension.stack";
import { CHROMIUM } from "./programs";

/**
 * `chrome` inside the extension's service worker and pages, where the functions given to
 * evaluate run: each test file declares it with this type (evaluate sends a function's source,
 * so the name must be the browser's own, not an import).
 */
export type ChromeApi = WebExt & {
  developerPrivate: { addHostPermission(id: string, host: string): Promise<void> };
  tabs: { query(query: { url: string }): Promise<{ id?: number; url?: string }[]> };
};
declare const chrome: ChromeApi;

export interface LaunchedExtension {
  context: BrowserContext;
  worker: Worker;
  /** The extension's id: its pages are at `chrome-extension://<id>/`. */
  id: string;
  /** The options page, which a fresh install opens by itself. */
  options: Page;
}

/**
 * launchWithExtension starts Chromium on a new profile under the stack's folder with the built
 * extension loaded unpacked; the caller closes `context`. Only the stack's folder and extension
 * are used (the sync benchmark passes its own).
 */
export async function launchWithExtension(stack: Pick<Stack, "root" | "extension">, profile: string): Promise<LaunchedExtension> {
  const extension = stack.extension("chromium");
  const context = await chromium.launchPersistentContext(join(stack.root, profile), {
    executablePath: CHROMIUM.path,
    headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", `--disable-extensions-except=${extension}`, `--load-extension=${extension}`,
    ],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
  const id = new URL(worker.url()).host;
  expect(id).toMatch(/^[a-p]{32}$/);
  // A fresh install opens the options page by itself (waited for, so no other navigation races it).
  const isOptions = (page: Page) => page.url() === `chrome-extension://${id}/options.html`;
  // Chromium may open it in the profile's first tab, which is a navigation, not a new page.
  const options = (await waitUntil(async () => context.pages().find(isOptions), (page) => page !== undefined, "the options page"))!;
  await options.waitForSelector("#server");
  return { context, worker, id, options };
}

/**
 * grantLoopback gives the extension access to 127.0.0.1. A permission prompt is browser UI that
 * headless Chromium cannot show or answer, so the test grants the host the way a user can in the
 * extension's "Site access" settings (chrome://extensions); permissions.request then finds it granted.
 */
export async function grantLoopback(context: BrowserContext, id: string, extensionPage: Page): Promise<void> {
  const admin = await context.newPage();
  await admin.goto(`chrome://extensions/?id=${id}`);
  await admin.evaluate(([extensionId, host]) => chrome.developerPrivate.addHostPermission(extensionId!, host!), [id, "http://127.0.0.1/*"]);
  await admin.close();
  // Chromium applies it once the extension asks, which it then does without a prompt.
  expect(await extensionPage.evaluate(() => chrome.permissions.request({ origins: ["http://127.0.0.1/*"] }))).toBe(true);
}

/**
 * launchSignedIn launches Chromium as launchWithExtension does against the file's stack (closed
 * after the file's tests), grants the loopback host, and signs the extension in to the stack's
 * server with a token made by the CLI (no sign-in window); the test reads the API with the same token.
 */
export async function launchSignedIn(running: FileStack, profile: string): Promise<LaunchedExtension & { token: string }> {
  const { stack } = running;
  const created = await runBinary(stack.binary, ["token", "create", "--email", EMAIL, "--data-dir", stack.dataDir], { cwd: stack.root });
  const token = created.stdout.trim();
  const launched = await launchWithExtension(stack, profile);
  running.closeAfter(() => launched.context.close());
  await grantLoopback(launched.context, launched.id, launched.options);
  await launched.worker.evaluate(([server, token]) => chrome.storage.local.set({ server, token }), [stack.server.origin, token]);
  return { ...launched, token };
}
