import { Elysia } from "elysia";
import type { Guards } from "../auth/requester";
import { parseId } from "../common/ids";
import { apiRoute, errorDoc } from "../openapi/describe";
import { surfaces } from "../request/surface";
import { readJsonBody } from "../request/json-body";
import { toSearchPageJson } from "../shelf/json";
import { SEARCH_PAGE } from "../shelf/limits";
import type { WriteOnce } from "./idempotency";
import { CONTENT_LIMITS } from "../contract/content-limits";
import { ContentBody, ContentItemJson, ContentSavedJson } from "../contract/content";
import { SearchPageJson } from "../contract/search";
import { LinkSearchQuery } from "../contract/links";
import { BREADTH_LIMITS, QUERY_LIMITS } from "../fulltext/query";
import { searcherOf, type SearchPlace } from "../search/searcher";

/**
 * searchRoutes: `PUT|GET /api/v1/links/:id/content` (a link's saved page) and
 * `GET /api/v1/search` (full-text search). Registered before the API's JSON parser: the
 * content's body has its own, larger limit.
 */
export function searchRoutes(deps: SearchPlace & { clock: () => number }, { apiUser }: Guards, once: WriteOnce) {
  const { clock } = deps;
  const searcher = searcherOf(deps);
  return new Elysia()
    .use(surfaces)
    .use(apiUser)
    .use(once)
    // Pages are saved in bursts (the extension catching up, a reindex): `write` commits once per turn of the event loop,
    // which also lets the index take many pages per transaction.
    .put("/links/:id/content", ({ params, body, write }) => write((shelf) => ({
      message: "Content saved.", truncated: shelf.links.setContent(parseId(params.id), body, "browser", clock()).truncated,
    })), {
      parse: ({ request }) => readJsonBody(request, CONTENT_LIMITS.bodyBytes),
      ...apiRoute({
        tag: "search", summary: "Save the readable text of a link's page", body: ContentBody, id: true,
        description: "What the browser extension captured of the page (it replaces any saved content; a later server fetch never replaces it). " +
          "The body may be up to 2 MiB; the text is kept up to 1 MiB of UTF-8, cut at a character. The link becomes searchable by this text at once.",
        ok: { description: "Saved.", json: ContentSavedJson },
        more: { 413: errorDoc("PAYLOAD_TOO_LARGE: the body is larger than 2 MiB.") },
      }),
    })
    .get("/links/:id/content", ({ shelf, params }) => ({ content: shelf.links.content(parseId(params.id)) }), apiRoute({
      tag: "search", summary: "Read the saved text of a link's page", id: true,
      ok: { description: "The saved content.", json: ContentItemJson },
      more: { 404: errorDoc("NOT_FOUND: the id does not exist, belongs to another user, or the link has no saved content.") },
    }))
    .get("/search", async ({ shelf, query }) => toSearchPageJson(await searcher.find(shelf, query, clock())), apiRoute({
      tag: "search", summary: "Search your links by words: names, descriptions, URLs and saved page text", query: LinkSearchQuery,
      description: `q (1-${QUERY_LIMITS.length} characters): words that must all match, "an exact phrase", -word to leave out, prefix*, is:unread and is:archived (-is:unread, -is:archived: the opposite) ` +
        "(case and diacritics ignored, English words by their stem, CJK text by any two characters or more). " +
        `collectionId, favorite, toRead, archived: filters (is: in q wins over toRead and archived). limit: 1-${SEARCH_PAGE.maxLimit}, default ${SEARCH_PAGE.defaultLimit}. cursor: the nextCursor of the page before. ` +
        "Ranking: relevance (bm25; a match in the name weighs 8, description 4, URL 2, page text 1) × (1 + 0.2·ln(1 + clicks) + 0.3·0.5^(days since the last click ÷ 30)); equal scores newest first.",
      ok: { description: "One page of hits; nextCursor is null on the last.", json: SearchPageJson },
      more: {
        404: errorDoc("NOT_FOUND: collectionId is not one of your collections."),
        422: errorDoc("VALIDATION_FAILED: q cannot be searched (the message says why), or a parameter is out of range; `errors` names it. " +
          `QUERY_TOO_BROAD: a prefix* shorter than ${BREADTH_LIMITS.prefixChars} letters or digits, more than ${BREADTH_LIMITS.prefixTerms} prefixes, ` +
          "or a search that would take more than a second of the server's time; the message says what to narrow."),
      },
    }));
}
