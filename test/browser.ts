import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { createApp, type App } from "../src/app";
import type { ContentCapture } from "../src/capture/fetcher";
import { loadConfig } from "../src/config";
import { closeDatabase, openDatabase, type Db } from "../src/db/client";
import { testDir } from "./dirs";
import { CHROMIUM } from "./programs";

/** launchChromium starts Debian's headless Chromium (callers check `requireProgram(CHROMIUM)` first). */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM.path,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export interface LiveServer {
  app: App;
  db: Db;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  stop(): Promise<void>;
}

/**
 * startServer serves the real app on 127.0.0.1 (a free port) over a database in a temp folder;
 * with `capture`, the background capture of saved pages (stopped with the server), else none.
 */
export function startServer(options: { capture?: ContentCapture } = {}): LiveServer {
  const dir = testDir("browser");
  const db = openDatabase(join(dir, "linkshelf.db"));
  const app = createApp({ db, config: loadConfig({}, {}), clock: Date.now, capture: options.capture });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  const port = app.server?.port;
  if (!port) throw new Error("the test server did not start");
  return {
    app,
    db,
    origin: `http://127.0.0.1:${port}`,
    async stop() {
      await app.stop(true);
      await options.capture?.stop();
      closeDatabase(db);
    },
  };
}

/** What an extension callback page answers with, locally. */
const CALLBACK_PAGE = "<!doctype html><title>callback</title><p>extension callback</p>";

/**
 * answerExtensionCallbacks answers every request to an extension callback host
 * (`*.chromiumapp.org`, `*.extensions.allizom.org`) inside the browser with a tiny page, so
 * nothing leaves the machine, and records the URLs asked for. It works at the DevTools
 * protocol's Fetch level because `page.route` never sees the hops of a redirect chain
 * (Playwright continues them itself), and the callback is reached by the server's 302.
 */
export async function answerExtensionCallbacks(page: Page): Promise<string[]> {
  const seen: string[] = [];
  const session = await page.context().newCDPSession(page);
  session.on("Fetch.requestPaused", (event) => {
    seen.push(event.request.url);
    session.send("Fetch.fulfillRequest", {
      requestId: event.requestId,
      responseCode: 200,
      responseHeaders: [{ name: "Content-Type", value: "text/html; charset=utf-8" }],
      body: Buffer.from(CALLBACK_PAGE).toString("base64"),
    }).catch(() => {
      // The page (an extension's sign-in window) may close before its callback is answered.
    });
  });
  await session.send("Fetch.enable", {
    patterns: [
      { urlPattern: "https://*.chromiumapp.org/*", requestStage: "Request" },
      { urlPattern: "https://*.extensions.allizom.org/*", requestStage: "Request" },
    ],
  });
  return seen;
}

/** keepLocal aborts every request that is not for the test server (the page loads nothing else). */
export async function keepLocal(page: Page, origin: string): Promise<void> {
  await page.route((url) => url.origin !== origin, (route) => route.abort());
}

/**
 * answeredStatus runs `submit` (a click that sends a form), waits for the document that answers it
 * to load and returns that answer's HTTP status, read from the page's navigation timing.
 * Playwright's own response events are not used: a listener for them that ends while the next
 * document loads can leave Playwright's client with an event for an object it already let go,
 * which fails whatever test runs then.
 */
export async function answeredStatus(page: Page, submit: () => Promise<void>): Promise<number> {
  await Promise.all([page.waitForEvent("load"), submit()]);
  return page.evaluate<number>("performance.getEntriesByType('navigation')[0].responseStatus");
}
