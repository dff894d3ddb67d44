/**
 * The folder sync's budgets (docs/extension.md, "Syncing a folder"), measured in Chromium with
 * the built extension against the compiled server (dist/linkshelf on loopback, page fetching and
 * link checks off, the default rate limit, the access log on to count and time requests):
 * - the first sync of a 5,000-bookmark folder with 300 sub-folders nested 4 deep (~17 bookmarks
 *   each) into a new collection: from `{type: "sync-now"}` until the sync answered with
 *   `syncStatus.ok` (the server then holds the 5,000 links, checked), target ≤ 30 s, with the
 *   server's peak RSS (VmHWM), target ≤ 150 MiB, and the requests it sent (within the rate limit);
 * - an idle sync (once a second sync found nothing), started by the extension's own minute
 *   alarm: its requests (target exactly one, `GET /api/v1/changes`) and that request's server
 *   time, from the access log and in-process (`app.handle`) on a copy of the database (median of
 *   200), target ≤ 5 ms;
 * - a second profile syncing the same collection into an empty folder (its first sync is timed,
 *   for information), then a bookmark renamed in the first profile, timed until the second
 *   profile's bookmark shows it, with nothing but the extensions' own debounce and minute alarm
 *   at work, target ≤ 2 minutes (two alarm periods).
 * - 1,500 of the 5,300 items deleted one by one in the first browser (1,500 bookmark events):
 *   from the first removal until the failsafe asked, target ≤ 60 s and one sync for the burst,
 *   then from Apply until they were deleted on the server.
 * `bun bench/sync.ts` prints the figures as JSON (`SYNC_ROUNDS=<n>` renames, 2 by default);
 * `npm run bench` prints them among the others.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { buildExtension } from "../extension/build";
import type { BookmarkNode } from "../extension/src/webext";
import { createApp } from "../src/app";
import { passwords } from "../src/common/passwords";
import { loadConfig } from "../src/common/config";
import { closeDatabase, openDatabase } from "../src/db/client";
import type { CollectionCreatedJson, CollectionListJson } from "../src/contract/collections";
import { grantLoopback, launchWithExtension, type ChromeApi, type LaunchedExtension } from "../test/support/extension.chromium";
import { cli, compile, createBenchUser, indexCatchUp, median, NO_REFUSAL_RATE_LIMIT, peakRssMiB, ROOT, serveCommand, start, stop, tempDir } from "./lib";

declare const chrome: ChromeApi & { bookmarks: { search(query: { url: string }): Promise<BookmarkNode[]> } };

const FOLDERS = 300;
const MARKS = 5_000;
/** Folder i (1-based) sits in folder ⌊(i - 1) / FANOUT⌋ (0 is the synced folder): 300 folders 4 deep. */
const FANOUT = 6;
const IDLE_SYNCS = 5;
/** Idle feed requests the bench sends itself: well inside the rate limit the browsers share. */
const HTTP_ROUNDS = 60;
const FIRST_SYNC_TARGET_S = 30;
const RSS_TARGET_MIB = 150;
const IDLE_TARGET_MS = 5;
const PROPAGATION_TARGET_S = 120;
/** Bookmarks deleted one by one in the synced folder (of 5,300 items), as a bookmark manager deletes a selection. */
const BULK_DELETES = 1_500;
const BULK_TARGET_S = 60;
/** The server's default rate limit, which the sync must fit in. */
const RATE_LIMIT = { requests: 300, seconds: 60 };

export interface Requests {
  /** Requests answered, by `METHOD path` (no query). */
  byPath: Record<string, number>;
  total: number;
  /** Their server time (the access log's), summed. */
  serverMs: number;
}

