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
import { deflateSync } from "node:zlib";
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

/**
 * pngOf encodes a `width`×`height` PNG (8-bit RGBA when `alpha`, else RGB) whose every pixel is
 * `pixel(x, y)`: the pictures of the tests, made without an image library.
 */
function pngOf(width: number, height: number, alpha: boolean, pixel: (x: number, y: number) => [number, number, number, number]): Buffer {
  const channels = alpha ? 4 : 3;
  const rows = Buffer.alloc((width * channels + 1) * height);
  for (let y = 0, at = 0; y < height; y++) {
    rows[at++] = 0;
    for (let x = 0; x < width; x++) {
      const [r, g, b, a] = pixel(x, y);
      rows[at++] = r;
      rows[at++] = g;
      rows[at++] = b;
      if (alpha) rows[at++] = a;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(Bun.hash.crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, alpha ? 6 : 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}

/** A photo-like picture: a gradient with a little noise (a fixed seed), which PNG keeps at full size. */
function photo(width: number, height: number, alpha: boolean): Buffer {
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 24) % 24;
  return pngOf(width, height, alpha, (x, y) => [
    (x * 255) / width + noise(), (y * 255) / height + noise(), 128 + noise(),
    // With alpha: the left half shows what is behind it.
    alpha && x < width / 2 ? 0 : 255,
  ]);
}
/** Stored at 800×600, shown in a 240-pixel column (here and, with CORS, on the other site); with transparency on its left half. */
const PHOTO = photo(800, 600, false);
const ALPHA_PHOTO = photo(800, 600, true);
/** 32×32 and about 3 KB: shown at 8×8, too small to be worth drawing again. */
const SMALL = photo(32, 32, false);
/** An SVG of more than 8 KiB, 2000 wide, shown at 100. */
const DRAWING = `<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="1000">${Array.from({ length: 300 }, (_, i) => `<circle cx="${(i * 37) % 2000}" cy="${(i * 53) % 1000}" r="${10 + (i % 40)}" fill="#${(i * 2654435).toString(16).slice(-6).padStart(6, "0")}"/>`).join("")}</svg>`;

const IMAGES_PAGE = (other: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Pictures</title>
<style>body { margin: 0 } .column { width: 240px } .column img { max-width: 100%; display: block } .thumb { width: 8px; height: 8px; display: block }</style>
<script src="/snapshot.js"></script></head><body>
<div class="column"><img id="big" src="/photo.png" alt=""><img id="cross" src="${other}/photo.png" alt=""><img id="alpha" src="/alpha.png" alt=""></div>
<img id="dense" srcset="/photo.png 800w" sizes="240px" alt="">
<img id="small" class="thumb" src="/small.png" alt=""><img id="svg" src="/drawing.svg" style="width: 100px; display: block" alt="">
</body></html>`;
/** The pictures of IMAGES_PAGE: where each is shown (CSS pixels) and how large it is (its pixels). */
const GEOMETRY = `JSON.stringify(Object.fromEntries(["big", "cross", "alpha", "dense", "small", "svg"].map((id) => {
  const image = document.getElementById(id); const box = image.getBoundingClientRect();
  return [id, { width: box.width, height: box.height, naturalWidth: image.naturalWidth }];
})))`;
/** The alpha of the copy's #alpha at a quarter and three quarters of its width, halfway down. */
const ALPHA_PROBE = `(() => { const image = document.getElementById("alpha"); const canvas = document.createElement("canvas");
  canvas.width = image.naturalWidth; canvas.height = image.naturalHeight; const context = canvas.getContext("2d"); context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
  const at = (x, y) => pixels[(Math.floor(y * canvas.height) * canvas.width + Math.floor(x * canvas.width)) * 4 + 3];
  return JSON.stringify([at(0.25, 0.5), at(0.75, 0.5)]); })()`;
type Geometry = Record<string, { width: number; height: number; naturalWidth: number }>;
/** The copy last made of IMAGES_PAGE, served back at /kept to be looked at. */
let kept = "";

/** The bytes of a `data:` URL. */
const bytesOf = (data: string) => Buffer.from(data.slice(data.indexOf(",") + 1), "base64");

/**
 * checkImages holds a copy of IMAGES_PAGE, made at `ratio` device pixels per CSS pixel, to what
 * src/shrink.ts promises: the photos shown at 240 drawn again at 240 × ratio as WebP (another
 * site's too, the transparent one still transparent, the one its srcset sized), the small picture
 * and the SVG byte for byte as they were; and in the copy every picture shown at the size the page
 * showed it.
 */
function checkImages(copy: string, ratio: number, shown: Geometry, inCopy: Geometry, alpha: number[]): void {
  const source = (id: string) => attributes(copy, `#${id}`)[0]!.src!;
  for (const [id, original] of [["big", PHOTO], ["cross", PHOTO], ["alpha", ALPHA_PHOTO], ["dense", PHOTO]] as const) {
    expect([id, source(id).slice(0, 16)]).toEqual([id, "data:image/webp;"]);
    expect(bytesOf(source(id)).byteLength).toBeLessThan(original.byteLength / 4);
    expect([id, inCopy[id]!.naturalWidth]).toEqual([id, shown[id]!.width * ratio]);
  }
  expect(source("small")).toBe(`data:image/png;base64,${SMALL.toString("base64")}`);
  expect(source("svg")).toBe(`data:image/svg+xml;base64,${Buffer.from(DRAWING).toString("base64")}`);
  expect(shown.big).toEqual({ width: 240, height: 180, naturalWidth: 800 });
  // Sized by its srcset alone (800 pixels for 240): still 240 wide once the srcset is gone.
  expect(shown.dense).toEqual({ width: 240, height: 180, naturalWidth: 240 });
  for (const id of Object.keys(shown)) expect([id, inCopy[id]!.width, inCopy[id]!.height]).toEqual([id, shown[id]!.width, shown[id]!.height]);
  expect(alpha).toEqual([0, 255]);
}

let script = "";
/** Another site: one image it lets any page read, one it does not. */
const other = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => {
  const path = new URL(request.url).pathname;
  if (path === "/photo.png") return new Response(PHOTO, { headers: { "Content-Type": "image/png", "Access-Control-Allow-Origin": "*" } });
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
  if (path === "/images") return html(IMAGES_PAGE(OTHER));
  if (path === "/kept") return html(kept);
  if (path === "/photo.png") return new Response(PHOTO, { headers: { "Content-Type": "image/png" } });
  if (path === "/alpha.png") return new Response(ALPHA_PHOTO, { headers: { "Content-Type": "image/png" } });
  if (path === "/small.png") return new Response(SMALL, { headers: { "Content-Type": "image/png" } });
  if (path === "/drawing.svg") return new Response(DRAWING, { headers: { "Content-Type": "image/svg+xml" } });
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

  it("draws a picture shown smaller than it is stored again at the size shown × the pixel ratio, and leaves small pictures and SVG as they are", async () => {
    const browser = await launchChromium();
    try {
      // A screen of two device pixels per CSS pixel, as on most laptops sold now.
      const page = await browser.newPage({ deviceScaleFactor: 2 });
      await page.goto(`${SITE}/images`);
      const shown = JSON.parse(await page.evaluate<string>(GEOMETRY)) as Geometry;
      kept = await page.evaluate<string>("linkshelfSnapshot()");
      await page.goto(`${SITE}/kept`);
      checkImages(kept, 2, shown, JSON.parse(await page.evaluate<string>(GEOMETRY)) as Geometry, JSON.parse(await page.evaluate<string>(ALPHA_PROBE)) as number[]);
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

  it("draws a picture shown smaller than it is stored again at the size shown, and leaves small pictures and SVG as they are", async () => {
    const firefox = await launchFirefox(join(testDir("snapshot-firefox-images"), "profile"), {});
    try {
      const { bidi } = firefox;
      const tab = await bidi.newTab(`${SITE}/images`);
      expect(await bidi.text(tab, "String(devicePixelRatio)")).toBe("1");
      const shown = JSON.parse(await bidi.text(tab, GEOMETRY)) as Geometry;
      kept = await bidi.text(tab, "linkshelfSnapshot()");
      const copyTab = await bidi.newTab(`${SITE}/kept`);
      checkImages(kept, 1, shown, JSON.parse(await bidi.text(copyTab, GEOMETRY)) as Geometry, JSON.parse(await bidi.text(copyTab, ALPHA_PROBE)) as number[]);
    } finally {
      await firefox.stop();
    }
  }, TIMEOUT_MS);
});
