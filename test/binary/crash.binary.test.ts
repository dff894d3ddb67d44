/**
 * Crash and shutdown safety through the real executable.
 *
 * Several workers send a mixed burst of concurrent writes (link creates, updates and
 * deletes, collection creates, updates and deletes) and clicks on `/l/:id`; the server is
 * killed with SIGKILL at a seeded random moment, restarted on the same data, and the stored
 * state is compared with what the clients were told:
 *
 * - Each worker owns its own links and collections (links only ever name the worker's own
 *   collections) and sends one request at a time, so its objects have one exact expected
 *   state, except for the one request it may have had in flight at the kill: that one is
 *   either wholly applied or not at all, and nothing else is allowed.
 * - A click whose 302 was received is counted; one in flight may or may not be; a link with
 *   no click in flight has exactly the acknowledged count.
 * - `PRAGMA integrity_check` is ok, no foreign key dangles, no link is without a collection.
 *
 * Then SIGTERM under the same load: every request the server took before the signal
 * completes with its normal status (requests held open across the signal prove it), a
 * request that failed was not applied, the process exits 0 and the WAL is checkpointed.
 *
 * The seed is printed; `CRASH_SEED=<seed>` replays the same sequence of operations and
 * kill delays (the interleaving itself is up to the machine). Only 127.0.0.1 is contacted.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { binaryWorkspace, cleanEnv, connectRaw, createUserWithToken, queryFile, WorkspaceServers, type RawConnection, type RunningServer } from "../support/binary";

const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ROUNDS = 8;
const WORKERS = 8;
const SERVER_ENV = cleanEnv({ LINKSHELF_RATE_LIMIT: "off" });
/** Per-test limit: several starts of the binary on a loaded 2-core machine. */
const SLOW = 30_000;

/** mulberry32: a small seeded generator, so a failing run can be replayed from its seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
/** Kill delays; each worker draws its operations from a generator of its own (see runWorkers). */
const random = seededRandom(SEED);
type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

// ---------------------------------------------------------------------------------------
// The model: what each worker was told, and the one request it may have in flight.

interface LinkState {
  name: string;
  url: string;
  description: string;
  favorite: boolean;
  /** Sorted; never empty once stored (the Inbox when nothing else). */
  collectionIds: number[];
}
interface CollectionState {
  name: string;
  visibility: "PUBLIC" | "PRIVATE";
  icon: string;
}
interface Owned {
  links: Map<number, LinkState>;
  collections: Map<number, CollectionState>;
}

type Op =
  | { kind: "createLink"; body: LinkState }
  | { kind: "updateLink"; id: number; body: LinkState }
  | { kind: "deleteLink"; id: number }
  | { kind: "createCollection"; body: CollectionState }
  | { kind: "updateCollection"; id: number; body: CollectionState }
  | { kind: "deleteCollection"; id: number };

interface Pending {
  op: Op;
  /** The status arrived (the write is acknowledged) but the body did not. */
  acknowledged: boolean;
}

const ICONS = ["📁", "📚", "🎵", "🇫🇷", "👨‍👩‍👧"];
/** Names carry their worker, so the stored state can be split back per worker. */
const ownerPrefix = (worker: number) => `w${worker}:`;

let inbox: number;
const owned: Owned[] = Array.from({ length: WORKERS + 1 }, () => ({ links: new Map(), collections: new Map() }));
/** Per link: the stored count at the start of the round, 302s received and clicks unanswered in this round. */
const clicks = { base: new Map<number, number>(), acknowledged: new Map<number, number>(), inFlight: new Map<number, number>() };
const bump = (map: Map<number, number>, id: number, by = 1) => map.set(id, (map.get(id) ?? 0) + by);

const sortedIds = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);
const copyOwned = (state: Owned): Owned => ({ links: new Map(state.links), collections: new Map(state.collections) });

/** applyOp is the state a worker's objects are in after `op` was applied (`newId`: the id a create got). */
function applyOp(state: Owned, op: Op, newId: number | undefined): Owned {
  const next = copyOwned(state);
  switch (op.kind) {
    case "createLink":
      next.links.set(newId!, { ...op.body, collectionIds: op.body.collectionIds.length ? op.body.collectionIds : [inbox] });
      break;
    case "updateLink":
      next.links.set(op.id, { ...op.body, collectionIds: op.body.collectionIds.length ? op.body.collectionIds : [inbox] });
      break;
    case "deleteLink":
      next.links.delete(op.id);
      break;
    case "createCollection":
      next.collections.set(newId!, op.body);
      break;
    case "updateCollection":
      next.collections.set(op.id, op.body);
      break;
    case "deleteCollection":
      next.collections.delete(op.id);
      for (const [id, link] of next.links) {
        if (!link.collectionIds.includes(op.id)) continue;
        const left = link.collectionIds.filter((c) => c !== op.id);
        next.links.set(id, { ...link, collectionIds: left.length ? left : [inbox] });
      }
      break;
  }
  return next;
}

