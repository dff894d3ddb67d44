/**
 * One sync of the folder with its collection: read what changed (the change feed, and the
 * folder against the last synced state), and when anything did, read both sides, merge them
 * (merge.ts), stop at the failsafe, write the browser's side, then the server's in batches,
 * and keep the result as the new last synced state.
 *
 * A sync that stops midway (the service worker ended, the server went away) has written part of
 * each side and kept the old state: the next one reads both sides again, finds the written part
 * equal on both (new items on both sides at the same place are one), and finishes the rest.
 */
import type { ChangeJson } from "../../../src/contract/changes";
import { ApiError, createClient, type Client } from "../api";
import { countOf as count } from "../words";
import { forgetToken, loadState } from "../state";
import type { Bookmarks, BookmarkNode, StorageArea } from "../webext";
import { applyToBrowser, deletions, serverPlan } from "./apply";
import { matchNew, merge, renameKeys, type Times } from "./merge";
import { browserSide, serverSide, type ServerRead } from "./sides";
import { loadSync, PROMPT_NAMES, saveSync, stopSync, type SyncStatus, type SyncStore } from "./store";
import { EMPTY_BASE, ROOT, sideOfBase, type Base, type Key, type Side } from "./tree";
import type { BatchOperation, Target } from "../../../src/contract/batch";
import { mapTargets } from "../../../src/contract/batch-targets";

/** The failsafe: a sync deleting more than this share of the synced items (when there are more than FAILSAFE_FROM)… */
export const FAILSAFE_SHARE = 0.2;
export const FAILSAFE_FROM = 10;
/** …or more than this many items asks first. */
export const FAILSAFE_MAX = 100;
/** Operations per batch request: half the server's 500, so a batch of the longest addresses stays far below its body limit. */
export const BATCH_SIZE = 250;
/** Changes asked for per feed request: the most the server gives (a sync reads its own writes back once). */
const FEED_PAGE = 1000;
/** Tries of one sync when the server changed between its read and its write (412). */
const ATTEMPTS = 3;

export interface SyncDeps {
  bookmarks: Bookmarks;
  storage: StorageArea;
  fetch?: typeof fetch;
  now?: () => number;
  /** A fresh idempotency key per batch. */
  newKey?: () => string;
  /** Told when the sync starts and stops writing bookmarks (its own events are not changes to send). */
  writing?: (on: boolean) => void;
}

export interface SyncOptions {
  /** Read both sides even when nothing seems changed ("Sync now"). */
  force?: boolean;
}

/** tooMany is the failsafe's rule. */
export function tooMany(deleting: number, synced: number): boolean {
  return deleting > FAILSAFE_MAX || (synced > FAILSAFE_FROM && deleting > FAILSAFE_SHARE * synced);
}

/** sameSide says whether the folder is as the last sync left it. */
function sameSide(a: Side, b: Side): boolean {
  if (a.items.size !== b.items.size || a.children.size !== b.children.size) return false;
  for (const [key, item] of a.items) {
    const other = b.items.get(key);
    if (!other || other.kind !== item.kind || other.title !== item.title || other.url !== item.url || other.parent !== item.parent) return false;
  }
  for (const [key, list] of a.children) {
    const other = b.children.get(key);
    if (!other || other.length !== list.length || other.some((child, index) => child !== list[index])) return false;
  }
  return true;
}

/** itemWords words a count of marks and folders, in the given nouns. */
function itemWords(side: Side, keys: Iterable<Key>, mark: string, folder: string): string {
  let marks = 0;
  let folders = 0;
  for (const key of keys) side.items.get(key)?.kind === "folder" ? folders++ : marks++;
  return [marks > 0 || folders === 0 ? count(marks, mark) : "", folders > 0 ? count(folders, folder) : ""].filter(Boolean).join(" and ");
}

