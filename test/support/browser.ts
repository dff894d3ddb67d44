import { afterAll, beforeAll } from "bun:test";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { createApp, type App } from "../../src/app";
import { createSession } from "../../src/auth/sessions";
import type { ContentCapture } from "../../src/capture/fetcher";
import { loadConfig } from "../../src/common/config";
import { closeDatabase, openDatabase, type Db } from "../../src/db/client";
import { artifactDir, testDir } from "./dirs";
import { CHROMIUM, requireProgram } from "./programs";

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

/** What browserForFile gives an end-to-end test file. */
export interface BrowserForFile {
  /** Whether Chromium is installed: the file's tests run only then (`describe.skipIf(!present)`). */
  readonly present: boolean;
  /** The file's own server over its own database, started before its first test. */
  readonly server: LiveServer;
  /** The file's Chromium, launched once (a launch failure surfaces in each test that awaits it). */
  readonly browser: Promise<Browser>;
  /** signedInContext opens a context signed in as `user` on the file's server (see signedInContext below). */
  signedInContext(user: { id: number }, options?: ContextOptions): Promise<BrowserContext>;
}

/**
 * browserForFile registers the beforeAll and afterAll of a test file that drives Chromium: a
 * server of the file's own (startServer, `capture` made for it), `setUp` run on it (users and
 * links the tests expect), then a Chromium of the file's own; afterAll closes both. Without
 * Chromium it starts nothing (see requireProgram).
 */
export function browserForFile(options: { capture?: () => ContentCapture; setUp?: (server: LiveServer) => unknown } = {}): BrowserForFile {
  const present = requireProgram(CHROMIUM);
  let server: LiveServer | undefined;
  let browser: Promise<Browser> | undefined;
  beforeAll(async () => {
    if (!present) return;
    server = startServer({ capture: options.capture?.() });
    await options.setUp?.(server);
    browser = launchChromium();
    browser.catch(() => undefined);
  });
  afterAll(async () => {
    await (await browser?.catch(() => undefined))?.close();
    await server?.stop();
  });
  const file: BrowserForFile = {
    present,
    get server() {
      if (!server) throw new Error("the file's server is not started (its beforeAll has not run)");
      return server;
    },
    get browser() {
      if (!browser) throw new Error("the file's Chromium is not set up (before its beforeAll)");
      return browser;
    },
    signedInContext: (user, contextOptions = {}) => signedInContext(file.browser, file.server, user, contextOptions),
  };
  return file;
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

/**
 * keepLocal aborts every request that is not for the test server (the page loads nothing else).
 * A regular expression, not a function: Playwright matches a function in the test process, so it
 * hands every request of the page over to it, and then reports each one's end with its response;
 * an end reported after the next document let that response go fails whatever test runs then
 * ("Object with guid response@… was not bound"). A pattern is matched by Playwright's driver, and
 * the test server's own requests are never handed over.
 */
export async function keepLocal(page: Page, origin: string): Promise<void> {
  await page.route(new RegExp(`^(?!${origin.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/)`), (route) => route.abort());
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

/** The screens every page is checked on. */
export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

/** One screen and colour scheme a page is looked at in. */
export interface Look {
  device: keyof typeof VIEWPORTS;
  colorScheme: "light" | "dark";
}

/**
 * Runs in the page: the texts of the top bar's items and the lists' hosts that take more than
 * one line (a box of their content starts below the bottom of their first one; a badge on the
 * same line only sits a little higher or lower).
 */
const BROKEN_ACROSS_LINES = `[...document.querySelectorAll(".top nav > a, .top nav button, .links .host:not(.url)")].filter((element) => {
  const range = document.createRange();
  range.selectNodeContents(element);
  const rects = [...range.getClientRects()].filter((rect) => rect.width > 0);
  return rects.some((rect) => rect.top >= rects[0].bottom - 1);
}).map((element) => element.textContent.trim())`;

/** Whether checkLooks also writes screenshots (`LINKSHELF_SCREENSHOTS=1`); its checks run either way. */
export const SCREENSHOTS = process.env.LINKSHELF_SCREENSHOTS === "1";

/**
 * checkLooks runs `visit` once for each look (a phone and a desktop, light and dark) in a
 * context made by `newContext`. Each time `visit` calls `check(name)`, the page as it is must
 * have the colour scheme's background, nothing wider than the screen (no sideways scrolling
 * on a phone), and no item of the top bar nor host of a list broken across two lines. With LINKSHELF_SCREENSHOTS=1 each check also writes a full-page screenshot to
 * `test/.artifacts/<folder>/<name>-<device>-<scheme>.png`. It returns the names checked, one
 * per check, as `<name>-<device>-<scheme>`.
 */
export async function checkLooks(
  folder: string,
  newContext: (options: { viewport: { width: number; height: number }; colorScheme: Look["colorScheme"] }) => Promise<BrowserContext>,
  visit: (page: Page, check: (name: string) => Promise<void>, look: Look) => Promise<void>,
): Promise<string[]> {
  const directory = SCREENSHOTS ? artifactDir(folder) : undefined;
  const checked: string[] = [];
  for (const device of Object.keys(VIEWPORTS) as Look["device"][]) {
    for (const colorScheme of ["light", "dark"] as const) {
      const viewport = VIEWPORTS[device];
      const context = await newContext({ viewport, colorScheme });
      try {
        const page = await context.newPage();
        await visit(page, async (name) => {
          const background = await page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
          if (background !== (colorScheme === "dark" ? "rgb(18, 21, 27)" : "rgb(246, 247, 249)")) throw new Error(`${name} (${device}, ${colorScheme}): background ${background}`);
          const width = await page.evaluate<number>("document.documentElement.scrollWidth");
          if (width > viewport.width) throw new Error(`${name} (${device}, ${colorScheme}): ${width} px wide on a ${viewport.width} px screen`);
          const broken = await page.evaluate<string[]>(BROKEN_ACROSS_LINES);
          if (broken.length > 0) throw new Error(`${name} (${device}, ${colorScheme}): broken across lines: ${broken.join(" | ")}`);
          const shot = `${name}-${device}-${colorScheme}`;
          if (directory) await page.screenshot({ path: join(directory, `${shot}.png`), fullPage: true });
          checked.push(shot);
        }, { device, colorScheme });
      } finally {
        await context.close();
      }
    }
  }
  if (directory) console.log(`screenshots in ${directory}`);
  return checked;
}

/**
 * openInPage loads `url` in the page by the page's own navigation and waits for it to load.
 * Playwright's goto, goBack and reload hand the client a Response object, and one of those
 * arriving while the next document replaces the page can fail a later step at random.
 */
export async function openInPage(page: Page, url: string): Promise<void> {
  await Promise.all([page.waitForEvent("load"), page.evaluate(`void (location.href = ${JSON.stringify(url)})`)]);
}

/** The options of a new browser context. */
export type ContextOptions = Parameters<Browser["newContext"]>[0];

/**
 * signedInContext opens a context of `browser` holding a session cookie of `user` on `server`,
 * made directly (the sign-in form has tests of its own).
 */
export async function signedInContext(browser: Promise<Browser>, server: LiveServer, user: { id: number }, options: ContextOptions = {}): Promise<BrowserContext> {
  const context = await (await browser).newContext(options);
  const { id } = createSession(server.db, user.id, Date.now());
  await context.addCookies([{ name: "linkshelf_session", value: id, url: server.origin, httpOnly: true, sameSite: "Lax" }]);
  return context;
}
