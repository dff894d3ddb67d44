/**
 * Full-text search of a shelf's links: their names, descriptions, URLs and saved page text,
 * ranked by relevance and by how the owner uses each link. The query language is
 * src/fulltext/query.ts; the index and what goes into it, src/fulltext/index-text.ts.
 *
 * Ranking. FTS5's bm25 weighs each field: a match in the name counts 8 times one in the page
 * content, the description 4 times, the URL 2 times (`relevance` = −bm25, higher is better).
 * Use blends in by multiplication, so it reorders links of similar relevance but never turns
 * a non-match into a hit:
 *
 *   score = relevance × (1 + 0.2 · ln(1 + clicks) + 0.3 · 0.5^(days since the last click ÷ 30))
 *
 * 10 clicks add 48 %, 100 add 92 %; a click today adds 30 %, one a month ago 15 %, never 0.
 * Equal scores go newest first (higher id). The time "now" of the first page is carried in the
 * cursor, so the pages of one search share one ranking.
 */
import { QueryTooBroad } from "../common/errors";
import { toLinkJson } from "./json";
import type { LinkJson } from "../contract/links";
import { Rules } from "../common/rules";
import { userSearchTable } from "../db/schema";
import { hasUserIndex } from "../fulltext/index-text";
import { parseQuery } from "../fulltext/query";
import { SEARCH_PAGE } from "./limits";
import type { LinkQuery, SearchResults, SnippetSource } from "./types";
import { findMatches, makeSnippet } from "../fulltext/snippet";
import { unpackText } from "../fulltext/text-store";
import { ownedCollection, type Owner } from "./scope";

/** bm25 weights of the index's columns, in their order: name, description, url, content. */
export const FIELD_WEIGHTS = { name: 8, description: 4, url: 2, content: 1 } as const;
/** How clicks and the recency of the last click raise a score (see the formula above). */
export const USE_WEIGHTS = { clicks: 0.2, recency: 0.3, halfLifeDays: 30 } as const;

const DAY = 86_400_000;

/** Where a page ends: the last hit's score and id, and the ranking's time. Opaque to clients. */
interface Position {
  score: number;
  id: number;
  now: number;
}

const encodeCursor = (position: Position): string => Buffer.from(JSON.stringify([position.score, position.id, position.now])).toString("base64url");

function decodeCursor(cursor: string): Position | undefined {
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 3) return undefined;
  const [score, id, now] = value as unknown[];
  if (typeof score !== "number" || !Number.isFinite(score)) return undefined;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1) return undefined;
  if (typeof now !== "number" || !Number.isSafeInteger(now) || now < 0) return undefined;
  return { score, id, now };
}

/** One match, in order of relevance (see RANKED_SQL); `eligible` when it is the owner's and passes the filters. */
interface Candidate {
  id: number;
  relevance: number;
  score: number;
  eligible: number;
}

interface LinkRow {
  id: number;
  user_id: number;
  name: string;
  description: string;
  url: string;
  favorite: number;
  to_read: number;
  archived: number;
  clicks: number;
  last_clicked_at: number | null;
  created_at: number;
  updated_at: number;
  collection_ids: string | null;
  copy_saved_at: number | null;
  copy_bytes: number | null;
}

/**
 * The best `?6` matches by bm25 alone, most relevant first, each with its score and whether it
 * counts (the owner's, through the filters). FTS5 scores every
 * match (it has to, to rank them), but keeps only the best `?6` while sorting, and each is joined
 * with its link only as the caller steps through them: the caller stops once no later match can
 * reach the page (see rankedPage), so a word in tens of thousands of links reads a few hundred
 * link rows. LEFT JOIN keeps the matches as the outer loop, in their order.
 */
const RANKED_SQL = (table: string, filters: string) => `
SELECT m.id, m.relevance,
  m.relevance * (1 + ${USE_WEIGHTS.clicks} * ln(1 + l.clicks)
    + ${USE_WEIGHTS.recency} * CASE WHEN l.last_clicked_at IS NULL THEN 0
        ELSE pow(0.5, max(0, ?2 - l.last_clicked_at) / ${USE_WEIGHTS.halfLifeDays * DAY}.0) END) AS score,
  coalesce(l.user_id = ?3 ${filters}, 0) AS eligible
FROM (
  SELECT rowid AS id, -bm25(${table}, ${FIELD_WEIGHTS.name}.0, ${FIELD_WEIGHTS.description}.0, ${FIELD_WEIGHTS.url}.0, ${FIELD_WEIGHTS.content}.0) AS relevance
  FROM ${table} WHERE ${table} MATCH ?1
  ORDER BY relevance DESC
  LIMIT ?6
) m
LEFT JOIN links l ON l.id = m.id`;

/**
 * How many matches the ranking first keeps (the most relevant): enough for the first pages of
 * the commonest word with heavy use. When the page cannot be settled within them, the search is
 * run again over every match. Tests lower it to exercise that path.
 */
