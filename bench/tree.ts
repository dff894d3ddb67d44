/**
 * The collection tree's budgets, in-process (`app.handle`, so the figures are server time with
 * no network): a shelf of 2,000 collections nested up to 10 deep and 100,000 links, each link in
 * one collection and every tenth in a second one. Timed, one request at a time, medians:
 * - the home page with its sidebar (`GET /`), target ≤ 20 ms, measured beside the floor of a
 *   signed-in page without the tree (`GET /account`: the session, the top bar's counts, the
 *   shell), one request of each in turn; and the home page right after a write, when the
 *   collection summaries kept between pages are built again (informative);
 * - `GET /api/v1/collections` right after a write (built, not kept) and kept: informative, the
 *   HTTP benchmark of bench/collections.ts holds its targets;
 * - a move (`PUT /api/v1/collections/:id` with a new `parentId`) and a reorder
 *   (`PUT /api/v1/collections/:id/order` of a collection of 50 items), target ≤ 2 ms each;
 * - the change feed with nothing new (`GET /api/v1/changes?since=<the latest cursor>`), target ≤ 1 ms.
 * `bun bench/tree.ts` prints them as JSON; `npm run bench` prints them among the others.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../src/app";
import { passwords } from "../src/common/passwords";
import { createSession } from "../src/auth/sessions";
import { loadConfig } from "../src/common/config";
import { closeDatabase, openDatabase } from "../src/db/client";
import { Shelf } from "../src/shelf/shelf";
import { createUser } from "../src/users/service";
import { median, NO_REFUSAL_RATE_LIMIT, tempDir } from "./lib";

export interface TreeFigure {
  collections: number;
  depth: number;
  links: number;
  homeMs: number;
  homeTarget: number;
  /** `GET /account` of the same user, in turn with the home page: what any signed-in page costs. */
  floorMs: number;
  /** The home page right after a write (the summaries built, not kept). */
  homeAfterWriteMs: number;
  listBuiltMs: number;
  listKeptMs: number;
  listBytes: number;
  moveMs: number;
  reorderMs: number;
  reorderItems: number;
  writeTarget: number;
  feedIdleMs: number;
  feedTarget: number;
}

const COLLECTIONS = 2_000;
const DEPTH = 10;
const LINKS = 100_000;

/**
 * seedTree writes the shelf straight with SQL in one transaction: collection i sits under
 * collection i / 4 (rounded down) until the chain is DEPTH deep, so the tree has wide and deep
 * parts; positions follow creation, links after sub-collections.
 */
function seedTree(db: ReturnType<typeof openDatabase>, userId: number, start: number): number[] {
  const sqlite = db.$client;
  const ids: number[] = [];
  const depth: number[] = [];
  sqlite.transaction(() => {
    const next = new Map<number | null, number>();
    const position = (parent: number | null) => {
      const at = next.get(parent) ?? 1;
      next.set(parent, at + 1);
      return at;
    };
    const addCollection = sqlite.prepare("INSERT INTO collections (user_id, name, visibility, icon, is_default, created_at, updated_at, parent_id, position) VALUES (?, ?, 'PRIVATE', '📚', 0, ?, ?, ?, ?) RETURNING id");
    for (let i = 0; i < COLLECTIONS - 1; i++) {
      const parentAt = i === 0 ? -1 : Math.floor(i / 4);
      const parentId = parentAt >= 0 && depth[parentAt]! < DEPTH ? ids[parentAt]! : null;
      const row = addCollection.get(userId, `Folder ${i}`, start + i, start + i, parentId, position(parentId)) as { id: number };
      ids.push(row.id);
      depth.push(parentId === null ? 1 : depth[parentAt]! + 1);
    }
    const addLink = sqlite.prepare("INSERT INTO links (user_id, name, description, url, favorite, clicks, created_at, updated_at) VALUES (?, ?, '', ?, 0, 0, ?, ?) RETURNING id");
    const addMembership = sqlite.prepare("INSERT INTO link_collections (link_id, collection_id, position) VALUES (?, ?, ?)");
    for (let i = 0; i < LINKS; i++) {
      const row = addLink.get(userId, `Article ${i}`, `https://example.com/articles/${i}`, start + i, start + i) as { id: number };
      const home = ids[i % ids.length]!;
      addMembership.run(row.id, home, position(home));
      if (i % 10 === 0) {
        const other = ids[(i + 7) % ids.length]!;
        addMembership.run(row.id, other, position(other));
      }
    }
  })();
  return ids;
}

