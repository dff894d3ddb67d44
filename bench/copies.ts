/**
 * The budgets of page copies:
 * - serving a 5 MB copy from dist/linkshelf against a bare Bun.serve sending the same bytes on the
 *   wire (`bench/bare-copy.ts`: the stored zstd with `Content-Encoding: zstd` to a client that takes
 *   it, the file to one that does not), one request at a time, medians; the server's RSS before and after;
 * - what 10,000 copies in the file do to the home page, search and `POST /api/v1/links`
 *   (in-process, server time, medians; the same shelf without and with the copies);
 * - the stored size of a ~3 MB article (text and photos served larger than its column shows them)
 *   kept through the built extension in Chromium, against the article as sent, and the time to
 *   keep it (skipped, with a line naming the package, without Debian's `chromium`); for
 *   information, 3 MB of text and a page of random-byte "images" compressed as copies are stored.
 * `bun bench/copies.ts` runs it alone.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { buildExtension } from "../extension/build";
import { createApp } from "../src/app";
import { createSession } from "../src/auth/sessions";
import { loadConfig } from "../src/common/config";
import { closeDatabase, openDatabase } from "../src/db/client";
import { deferIndexingMany, indexPendingLinks } from "../src/fulltext/index-text";
import { packCopy } from "../src/shelf/copies";
import { Shelf } from "../src/shelf/shelf";
import { createUser } from "../src/users/service";
import { grantLoopback, launchWithExtension, type ChromeApi } from "../test/support/extension.chromium";
import { CHROMIUM } from "../test/support/programs";
import { compile, createBenchUser, median, NO_REFUSAL_RATE_LIMIT, ROOT, rssMiB, serveCommand, start, stop, tempDir, timeGet } from "./lib";

declare const chrome: ChromeApi;

export interface CopiesFigure {
  /** A client that takes zstd (the budget), and `identity`: one that does not. */
  serve: ServeTimes & { bytes: number; storedBytes: number; identity: ServeTimes; target: number; rssBeforeMiB: number; rssAfterMiB: number; requests: number };
  many: { copies: number; links: number; figures: { name: string; withoutMs: number; withMs: number; change: number }[]; target: number };
  /** The budget: a 3 MB article kept through the extension in Chromium (null without Chromium). */
  article: (ArticleFigure & { target: number }) | null;
  /** For information, compressed as stored: text alone, and a page with 60 % random-byte "images" that cannot shrink. */
  stored: { randomImages: { raw: number; stored: number; ratio: number }; text: { raw: number; stored: number; ratio: number } };
}

/** A page of `bytes`: paragraphs of text with base64 "images" of random bytes (a photo does not compress) in between. */
function pageOf(bytes: number, imageShare: number): string {
  const paragraph = "<p>The tide comes in and goes out again, over and over, in a long and patient rhythm that shapes the shore. </p>\n";
  const parts: string[] = ["<!doctype html><html><head><meta charset=\"utf-8\"><style>body{font:18px/1.6 Georgia,serif;max-width:40em;margin:auto}</style></head><body><article>"];
  let size = parts[0]!.length;
  const imageBytes = Math.floor((bytes * imageShare) / 12 / 4) * 3;
  let images = 0;
  while (size < bytes) {
    if (images < 12 && imageShare > 0 && size > (images * bytes) / 12) {
      const image = `<img alt="" src="data:image/jpeg;base64,${Buffer.from(crypto.getRandomValues(new Uint8Array(Math.min(imageBytes, 65536)))).toString("base64").repeat(1)}`;
      // Random bytes in 64 KiB steps (getRandomValues' limit), each step fresh.
      let more = "";
      for (let left = imageBytes - 65536; left > 0; left -= 65536) more += Buffer.from(crypto.getRandomValues(new Uint8Array(Math.min(left, 65536)))).toString("base64");
      parts.push(`${image}${more}">`);
      size += image.length + more.length + 2;
      images++;
      continue;
    }
    parts.push(paragraph);
    size += paragraph.length;
  }
  parts.push("</article></body></html>");
  return parts.join("");
}

/** Median times of one request each way, and their ratio. */
export interface ServeTimes {
  bareMs: number;
  linkshelfMs: number;
  ratio: number;
}

