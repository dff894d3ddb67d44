/**
 * The budgets of page copies: serving a 5 MB copy from dist/linkshelf against a bare Bun.serve
 * sending the same bytes (one request at a time, medians; and the server's RSS before and after),
 * what 10,000 copies in the file do to the home page, search and `POST /api/v1/links`
 * (in-process, server time, medians; the same shelf without and with the copies), and the stored
 * size of a 3 MB article kept with its images, and of one of text alone. `bun bench/copies.ts`
 * runs it alone.
 */
import { join } from "node:path";
import { createApp } from "../src/app";
import { createSession } from "../src/auth/sessions";
import { loadConfig } from "../src/common/config";
import { closeDatabase, openDatabase } from "../src/db/client";
import { deferIndexingMany, indexPendingLinks } from "../src/fulltext/index-text";
import { packCopy } from "../src/shelf/copies";
import { Shelf } from "../src/shelf/shelf";
import { createUser } from "../src/users/service";
import { compile, createBenchUser, median, NO_REFUSAL_RATE_LIMIT, ROOT, rssMiB, serveCommand, start, stop, tempDir, timeGet } from "./lib";

export interface CopiesFigure {
  serve: { bytes: number; bareMs: number; linkshelfMs: number; ratio: number; target: number; rssBeforeMiB: number; rssAfterMiB: number };
  many: { copies: number; links: number; figures: { name: string; withoutMs: number; withMs: number; change: number }[]; target: number };
  stored: { article: { raw: number; stored: number; ratio: number }; text: { raw: number; stored: number; ratio: number }; target: number };
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

/** benchServeCopy: GET /api/v1/links/:id/copy of a 5 MB copy against a bare server sending the same bytes. */
async function benchServeCopy(linkshelfBin: string, rounds = 5, requests = 20): Promise<CopiesFigure["serve"]> {
  const work = tempDir("copies");
  const bareBin = await compile(join(ROOT, "bench", "bare-json.ts"), join(work, "bare-json"));
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
    const bodyFile = join(work, "copy.html");
    await Bun.write(bodyFile, html);
    bare = await start([bareBin, bodyFile], { cwd: work });
    const bareUrl = `${bare.base}/`;
    for (let i = 0; i < 5; i++) {
      await timeGet(bareUrl, {});
      await timeGet(url, auth);
    }
    const rssBeforeMiB = rssMiB(app.process.pid);
    const bareRuns: number[] = [];
    const appRuns: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < requests; i++) bareRuns.push(await timeGet(bareUrl, {}));
      for (let i = 0; i < requests; i++) appRuns.push(await timeGet(url, auth));
    }
    await Bun.sleep(1000);
    const rssAfterMiB = rssMiB(app.process.pid);
    const bareMs = median(bareRuns);
    const linkshelfMs = median(appRuns);
    return { bytes: Buffer.byteLength(html), bareMs, linkshelfMs, ratio: linkshelfMs / bareMs, target: 1.5, rssBeforeMiB, rssAfterMiB };
  } finally {
    await stop(app);
    if (bare) await stop(bare);
  }
}

/** benchManyCopies: the home page, a search and POST /api/v1/links, in-process, on 10,000 links without and then with a copy each. */
async function benchManyCopies(links = 10_000, samples = 40): Promise<CopiesFigure["many"]> {
  const path = join(tempDir("many-copies"), "linkshelf.db");
  const db = openDatabase(path);
  try {
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
    // Indexed for search as the server's indexer would.
    deferIndexingMany(db, db.$client.query<{ id: number }, [number]>("SELECT id FROM links WHERE user_id = ?").all(user.id).map((row) => row.id));
    indexPendingLinks(db);
    const app = createApp({ db, config: loadConfig({}, { LINKSHELF_RATE_LIMIT: "off", LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" }), clock: Date.now });
    const cookie = `linkshelf_session=${createSession(db, user.id, Date.now()).id}`;
    const auth = { Authorization: `Bearer ${token}` };
    const timed = async (request: () => Request): Promise<number> => {
      const runs: number[] = [];
      for (let i = 0; i < samples + 5; i++) {
        const began = performance.now();
        const response = await app.handle(request());
        await response.arrayBuffer();
        if (response.status >= 300) throw new Error(`${response.status}`);
        if (i >= 5) runs.push(performance.now() - began);
      }
      return median(runs);
    };
    let n = 0;
    const measure = async () => ({
      home: await timed(() => new Request("http://localhost/", { headers: { cookie, accept: "text/html" } })),
      search: await timed(() => new Request("http://localhost/api/v1/search?q=%22link+4242%22", { headers: auth })),
      create: await timed(() => new Request("http://localhost/api/v1/links", {
        method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify({ name: `New ${n++}`, url: "https://new.example/", favorite: false }),
      })),
    });
    // Twice without: the first warms the code up.
    await measure();
    const without = await measure();
    // A copy for each of the 10,000 links: about 20 KB of page each, stored compressed.
    const page = new TextEncoder().encode(pageOf(20_000, 0));
    db.$client.transaction(() => {
      const add = db.$client.prepare("INSERT INTO link_copies (link_id, user_id, bytes, stored_bytes, saved_at, body) VALUES (?, ?, ?, ?, ?, ?)");
      for (const { id } of db.$client.query<{ id: number }, [number]>("SELECT id FROM links WHERE user_id = ?").all(user.id)) {
        const body = packCopy(page);
        add.run(id, user.id, page.byteLength, body.byteLength, Date.now(), body);
      }
    })();
    const withCopies = await measure();
    const copies = db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM link_copies").get()!.n;
    const figure = (name: string, a: number, b: number) => ({ name, withoutMs: a, withMs: b, change: b / a - 1 });
    return {
      copies, links,
      figures: [figure("home page", without.home, withCopies.home), figure("search", without.search, withCopies.search), figure("POST /api/v1/links", without.create, withCopies.create)],
      target: 0.1,
    };
  } finally {
    closeDatabase(db);
  }
}

/** benchStored: the stored size of a 3 MB article with its images (60 % of it), and of 3 MB of text alone. */
function benchStored(): CopiesFigure["stored"] {
  const ratio = (html: string) => {
    const raw = Buffer.byteLength(html);
    const stored = packCopy(new TextEncoder().encode(html)).byteLength;
    return { raw, stored, ratio: stored / raw };
  };
  return { article: ratio(pageOf(3_000_000, 0.6)), text: ratio(pageOf(3_000_000, 0)), target: 0.4 };
}

/** benchCopies measures every budget of page copies. */
export async function benchCopies(linkshelfBin: string): Promise<CopiesFigure> {
  return { serve: await benchServeCopy(linkshelfBin), many: await benchManyCopies(), stored: benchStored() };
}

if (import.meta.main) {
  const binary = await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));
  console.log(JSON.stringify(await benchCopies(binary), null, 2));
}