export const RANKING = { firstCandidates: 2048 };

/** flagOf binds an `is:` filter (null: not asked). */
const flagOf = (flag: boolean | undefined) => (flag === undefined ? null : Number(flag));

/** The page's links in full, with their collection ids. */
const PAGE_SQL = `
SELECT l.id, l.user_id, l.name, l.description, l.url, l.favorite, l.to_read, l.archived, l.clicks, l.last_clicked_at, l.created_at, l.updated_at,
  (SELECT group_concat(lc.collection_id) FROM link_collections lc WHERE lc.link_id = l.id) AS collection_ids,
  c.saved_at AS copy_saved_at, c.bytes AS copy_bytes
FROM links l LEFT JOIN link_copies c ON c.link_id = l.id WHERE l.id IN (SELECT value FROM json_each(?))`;

/**
 * The most use can multiply a relevance by for this owner: 1 + 0.2 · ln(1 + the most clicks of
 * any of their links) + 0.3 (a click now). Read from a partial index, in microseconds.
 */
function maxUseMultiplier(owner: Owner): number {
  // Raw statement (a measured hot path): one of every search's statements, compiled once and kept.
  const { clicks } = owner.db.$client
    .query<{ clicks: number | null }, [number]>("SELECT max(clicks) AS clicks FROM links WHERE user_id = ? AND clicks > 0")
    .all(owner.user.id)[0]!;
  return 1 + USE_WEIGHTS.clicks * Math.log(1 + (clicks ?? 0)) + USE_WEIGHTS.recency;
}

/**
 * How much server time one search may take: `millis` by `clock` (milliseconds, never stepping
 * back). Past it the search stops and answers QueryTooBroad, never a part of its answer. It is
 * checked between the steps of a search and between the matches it reads; the limits on
 * prefixes (BREADTH_LIMITS) keep any one step short. Tests inject a clock.
 */
export interface SearchBudget {
  clock: () => number;
  millis: number;
}

export const SEARCH_BUDGET: SearchBudget = { clock: () => performance.now(), millis: 1000 };

/** What a search that ran out of time answers. */
export const TOO_BROAD_MESSAGE = "This search matches too much to rank within a second: add a word, make a prefix* longer, or use fewer prefixes.";

/** budgetCheck starts a search's clock; the function it returns throws QueryTooBroad once the budget is spent. */
function budgetCheck({ clock, millis }: SearchBudget): () => void {
  const started = clock();
  return () => {
    if (clock() - started > millis) throw new QueryTooBroad(TOO_BROAD_MESSAGE);
  };
}

/** ranksAbove: does hit a rank above hit b (a higher score, or the same and a newer link). */
const ranksAbove = (a: Candidate, b: Candidate) => a.score > b.score || (a.score === b.score && a.id > b.id);

/**
 * rankedPage is the best `count` of the eligible candidates ranking after the cursor, best first: exactly what sorting all
 * of them would give; undefined when that cannot be told from these candidates. Candidates come
 * most relevant first, and a score is at most its relevance times the owner's largest use
 * multiplier, so once the page is full and a candidate's relevance times that multiplier falls
 * below the page's last score, no later match can enter it. When the candidates run out, they
 * were every match (fewer than `kept`), or the matches left out are no more relevant than the
 * last one. (Should the candidates ever come out of order, or a relevance be negative, nothing
 * is concluded from the bound.)
 */
function rankedPage(candidates: Iterable<Candidate>, count: number, maxMultiplier: number, kept: number, after: Position | undefined, check: () => void): Candidate[] | undefined {
  const page: Candidate[] = [];
  // Rounding in either product cannot matter at this margin.
  const bound = maxMultiplier * (1 + 1e-9);
  const cannotReach = (relevance: number) => page.length === count && relevance * bound < page.at(-1)!.score;
  let previous = Infinity;
  let ordered = true;
  let read = 0;
  for (const candidate of candidates) {
    check();
    read++;
    ordered &&= candidate.relevance <= previous && candidate.relevance >= 0;
    previous = candidate.relevance;
    if (ordered && cannotReach(candidate.relevance)) return page;
    if (!candidate.eligible || (after && !(candidate.score < after.score || (candidate.score === after.score && candidate.id < after.id)))) continue;
    if (page.length === count) {
      if (!ranksAbove(candidate, page.at(-1)!)) continue;
      page.pop();
    }
    let at = page.length;
    while (at > 0 && ranksAbove(candidate, page[at - 1]!)) at--;
    page.splice(at, 0, candidate);
  }
  return read < kept || (ordered && cannotReach(previous)) ? page : undefined;
}

/**
 * searchLinks finds the owner's links matching a query of the search language, best first, a
 * page at a time, each with a snippet of its text around the match and which text that was. Per
 * page: the bound on use, the ranking (read only as far as the page needs), the page's links and
 * their texts; plus the collection check when filtering by collection (another user's or
 * unknown: NotFound). A search that spends its `budget` of server time is QueryTooBroad. It
 * reads only: the caller indexes the links still marked for the index first (indexPendingLinks).
 */
