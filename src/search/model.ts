/**
 * Schemas of the saved page content (`/api/v1/links/:id/content`) and of full-text search
 * (`/api/v1/search`); src/api/types.ts holds the same shapes for the browser extension.
 */
import { t } from "elysia";
import type { LinkContentRow } from "../db/schema";
import { Int, LinkJson, Timestamp } from "../links/model";
import { iso } from "../timestamps";
import { unpackText } from "./text-store";

/**
 * What a content body may hold (shared with the extension). The body itself may be up to
 * `bodyBytes`; the text is kept up to `textBytes` of UTF-8 (cut at a character), the rest in
 * code points after trimming.
 */
export { CONTENT_LIMITS } from "../api/types";

/** Pages of search hits: 20 by default, at most 100. */
export const SEARCH_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

export const ContentSource = t.Union([t.Literal("browser"), t.Literal("server")], {
  description: "browser: captured by the extension from the page as the user saw it; server: fetched by linkshelf. A browser capture is never replaced by a server fetch.",
});
export type ContentSource = typeof ContentSource.static;

const optionalText = (description: string) => t.Optional(t.Union([t.String(), t.Null()], { description }));

export const ContentBody = t.Object({
  text: t.String({ description: "The page's readable text. Kept up to 1 MiB of UTF-8 (cut at a character); the body may be up to 2 MiB." }),
  title: optionalText("At most 1000 characters; null or \"\" for none."),
  excerpt: optionalText("At most 2000 characters; null or \"\" for none."),
  byline: optionalText("The author, at most 500 characters; null or \"\" for none."),
  lang: optionalText("A language tag such as en or pt-BR; null or \"\" for none."),
});
export type ContentInput = typeof ContentBody.static;

export const ContentJson = t.Object({
  linkId: Int(),
  title: t.Union([t.String(), t.Null()]),
  text: t.String(),
  excerpt: t.Union([t.String(), t.Null()]),
  byline: t.Union([t.String(), t.Null()]),
  lang: t.Union([t.String(), t.Null()]),
  source: ContentSource,
  capturedAt: Timestamp,
});
export type ContentJson = typeof ContentJson.static;
/** What a page shows of a saved content: everything but the text itself. */
export type ContentSummary = Omit<ContentJson, "text">;

export const ContentItemJson = t.Object({ content: ContentJson });
export const ContentSavedJson = t.Object({
  message: t.String(),
  truncated: t.Boolean({ description: "True when the text was longer than 1 MiB and only its first 1 MiB was kept." }),
});

/** [start, end): a pair of integers, written for OpenAPI 3.1 (JSON Schema 2020-12: `prefixItems`). */
const Range = t.Unsafe<[number, number]>({ type: "array", prefixItems: [{ type: "integer" }, { type: "integer" }], minItems: 2, maxItems: 2, items: false });

export const SnippetJson = t.Object({
  text: t.String({ description: "Up to about 200 characters around the best match, from the first that holds one of: the page's text, the description, the name, the URL (without a match: the beginning of the text, else of the description, else the name)." }),
  matches: t.Array(Range, {
    description: "[start, end) of each matched word in text, as JavaScript string indices (UTF-16 code units), in order, not overlapping.",
  }),
});
export const SearchHitJson = t.Object({
  link: LinkJson,
  score: t.Number({ description: "Higher ranks first: relevance (bm25, name > description > URL > content) × (1 + 0.2·ln(1 + clicks) + 0.3·0.5^(days since the last click ÷ 30))." }),
  snippet: SnippetJson,
});
export const SearchPageJson = t.Object({
  hits: t.Array(SearchHitJson, { description: "Best first; equal scores newest first." }),
  nextCursor: t.Union([t.String(), t.Null()], { description: "Pass as cursor (with the same q and filters) for the next page; null on the last page." }),
});
export type SearchPage = typeof SearchPageJson.static;

/** Which of a link's texts a snippet was cut from: its saved page text, description, name or URL. */
export type SnippetSource = "content" | "description" | "name" | "url";

/**
 * What the shelf's search answers: the API's page of hits, each also saying which text its
 * snippet came from (for the web pages; the API's JSON leaves it out, see toSearchPageJson).
 */
export interface SearchResults {
  hits: (SearchPage["hits"][number] & { snippetFrom: SnippetSource })[];
  nextCursor: string | null;
}

/** toSearchPageJson is the API's answer for a page of the shelf's hits: each hit's link, score and snippet only. */
export function toSearchPageJson(results: SearchResults): SearchPage {
  return { hits: results.hits.map(({ link, score, snippet }) => ({ link, score, snippet })), nextCursor: results.nextCursor };
}

/** toContentJson shapes a stored content for clients. */
export function toContentJson(row: LinkContentRow): ContentJson {
  return {
    linkId: row.linkId, title: row.title, text: unpackText(row.textZstd), excerpt: row.excerpt, byline: row.byline, lang: row.lang,
    source: row.source, capturedAt: iso(row.capturedAt),
  };
}
