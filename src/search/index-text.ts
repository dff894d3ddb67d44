/**
 * What the full-text index holds for a link, and the one place that writes it. The index
 * (`link_search`, an FTS5 table made by the migrations: `porter unicode61 remove_diacritics 2`)
 * folds case and diacritics and stems English words itself; this module adds what the
 * tokenizer cannot do: Chinese, Japanese and Korean are written without spaces, so each run of
 * CJK characters is indexed as its overlapping pairs of characters ("東京都" as "東京 京都 都"),
 * and any two or more characters of it are found as a phrase of pairs. A URL is indexed with its
 * percent-escapes decoded, so a path written in any script is found like the name.
 *
 * Every write of a link's name, description, URL or content calls `indexLink` (or `unindexLinks`)
 * in the same transaction, from src/shelf/links.ts and src/shelf/contents.ts; a new link is
 * marked instead (`deferIndexing`) and indexed with the other writes of its batch.
 */
import type { Database } from "bun:sqlite";
import { unpackText } from "./text-store";

/** The database (drizzle's, or anything holding its bun:sqlite client): the index is written with plain SQL. */
type Db = { readonly $client: Database };

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
  const link = sqlite.query<Pick<IndexedFields, "name" | "description" | "url">, [number]>("SELECT name, description, url FROM links WHERE id = ?").all(linkId)[0];
  sqlite.query("DELETE FROM link_search WHERE rowid = ?").run(linkId);
  if (!link) return;
  const content = sqlite.query<SavedPage, [number]>("SELECT title, text_zstd FROM link_contents WHERE link_id = ?").all(linkId)[0];
  writeIndexRow(db, linkId, { ...link, title: content?.title ?? null, text: content ? unpackText(content.text_zstd) : null });
}

/**
 * deferIndexing marks a new link to be indexed by indexPendingLinks, which the group commit runs
 * just before it commits and a search runs before it looks: the index takes the links of a whole
 * batch in one go instead of one savepoint each (every savepoint makes the index write a segment).
 */
export function deferIndexing(db: Db, linkId: number): void {
  db.$client.query("INSERT OR IGNORE INTO link_search_pending (link_id) VALUES (?)").run(linkId);
}

/** writeIndexRow adds the index row of a link that has none yet. */
export function writeIndexRow(db: Db, linkId: number, fields: IndexedFields): void {
  const content = fields.text === null ? "" : `${fields.title ?? ""}\n${fields.text}`;
  db.$client
    .query("INSERT INTO link_search (rowid, name, description, url, content) VALUES (?, ?, ?, ?, ?)")
    .run(linkId, cjkPairs(fields.name), cjkPairs(fields.description), cjkPairs(decodedUrl(fields.url)), cjkPairs(content));
}

/** unindexLinks removes the index rows of links being deleted (inside the delete's transaction). */
export function unindexLinks(db: Db, linkIds: readonly number[]): void {
  if (linkIds.length === 0) return;
  db.$client.query("DELETE FROM link_search WHERE rowid IN (SELECT value FROM json_each(?))").run(JSON.stringify(linkIds));
}

/**
 * indexPendingLinks indexes the links marked in `link_search_pending` (new links, see
 * deferIndexing; and every link of a database made before search existed) and clears the marks,
 * in transactions of 1,000 links (savepoints inside a caller's transaction). Costs one empty
 * read when nothing is pending. Runs when the database opens, before each group commit, and
 * before each search, so a search always sees every link stored.
 */
export function indexPendingLinks(db: Db): number {
  const sqlite = db.$client;
  const next = sqlite.query<{ link_id: number }, []>("SELECT link_id FROM link_search_pending ORDER BY link_id LIMIT 1000");
  const done = sqlite.query("DELETE FROM link_search_pending WHERE link_id = ?");
  let count = 0;
  for (;;) {
    const batch = next.all();
    if (batch.length === 0) return count;
    sqlite.transaction(() => {
      for (const { link_id } of batch) {
        indexLink(db, link_id);
        done.run(link_id);
      }
    }).immediate();
    count += batch.length;
  }
}
