/** Full-text search (`GET /api/v1/search`): a page of hits, each a link, its score and a snippet. */
import { Type, type Static } from "@sinclair/typebox";
import { LinkJson } from "./links";

/** [start, end): a pair of integers, written for OpenAPI 3.1 (JSON Schema 2020-12: `prefixItems`). */
const Range = Type.Unsafe<[number, number]>({ type: "array", prefixItems: [{ type: "integer" }, { type: "integer" }], minItems: 2, maxItems: 2, items: false });

export const SnippetJson = Type.Object({
  text: Type.String({ description: "Up to about 200 characters around the best match, from the first that holds one of: the page's text, the description, the name, the URL (without a match: the beginning of the text, else of the description, else the name)." }),
  matches: Type.Array(Range, {
    description: "[start, end) of each matched word in text, as JavaScript string indices (UTF-16 code units), in order, not overlapping.",
  }),
});
export type SnippetJson = Static<typeof SnippetJson>;
export const SearchHitJson = Type.Object({
  link: LinkJson,
  score: Type.Number({ description: "Higher ranks first: relevance (bm25, name > description > URL > content) × (1 + 0.2·ln(1 + clicks) + 0.3·0.5^(days since the last click ÷ 30))." }),
  snippet: SnippetJson,
});
export type SearchHitJson = Static<typeof SearchHitJson>;
export const SearchPageJson = Type.Object({
  hits: Type.Array(SearchHitJson, { description: "Best first; equal scores newest first." }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: "Pass as cursor (with the same q and filters) for the next page; null on the last page." }),
});
export type SearchPageJson = Static<typeof SearchPageJson>;
