import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../src/app";
import { loadConfig } from "../src/common/config";
import { openDatabase } from "../src/db/client";
import { createUser } from "../src/users/service";
import { compile, createBenchUser, median, NO_REFUSAL_RATE_LIMIT, ROOT, serveCommand, start, stop, tempDir, timeGet } from "./lib";
import { Shelf } from "../src/shelf/shelf";

export interface CollectionsFigure {
  collections: number;
  links: number;
  bodyBytes: number;
  /** Median milliseconds per request, request sent to last byte read, one request at a time. */
  bareMs: number;
  linkshelfMs: number;
  ratio: number;
  target: number;
  /** Median when every request follows a click (so nothing cached can be reused): informative. */
  afterWriteMs: number;
  afterWriteRatio: number;
  sameBytes: boolean;
}

export interface QueryCount {
  /** Queries drizzle ran for one request whose answer had to be built (after a write). */
  built: number;
  /** Queries for one request answered from what was kept. */
  kept: number;
}

export interface QueriesFigure {
  small: QueryCount & { links: number; collections: number };
  large: QueryCount & { links: number; collections: number };
  constant: boolean;
}

const COLLECTIONS = 50;
const LINKS = 10_000;

/**
 * seedLibrary fills a database linkshelf created (and migrated) with `collections - 1`
 * collections beside the Inbox and `links` links spread over them, every tenth link in a
 * second collection, written straight with bun:sqlite in one transaction (seconds faster
 * than the API).
 */
function seedLibrary(path: string, collectionCount = COLLECTIONS, linkCount = LINKS): void {
  const db = new Database(path);
  const user = db.query<{ id: number }, []>("SELECT id FROM users").get()!;
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  db.transaction(() => {
    const addCollection = db.prepare(
      "INSERT INTO collections (user_id, name, description, visibility, icon, is_default, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?) RETURNING id");
    const ids = [db.query<{ id: number }, [number]>("SELECT id FROM collections WHERE user_id = ? AND is_default = 1").get(user.id)!.id];
    for (let i = 1; i < collectionCount; i++) {
      const row = addCollection.get(user.id, `Collection ${i}`, i % 3 ? `Things about topic ${i}` : null, i % 2 ? "PUBLIC" : "PRIVATE", "📚", start + i, start + i) as { id: number };
      ids.push(row.id);
    }
    const addLink = db.prepare(
      "INSERT INTO links (user_id, name, description, url, favorite, clicks, last_clicked_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id");
    const addMembership = db.prepare("INSERT INTO link_collections (link_id, collection_id) VALUES (?, ?)");
    for (let i = 0; i < linkCount; i++) {
      const created = start + 60_000 * i;
      const clicks = i % 7;
      const row = addLink.get(user.id, `Article ${i}: notes on something worth reading`, i % 4 ? `A short description of link ${i}.` : "",
        `https://example.com/articles/${i}?ref=linkshelf`, i % 9 === 0 ? 1 : 0, clicks, clicks ? created + 1000 : null, created, created) as { id: number };
      addMembership.run(row.id, ids[i % collectionCount]!);
      if (i % 10 === 0 && collectionCount > 1) addMembership.run(row.id, ids[(i + 7) % collectionCount]!);
    }
  })();
  db.close();
}

/**
 * benchCollections: `GET /api/v1/collections` of dist/linkshelf holding 10,000 links in 50
 * collections, against a bare Bun.serve sending the very same bytes (captured from linkshelf
 * first), one request at a time, alternating in rounds; medians compared. A second linkshelf
 * series clicks a link before each request, so every answer has to be built afresh.
 */