/** relevant says whether a change of the feed concerns the synced collections. */
function relevant(change: ChangeJson, collections: ReadonlySet<number>, links: ReadonlySet<number>): boolean {
  if (change.deleted) return change.kind === "collection" ? collections.has(change.id) : links.has(change.id);
  if (change.kind === "collection") return collections.has(change.id) || (change.collection.parentId !== null && collections.has(change.collection.parentId));
  return links.has(change.id) || change.link.collectionIds.some((id) => collections.has(id));
}

/** What the feed says since the last sync. */
interface FeedRead {
  /** The cursor to keep, and to send as the first batch's `since`. */
  cursor: string;
  /** Anything synced may have changed: read both sides. */
  changed: boolean;
  /** The server's history is not the one the last sync knew (it was restored from a backup): its ids mean nothing to us. */
  replaced: boolean;
}

/** historyReplaced says whether the server refused a cursor or a `since` because its history was replaced (a restore). */
function historyReplaced(error: unknown): boolean {
  return error instanceof ApiError && error.status === 410 && error.code !== "CURSOR_EXPIRED";
}

/** readFeed follows the feed from `cursor` to its end: the new cursor, and whether anything synced changed. */
async function readFeed(client: Client, cursor: string | null, base: Base | null, rootId: number): Promise<FeedRead> {
  if (cursor === null || base === null) return { cursor: await client.changesCursor(), changed: true, replaced: false };
  const collections = new Set([rootId]);
  const links = new Set<number>();
  for (const item of Object.values(base.items)) (item.kind === "folder" ? collections : links).add(item.server);
  let changed = false;
  for (let since = cursor; ;) {
    let page;
    try {
      page = await client.changes(since, FEED_PAGE);
    } catch (error) {
      // Another history (the server was restored, or the cursor is beyond its feed's end): the
      // last sync's ids name other items now, or none. Read everything, as a first sync.
      if (historyReplaced(error)) return { cursor: await client.changesCursor(), changed: true, replaced: true };
      // Too old to follow, the same history: read everything, from the feed's end.
      if (error instanceof ApiError && error.status === 410) return { cursor: await client.changesCursor(), changed: true, replaced: false };
      throw error;
    }
    changed ||= page.changes.some((change) => relevant(change, collections, links));
    since = page.cursor;
    if (!page.more) return { cursor: since, changed, replaced: false };
  }
}

/** sendBatches sends the operations in batches, each ref made known to the batches after it; the first carries `since`. */
async function sendBatches(client: Client, operations: readonly BatchOperation[], since: string, newKey: () => string): Promise<Map<string, number>> {
  const made = new Map<string, number>();
  const resolve = (target: Target): Target => ("ref" in target && made.has(target.ref) ? { id: made.get(target.ref)! } : target);
  for (let start = 0; start < operations.length; start += BATCH_SIZE) {
    const chunk = operations.slice(start, start + BATCH_SIZE).map((operation) => mapTargets(operation, resolve));
    const body = { ...(start === 0 ? { since } : {}), operations: chunk };
    const key = newKey();
    let answer;
    try {
      answer = await client.batch(body, key);
    } catch (error) {
      // The answer may have been lost after the write: the same key hears it again, or writes it once.
      if (!(error instanceof ApiError && error.kind === "unreachable")) throw error;
      answer = await client.batch(body, key);
    }
    for (const [ref, id] of Object.entries(answer.refs)) made.set(ref, id);
  }
  return made;
}

/** The server changed between the sync's read and its write (412), or its history was replaced (410): read again. */
class Stale extends Error {}
/** Links were put back from the trash: read again, without counting it as a failed attempt. */
class Restart extends Error {}

/** What one sync's attempts share. */
interface Run {
  /** Links asked back from the trash (each asked once). */
  askedBack: Set<number>;
  /** How many came back. */
  restored: number;
}

/**
 * syncFolder runs one sync and stores its outcome (null when no folder is being synced). A
 * revoked token signs the browser out and stops syncing; an unreachable server keeps every
 * change for the next sync.
 */