export interface SyncFigure {
  folders: number;
  marks: number;
  firstSync: { seconds: number; split: { beforeBatchesS: number; batchesS: number; batchServerS: number; batches: number }; target: number; status: string; linksOnServer: number; collectionsOnServer: number; requests: Requests; rateLimit: typeof RATE_LIMIT };
  peakRssMiB: number;
  idleRssMiB: number;
  rssTarget: number;
  secondSync: { requests: Requests; status: string };
  /** The search index caught up with the first sync's links this long after it answered. */
  indexedAfterS: number;
  idle: {
    requests: number[];
    paths: string[];
    /** The idle syncs' `GET /api/v1/changes`, their server time in the access log. */
    logMs: number[];
    /** The same request sent HTTP_ROUNDS times by the bench to the binary: medians of the round trip and of the access log's time. */
    httpMs: number;
    httpLogMs: number;
    inProcessMs: number;
    target: number;
  };
  /** The second profile's first sync: everything from the server into an empty folder. */
  pull: { seconds: number; status: string; requests: Requests };
  propagation: { seconds: number[]; sentAfter: number[]; target: number };
  /**
   * 1,500 bookmarks of the 5,300 items deleted one by one in the first browser: from the first
   * removal until the failsafe asked (one sync for the whole burst: the subtree reads counted),
   * then from Apply until the sync deleted them on the server.
   */
  bulk: { deleted: number; askedAfterS: number; syncs: number; prompt: string; appliedAfterS: number; linksLeft: number; target: number };
}

interface AccessLine {
  at: number;
  method: string;
  path: string;
  status: number;
  ms: number;
}

/** `<ISO time of arrival> <client IP> <method> <path> <status> <ms>ms` (src/request/log.ts). */
function parseAccess(line: string): AccessLine | null {
  const match = /^(\S+) \S+ (\S+) (\S+) (\d+) ([\d.]+)ms$/.exec(line);
  return match ? { at: Date.parse(match[1]!), method: match[2]!, path: match[3]!, status: Number(match[4]), ms: Number(match[5]) } : null;
}

function summarize(lines: readonly AccessLine[]): Requests {
  const byPath: Record<string, number> = {};
  for (const line of lines) byPath[`${line.method} ${line.path}`] = (byPath[`${line.method} ${line.path}`] ?? 0) + 1;
  return { byPath, total: lines.length, serverMs: lines.reduce((sum, line) => sum + line.ms, 0) };
}

/** The folder sync's own requests (the favorites refresh sends others). */
const SYNC_PATHS = new Set(["GET /api/v1/changes", "GET /api/v1/changes/cursor", "GET /api/v1/collections", "POST /api/v1/batch"]);

/** waitFor polls `probe` every `everyMs` until `done` accepts its value, for at most `timeoutMs`. */
async function waitFor<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`sync bench: ${what}: still ${JSON.stringify(value).slice(0, 300)}`);
    await Bun.sleep(everyMs);
  }
}

interface Status { at: number; ok: boolean; message: string; items: number }
const syncStatus = (page: Page) => page.evaluate(async () => ((await chrome.storage.local.get(["syncStatus"])).syncStatus as Status | undefined) ?? null);

interface Profile extends LaunchedExtension {
  /**
   * An extension page that runs none of the extension's scripts (its style sheet), from which the
   * bench reads storage, edits bookmarks and sends messages: the options page is closed, since it
   * reads the collections again at every storage change, which would count among the sync's requests.
   */
  control: Page;
}

/** signIn launches a profile, grants the loopback host and stores the server and a token, as launchSignedIn does. */
async function signIn(stack: { root: string; extension: () => string }, profile: string, origin: string, token: string): Promise<Profile> {
  const launched = await launchWithExtension(stack, profile);
  await grantLoopback(launched.context, launched.id, launched.options);
  const control = await launched.context.newPage();
  await control.goto(`chrome-extension://${launched.id}/style.css`);
  await launched.options.close();
  await control.evaluate(([server, token]) => chrome.storage.local.set({ server, token }), [origin, token]);
  return { ...launched, control };
}

/** startSync sets the pair as the options page's "Start syncing" does and sends `sync-now`; it answers once the sync ran. */
async function startSync(page: Page, folderId: string, collectionId: number): Promise<number> {
  const began = performance.now();
  await page.evaluate(async ([folderId, collectionId]) => {
    await chrome.storage.local.set({ syncConfig: { folderId, collectionId } });
    await chrome.runtime.sendMessage({ type: "sync-now" });
  }, [folderId, collectionId] as const);
  return (performance.now() - began) / 1000;
}