export function searchLinks(owner: Owner, input: LinkQuery, now: number, budget = SEARCH_BUDGET): SearchResults {
  const query = parseQuery(input.q);
  const rules = new Rules();
  const limit = rules.pageLimit(input.limit, SEARCH_PAGE);
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  if (input.cursor !== undefined && !after) rules.fail("/cursor", "Expected the nextCursor of a previous page");
  rules.check();
  if (input.collectionId !== undefined) ownedCollection(owner, input.collectionId);
  const check = budgetCheck(budget);

  // The query's `is:` filters, else the request's own (`?toRead=`, `?archived=`).
  const toRead = query.flags.toRead ?? input.toRead;
  const archived = query.flags.archived ?? input.archived;
  const rankedAt = after?.now ?? now;
  // Raw statement (FTS5 on the owner's own table, named at run time; a measured hot path): the ranking read as an iterator.
  const sqlite = owner.db.$client;
  const filters = [
    input.favorite === undefined ? "" : "AND l.favorite = ?4",
    input.collectionId === undefined ? "" : "AND l.id IN (SELECT link_id FROM link_collections WHERE collection_id = ?5)",
    // Always named, so that the statement takes its eight values (null: not asked).
    "AND (?7 IS NULL OR l.to_read = ?7) AND (?8 IS NULL OR l.archived = ?8)",
  ].join(" ");
  // The owner's own index: BM25 counts words over their links alone, and no other user's row is read.
  if (!hasUserIndex(owner.db, owner.user.id)) return { hits: [], nextCursor: null };
  const maxMultiplier = maxUseMultiplier(owner);
  const ranked = sqlite.query<Candidate, (string | number | null)[]>(RANKED_SQL(userSearchTable(owner.user.id), filters));
  // Leaving the iteration early (the page is full) resets the statement: no read stays open.
  const rank = (kept: number) => rankedPage(ranked.iterate(
    query.match, rankedAt, owner.user.id, input.favorite === undefined ? null : Number(input.favorite),
    input.collectionId ?? null, kept, flagOf(toRead), flagOf(archived),
  ), limit + 1, maxMultiplier, kept === -1 ? Infinity : kept, after, check);
  // One read transaction: the page's links are read as they were ranked (another process may write between statements).
  const { rows, page, links, texts } = sqlite.transaction(() => {
    const rows = rank(RANKING.firstCandidates) ?? (check(), rank(-1)!);
    check();
    const page = rows.slice(0, limit);
    const ids = JSON.stringify(page.map((row) => row.id));
    const links = new Map(page.length === 0 ? [] : sqlite.query<LinkRow, [string]>(PAGE_SQL).all(ids).map((row) => [row.id, row]));
    const texts = new Map(page.length === 0 ? [] : sqlite
      .query<{ link_id: number; text_zstd: Uint8Array }, [string]>("SELECT link_id, text_zstd FROM link_contents WHERE link_id IN (SELECT value FROM json_each(?))")
      .all(ids)
      .map((row) => [row.link_id, row.text_zstd]));
    return { rows, page, links, texts };
  })();

  check();
  const hits = page.map(({ id, score }) => {
    check();
    const row = links.get(id)!;
    const link = toLinkJson({
      id: row.id, userId: row.user_id, name: row.name, description: row.description, url: row.url, favorite: row.favorite === 1, toRead: row.to_read === 1, archived: row.archived === 1,
      clicks: row.clicks, lastClickedAt: row.last_clicked_at, createdAt: row.created_at, updatedAt: row.updated_at,
    }, row.collection_ids ? row.collection_ids.split(",").map(Number).sort((a, b) => a - b) : [], { copySavedAt: row.copy_saved_at, copyBytes: row.copy_bytes });
    const packed = texts.get(id);
    const { snippet, from } = snippetOf(link, packed === undefined ? null : unpackText(packed), query.terms);
    return { link, score, snippet, snippetFrom: from };
  });
  const last = page.at(-1);
  return { hits, nextCursor: rows.length > limit && last ? encodeCursor({ score: last.score, id: last.id, now: rankedAt }) : null };
}

/**
 * snippetOf cuts the snippet from the first of the page text, the description, the name and the
 * URL that holds a match (the beginning of the first non-empty one of the first three when none
 * does), and says which one that was.
 */
function snippetOf(link: LinkJson, text: string | null, terms: Parameters<typeof findMatches>[1]) {
  const fields: [SnippetSource, string][] = [["content", text ?? ""], ["description", link.description], ["name", link.name], ["url", link.url]];
  for (const [from, field] of fields) {
    const matches = findMatches(field, terms);
    if (matches.length > 0) return { snippet: makeSnippet(field, matches), from };
  }
  const [from, field] = fields.find(([, field]) => field !== "") ?? fields[2]!;
  return { snippet: makeSnippet(field, []), from };
}