export async function syncFolder(deps: SyncDeps, options: SyncOptions = {}): Promise<SyncStatus | null> {
  const now = deps.now ?? Date.now;
  const sync = await loadSync(deps.storage);
  if (sync.config === null) return null;
  const lastOk = sync.status === null ? null : sync.status.okAt ?? (sync.status.ok ? sync.status.at : null);
  const state = await loadState(deps.storage);
  if (state.server === null || state.token === null) {
    await stopSync(deps.storage, { at: now(), ok: false, message: "Signed out: syncing stopped. The bookmarks are kept.", items: 0, okAt: lastOk });
    return null;
  }
  const client = createClient({ origin: state.server, token: state.token, fetch: deps.fetch, now });
  const run: Run = { askedBack: new Set(), restored: 0 };
  let status: SyncStatus;
  try {
    let outcome: SyncStatus | null = null;
    // The state read above serves the first attempt; a later one reads what the earlier left.
    let current: SyncStore | null = sync;
    for (let attempt = 1; outcome === null;) {
      try {
        // The favorites folder is never synced.
        const skip = new Set(state.folderId === null ? [] : [state.folderId]);
        outcome = await once(deps, client, current ?? await loadSync(deps.storage), skip, options, now, run);
      } catch (error) {
        current = null;
        if (error instanceof Restart) continue;
        if (!(error instanceof Stale) || attempt >= ATTEMPTS) throw error;
        attempt++;
      }
    }
    status = outcome;
  } catch (error) {
    if (error instanceof Gone) {
      await stopSync(deps.storage, { at: now(), ok: false, message: error.message, items: 0, okAt: lastOk });
      return null;
    }
    if (error instanceof ApiError && error.kind === "unauthorized") {
      await forgetToken(deps.storage, error.message);
      await stopSync(deps.storage, { at: now(), ok: false, message: "Signed out: syncing stopped. The bookmarks are kept.", items: 0, okAt: lastOk });
      return null;
    }
    const items = sync.base === null ? 0 : Object.keys(sync.base.items).length;
    const message = error instanceof Stale
      ? "The folder or the collection kept changing while syncing; the next sync tries again."
      : error instanceof ApiError && error.kind === "unreachable"
        ? `${error.message} Changes made here are kept and sent when it answers.`
        : error instanceof ApiError ? error.message : `Could not sync: ${String(error)}`;
    status = { at: now(), ok: false, message, items };
  }
  status.okAt = status.ok ? status.at : lastOk;
  await saveSync(deps.storage, { status });
  return status;
}

/** The folder or the collection is gone: syncing stops. */
class Gone extends Error {}

async function subTree(bookmarks: Bookmarks, id: string): Promise<BookmarkNode | null> {
  try {
    return (await bookmarks.getSubTree(id))[0] ?? null;
  } catch {
    return null;
  }
}