/**
 * benchServeCopy: GET /api/v1/links/:id/copy of a 5 MB copy from the compiled server against the
 * floor, `bench/bare-copy.ts`, which sends exactly the bytes linkshelf sends for the same request:
 * the stored Zstandard bytes (read from the database file) with `Content-Encoding: zstd` to a client
 * that takes it (Bun's fetch, as a browser, sends `Accept-Encoding: gzip, deflate, br, zstd`), the
 * HTML file to one that does not (`Accept-Encoding: identity`). Both cost the client the same, so
 * the ratio is linkshelf's own share. Requests one at a time, alternating rounds, medians.
 */
export async function benchServeCopy(linkshelfBin: string, rounds = 5, requests = 20): Promise<CopiesFigure["serve"]> {
  const work = tempDir("copies");
  const bareBin = await compile(join(ROOT, "bench", "bare-copy.ts"), join(work, "bare-copy"));
  const dataDir = join(work, "data");
  const token = createBenchUser(linkshelfBin, dataDir);
  const app = await start(serveCommand(linkshelfBin, dataDir), { cwd: work, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT } });
  let bare: Awaited<ReturnType<typeof start>> | undefined;
  try {
    const auth = { Authorization: `Bearer ${token}` };
    const created = await fetch(`${app.base}/api/v1/links`, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify({ name: "Kept", url: "https://kept.example/", favorite: false }) });
    const { link } = (await created.json()) as { link: { id: number } };
    const html = pageOf(5_000_000, 0.6);
    const put = await fetch(`${app.base}/api/v1/links/${link.id}/copy`, { method: "PUT", headers: { ...auth, "Content-Type": "text/html" }, body: html });
    if (put.status !== 200) throw new Error(`PUT copy: ${put.status} ${await put.text()}`);
    const url = `${app.base}/api/v1/links/${link.id}/copy`;
    const htmlFile = join(work, "copy.html");
    const zstdFile = join(work, "copy.html.zst");
    await Bun.write(htmlFile, html);
    await Bun.write(zstdFile, storedCopy(join(dataDir, "linkshelf.db"), link.id));
    bare = await start([bareBin, htmlFile, zstdFile], { cwd: work });
    const bareUrl = `${bare.base}/`;
    const identity = { "Accept-Encoding": "identity" };
    // The same bytes on the wire both ways, checked before anything is timed.
    for (const headers of [{}, identity]) {
      const [ours, floor] = await Promise.all([wire(url, { ...auth, ...headers }), wire(bareUrl, headers)]);
      if (ours.encoding !== floor.encoding || !Buffer.from(ours.bytes).equals(Buffer.from(floor.bytes))) throw new Error(`copies bench: the floor does not send what linkshelf sends (${JSON.stringify(headers)})`);
    }
    for (let i = 0; i < 5; i++) {
      await timeGet(bareUrl, {});
      await timeGet(url, auth);
    }
    const rssBeforeMiB = rssMiB(app.process.pid);
    const runs = { bare: [] as number[], app: [] as number[], bareRaw: [] as number[], appRaw: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < requests; i++) runs.bare.push(await timeGet(bareUrl, {}));
      for (let i = 0; i < requests; i++) runs.app.push(await timeGet(url, auth));
      for (let i = 0; i < requests; i++) runs.bareRaw.push(await timeGet(bareUrl, identity));
      for (let i = 0; i < requests; i++) runs.appRaw.push(await timeGet(url, { ...auth, ...identity }));
    }
    await Bun.sleep(1000);
    const rssAfterMiB = rssMiB(app.process.pid);
    const times = (bareRuns: number[], appRuns: number[]): ServeTimes => ({ bareMs: median(bareRuns), linkshelfMs: median(appRuns), ratio: median(appRuns) / median(bareRuns) });
    return {
      bytes: Buffer.byteLength(html), storedBytes: Bun.file(zstdFile).size,
      ...times(runs.bare, runs.app), identity: times(runs.bareRaw, runs.appRaw),
      target: 1.5, rssBeforeMiB, rssAfterMiB, requests: rounds * requests * 2,
    };
  } finally {
    await stop(app);
    if (bare) await stop(bare);
  }
}