/** benchSync measures the sync's budgets with `binary` (dist/linkshelf) and Chromium. */
export async function benchSync(binary: string, rounds = 2): Promise<SyncFigure> {
  const root = tempDir("sync");
  const extensionDir = join(root, "extension");
  await buildExtension(extensionDir);
  const stack = { root, extension: () => join(extensionDir, "chromium") };
  const dataDir = join(root, "data");
  const tokenA = createBenchUser(binary, dataDir);
  const tokenB = cli(binary, dataDir, ["token", "create", "--email", "bench@example.test"]);
  const log: AccessLine[] = [];
  const server = await start(serveCommand(binary, dataDir), { env: { LINKSHELF_LOG: "access" }, onLine: (line) => void (parseAccess(line) && log.push(parseAccess(line)!)) });
  // A mark is taken once the lines of what came before are in; the lines after it are read once the last is.
  const markNow = async () => (await Bun.sleep(300), log.length);
  const since = async (mark: number, settleMs = 300) => (await Bun.sleep(settleMs), log.slice(mark).filter((line) => SYNC_PATHS.has(`${line.method} ${line.path}`)));
  const browsers: Profile[] = [];
  try {
    const a = await signIn(stack, "profile-a", server.base, tokenA);
    browsers.push(a);
    // The folder, in Other bookmarks: 300 sub-folders, then ~17 bookmarks in each folder.
    const built = await a.control.evaluate(async ([folders, marks, fanout]) => {
      const other = (await chrome.bookmarks.getTree())[0]!.children![1]!;
      const ids = [(await chrome.bookmarks.create({ parentId: other.id, title: "Reading" })).id];
      for (let i = 1; i <= folders; i++) ids.push((await chrome.bookmarks.create({ parentId: ids[Math.floor((i - 1) / fanout)]!, title: `Topic ${i}` })).id);
      const marksIds: string[] = [];
      for (let n = 0; n < marks; n++) marksIds.push((await chrome.bookmarks.create({ parentId: ids[n % ids.length]!, title: `Article ${n}: on things`, url: `https://site${n % 200}.example/articles/${n}` })).id);
      return { folderId: ids[0]!, marks: marksIds };
    }, [FOLDERS, MARKS, FANOUT] as const);
    // The bookmark events of the build are over before the folder is synced (none is a change to send).
    await Bun.sleep(3000);
    const collection = (await (await fetch(`${server.base}/api/v1/collections`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokenA}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Reading", visibility: "PRIVATE" }),
    })).json()) as CollectionCreatedJson;
    const collectionId = collection.collection.id;

    // 1. The first sync.
    const idleRssMiB = peakRssMiB(server.process.pid);
    let mark = await markNow();
    const firstBegan = Date.now();
    const firstSeconds = await startSync(a.control, built.folderId, collectionId);
    const firstLines = await since(mark);
    const firstRequests = summarize(firstLines);
    // Where the time went: everything before the first batch arrived (reading the folder and the
    // collection, the merge, the bookmark calls), then the batches (their server time, summed).
    const batches = firstLines.filter((line) => line.path === "/api/v1/batch");
    const split = {
      beforeBatchesS: (batches[0]!.at - firstBegan) / 1000,
      batchesS: (batches.at(-1)!.at + batches.at(-1)!.ms - batches[0]!.at) / 1000,
      batchServerS: batches.reduce((sum, line) => sum + line.ms, 0) / 1000,
      batches: batches.length,
    };
    const firstStatus = (await syncStatus(a.control))!;
    const peak = peakRssMiB(server.process.pid);
    const under = (await (await fetch(`${server.base}/api/v1/collections?under=${collectionId}`, { headers: { authorization: `Bearer ${tokenA}` } })).json()) as CollectionListJson;
    const linksOnServer = new Set(under.collections.flatMap((item) => item.links.map((link) => link.id))).size;
    if (!firstStatus.ok || linksOnServer !== MARKS) throw new Error(`sync bench: the first sync: ${JSON.stringify(firstStatus)}, ${linksOnServer} links on the server`);

    const indexedAfterS = await indexCatchUp(join(dataDir, "linkshelf.db"));

    // 2. A second sync reads its own writes in the feed and finds nothing; then idle syncs, each
    // started by the extension's minute alarm (set to fire now, and every minute after).
    mark = await markNow();
    await a.control.evaluate(() => chrome.runtime.sendMessage({ type: "sync-now" }));
    const secondRequests = summarize(await since(mark));
    const secondStatus = (await syncStatus(a.control))!;
    const idleCounts: number[] = [];
    const idlePaths = new Set<string>();
    const idleMs: number[] = [];
    for (let i = 0; i < IDLE_SYNCS; i++) {
      const before = (await syncStatus(a.control))!.at;
      mark = await markNow();
      await a.control.evaluate(() => chrome.alarms.create("linkshelf-sync", { when: Date.now(), periodInMinutes: 1 }));
      await waitFor(() => syncStatus(a.control), (status) => status !== null && status.at !== before, "an idle sync", 10_000, 20);
      const lines = await since(mark);
      idleCounts.push(lines.length);
      for (const line of lines) idlePaths.add(`${line.method} ${line.path}`);
      idleMs.push(...lines.filter((line) => line.path === "/api/v1/changes").map((line) => line.ms));
    }
    const cursor = await a.control.evaluate(async () => (await chrome.storage.local.get(["syncCursor"])).syncCursor as string);
    const inProcessMs = await idleFeedInProcess(join(dataDir, "linkshelf.db"), root, tokenA, cursor);
    mark = await markNow();
    const httpTimes: number[] = [];
    for (let i = 0; i < HTTP_ROUNDS; i++) {
      const began = performance.now();
      const response = await fetch(`${server.base}/api/v1/changes?${new URLSearchParams({ since: cursor, limit: "500" })}`, { headers: { authorization: `Bearer ${tokenA}` } });
      await response.arrayBuffer();
      httpTimes.push(performance.now() - began);
      if (response.status !== 200) throw new Error(`sync bench: the idle feed answered ${response.status}`);
    }
    const httpLogMs = median((await since(mark)).map((line) => line.ms));

    // 3. A second browser syncing the same collection into an empty folder.
    const b = await signIn(stack, "profile-b", server.base, tokenB);
    browsers.push(b);
    const folderB = await b.control.evaluate(async () => {
      const other = (await chrome.bookmarks.getTree())[0]!.children![1]!;
      return (await chrome.bookmarks.create({ parentId: other.id, title: "Reading" })).id;
    });
    mark = await markNow();
    const pullSeconds = await startSync(b.control, folderB, collectionId);
    const pullRequests = summarize(await since(mark));
    const pullStatus = (await syncStatus(b.control))!;
    if (!pullStatus.ok || pullStatus.items !== MARKS + FOLDERS) throw new Error(`sync bench: the second browser's first sync: ${JSON.stringify(pullStatus)}`);

    // Renames in the first browser, each timed until the second shows it: the first sends it
    // after its 2 s debounce, the second reads it at its next minute alarm.
    const propagation: number[] = [];
    const sentAfter: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const n = 1000 + round * 777;
      const url = `https://site${n % 200}.example/articles/${n}`;
      const title = `Renamed ${round} at ${Date.now()}`;
      mark = await markNow();
      const began = Date.now();
      await a.control.evaluate(([id, title]) => chrome.bookmarks.update(id!, { title }), [built.marks[n]!, title]);
      await waitFor(() => b.control.evaluate((url) => chrome.bookmarks.search({ url }).then((found) => found.map((node) => node.title)), url),
        (titles) => titles.includes(title), "the rename in the second browser", 3 * 60_000, 250);
      propagation.push((Date.now() - began) / 1000);
      const batch = log.slice(mark).find((line) => line.path === "/api/v1/batch");
      if (batch) sentAfter.push((batch.at - began) / 1000);
    }

    // 4. A bulk delete in the first browser, one bookmark at a time (one event each).
    const victims = built.marks.slice(0, BULK_DELETES);
    mark = await markNow();
    const bulkBegan = Date.now();
    await a.control.evaluate(async (ids) => {
      for (const id of ids) await chrome.bookmarks.remove(id);
    }, victims);
    const prompt = await waitFor(() => a.control.evaluate(async () => ((await chrome.storage.local.get(["syncPrompt"])).syncPrompt as { message: string } | undefined) ?? null),
      (found) => found !== null, "the failsafe's question after the bulk delete", 5 * 60_000, 100);
    const askedAfterS = (Date.now() - bulkBegan) / 1000;
    const bulkSyncs = (await since(mark)).filter((line) => line.path === "/api/v1/collections").length;
    const beforeApply = (await syncStatus(a.control))!.at;
    const applyBegan = Date.now();
    await a.control.evaluate(() => chrome.runtime.sendMessage({ type: "sync-apply" }));
    const applied = await waitFor(() => syncStatus(a.control), (status) => status !== null && status.at !== beforeApply && status.ok, "the bulk delete applied", 5 * 60_000, 100);
    const appliedAfterS = (Date.now() - applyBegan) / 1000;
    const left = (await (await fetch(`${server.base}/api/v1/collections?under=${collectionId}`, { headers: { authorization: `Bearer ${tokenA}` } })).json()) as CollectionListJson;
    const linksLeft = new Set(left.collections.flatMap((item) => item.links.map((link) => link.id))).size;
    if (linksLeft !== MARKS - BULK_DELETES) throw new Error(`sync bench: after the bulk delete ${linksLeft} links are left: ${JSON.stringify(applied)}`);

    return {
      folders: FOLDERS,
      marks: MARKS,
      firstSync: { seconds: firstSeconds, split, target: FIRST_SYNC_TARGET_S, status: firstStatus.message, linksOnServer, collectionsOnServer: under.collections.length - 1, requests: firstRequests, rateLimit: RATE_LIMIT },
      peakRssMiB: peak,
      idleRssMiB,
      rssTarget: RSS_TARGET_MIB,
      secondSync: { requests: secondRequests, status: secondStatus.message },
      indexedAfterS,
      idle: { requests: idleCounts, paths: [...idlePaths], logMs: idleMs, httpMs: median(httpTimes), httpLogMs, inProcessMs, target: IDLE_TARGET_MS },
      pull: { seconds: pullSeconds, status: pullStatus.message, requests: pullRequests },
      propagation: { seconds: propagation, sentAfter, target: PROPAGATION_TARGET_S },
      bulk: { deleted: BULK_DELETES, askedAfterS, syncs: bulkSyncs, prompt: prompt!.message, appliedAfterS, linksLeft, target: BULK_TARGET_S },
    };
  } finally {
    for (const browser of browsers) await browser.context.close();
    await stop(server);
  }
}