/** time runs `send` `runs` times after a warm-up and gives the median milliseconds; `before` runs untimed ahead of each. */
async function time(runs: number, send: (round: number) => Promise<Response>, before?: (round: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 5; i++) {
    await before?.(-1 - i);
    await (await send(-1 - i)).arrayBuffer();
  }
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    await before?.(i);
    const began = performance.now();
    const response = await send(i);
    await response.arrayBuffer();
    times.push(performance.now() - began);
    if (response.status !== 200) throw new Error(`tree bench: ${response.status}`);
  }
  return median(times);
}

/** benchTree measures the tree's budgets on a fresh database. */
export async function benchTree(): Promise<TreeFigure> {
  const path = join(tempDir("tree"), "linkshelf.db");
  const db = openDatabase(path);
  const config = loadConfig({}, { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT });
  const user = await createUser(db, { email: "tree@example.test", name: "Tree", password: "bench password" }, Date.now(), { passwords });
  const ids = seedTree(db, user.id, Date.now() - LINKS - 10_000);
  // As a server finds it after a restart: the seed's write-ahead log folded into the file.
  db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
  const app = createApp({ db, config, clock: () => Date.now(), peerAddress: () => "127.0.0.1", passwords });
  const { token } = new Shelf(db, user).tokens.create("bench", Date.now());
  const cookie = `linkshelf_session=${createSession(db, user.id, Date.now()).id}`;
  const base = "http://localhost:3000";
  const api = (path: string, init: RequestInit = {}) =>
    app.handle(new Request(base + path, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } }));

  const page = (path: string) => app.handle(new Request(`${base}${path}`, { headers: { cookie } }));
  // Each home page right after the floor's page, timed on its own: the two see the same moment of the machine.
  const floors: number[] = [];
  const homeMs = await time(50, () => page("/"), async (round) => {
    const began = performance.now();
    const response = await page("/account");
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`tree bench: /account ${response.status}`);
    if (round >= 0) floors.push(performance.now() - began);
  });
  const floorMs = median(floors);
  const homeAfterWriteMs = await time(20, () => page("/"), (round) =>
    api(`/api/v1/collections/${ids[7]}`, { method: "PUT", body: JSON.stringify({ name: `Renamed ${round + 10}`, visibility: "PRIVATE" }) }));
  const listKeptMs = await time(20, () => api("/api/v1/collections"));
  const listBytes = (await (await api("/api/v1/collections")).arrayBuffer()).byteLength;
  // Each round moves a leaf to another parent, so the answer is built again after it.
  const leaves = ids.slice(-200);
  const parents = ids.slice(1, 40);
  const moveMs = await time(100, (round) => {
    const at = round < 0 ? -round : round;
    return api(`/api/v1/collections/${leaves[at % leaves.length]}`, { method: "PUT", body: JSON.stringify({ name: `Moved ${at}`, visibility: "PRIVATE", parentId: parents[at % parents.length] }) });
  });
  const listBuiltMs = await time(10, async (round) => {
    await api(`/api/v1/collections/${ids[5]}`, { method: "PUT", body: JSON.stringify({ name: `Touched ${round}`, visibility: "PRIVATE" }) });
    return api("/api/v1/collections");
  });
  // A collection of about 55 items (4 sub-collections, ~50 links), reversed each round.
  const target = ids[1]!;
  let order = ((await (await api(`/api/v1/collections/${target}`)).json()) as { collection: { order: unknown[] } }).collection.order;
  if (order.length < 20) throw new Error(`tree bench: the reordered collection holds ${order.length} items`);
  const reorderMs = await time(100, () => {
    order = [...order].reverse();
    return api(`/api/v1/collections/${target}/order`, { method: "PUT", body: JSON.stringify({ order }) });
  });
  // A sync client's idle poll: everything read, nothing new since.
  let cursor: string | undefined;
  for (let more = true; more;) {
    const page = (await (await api(`/api/v1/changes?limit=1000${cursor ? `&since=${cursor}` : ""}`)).json()) as { cursor: string; more: boolean };
    cursor = page.cursor;
    more = page.more;
  }
  const feedIdleMs = await time(200, () => api(`/api/v1/changes?since=${cursor}`));
  closeDatabase(db);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  return { collections: COLLECTIONS, depth: DEPTH, links: LINKS, homeMs, homeTarget: 20, floorMs, homeAfterWriteMs, listBuiltMs, listKeptMs, listBytes, moveMs, reorderMs, reorderItems: order.length, writeTarget: 2, feedIdleMs, feedTarget: 1 };
}

if (import.meta.main) console.log(JSON.stringify(await benchTree(), null, 2));
