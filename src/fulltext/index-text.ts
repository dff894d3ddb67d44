/**
 * What the full-text index holds for a link, and the one place that writes it. Each user has an
 * index of their own (`link_search_<user id>`, an FTS5 table made here when their first link is
 * indexed: `userSearchTableSql`), so nothing about a search (hits, order, BM25's statistics)
 * depends on another user's links, and no search reads them. The index
 * folds case and diacritics and stems English words itself; this module adds what the
 * tokenizer cannot do: Chinese, Japanese and Korean are written without spaces, so each run of
 * CJK characters is indexed as its overlapping pairs of characters ("東京都" as "東京 京都 都"),
 * and any two or more characters of it are found as a phrase of pairs. A URL is indexed with its
 * percent-escapes decoded, so a path written in any script is found like the name.
 *
 * Every write of a link's name, description, URL or content calls `indexLink` (or `unindexLinks`)
 * in the same transaction, from src/shelf/links.ts and src/shelf/contents.ts; a new link or a
 * saved page is marked instead (`deferIndexing`) and indexed soon after, with many others
 * (src/search/indexer.ts), or before the next search at the latest.
 */
import type { Database } from "bun:sqlite";
import { userSearchTable, userSearchTableSql } from "../db/schema";
import { unpackText } from "./text-store";

/** The database (drizzle's, or anything holding its bun:sqlite client): the index is written with plain SQL. */
type Db = { readonly $client: Database };

/** The users whose index is known to exist (committed), per database: a search or a write asks once. */
const madeIndexes = new WeakMap<Database, Set<number>>();

/** hasUserIndex: has this user an index yet (not when no link of theirs was ever indexed)? */
export function hasUserIndex(db: Db, userId: number): boolean {
  const sqlite = db.$client;
  if (madeIndexes.get(sqlite)?.has(userId)) return true;
  // By name (the table's columns), not a scan of sqlite_master, which grows with every user's index.
  const found = sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM pragma_table_info(?)").all(userSearchTable(userId))[0]!.n > 0;
  // Remembered only once committed: a table made in a transaction that rolls back is gone again.
  if (found && !sqlite.inTransaction) madeIndexes.set(sqlite, (madeIndexes.get(sqlite) ?? new Set<number>()).add(userId));
  return found;
}

/** ensureUserIndex makes the user's index when it does not exist yet (inside the caller's transaction). */
function ensureUserIndex(db: Db, userId: number): void {
  if (!hasUserIndex(db, userId)) db.$client.run(userSearchTableSql(userId));
}

/** Han, Hiragana, Katakana (with its long-vowel mark) and Hangul: scripts written without spaces between words. */
export const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\u3005]+/gu;

/**
 * cjkPairs writes each run of CJK characters as its overlapping pairs of characters, separated
 * by spaces, followed by the run's last character alone, so every character of a run starts one
 * word of the index ("東京都" is "東京 京都 都"): one character is found as a prefix, and a
 * phrase running on past the run ("東京タワー" in "東京 タワー") finds the words that follow.
 * A query (`query`) leaves the last character out when nothing searchable follows the run in
 * the term: "東京都" must find "東京都に", indexed "東京 京都 都に に".
 */
export function cjkPairs(text: string, query = false): string {
  return text.replace(CJK_RUN, (run, offset: number) => {
    const chars = Array.from(run);
    if (chars.length === 1) return ` ${run} `;
    const pairs: string[] = [];
    for (let i = 0; i + 1 < chars.length; i++) pairs.push(chars[i]! + chars[i + 1]!);
    if (!query || SEARCHABLE_AFTER.test(text.slice(offset + run.length))) pairs.push(chars.at(-1)!);
    return ` ${pairs.join(" ")} `;
  });
}

/** A letter or digit somewhere in a string. */
const SEARCHABLE_AFTER = /[\p{L}\p{N}\p{Co}]/u;

