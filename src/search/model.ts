/** Search's limits and the shelf's results, and shaping saved content and hits for the API (src/contract/ holds their schemas). */
import type { ContentJson } from "../contract/content";
import type { SearchPageJson } from "../contract/search";
import type { LinkContentRow } from "../db/schema";
import { iso } from "../timestamps";
import { unpackText } from "./text-store";

/** Pages of search hits: 20 by default, at most 100. */
export const SEARCH_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

/** What a page shows of a saved content: everything but the text itself. */
export type ContentSummary = Omit<ContentJson, "text">;

/** Which of a link's texts a snippet was cut from: its saved page text, description, name or URL. */
export type SnippetSource = "content" | "description" | "name" | "url";

/**
 * What the shelf's search answers: the API's page of hits, each also saying which text its
 * snippet came from (for the web pages; the API's JSON leaves it out, see toSearchPageJson).
 */
export interface SearchResults {
  hits: (SearchPageJson["hits"][number] & { snippetFrom: SnippetSource })[];
  nextCursor: string | null;
}

/** toSearchPageJson is the API's answer for a page of the shelf's hits: each hit's link, score and snippet only. */
export function toSearchPageJson(results: SearchResults): SearchPageJson {
  return { hits: results.hits.map(({ link, score, snippet }) => ({ link, score, snippet })), nextCursor: results.nextCursor };
}

/** toContentJson shapes a stored content for clients. */
export function toContentJson(row: LinkContentRow): ContentJson {
  return {
    linkId: row.linkId, title: row.title, text: unpackText(row.textZstd), excerpt: row.excerpt, byline: row.byline, lang: row.lang,
    source: row.source, capturedAt: iso(row.capturedAt),
  };
}