type Row = [string, string, string, string];

/** syncRows are the figure's lines for `npm run bench`: verdict (from `verdict`), name, how, value, target. */
export function syncRows<Status extends string>(figure: SyncFigure, verdict: (met: boolean) => Status): [Status, string, string, string, string][] {
  const first = figure.firstSync;
  const range = (values: number[], digits = 0) => {
    if (values.length === 0) return "-";
    const low = Math.min(...values).toFixed(digits);
    const high = Math.max(...values).toFixed(digits);
    return low === high ? low : `${low}-${high}`;
  };
  const rows: [boolean, ...Row][] = [
    [first.seconds <= first.target && first.requests.total <= first.rateLimit.requests, "first folder sync, Chromium",
      `${figure.marks.toLocaleString("en")} bookmarks in ${figure.folders} folders: ${first.requests.total} requests, ${first.split.batches} of them batches (${first.split.batchServerS.toFixed(1)} s server time)`,
      `${first.seconds.toFixed(1)} s`, `≤ ${first.target} s`],
    [figure.peakRssMiB <= figure.rssTarget, "first folder sync: server peak RSS", `${figure.idleRssMiB.toFixed(0)} MiB before it`, `${figure.peakRssMiB.toFixed(0)} MiB`, `≤ ${figure.rssTarget} MiB`],
    [figure.idle.requests.every((n) => n === 1) && figure.idle.paths.join() === "GET /api/v1/changes", "idle folder sync: requests",
      `${figure.idle.requests.length} syncs by the minute alarm: ${figure.idle.paths.join(", ")}`, range(figure.idle.requests), "= 1"],
    [figure.idle.inProcessMs <= figure.idle.target && figure.idle.httpLogMs <= figure.idle.target, "idle folder sync: server time",
      `its GET /api/v1/changes, median: in-process / HTTP (access log; round trip ${figure.idle.httpMs.toFixed(1)} ms)`,
      `${figure.idle.inProcessMs.toFixed(2)} / ${figure.idle.httpLogMs.toFixed(1)} ms`, `≤ ${figure.idle.target} ms`],
    [figure.propagation.seconds.every((seconds) => seconds <= figure.propagation.target), "rename → the other browser, minute alarm",
      `${figure.propagation.seconds.length} renames, sent ${range(figure.propagation.sentAfter, 1)} s after; the other's first sync ${figure.pull.seconds.toFixed(1)} s`,
      `${range(figure.propagation.seconds)} s`, `≤ ${figure.propagation.target} s`],
    [figure.bulk.askedAfterS <= figure.bulk.target && figure.bulk.syncs === 1, "bulk delete in the browser → one sync",
      `${figure.bulk.deleted.toLocaleString("en")} of ${(figure.marks + figure.folders).toLocaleString("en")} removed one by one: ${figure.bulk.syncs} sync until the failsafe asked; Apply took ${figure.bulk.appliedAfterS.toFixed(1)} s`,
      `${figure.bulk.askedAfterS.toFixed(1)} s`, `≤ ${figure.bulk.target} s`],
  ];
  return rows.map(([met, ...row]) => [verdict(met), ...row]);
}