/** chooseOp draws the worker's next operation from its own objects (creates when it has nothing to change). */
function chooseOp(random: Random, worker: number, serial: string): Op | { kind: "click"; id: number } {
  const mine = owned[worker]!;
  const linkIds = [...mine.links.keys()];
  const collectionIds = [...mine.collections.keys()];
  const someCollections = () => sortedIds(collectionIds.filter(() => random() < 0.3));
  const linkBody = (): LinkState => ({
    name: `${ownerPrefix(worker)} link ${serial}`,
    url: `https://example.com/${worker}/${serial}?q=${Math.floor(random() * 1000)}`,
    description: random() < 0.5 ? "" : `about ${serial}`,
    favorite: random() < 0.5,
    collectionIds: someCollections(),
  });
  const collectionBody = (): CollectionState => ({
    name: `${ownerPrefix(worker)} collection ${serial}`,
    visibility: random() < 0.5 ? "PUBLIC" : "PRIVATE",
    icon: pick(random, ICONS),
  });
  const roll = random();
  if (roll < 0.25) {
    const everyLink = owned.flatMap((o) => [...o.links.keys()]);
    if (everyLink.length) return { kind: "click", id: pick(random, everyLink) };
  }
  if (roll < 0.45 && linkIds.length) return { kind: "updateLink", id: pick(random, linkIds), body: linkBody() };
  if (roll < 0.55 && linkIds.length) return { kind: "deleteLink", id: pick(random, linkIds) };
  if (roll < 0.63 && collectionIds.length) return { kind: "deleteCollection", id: pick(random, collectionIds) };
  if (roll < 0.68 && collectionIds.length) return { kind: "updateCollection", id: pick(random, collectionIds), body: collectionBody() };
  if (roll < 0.8 || collectionIds.length > 6) return { kind: "createLink", body: linkBody() };
  return { kind: "createCollection", body: collectionBody() };
}

// ---------------------------------------------------------------------------------------
// Talking to the server.

let servers: WorkspaceServers;
let dbPath: string;
let token: string;