/** storedCopy reads link `id`'s copy as stored (`link_copies.body`) from a database file. */
function storedCopy(dbPath: string, id: number): Uint8Array {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.query<{ body: Uint8Array }, [number]>("SELECT body FROM link_copies WHERE link_id = ?").get(id)!.body;
  } finally {
    db.close();
  }
}

/** wire is what a server puts on the wire for one GET (its body not decoded) and its `Content-Encoding`. */
async function wire(url: string, headers: Record<string, string>): Promise<{ encoding: string | null; bytes: Uint8Array }> {
  const response = await fetch(url, { headers, decompress: false });
  return { encoding: response.headers.get("content-encoding"), bytes: new Uint8Array(await response.arrayBuffer()) };
}

/** One of the two shelves the 10,000-copies figures compare: the app, and how to ask it as its user. */
interface BenchShelf {
  app: ReturnType<typeof createApp>;
  cookie: string;
  auth: Record<string, string>;
  copies: number;
  close(): void;
}

/**
 * shelfOf builds a shelf of `links` links in the Inbox, indexed for search as the server's
 * indexer would, and, when `withCopies`, a copy of each (about 20 KB of page, stored compressed);
 * the WAL checkpointed, so both shelves start from the same state of the file.
 */
async function shelfOf(links: number, withCopies: boolean): Promise<BenchShelf> {
  const db = openDatabase(join(tempDir("many-copies"), "linkshelf.db"));
  const user = await createUser(db, { email: "bench@example.test", name: "Bench", password: "bench password" }, Date.now());
  const shelf = new Shelf(db, user);
  const { token } = shelf.tokens.create("bench", Date.now());
  const inbox = db.$client.query<{ id: number }, [number]>("SELECT id FROM collections WHERE user_id = ? AND is_default = 1").get(user.id)!.id;
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  db.$client.transaction(() => {
    const addLink = db.$client.prepare("INSERT INTO links (user_id, name, description, url, favorite, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?) RETURNING id");
    const addMembership = db.$client.prepare("INSERT INTO link_collections (link_id, collection_id, position) VALUES (?, ?, ?)");
    for (let i = 0; i < links; i++) {
      const row = addLink.get(user.id, `Article ${i}: notes on tides`, `Link ${i} about the shore.`, `https://example.com/articles/${i}`, start + i * 60_000, start + i * 60_000) as { id: number };
      addMembership.run(row.id, inbox, i);
    }
  })();
  deferIndexingMany(db, db.$client.query<{ id: number }, [number]>("SELECT id FROM links WHERE user_id = ?").all(user.id).map((row) => row.id));
  indexPendingLinks(db);
  if (withCopies) {
    const page = new TextEncoder().encode(pageOf(20_000, 0));
    db.$client.transaction(() => {
      const add = db.$client.prepare("INSERT INTO link_copies (link_id, user_id, bytes, stored_bytes, saved_at, body) VALUES (?, ?, ?, ?, ?, ?)");
      for (const { id } of db.$client.query<{ id: number }, [number]>("SELECT id FROM links WHERE user_id = ?").all(user.id)) {
        const body = packCopy(page);
        add.run(id, user.id, page.byteLength, body.byteLength, Date.now(), body);
      }
    })();
  }
  db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
  const app = createApp({ db, config: loadConfig({}, { LINKSHELF_RATE_LIMIT: "off", LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" }), clock: Date.now });
  const copies = db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM link_copies").get()!.n;
  return { app, cookie: `linkshelf_session=${createSession(db, user.id, Date.now()).id}`, auth: { Authorization: `Bearer ${token}` }, copies, close: () => closeDatabase(db) };
}

/**
 * benchManyCopies: the home page, a search and POST /api/v1/links, in-process, on two shelves of
 * 10,000 links built alike, one without copies and one with a copy of each link. The two are asked
 * in turn, request after request (after 5 of each to warm up), so that whatever the machine or
 * the runtime does meanwhile falls on both alike; server time, medians.
 */
async function benchManyCopies(links = 10_000, samples = 60): Promise<CopiesFigure["many"]> {
  const bare = await shelfOf(links, false);
  const kept = await shelfOf(links, true);
  try {
    let n = 0;
    const requests = {
      home: (shelf: BenchShelf) => new Request("http://localhost/", { headers: { cookie: shelf.cookie, accept: "text/html" } }),
      search: (shelf: BenchShelf) => new Request("http://localhost/api/v1/search?q=%22link+4242%22", { headers: shelf.auth }),
      create: (shelf: BenchShelf) => new Request("http://localhost/api/v1/links", {
        method: "POST", headers: { ...shelf.auth, "Content-Type": "application/json" }, body: JSON.stringify({ name: `New ${n++}`, url: "https://new.example/", favorite: false }),
      }),
    };
    const once = async (shelf: BenchShelf, request: (shelf: BenchShelf) => Request): Promise<number> => {
      const began = performance.now();
      const response = await shelf.app.handle(request(shelf));
      await response.arrayBuffer();
      if (response.status >= 300) throw new Error(`${response.status}`);
      return performance.now() - began;
    };
    const compare = async (request: (shelf: BenchShelf) => Request) => {
      const without: number[] = [];
      const withCopies: number[] = [];
      for (let i = 0; i < samples + 5; i++) {
        const a = await once(bare, request);
        const b = await once(kept, request);
        if (i >= 5) {
          without.push(a);
          withCopies.push(b);
        }
      }
      return { withoutMs: median(without), withMs: median(withCopies) };
    };
    const figure = async (name: string, request: (shelf: BenchShelf) => Request) => {
      const { withoutMs, withMs } = await compare(request);
      return { name, withoutMs, withMs, change: withMs / withoutMs - 1 };
    };
    return {
      copies: kept.copies, links,
      figures: [await figure("home page", requests.home), await figure("search", requests.search), await figure("POST /api/v1/links", requests.create)],
      target: 0.1,
    };
  } finally {
    bare.close();
    kept.close();
  }
}

/** The screen the article is copied on: two device pixels per CSS pixel (see ARTICLE_DPR_WHY). */
export const ARTICLE_DPR = 2;
export const ARTICLE_DPR_WHY = "a HiDPI laptop's: the copy then keeps twice the pixels a DPR 1 screen would, the larger figure";
/** The article's photos: seven stored at 2000×1333 (~400 KB each), shown in a column of 680 CSS pixels. */
const PHOTOS = 7;
const PHOTO_SIZE = { width: 2000, height: 1333 };

/**
 * MAKE_PHOTO, run in a page (the server's types know no DOM, so it is source text): a
 * deterministic photo-like JPEG (quality 0.85) as base64, a gradient under value noise at three
 * scales and a little grain, so that it keeps texture at any size (a smooth picture would make
 * shrinking look better than it is).
 */
const MAKE_PHOTO = `(width, height, seed) => {
  const hash = (i, j, k) => { const x = Math.sin(i * 12.9898 + j * 78.233 + k * 37.719 + seed * 3.7) * 43758.5453; return x - Math.floor(x); };
  const noise = (x, y, cell, k) => {
    const i = Math.floor(x / cell), j = Math.floor(y / cell), u = x / cell - i, v = y / cell - j;
    const top = hash(i, j, k) * (1 - u) + hash(i + 1, j, k) * u;
    const bottom = hash(i, j + 1, k) * (1 - u) + hash(i + 1, j + 1, k) * u;
    return top * (1 - v) + bottom * v;
  };
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext("2d");
  const image = context.createImageData(width, height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const shade = noise(x, y, 160, 1) * 90 + noise(x, y, 24, 2) * 50 + noise(x, y, 5, 3) * 30 + hash(x, y, 4) * 14;
      const at = (y * width + x) * 4;
      image.data[at] = (x / width) * 90 + shade;
      image.data[at + 1] = (y / height) * 70 + shade * 0.9;
      image.data[at + 2] = 60 + shade * 0.7 + noise(x, y, 60, 5) * 40;
      image.data[at + 3] = 255;
    }
  }
  context.putImageData(image, 0, 0);
  return new Promise((resolve) => canvas.toBlob((blob) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",")[1]);
    reader.readAsDataURL(blob);
  }, "image/jpeg", 0.85));
}`;

/** articleHtml: a long read of seeded sentences (text that compresses like text), the photos in its column at their stored size. */
function articleHtml(paragraphs: number): string {
  const words = "tide shore rock pool current harbour light evening fisher boat net salt wind wave sand gull cliff morning weather season village river mouth estuary moon pull water line mark stone shell weed kelp crab heron channel sound bay".split(" ");
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 8;
  const sentence = () => {
    const length = 8 + (next() % 14);
    const text = Array.from({ length }, () => words[next() % words.length]!).join(" ");
    return `${text[0]!.toUpperCase()}${text.slice(1)}${next() % 5 === 0 ? `, ${words[next() % words.length]}` : ""}.`;
  };
  const parts = [`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The long tide</title>
<style>body { font: 18px/1.6 Georgia, serif; margin: 0; color: #222 } article { max-width: 680px; margin: 2em auto; padding: 0 1em }
figure { margin: 2em 0 } img { max-width: 100%; height: auto; display: block } figcaption { font-size: 14px; color: #666 }</style>
</head><body><header><nav><a href="/">Home</a> <a href="/sea">Sea</a> <a href="/about">About</a></nav></header><article><h1>The long tide</h1>`];
  for (let i = 0; i < paragraphs; i++) {
    parts.push(`<p>${Array.from({ length: 5 }, sentence).join(" ")}</p>\n`);
    if (i % Math.floor(paragraphs / PHOTOS) === Math.floor(paragraphs / PHOTOS / 2) && i / Math.floor(paragraphs / PHOTOS) < PHOTOS) {
      const n = Math.floor(i / Math.floor(paragraphs / PHOTOS));
      parts.push(`<figure><img src="/photo-${n}.jpg" width="${PHOTO_SIZE.width}" height="${PHOTO_SIZE.height}" alt="Photo ${n}"><figcaption>Photo ${n}: ${sentence()}</figcaption></figure>\n`);
    }
  }
  parts.push("</article><footer><p>Printed on the shore.</p></footer></body></html>");
  return parts.join("");
}

export interface ArticleFigure {
  /** The article as sent: its HTML and its photos (what a copy keeping them unchanged weighs, without base64). */
  raw: number;
  htmlBytes: number;
  imageBytes: number;
  photos: number;
  /** The copy the extension made (`copy.bytes` of the link) and what the server stored (`link_copies.stored_bytes`). */
  copyBytes: number;
  stored: number;
  ratio: number;
  /** From the click on "Keep a copy" until the popup said it was kept (made in the tab, sent, stored). */
  seconds: number;
  devicePixelRatio: number;
  why: string;
  /** The same kept on a screen of one device pixel per CSS pixel, for information. */
  atOne: { copyBytes: number; stored: number; ratio: number; seconds: number };
}

/**
 * benchArticle: a ~3 MB article (text and seven photo-like JPEGs of 2000×1333, shown in a 680-pixel
 * column) served from 127.0.0.1, kept as a copy through the built extension's "Keep a copy" in
 * Chromium at ARTICLE_DPR, uploaded to the compiled server; the stored bytes against the article
 * as sent. Null (with a line naming the package) when Debian's Chromium is absent.
 */
export async function benchArticle(linkshelfBin: string): Promise<ArticleFigure | null> {
  if (!existsSync(CHROMIUM.path)) {
    console.error(`the copy of a 3 MB article was not measured: ${CHROMIUM.path} is absent (apt-get install ${CHROMIUM.debianPackage})`);
    return null;
  }
  const root = tempDir("copies-article");
  const extensionDir = join(root, "extension");
  await buildExtension(extensionDir);
  const dataDir = join(root, "data");
  const token = createBenchUser(linkshelfBin, dataDir);
  const app = await start(serveCommand(linkshelfBin, dataDir), { cwd: root, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT } });
  const photos: Uint8Array[] = [];
  const html = articleHtml(420);
  const site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => {
    const path = new URL(request.url).pathname;
    const photo = /^\/photo-(\d+)\.jpg$/.exec(path);
    if (photo && photos[Number(photo[1])]) return new Response(photos[Number(photo[1])], { headers: { "Content-Type": "image/jpeg" } });
    return new Response(path === "/article" ? html : "<p>elsewhere</p>", { headers: { "Content-Type": "text/html; charset=utf-8" } });
  } });
  const browser = await launchWithExtension({ root, extension: () => join(extensionDir, "chromium") }, "profile");
  try {
    const { context, worker, id, options } = browser;
    await grantLoopback(context, id, options);
    await worker.evaluate(([server, token]) => chrome.storage.local.set({ server, token }), [app.base, token]);
    for (let n = 0; n < PHOTOS; n++) photos.push(Buffer.from(await options.evaluate<string>(`(${MAKE_PHOTO})(${PHOTO_SIZE.width}, ${PHOTO_SIZE.height}, ${n})`), "base64"));
    const articleUrl = `http://127.0.0.1:${site.port}/article`;
    const htmlBytes = Buffer.byteLength(html);
    const imageBytes = photos.reduce((sum, photo) => sum + photo.byteLength, 0);
    const auth = { Authorization: `Bearer ${token}` };
    const created = await fetch(`${app.base}/api/v1/links`, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify({ name: "The long tide", url: articleUrl, favorite: false }) });
    const { link } = (await created.json()) as { link: { id: number } };
    const tab = await context.newPage();
    const emulation = await context.newCDPSession(tab);
    await tab.goto(articleUrl);
    const [found] = await worker.evaluate((address) => chrome.tabs.query({ url: address }), articleUrl);
    /** keep shows the article at `ratio` and keeps its copy through the popup, as a person would: the copy's sizes and the time. */
    const keep = async (ratio: number) => {
      await emulation.send("Emulation.setDeviceMetricsOverride", { width: 1280, height: 800, deviceScaleFactor: ratio, mobile: false });
      await tab.goto(articleUrl, { waitUntil: "load" });
      if (await tab.evaluate<number>("devicePixelRatio") !== ratio) throw new Error("copies bench: the article's pixel ratio was not set");
      const popup = await context.newPage();
      await popup.goto(`chrome-extension://${id}/popup.html?${new URLSearchParams({ url: articleUrl, title: "The long tide", tabId: String(found!.id) })}`);
      await popup.waitForSelector("#save-new:not([hidden])");
      const began = performance.now();
      await popup.click("#keep-copy");
      await popup.waitForSelector("#copy-result.ok", { timeout: 60_000 });
      const seconds = (performance.now() - began) / 1000;
      await popup.close();
      const { link: saved } = (await (await fetch(`${app.base}/api/v1/links/${link.id}`, { headers: auth })).json()) as { link: { copy: { bytes: number } | null } };
      const db = new Database(join(dataDir, "linkshelf.db"), { readonly: true });
      const stored = db.query<{ stored: number }, [number]>("SELECT stored_bytes AS stored FROM link_copies WHERE link_id = ?").get(link.id)!.stored;
      db.close();
      return { copyBytes: saved.copy!.bytes, stored, seconds };
    };
    const atOne = await keep(1);
    const { copyBytes, stored, seconds } = await keep(ARTICLE_DPR);
    return {
      raw: htmlBytes + imageBytes, htmlBytes, imageBytes, photos: PHOTOS, copyBytes, stored, ratio: stored / (htmlBytes + imageBytes),
      seconds, devicePixelRatio: ARTICLE_DPR, why: ARTICLE_DPR_WHY, atOne: { ...atOne, ratio: atOne.stored / (htmlBytes + imageBytes) },
    };
  } finally {
    await browser.context.close();
    site.stop(true);
    await stop(app);
  }
}

/** benchStored: how 3 MB of text alone, and a 3 MB page whose "images" are random bytes (which nothing can shrink), compress as copies are stored. */
function benchStored(): CopiesFigure["stored"] {
  const ratio = (html: string) => {
    const raw = Buffer.byteLength(html);
    const stored = packCopy(new TextEncoder().encode(html)).byteLength;
    return { raw, stored, ratio: stored / raw };
  };
  return { randomImages: ratio(pageOf(3_000_000, 0.6)), text: ratio(pageOf(3_000_000, 0)) };
}

/** benchCopies measures every budget of page copies. */
export async function benchCopies(linkshelfBin: string): Promise<CopiesFigure> {
  const article = await benchArticle(linkshelfBin);
  return { serve: await benchServeCopy(linkshelfBin), many: await benchManyCopies(), article: article && { ...article, target: 0.4 }, stored: benchStored() };
}

if (import.meta.main) {
  const binary = await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));
  console.log(JSON.stringify(await benchCopies(binary), null, 2));
}
