/**
 * Full-text search of a shelf's links: their names, descriptions, URLs and saved page text,
 * ranked by relevance and by how the owner uses each link. The query language is
 * src/search/query.ts; the index and what goes into it, src/search/index-text.ts.
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
import { toLinkJson, type LinkJson } from "../links/model";
import { Rules } from "../rules";
import { indexPendingLinks } from "../search/index-text";
import { parseQuery } from "../search/query";
import type { LinkQuery } from "../links/model";
import { SEARCH_PAGE, type SearchResults, type SnippetSource } from "../search/model";
import { findMatches, makeSnippet } from "../search/snippet";
import { unpackText } from "../search/text-store";
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

interface HitRow {
  id: number;
  user_id: number;
  name: string;
  description: string;
  url: string;
  favorite: number;
  clicks: number;
  last_clicked_at: number | null;
  created_at: number;
  updated_at: number;
  collection_ids: string | null;
  score: number;
}

/**
 * The hits of one page: ranked and cut to the page on ids and scores alone, then the page's
 * links read in full (their collection ids too), so a query matching tens of thousands of links
 * reads whole rows for one page only.
 */
const SEARCH_SQL = (filters: string) => `
SELECT l.id, l.user_id, l.name, l.description, l.url, l.favorite, l.clicks, l.last_clicked_at, l.created_at, l.updated_at,
  (SELECT group_concat(lc.collection_id) FROM link_collections lc WHERE lc.link_id = l.id) AS collection_ids, r.score
FROM (
  SELECT l.id AS id,
    m.relevance * (1 + ${USE_WEIGHTS.clicks} * ln(1 + l.clicks)
      + ${USE_WEIGHTS.recency} * CASE WHEN l.last_clicked_at IS NULL THEN 0
          ELSE pow(0.5, max(0, ?2 - l.last_clicked_at) / ${USE_WEIGHTS.halfLifeDays * DAY}.0) END) AS score
  FROM (
    SELECT rowid AS id, -bm25(link_search, ${FIELD_WEIGHTS.name}.0, ${FIELD_WEIGHTS.description}.0, ${FIELD_WEIGHTS.url}.0, ${FIELD_WEIGHTS.content}.0) AS relevance
    FROM link_search WHERE link_search MATCH ?1
  ) m
  JOIN links l ON l.id = m.id
  WHERE l.user_id = ?3 ${filters} AND (?6 IS NULL OR score < ?6 OR (score = ?6 AND l.id < ?7))
  ORDER BY score DESC, l.id DESC
  LIMIT ?8
) r
JOIN links l ON l.id = r.id
ORDER BY r.score DESC, r.id DESC`;

/**
 * searchLinks finds the owner's links matching a query of the search language, best first, a
 * page at a time, each with a snippet of its text around the match and which text that was. Two queries per page (the
 * hits, then the texts of the page's hits), plus the collection check when filtering by
 * collection (another user's or unknown: NotFound).
 */
export function searchLinks(owner: Owner, input: LinkQuery, now: number): SearchResults {
  const query = parseQuery(input.q);
  const rules = new Rules();
  const limit = input.limit ?? SEARCH_PAGE.defaultLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_PAGE.maxLimit) rules.fail("/limit", `Expected a whole number from 1 to ${SEARCH_PAGE.maxLimit}`);
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  if (input.cursor !== undefined && !after) rules.fail("/cursor", "Expected the nextCursor of a previous page");
  rules.check();
  if (input.collectionId !== undefined) ownedCollection(owner, input.collectionId);
  // Links created outside a group commit (an import, the web pages) are indexed now at the latest.
  indexPendingLinks(owner.db);

  const rankedAt = after?.now ?? now;
  const sqlite = owner.db.$client;
  const filters = [
    input.favorite === undefined ? "" : "AND l.favorite = ?4",
    input.collectionId === undefined ? "" : "AND l.id IN (SELECT link_id FROM link_collections WHERE collection_id = ?5)",
  ].join(" ");
  const rows = sqlite.query<HitRow, (string | number | null)[]>(SEARCH_SQL(filters)).all(
    query.match, rankedAt, owner.user.id, input.favorite === undefined ? null : Number(input.favorite),
    input.collectionId ?? null, after?.score ?? null, after?.id ?? null, limit + 1,
  );
  const page = rows.slice(0, limit);
  const texts = new Map(page.length === 0 ? [] : sqlite
    .query<{ link_id: number; text_zstd: Uint8Array }, [string]>("SELECT link_id, text_zstd FROM link_contents WHERE link_id IN (SELECT value FROM json_each(?))")
    .all(JSON.stringify(page.map((row) => row.id)))
    .map((row) => [row.link_id, unpackText(row.text_zstd)]));

  const hits = page.map((row) => {
    const link = toLinkJson({
      id: row.id, userId: row.user_id, name: row.name, description: row.description, url: row.url, favorite: row.favorite === 1,
      clicks: row.clicks, lastClickedAt: row.last_clicked_at, createdAt: row.created_at, updatedAt: row.updated_at,
    }, row.collection_ids ? row.collection_ids.split(",").map(Number).sort((a, b) => a - b) : []);
    const { snippet, from } = snippetOf(link, texts.get(row.id) ?? null, query.terms);
    return { link, score: row.score, snippet, snippetFrom: from };
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