/** decodedUrl is a URL with its percent-escapes decoded where they decode (the URL itself when they do not). */
function decodedUrl(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

/** The fields of one link as the index takes them. */
export interface IndexedFields {
  name: string;
  description: string;
  url: string;
  /** The saved page: its title and text; null when the link has none. */
  title: string | null;
  text: string | null;
}

/** What the index reads of a link's saved page. */
interface SavedPage {
  title: string | null;
  text_zstd: Uint8Array;
}

/**
 * indexLink (re)writes the index row of one link from what is stored now (the link and its
 * content, if any); nothing when the link does not exist. Call it inside the write's transaction.
 */
export function indexLink(db: Db, linkId: number): void {
  const sqlite = db.$client;
  // Two lookups by key, not a join: SQLite compiles a join comparing a column with a bound value again at every use.
  // A link deleted since it was marked has no row left to write: its delete removed its index row (unindexLinks).
  const link = sqlite.query<Pick<IndexedFields, "name" | "description" | "url"> & { user_id: number }, [number]>("SELECT user_id, name, description, url FROM links WHERE id = ?").all(linkId)[0];
  if (!link) return;
  ensureUserIndex(db, link.user_id);
  sqlite.query(`DELETE FROM ${userSearchTable(link.user_id)} WHERE rowid = ?`).run(linkId);
  const content = sqlite.query<SavedPage, [number]>("SELECT title, text_zstd FROM link_contents WHERE link_id = ?").all(linkId)[0];
  writeIndexRow(db, link.user_id, linkId, { ...link, title: content?.title ?? null, text: content ? unpackText(content.text_zstd) : null });
}

/**
 * deferIndexing marks a link to be indexed later (indexPendingSlice), in the caller's
 * transaction: by the server's SearchIndexer soon after the commit, or by a search before it
 * looks. The index then takes hundreds of links per transaction instead of a few: each
 * transaction that writes to it makes it write a segment, and later merge it.
 */
export function deferIndexing(db: Db, linkId: number): void {
  db.$client.query("INSERT OR IGNORE INTO link_search_pending (link_id) VALUES (?)").run(linkId);
  wakers.get(db.$client)?.();
}

/**
 * deferIndexingMany marks many links to be indexed later (see deferIndexing), in the caller's
 * transaction, in one statement, without waking the indexer: a writer of many transactions (an import) wakes it
 * once it is done (wakeIndexer), so that the two do not take turns on the event loop meanwhile.
 * A search before then indexes what is marked first, as always.
 */
export function deferIndexingMany(db: Db, linkIds: readonly number[]): void {
  // One statement: 10,000 links in ~1.4 ms, against ~2.6 ms for one run of a prepared insert per link.
  db.$client.query<never, [string]>("INSERT OR IGNORE INTO link_search_pending (link_id) SELECT value FROM json_each(?)").run(JSON.stringify(linkIds));
}

/** wakeIndexer tells the indexer watching `db` (the server's) that links were marked (deferIndexingMany). */
export function wakeIndexer(db: Db): void {
  wakers.get(db.$client)?.();
}

/** The wake of the SearchIndexer watching each database (the server's): every mark calls it. */
const wakers = new WeakMap<Database, () => void>();

/** watchMarks makes every deferIndexing on `db` call `wake` (at most one watcher per database); returns what ends it. */
export function watchMarks(db: Db, wake: () => void): () => void {
  if (wakers.has(db.$client)) throw new Error("this database is watched already");
  wakers.set(db.$client, wake);
  // Ends this watch only: a later watcher of the same database keeps its own.
  return () => {
    if (wakers.get(db.$client) === wake) wakers.delete(db.$client);
  };
}

/** writeIndexRow adds the index row of a link of the user that has none yet (their index exists). */
function writeIndexRow(db: Db, userId: number, linkId: number, fields: IndexedFields): void {
  const content = fields.text === null ? "" : `${fields.title ?? ""}\n${fields.text}`;
  db.$client
    .query(`INSERT INTO ${userSearchTable(userId)} (rowid, name, description, url, content) VALUES (?, ?, ?, ?, ?)`)
    .run(linkId, cjkPairs(fields.name), cjkPairs(fields.description), cjkPairs(decodedUrl(fields.url)), cjkPairs(content));
}

/** unindexLinks removes the index rows of a user's links being deleted (inside the delete's transaction). */
export function unindexLinks(db: Db, userId: number, linkIds: readonly number[]): void {
  if (linkIds.length === 0 || !hasUserIndex(db, userId)) return;
  db.$client.query(`DELETE FROM ${userSearchTable(userId)} WHERE rowid IN (SELECT value FROM json_each(?))`).run(JSON.stringify(linkIds));
}

/** What one slice of indexing did: how many links it indexed, and whether it stopped with marks left for another. */
export interface Slice {
  indexed: number;
  more: boolean;
}

/**
 * indexPendingSlice indexes links marked in `link_search_pending` (new links and saved pages,
 * see deferIndexing; and every link of a database made before search existed), oldest mark
 * first, and clears their marks, in one IMMEDIATE transaction (a savepoint inside a caller's):
 * at most `maxLinks`, and no more once `maxMillis` have passed. `more` is true when it stopped
 * at either limit (marks may be left); nothing pending costs one empty read.
 */
export function indexPendingSlice(db: Db, maxLinks = 1000, maxMillis = Infinity): Slice {
  const sqlite = db.$client;
  const batch = sqlite.query<{ link_id: number }, [number]>("SELECT link_id FROM link_search_pending ORDER BY link_id LIMIT ?").all(maxLinks);
  if (batch.length === 0) return { indexed: 0, more: false };
  const done = sqlite.query("DELETE FROM link_search_pending WHERE link_id = ?");
  const indexed = sqlite.transaction(() => {
    const started = performance.now();
    let count = 0;
    for (const { link_id } of batch) {
      if (count > 0 && performance.now() - started >= maxMillis) break;
      indexLink(db, link_id);
      done.run(link_id);
      count++;
    }
    return count;
  }).immediate();
  return { indexed, more: indexed < batch.length || batch.length === maxLinks };
}

/**
 * indexPendingInSlices indexes every pending link as indexPendingLinks does, a slice of at most
 * `maxLinks` links and `maxMillis` at a time, letting the event loop run between slices: the
 * server's search waits for it without holding the other requests (after an upgrade, every link
 * of the database is pending until the indexer has gone through them).
 */
export async function indexPendingInSlices(db: Db, maxLinks = 1000, maxMillis = 20, stopped = () => false): Promise<void> {
  while (!stopped() && indexPendingSlice(db, maxLinks, maxMillis).more) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * indexPendingLinks indexes every pending link (indexPendingSlice, 1,000 at a time) and returns
 * how many. Runs before each search, so a search always sees every link stored; the server's
 * SearchIndexer does the same in the background, at start and soon after each write.
 */
export function indexPendingLinks(db: Db): number {
  let count = 0;
  for (;;) {
    const { indexed, more } = indexPendingSlice(db);
    count += indexed;
    if (!more) return count;
  }
}