const request = (server: RunningServer, method: string, path: string, body?: unknown) =>
  fetch(`${server.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
  });

/** The request an operation sends and the status that acknowledges it. */
function requestOf(op: Op): { method: string; path: string; body?: unknown; status: number } {
  switch (op.kind) {
    case "createLink":
      return { method: "POST", path: "/api/v1/links", body: op.body, status: 201 };
    case "updateLink":
      return { method: "PUT", path: `/api/v1/links/${op.id}`, body: op.body, status: 200 };
    case "deleteLink":
      return { method: "DELETE", path: `/api/v1/links/${op.id}`, status: 200 };
    case "createCollection":
      return { method: "POST", path: "/api/v1/collections", body: op.body, status: 201 };
    case "updateCollection":
      return { method: "PUT", path: `/api/v1/collections/${op.id}`, body: op.body, status: 200 };
    case "deleteCollection":
      return { method: "DELETE", path: `/api/v1/collections/${op.id}`, status: 200 };
  }
}

/** createdId reads the id a create's answer carries. */
function createdId(op: Op, answer: unknown): number | undefined {
  if (op.kind === "createLink") return (answer as { link: { id: number } }).link.id;
  if (op.kind === "createCollection") return (answer as { collection: { id: number } }).collection.id;
  return undefined;
}

interface Burst {
  /** The operation each worker had sent and not seen answered when the server went away. */
  pending: (Pending | undefined)[];
  /** Anything a correct server never answers: wrong status, a 404 for a link nobody deleted. */
  wrong: string[];
  /** Requests that ended without an answer, with the time they failed. */
  unanswered: { worker: number; at: number }[];
  answered: number;
}

/**
 * runWorkers runs every worker's loop (one request at a time each, from its own model) until
 * its request fails because the server is gone. `firstAnswer` resolves at the first answer.
 * Each worker draws from a generator seeded by the seed, the round and the worker, so its
 * sequence does not depend on how the workers happen to interleave.
 */
function runWorkers(server: RunningServer, round: number): { burst: Burst; firstAnswer: Promise<void>; done: Promise<void> } {
  const burst: Burst = { pending: [], wrong: [], unanswered: [], answered: 0 };
  let answered!: () => void;
  const firstAnswer = new Promise<void>((resolve) => (answered = resolve));
  const deleting = new Set<number>();
  const randoms = Array.from({ length: WORKERS }, (_, w) => seededRandom(SEED + 7919 * (w + 1) + 104_729 * round));

  const worker = async (w: number) => {
    for (let n = 0; ; n++) {
      const op = chooseOp(randoms[w]!, w, `r${round}.${n}`);
      if (op.kind === "click") {
        bump(clicks.inFlight, op.id);
        let response: Response;
        try {
          response = await request(server, "GET", `/l/${op.id}`);
          await response.arrayBuffer();
        } catch {
          burst.unanswered.push({ worker: w, at: performance.now() });
          return;
        }
        bump(clicks.inFlight, op.id, -1);
        burst.answered++;
        answered();
        if (response.status === 302) bump(clicks.acknowledged, op.id);
        else if (!(response.status === 404 && deleting.has(op.id))) burst.wrong.push(`GET /l/${op.id}: ${response.status}`);
        continue;
      }
      const sent = requestOf(op);
      const pending: Pending = { op, acknowledged: false };
      burst.pending[w] = pending;
      if (op.kind === "deleteLink") deleting.add(op.id);
      let answer: unknown;
      let status: number;
      try {
        const response = await request(server, sent.method, sent.path, sent.body);
        status = response.status;
        pending.acknowledged = status === sent.status;
        answer = await response.json();
      } catch {
        burst.unanswered.push({ worker: w, at: performance.now() });
        return;
      }
      burst.pending[w] = undefined;
      burst.answered++;
      answered();
      if (status !== sent.status) {
        burst.wrong.push(`${sent.method} ${sent.path}: ${status} ${JSON.stringify(answer)}`);
        continue;
      }
      const id = createdId(op, answer);
      if (op.kind === "createLink") {
        const link = (answer as { link: LinkState & { clicks: number } }).link;
        const expected = applyOp(owned[w]!, op, id).links.get(id!)!;
        if (JSON.stringify(pickLink(link)) !== JSON.stringify(expected)) burst.wrong.push(`POST answered ${JSON.stringify(link)}`);
        clicks.base.set(id!, 0);
      }
      owned[w] = applyOp(owned[w]!, op, id);
    }
  };
  const done = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w))).then(() => undefined);
  return { burst, firstAnswer, done };
}

// ---------------------------------------------------------------------------------------
// Reading back what was stored.

interface StoredLink extends LinkState {
  id: number;
  clicks: number;
}
interface StoredCollection extends CollectionState {
  id: number;
  isDefault: boolean;
  links: StoredLink[];
}

const pickLink = (link: LinkState): LinkState => ({
  name: link.name,
  url: link.url,
  description: link.description,
  favorite: link.favorite,
  collectionIds: link.collectionIds,
});

/** readStored lists everything through the restarted server's own API. */
async function readStored(server: RunningServer) {
  const response = await request(server, "GET", "/api/v1/collections");
  expect(response.status).toBe(200);
  const { collections } = (await response.json()) as { collections: StoredCollection[] };
  const links = new Map<number, StoredLink>();
  for (const collection of collections) for (const link of collection.links) links.set(link.id, link);
  return { collections, links };
}

/** viewOf is a worker's objects in a comparable form: sorted [id, state] pairs. */
const viewOf = (state: Owned) => ({
  links: [...state.links].sort(([a], [b]) => a - b),
  collections: [...state.collections].sort(([a], [b]) => a - b),
});

/** storedOwned is the part of the stored data that belongs to one worker. */
function storedOwned(stored: Awaited<ReturnType<typeof readStored>>, worker: number): Owned {
  const prefix = ownerPrefix(worker);
  const result: Owned = { links: new Map(), collections: new Map() };
  for (const link of stored.links.values()) if (link.name.startsWith(prefix)) result.links.set(link.id, pickLink(link));
  for (const c of stored.collections) {
    if (c.name.startsWith(prefix)) result.collections.set(c.id, { name: c.name, visibility: c.visibility, icon: c.icon });
  }
  return result;
}

/** checkFile runs the structural checks on the database file with a connection of its own. */
function checkFile(path: string) {
  expect(queryFile(path, "PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);
  expect(queryFile(path, "PRAGMA foreign_key_check")).toEqual([]);
  // Nothing half-applied: every link is in a collection, every membership names a live link and collection.
  expect(queryFile(path, "SELECT id FROM links WHERE id NOT IN (SELECT link_id FROM link_collections)")).toEqual([]);
  expect(
    queryFile(path, `SELECT link_id, collection_id FROM link_collections
      WHERE link_id NOT IN (SELECT id FROM links) OR collection_id NOT IN (SELECT id FROM collections)`),
  ).toEqual([]);
  expect(queryFile(path, "SELECT user_id, count(*) AS n FROM collections WHERE is_default = 1 GROUP BY user_id")).toEqual([
    { user_id: 1, n: 1 },
  ]);
}

/**
 * reconcile compares the stored data with the model and adopts it for the next round. Each
 * worker's objects must equal the model with its in-flight request either not applied or
 * wholly applied (only applied, once its status was received); `strict` (after SIGTERM)
 * allows no unanswered request to have been applied. Returns a report for failure messages.
 */
function reconcile(stored: Awaited<ReturnType<typeof readStored>>, pending: (Pending | undefined)[], strict: boolean, report: string) {
  const storedIds = { links: new Set<number>(), collections: new Set<number>() };
  owned.forEach((state, worker) => {
    const actual = storedOwned(stored, worker);
    for (const id of actual.links.keys()) storedIds.links.add(id);
    for (const id of actual.collections.keys()) storedIds.collections.add(id);
    const inFlight = pending[worker];
    const candidates: Owned[] = [];
    if (!inFlight?.acknowledged) candidates.push(state);
    if (inFlight && (inFlight.acknowledged || !strict)) {
      const op = inFlight.op;
      const created = op.kind === "createLink" ? [...actual.links].find(([, l]) => l.name === op.body.name)?.[0]
        : op.kind === "createCollection" ? [...actual.collections].find(([, c]) => c.name === op.body.name)?.[0]
        : undefined;
      if (created !== undefined || (op.kind !== "createLink" && op.kind !== "createCollection")) candidates.push(applyOp(state, op, created));
    }
    const wanted = JSON.stringify(viewOf(actual));
    const match = candidates.find((candidate) => JSON.stringify(viewOf(candidate)) === wanted);
    if (!match) {
      expect(viewOf(actual), `${report}\nworker ${worker} in flight: ${JSON.stringify(inFlight)}`).toEqual(viewOf(candidates[0] ?? state));
    }
    owned[worker] = match ?? actual;
  });
  // Nothing stored that no worker made.
  expect([...stored.links.keys()].filter((id) => !storedIds.links.has(id)), report).toEqual([]);
  expect(stored.collections.filter((c) => !c.isDefault && !storedIds.collections.has(c.id)).map((c) => c.name), report).toEqual([]);

  for (const link of stored.links.values()) {
    const least = (clicks.base.get(link.id) ?? 0) + (clicks.acknowledged.get(link.id) ?? 0);
    const most = least + (strict ? 0 : clicks.inFlight.get(link.id) ?? 0);
    const detail = `${report}\nlink ${link.id}: ${link.clicks} clicks stored, ${least} acknowledged, at most ${most}`;
    expect(link.clicks, detail).toBeGreaterThanOrEqual(least);
    expect(link.clicks, detail).toBeLessThanOrEqual(most);
  }
  clicks.base = new Map([...stored.links.values()].map((link) => [link.id, link.clicks]));
  clicks.acknowledged.clear();
  clicks.inFlight.clear();
}

beforeAll(async () => {
  console.log(`crash.binary.test.ts: seed ${SEED} (replay with CRASH_SEED=${SEED})`);
  servers = new WorkspaceServers(binaryWorkspace("crash-mixed"), SERVER_ENV);
  ({ dbPath } = servers.workspace);
  token = await createUserWithToken(servers.workspace, "mixed@example.test", "Mixed", SERVER_ENV);
  inbox = queryFile<{ id: number }>(dbPath, "SELECT id FROM collections WHERE is_default = 1")[0]!.id;
}, SLOW);

afterAll(() => servers?.close());

describe("kill -9 during mixed bursts, through the binary", () => {
  it(`keeps every acknowledged write and applies nothing by halves, over ${ROUNDS} rounds`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const server = await servers.start();
      const { burst, firstAnswer, done } = runWorkers(server, round);
      await firstAnswer;
      const killDelay = 20 + Math.floor(random() * 230);
      // The delay chooses where in the burst the kill lands; correctness never waits on it.
      await Bun.sleep(killDelay);
      await servers.killHard(server);
      await done;

      const inFlight = burst.pending.filter(Boolean).map((p) => p!.op.kind);
      const report = `seed ${SEED}, round ${round}, kill ${killDelay} ms after the first answer, ${burst.answered} answered, in flight: ${inFlight.join(", ")}`;
      expect(burst.wrong, report).toEqual([]);
      // The file as the crash left it, before any server touches it again.
      checkFile(dbPath);

      const restarted = await servers.start();
      reconcile(await readStored(restarted), burst.pending, false, report);
      expect(await servers.stop(restarted)).toBe(0);
      checkFile(dbPath);
    }
  }, SLOW);
});

describe("SIGTERM under load, through the binary", () => {
  /** A request whose headers the server has taken (it answered 100 Continue) and whose body is not sent yet. */
  interface Held {
    connection: RawConnection;
    body: string;
    op: Op;
  }

  async function hold(server: RunningServer, op: Op): Promise<Held> {
    const sent = requestOf(op);
    const body = JSON.stringify(sent.body);
    const connection = await connectRaw(server.port);
    connection.write(
      `${sent.method} ${sent.path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await connection.received.waitFor(/^HTTP\/1\.1 100 /);
    return { connection, body, op };
  }

  it("finishes every request taken before the signal, applies none it did not answer, exits 0 with the WAL checkpointed", async () => {
    const heldWorker = WORKERS;
    const server = await servers.start();
    // A link and a collection of its own for the held requests to change.
    const seeded = await request(server, "POST", "/api/v1/links", { name: `${ownerPrefix(heldWorker)} before`, url: "https://example.com/held", favorite: false });
    expect(seeded.status).toBe(201);
    const heldLink = ((await seeded.json()) as { link: { id: number } }).link.id;
    owned[heldWorker]!.links.set(heldLink, { name: `${ownerPrefix(heldWorker)} before`, url: "https://example.com/held", description: "", favorite: false, collectionIds: [inbox] });
    clicks.base.set(heldLink, 0);

    const { burst, firstAnswer, done } = runWorkers(server, ROUNDS + 1);
    await firstAnswer;
    await Bun.sleep(20 + Math.floor(random() * 100));
    const heldOps: Op[] = [
      { kind: "createLink", body: { name: `${ownerPrefix(heldWorker)} held create`, url: "https://example.com/held/1", description: "held", favorite: true, collectionIds: [] } },
      { kind: "updateLink", id: heldLink, body: { name: `${ownerPrefix(heldWorker)} held update`, url: "https://example.com/held/2", description: "", favorite: true, collectionIds: [inbox] } },
      { kind: "createCollection", body: { name: `${ownerPrefix(heldWorker)} held collection`, visibility: "PUBLIC", icon: "📚" } },
    ];
    const held = await Promise.all(heldOps.map((op) => hold(server, op)));

    const signalledAt = performance.now();
    server.proc.kill("SIGTERM");
    await server.log.waitFor(/SIGTERM received/);
    for (const { connection, body, op } of held) {
      connection.write(body);
      // The final answer after the 100: its status, then (Content-Length bodies here) the JSON.
      const [, status, answer] = await connection.received.waitFor(/HTTP\/1\.1 (?!100)(\d{3})[^]*?\r\n\r\n(\{.*\})$/);
      expect({ op: op.kind, status }).toEqual({ op: op.kind, status: String(requestOf(op).status) });
      owned[heldWorker] = applyOp(owned[heldWorker]!, op, createdId(op, JSON.parse(answer!)));
      connection.close();
    }

    expect(await server.proc.exited).toBe(0);
    servers.forget(server);
    await done;
    const report = `seed ${SEED}, SIGTERM after ${burst.answered} answers`;
    expect(burst.wrong, report).toEqual([]);
    // A request may fail only because the server stopped accepting, that is after the signal.
    expect(burst.unanswered.filter((u) => u.at < signalledAt), report).toEqual([]);
    expect(server.log.text).toMatch(/stopped/);
    expect(!existsSync(`${dbPath}-wal`) || statSync(`${dbPath}-wal`).size === 0, report).toBe(true);
    checkFile(dbPath);

    const restarted = await servers.start();
    reconcile(await readStored(restarted), burst.pending, true, report);
    expect(await servers.stop(restarted)).toBe(0);
    checkFile(dbPath);
  }, SLOW);
});