/**
 * idleFeedInProcess is the idle sync's one request (`GET /api/v1/changes?since=<its cursor>&limit=500`)
 * answered by the app in-process on a copy of the server's database: the median of 200, in ms.
 */
async function idleFeedInProcess(dbPath: string, root: string, token: string, cursor: string): Promise<number> {
  const copy = join(root, "copy.db");
  const source = new Database(dbPath, { readonly: true });
  source.run(`VACUUM INTO '${copy}'`);
  source.close();
  const db = openDatabase(copy);
  try {
    const app = createApp({ db, config: loadConfig({}, { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT }), clock: () => Date.now(), peerAddress: () => "127.0.0.1", passwords });
    const send = () => app.handle(new Request(`http://localhost:3000/api/v1/changes?${new URLSearchParams({ since: cursor, limit: "500" })}`, { headers: { authorization: `Bearer ${token}` } }));
    for (let i = 0; i < 10; i++) await (await send()).arrayBuffer();
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const began = performance.now();
      const response = await send();
      const body = (await response.json()) as { changes: unknown[] };
      times.push(performance.now() - began);
      if (response.status !== 200 || body.changes.length !== 0) throw new Error(`sync bench: the idle feed answered ${response.status} with ${body.changes?.length} changes`);
    }
    return median(times);
  } finally {
    closeDatabase(db);
  }
}

if (import.meta.main) {
  const binary = await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));
  const figure = await benchSync(binary, Number(process.env.SYNC_ROUNDS ?? 2));
  console.log(JSON.stringify(figure, null, 2));
  for (const [verdict, name, how, value, target] of syncRows(figure, (met) => (met ? "ok" : "MISS"))) {
    console.log(`${verdict.padEnd(5)} ${name.padEnd(42)} ${how.padEnd(48)} ${value.padStart(8)}  target ${target}`);
  }
}
