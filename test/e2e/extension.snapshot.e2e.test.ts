/**
 * The extension's copy maker (extension/src/snapshot.ts), the very module capture.js runs in a
 * tab, on a page in Debian's Chromium and Firefox: the page as shown (what its script added, what
 * was typed), its style sheets and images inlined as `data:` URLs, another site's image kept when
 * that site allows it (CORS) and left out when not, and nothing left that could run or load:
 * no script, no event handler, no `javascript:` URL, no refresh, no frame, no address to fetch.
 * The time to copy a 3 MB article with images is printed (recorded, not asserted).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { launchChromium } from "../support/browser";
import { testDir } from "../support/dirs";
import { launchFirefox } from "../support/firefox";
import { attributes, texts } from "../support/html";
import { CHROMIUM, FIREFOX, requireProgram } from "../support/programs";

const TIMEOUT_MS = 120_000;
/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const PNG_DATA = `data:image/png;base64,${PNG.toString("base64")}`;

/** The module under test, bundled for a page: `linkshelfSnapshot()` makes the copy of the document it runs in. */
async function bundle(): Promise<string> {
  const dir = testDir("snapshot-bundle");
  const entry = join(dir, "entry.ts");
  await Bun.write(entry, `import { pageReaders, snapshotDocument } from ${JSON.stringify(join(import.meta.dir, "..", "..", "extension", "src", "snapshot.ts"))};
(globalThis as Record<string, unknown>).linkshelfSnapshot = () => { const { inline, fetchText } = pageReaders(window); return snapshotDocument(document, inline, fetchText, new Date()); };`);
  const built = await Bun.build({ entrypoints: [entry], target: "browser", format: "iife" });
  if (!built.success) throw new AggregateError(built.logs, "the snapshot module did not bundle");
  return built.outputs[0]!.text();
}

let script = "";
/** Another site: one image it lets any page read, one it does not. */
const other = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => {
  const path = new URL(request.url).pathname;
  return new Response(PNG, { headers: { "Content-Type": "image/png", ...(path === "/cors.png" ? { "Access-Control-Allow-Origin": "*" } : {}) } });
} });
const OTHER = `http://127.0.0.1:${other.port}`;