/** once is one attempt; it throws Stale when the server changed between its read and its write. */
async function once(deps: SyncDeps, client: Client, sync: SyncStore, skip: ReadonlySet<string>, options: SyncOptions, now: () => number, run: Run): Promise<SyncStatus> {
  const { folderId, collectionId } = sync.config!;
  const root = await subTree(deps.bookmarks, folderId);
  if (root === null) throw new Gone("The synced folder was deleted from the browser: syncing stopped. The collection is kept.");
  const browser = browserSide(root, skip);
  const feed = await readFeed(client, sync.cursor, sync.base, collectionId);
  // After a restore of the server, the last synced state's server ids name other items, or
  // none: this sync is a first sync, a union matched by address and place, deleting nothing.
  const base = feed.replaced ? null : sync.base;
  const baseSide = sideOfBase(base ?? EMPTY_BASE);
  const browserChanged = base === null || !sameSide(browser.side, baseSide);
  if (!browserChanged && !feed.changed && !options.force && !sync.approved && sync.prompt === null) {
    const status = { at: now(), ok: true, message: "Up to date.", items: browser.side.items.size };
    // The folder is as the last sync left it: change times noted since are of changes undone or already synced.
    await saveSync(deps.storage, { cursor: feed.cursor, ...(Object.keys(sync.times).length > 0 ? { times: {} } : {}) });
    return status;
  }

  let collections;
  try {
    collections = await client.listUnder(collectionId);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) throw new Gone("The synced collection was deleted on the server: syncing stopped. The bookmarks are kept.");
    throw error;
  }
  const read = serverSide(base ?? EMPTY_BASE, collections);
  const renamed = matchNew(baseSide, browser.side, read.side);
  const server = renamedRead(read, renamed);
  const browserTimes = new Map<Key, Times>(Object.entries(sync.times).map(([id, times]) => [id === folderId ? ROOT : id, times]));
  const merged = merge({
    base: baseSide, browser: browser.side, browserTimes, server: server.side, serverTimes: server.times, links: linksOf(server, base), now: now(),
    // A union after a restore keeps the titles the browser changed since the last sync.
    ...(feed.replaced && sync.base !== null ? { earlier: sideOfBase(sync.base) } : {}),
  });

  // The failsafe, before anything is written.
  const fromBrowser = deletions(browser.side, merged);
  const fromServer = deletions(server.side, merged);
  const synced = Math.max(baseSide.items.size, 1);
  const stopBrowser = tooMany(fromBrowser.length, synced);
  const stopServer = tooMany(fromServer.length, synced);
  const stops = [
    stopBrowser ? `${itemWords(browser.side, fromBrowser, "bookmark", "folder")} from the browser` : "",
    stopServer ? `${itemWords(server.side, fromServer, "link", "collection")} from linkshelf (into its trash)` : "",
  ].filter(Boolean);
  if (stops.length > 0 && !sync.approved) {
    const message = `Sync would delete ${stops.join(" and ")}`;
    const asked = [...(stopBrowser ? fromBrowser.map((key) => browser.side.items.get(key)!) : []), ...(stopServer ? fromServer.map((key) => server.side.items.get(key)!) : [])];
    const names = asked.slice(0, PROMPT_NAMES).map((item) => (item.kind === "folder" ? `${item.title}/` : item.title));
    await saveSync(deps.storage, { prompt: { message, keys: [...fromBrowser, ...fromServer], count: asked.length, names } });
    return { at: now(), ok: false, message: `${message}: Apply or Put them back.`, items: baseSide.items.size };
  }

  // An edit beats a delete: a link deleted on the server and edited in the browser comes back
  // from the trash, with its id, clicks and other collections, rather than as a new link.
  const askBack = base === null ? [] : deletedLinks(base, server, merged).filter((id) => !run.askedBack.has(id));
  if (askBack.length > 0) {
    for (const id of askBack) run.askedBack.add(id);
    const restored = await restoreLinks(client, askBack);
    if (restored > 0) {
      run.restored += restored;
      throw new Restart();
    }
  }

  // The person may have changed the folder while this sync read the server: writing the merged
  // tree now would undo that change (and the events of the sync's own writes are not listened
  // to). Read the folder again; if it changed, the next attempt starts over from it.
  const again = await subTree(deps.bookmarks, folderId);
  if (again === null || !sameSide(browserSide(again, skip).side, browser.side)) throw new Stale();

  deps.writing?.(true);
  let made: Map<Key, string>;
  try {
    made = await applyToBrowser(deps.bookmarks, folderId, browser, merged);
  } finally {
    deps.writing?.(false);
  }
  const operations = serverPlan(server, collectionId, merged);
  let refs: Map<string, number>;
  try {
    refs = operations.length === 0 ? new Map() : await sendBatches(client, operations, feed.cursor, deps.newKey ?? (() => crypto.randomUUID()));
  } catch (error) {
    // Changed since the read (412), or restored since (410): the next attempt reads both sides
    // again, and the feed tells it which.
    if (error instanceof ApiError && (error.status === 412 || error.status === 410)) throw new Stale();
    throw error;
  }

  // The new last synced state, each item under its bookmark id with its server id.
  const keyOf = (key: Key) => (key === ROOT ? ROOT : made.get(key) ?? key);
  const next: Base = { items: {}, children: {} };
  for (const [key, item] of merged.items) {
    next.items[keyOf(key)] = { ...item, parent: keyOf(item.parent), server: serverIdOf(server, refs, key) };
  }
  for (const [folder, list] of merged.children) next.children[keyOf(folder)] = list.map(keyOf);
  await saveSync(deps.storage, { base: next, cursor: feed.cursor, times: {}, prompt: null, approved: false });
  const words = [
    ...sideWords(changesOf(browser.side, merged), "the browser"),
    ...(run.restored > 0 ? [`${run.restored.toLocaleString("en-US")} restored from linkshelf's trash`] : []),
    ...sideWords(changesOf(server.side, merged), "linkshelf"),
  ];
  const replaced = feed.replaced && sync.base !== null ? "The server was restored from a backup: both sides were joined, nothing deleted. " : "";
  const message = words.length === 0 ? `${replaced}Up to date.` : `${replaced}Synced: ${words.join(", ")}.`;
  return { at: now(), ok: true, message, items: merged.items.size };
}