export async function benchCollections(linkshelfBin: string, options = { rounds: 5, requests: 40 }): Promise<CollectionsFigure> {
  const work = tempDir("collections");
  const bareBin = await compile(join(ROOT, "bench", "bare-json.ts"), join(work, "bare-json"));
  const dataDir = join(work, "data");
  const token = createBenchUser(linkshelfBin, dataDir);
  seedLibrary(join(dataDir, "linkshelf.db"));

  const app = await start(serveCommand(linkshelfBin, dataDir), { cwd: work, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT } });
  let bare: Awaited<ReturnType<typeof start>> | undefined;
  try {
    const auth = { Authorization: `Bearer ${token}` };
    const url = `${app.base}/api/v1/collections`;
    const captured = new Uint8Array(await (await fetch(url, { headers: auth })).arrayBuffer());
    const bodyFile = join(work, "collections.json");
    writeFileSync(bodyFile, captured);
    bare = await start([bareBin, bodyFile], { cwd: work });
    const bareUrl = `${bare.base}/api/v1/collections`;
    const bareBody = new Uint8Array(await (await fetch(bareUrl)).arrayBuffer());
    const parsed = JSON.parse(new TextDecoder().decode(captured)) as { collections: { links: { id: number }[] }[] };
    const linkIds = new Set(parsed.collections.flatMap((collection) => collection.links.map((link) => link.id)));
    const someLink = [...linkIds][0]!;

    const bareRuns: number[] = [];
    const appRuns: number[] = [];
    const afterWriteRuns: number[] = [];
    for (let i = 0; i < 10; i++) {
      await timeGet(bareUrl, {});
      await timeGet(url, auth);
    }
    for (let round = 0; round < options.rounds; round++) {
      for (let i = 0; i < options.requests; i++) bareRuns.push(await timeGet(bareUrl, {}));
      for (let i = 0; i < options.requests; i++) appRuns.push(await timeGet(url, auth));
      for (let i = 0; i < options.requests / 4; i++) {
        const click = await fetch(`${app.base}/l/${someLink}`, { headers: auth, redirect: "manual" });
        if (click.status !== 302) throw new Error(`click: ${click.status}`);
        afterWriteRuns.push(await timeGet(url, auth));
      }
    }
    const bareMs = median(bareRuns);
    const linkshelfMs = median(appRuns);
    const afterWriteMs = median(afterWriteRuns);
    return {
      collections: parsed.collections.length, links: linkIds.size, bodyBytes: captured.byteLength,
      bareMs, linkshelfMs, ratio: linkshelfMs / bareMs, target: 3,
      afterWriteMs, afterWriteRatio: afterWriteMs / bareMs,
      sameBytes: Buffer.from(bareBody).equals(Buffer.from(captured)),
    };
  } finally {
    await stop(app);
    if (bare) await stop(bare);
  }
}

/**
 * countCollectionQueries counts, with drizzle's logger (as the tests do), the queries one
 * `GET /api/v1/collections` runs, in-process on a database file: for a library of 3
 * collections and 5 links and for one of 50 collections and 10,000 links, once when the
 * answer must be built (a click came before it) and once when it is kept.
 */
export async function countCollectionQueries(): Promise<QueriesFigure> {
  const measure = async (collections: number, links: number) => {
    const path = join(tempDir("queries"), "linkshelf.db");
    const queries: string[] = [];
    const db = openDatabase(path, { logger: { logQuery: (query) => void queries.push(query) } });
    const user = await createUser(db, { email: "bench@example.test", name: "Bench", password: "bench password" }, Date.now());
    const { token } = new Shelf(db, user).tokens.create("bench", Date.now());
    seedLibrary(path, collections, links);
    const app = createApp({ db, config: loadConfig({}, { LINKSHELF_RATE_LIMIT: "off" }), clock: Date.now });
    const list = async () => {
      queries.length = 0;
      const response = await app.handle(new Request("http://localhost/api/v1/collections", { headers: { Authorization: `Bearer ${token}` } }));
      await response.arrayBuffer();
      return queries.length;
    };
    await list();
    db.$client.run("UPDATE links SET clicks = clicks + 1 WHERE id = (SELECT min(id) FROM links)");
    const built = await list();
    const kept = await list();
    db.$client.close();
    return { collections, links, built, kept };
  };
  const small = await measure(3, 5);
  const large = await measure(COLLECTIONS, LINKS);
  return { small, large, constant: small.built === large.built && small.kept === large.kept };
}