/** The article of the budget: about 3 MB with its images (twelve of 240 KiB each, incompressible). */
const BIG_IMAGES = Array.from({ length: 12 }, () => crypto.getRandomValues(new Uint8Array(240 * 1024)));
const bigArticle = () => `<!doctype html><html><head><title>Long read</title><link rel="stylesheet" href="/style.css"></head><body><article>
${Array.from({ length: 12 }, (_, i) => `<h2>Part ${i}</h2>${"<p>The tide comes in and goes out again, over and over, in a long and patient rhythm. </p>".repeat(80)}<img src="/big-${i}.jpg" alt="">`).join("\n")}
</article></body></html>`;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>As shown</title>
<meta http-equiv="refresh" content="3600;url=/elsewhere">
<link rel="stylesheet" href="/style.css">
<link rel="stylesheet" href="/print.css" media="print">
<style>h1 { background: url("/heading.png"); } .js { background: url(javascript:alert(1)); }</style>
<script src="/snapshot.js"></script>
</head><body onload="void 0">
<h1 id="heading">As shown</h1>
<p class="js" style="background-image: url('/inline.png')" onclick="alert(1)">Styled text</p>
<img id="own" src="/own.png" srcset="/own.png 1x, /own.png 2x" loading="lazy" alt="own">
<img id="cors" src="${OTHER}/cors.png" crossorigin="anonymous" alt="cors">
<img id="closed" src="${OTHER}/closed.png" alt="closed">
<a id="away" href="/next">Next</a> <a id="js" href="javascript:alert(1)">Run</a>
<svg width="10" height="10"><use href="#dot"/><defs><circle id="dot" r="2"/></defs></svg>
<noscript><p id="noscript">Enable scripts</p></noscript>
<iframe src="/frame"></iframe>
<form action="/search"><input id="typed" name="q" value="first"><input id="box" type="checkbox" name="c">
<select id="pick" name="s"><option value="a">A</option><option value="b">B</option></select>
<textarea id="notes" name="n">old</textarea><input id="secret" type="password" value="hunter2"></form>
<canvas id="drawn" width="4" height="4"></canvas>
<script>
document.body.insertAdjacentHTML("beforeend", '<p id="added">Added by the page\\'s script</p>');
const context = document.getElementById("drawn").getContext("2d"); context.fillStyle = "#f00"; context.fillRect(0, 0, 4, 4);
document.querySelector("style").sheet.insertRule("#added { color: rgb(1, 2, 3); }");
</script>
</body></html>`;

const site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => {
  const path = new URL(request.url).pathname;
  const html = (body: string) => new Response(body, { headers: { "Content-Type": "text/html; charset=utf-8" } });
  if (path === "/page") return html(PAGE);
  if (path === "/big") return html(bigArticle().replace("</head>", `<script src="/snapshot.js"></script></head>`));
  if (path === "/snapshot.js") return new Response(script, { headers: { "Content-Type": "text/javascript" } });
  if (path === "/style.css") return new Response(`@import url("/imported.css");\nbody { font-family: shelf; background: url(bg.png) }\n@font-face { font-family: shelf; src: url("/font.woff2") format("woff2"); }`, { headers: { "Content-Type": "text/css" } });
  if (path === "/imported.css") return new Response("p { margin: 1px; }", { headers: { "Content-Type": "text/css" } });
  if (path === "/print.css") return new Response("body { color: black; }", { headers: { "Content-Type": "text/css" } });
  if (path === "/font.woff2") return new Response(new Uint8Array([1, 2, 3]), { headers: { "Content-Type": "font/woff2" } });
  if (path.startsWith("/big-")) return new Response(BIG_IMAGES[Number(path.slice(5, -4))], { headers: { "Content-Type": "image/jpeg" } });
  if (path.endsWith(".png")) return new Response(PNG, { headers: { "Content-Type": "image/png" } });
  return html("<p>elsewhere</p>");
} });
const SITE = `http://127.0.0.1:${site.port}`;

beforeAll(async () => {
  script = await bundle();
});
afterAll(() => {
  other.stop(true);
  site.stop(true);
});

/** checkCopy holds a copy of PAGE to everything it must and must not be. */
function checkCopy(copy: string): void {
  expect(copy).toStartWith("<!doctype html>\n<!-- Kept by linkshelf from ");
  // Nothing that runs or moves on.
  expect(copy).not.toMatch(/<script|<noscript|<iframe|http-equiv="refresh"|javascript:|\son\w+=/i);
  // Nothing to load: every url() and src is data:, links and the form keep their addresses.
  for (const match of copy.matchAll(/url\(\s*(?:"|&quot;|')?([^")&']*)/g)) expect(["", "data"]).toContain(match[1]!.split(":")[0]!);
  for (const source of attributes(copy, "[src]")) expect(source.src).toStartWith("data:");
  expect(attributes(copy, "[srcset]")).toEqual([]);
  expect(attributes(copy, "#away")[0]!.href).toBe(`${SITE}/next`);
  expect(attributes(copy, "form")[0]!.action).toBe(`${SITE}/search`);
  expect(attributes(copy, "use")[0]!.href).toBe("#dot");
  // The page as shown: what its script added and drew, what was typed and chosen.
  expect(texts(copy, "#added")).toEqual(["Added by the page's script"]);
  expect(attributes(copy, "#typed")[0]!.value).toBe("typed later");
  expect(attributes(copy, "#box")[0]).toHaveProperty("checked");
  expect(attributes(copy, "#pick option[selected]").map((option) => option.value)).toEqual(["b"]);
  expect(texts(copy, "#notes")).toEqual(["notes typed"]);
  expect(attributes(copy, "#secret")[0]).not.toHaveProperty("value");
  expect(attributes(copy, "img[width='4']")[0]!.src).toStartWith("data:image/png");
  // Images: its own and the other site's that allows it, inlined; the one it may not read, left out.
  expect(attributes(copy, "#own")[0]!.src).toBe(PNG_DATA);
  expect(attributes(copy, "#cors")[0]!.src).toBe(PNG_DATA);
  expect(attributes(copy, "#closed")[0]).not.toHaveProperty("src");
  // Styles: every sheet, the imported one in its place, the print one still for print, the script's rule, with their images and fonts.
  const style = texts(copy, "head style").join("\n");
  expect(style).toContain("margin: 1px");
  expect(style).toMatch(/@media print\s*\{[^}]*body \{ color: black; \}/);
  expect(style).toContain("rgb(1, 2, 3)");
  expect(style).toContain(`url("${PNG_DATA}")`);
  expect(style).toMatch(/url\("data:font\/woff2;base64,AQID"\)/);
  expect(attributes(copy, "p.js")[0]!.style).toContain(PNG_DATA);
}

/** What the person did on the page before keeping it. */
const TYPED = `document.getElementById("typed").value = "typed later"; document.getElementById("box").checked = true;
document.getElementById("pick").value = "b"; document.getElementById("notes").value = "notes typed";`;

describe.skipIf(!requireProgram(CHROMIUM))("the copy maker in Chromium", () => {
  it("copies the page as shown, self-contained, with nothing that runs or loads", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${SITE}/page`);
      await page.evaluate(TYPED);
      checkCopy(await page.evaluate<string>("linkshelfSnapshot()"));
      await page.goto(`${SITE}/big`);
      const started = performance.now();
      const copy = await page.evaluate<string>("linkshelfSnapshot()");
      const millis = performance.now() - started;
      const bytes = Buffer.byteLength(copy);
      const stored = Bun.zstdCompressSync(Buffer.from(copy), { level: 3 }).byteLength;
      console.error(`copy of a 3 MB article in Chromium: ${Math.round(millis)} ms, ${(bytes / 1024 / 1024).toFixed(2)} MiB, stored ${(stored / 1024 / 1024).toFixed(2)} MiB (${Math.round((stored / bytes) * 100)} %)`);
      expect(attributes(copy, "img").every((image) => image.src!.startsWith("data:image/jpeg"))).toBe(true);
    } finally {
      await browser.close();
    }
  }, TIMEOUT_MS);
});

describe.skipIf(!requireProgram(FIREFOX))("the copy maker in Firefox", () => {
  it("copies the page as shown, self-contained, with nothing that runs or loads", async () => {
    const firefox = await launchFirefox(join(testDir("snapshot-firefox"), "profile"), {});
    try {
      const { bidi } = firefox;
      const tab = await bidi.newTab(`${SITE}/page`);
      await bidi.evaluate(tab, TYPED);
      checkCopy(await bidi.text(tab, "linkshelfSnapshot()"));
    } finally {
      await firefox.stop();
    }
  }, TIMEOUT_MS);
});