/** What a sync writes to one side, item by item. */
export interface SideChanges {
  added: number;
  removed: number;
  renamed: number;
  readdressed: number;
  moved: number;
  /** Folders whose order changed (besides what was added to or taken from them). */
  reordered: number;
}

/** changesOf counts what turning `side` into `merged` writes. */
export function changesOf(side: Side, merged: Side): SideChanges {
  const changes: SideChanges = { added: 0, removed: 0, renamed: 0, readdressed: 0, moved: 0, reordered: 0 };
  for (const [key, item] of merged.items) {
    const now = side.items.get(key);
    if (now === undefined) changes.added++;
    else {
      if (now.title !== item.title) changes.renamed++;
      if (now.url !== item.url) changes.readdressed++;
      if (now.parent !== item.parent) changes.moved++;
    }
  }
  for (const key of side.items.keys()) if (!merged.items.has(key)) changes.removed++;
  for (const [folder, list] of merged.children) {
    if (folder !== ROOT && !side.items.has(folder)) continue;
    const stayed = (from: Side, other: Side) => (from.children.get(folder) ?? []).filter((key) => other.items.get(key)?.parent === folder);
    const before = stayed(side, merged);
    const after = list.filter((key) => side.items.get(key)?.parent === folder);
    if (before.length !== after.length || before.some((key, index) => key !== after[index])) changes.reordered++;
  }
  return changes;
}

/** sideWords words one side's changes: "2 renamed in the browser", "1 removed from linkshelf (into its trash)". */
function sideWords(changes: SideChanges, side: "the browser" | "linkshelf"): string[] {
  const n = (count: number) => count.toLocaleString("en-US");
  const browser = side === "the browser";
  return [
    changes.added > 0 ? `${n(changes.added)} added to ${side}` : "",
    changes.removed > 0 ? `${n(changes.removed)} removed from ${side}${browser ? "" : " (into its trash)"}` : "",
    changes.renamed > 0 ? `${n(changes.renamed)} renamed ${browser ? "in" : "on"} ${side}` : "",
    changes.readdressed > 0 ? `${n(changes.readdressed)} re-addressed ${browser ? "in" : "on"} ${side}` : "",
    changes.moved > 0 ? `${n(changes.moved)} moved ${browser ? "in" : "on"} ${side}` : "",
    changes.reordered > 0 ? `${count(changes.reordered, "folder")} reordered ${browser ? "in" : "on"} ${side}` : "",
  ].filter(Boolean);
}

/**
 * deletedLinks lists the links of the last sync that the server's subtree no longer has at all
 * (deleted, or moved out of the synced collections) while the merged tree keeps a mark of
 * theirs that the server lacks (an edit in the browser beat their delete).
 */
function deletedLinks(base: Base, server: ServerRead, merged: Side): number[] {
  const found = new Set<number>();
  for (const [key, item] of Object.entries(base.items)) {
    if (item.kind === "mark" && merged.items.has(key) && !server.side.items.has(key) && !server.linkJson.has(item.server)) found.add(item.server);
  }
  return [...found];
}

/** The most links asked back one by one when asking for all at once is refused. */
const ASK_BACK_ONE_BY_ONE = 20;

/**
 * restoreLinks asks the trash for the links back, all at once, else (one is not in the trash:
 * purged, emptied, or it only left the synced collections) one by one; it answers how many
 * came back. Those that do not come back are made again as new links.
 */
async function restoreLinks(client: Client, ids: readonly number[]): Promise<number> {
  const notInTrash = (error: unknown) => error instanceof ApiError && error.status === 404;
  try {
    await client.restoreLinks(ids);
    return ids.length;
  } catch (error) {
    if (!notInTrash(error) || ids.length === 1) {
      if (notInTrash(error)) return 0;
      throw error;
    }
  }
  let restored = 0;
  for (const id of ids.slice(0, ASK_BACK_ONE_BY_ONE)) {
    try {
      await client.restoreLinks([id]);
      restored++;
    } catch (error) {
      if (!notInTrash(error)) throw error;
    }
  }
  return restored;
}

/** serverIdOf is an item's id on the server after the sync: as read, or as the batch made it. */
function serverIdOf(read: ServerRead, refs: ReadonlyMap<string, number>, key: Key): number {
  const id = read.ids.get(key) ?? refs.get(key);
  if (id === undefined) throw new Error(`no server id for ${key}`);
  return id;
}

/** renamedRead is the server's read with matched keys renamed. */
function renamedRead(read: ServerRead, renamed: ReadonlyMap<Key, Key>): ServerRead {
  if (renamed.size === 0) return read;
  const move = <V>(map: Map<Key, V>) => new Map([...map].map(([key, value]) => [renamed.get(key) ?? key, value]));
  return { side: renameKeys(read.side, renamed), ids: move(read.ids), times: move(read.times), links: move(read.links), linkJson: read.linkJson };
}

/** linksOf is the link each mark shows: the server's, else the last sync's. */
function linksOf(read: ServerRead, base: Base | null): Map<Key, number> {
  const links = new Map<Key, number>();
  for (const [key, item] of Object.entries(base?.items ?? {})) if (item.kind === "mark") links.set(key, item.server);
  for (const [key, link] of read.links) links.set(key, link);
  return links;
}

/**
 * putBack answers the failsafe's "Put them back": the items the sync would have deleted are
 * forgotten by the last synced state, so the side that still has them gives them back to the
 * other (as new items) at the next sync.
 */
export async function putBack(storage: StorageArea): Promise<void> {
  const sync = await loadSync(storage);
  if (sync.prompt === null || sync.base === null) return saveSync(storage, { prompt: null, approved: false });
  const forget = new Set(sync.prompt.keys);
  const items = Object.fromEntries(Object.entries(sync.base.items).filter(([key]) => !forget.has(key)));
  const children = Object.fromEntries(Object.entries(sync.base.children)
    .filter(([key]) => !forget.has(key))
    .map(([key, list]) => [key, list.filter((child) => !forget.has(child))]));
  // Without a cursor the next sync reads both sides: the browser may now look as the trimmed state
  // remembers it (its deletions forgotten) and the server unchanged since, yet the server holds
  // what must come back.
  await saveSync(storage, { base: { items, children }, cursor: null, prompt: null, approved: false });
}

/** approve answers the failsafe's "Apply": the next sync deletes what it stopped at. */
export async function approve(storage: StorageArea): Promise<void> {
  await saveSync(storage, { prompt: null, approved: true });
}
