import { Elysia } from "elysia";
import { QueryTooBroad, ValidationFailed } from "../common/errors";
import { parseId } from "../common/ids";
import { htmlResponse } from "../pages/html";
import { searchPage, type SearchAsked } from "../pages/search";
import { searcherOf, type Searcher, type SearchPlace } from "../search/searcher";
import type { Shelf } from "../shelf/shelf";
import { PAGE_ROUTE, surfaces, type Surface } from "../request/surface";
import type { PageGuard } from "./guard";
import { bulkNoticeOf } from "./notices";
import { oneValue } from "./query";

type Query = Record<string, unknown>;

/** askedOf reads the words and filters of a search address; a collection that is not an id is NotFound. */
function askedOf(query: Query): SearchAsked {
  const collection = oneValue(query.collection) ?? "";
  return {
    q: oneValue(query.q)?.trim() ?? "",
    collectionId: collection === "" ? undefined : parseId(collection),
    favorites: oneValue(query.favorites) === "on",
  };
}

/** addressOf is the search page's address for what was asked, optionally at a later page. */
function addressOf(asked: SearchAsked, cursor?: string): string {
  const params = new URLSearchParams({ q: asked.q });
  if (asked.collectionId !== undefined) params.set("collection", String(asked.collectionId));
  if (asked.favorites) params.set("favorites", "on");
  if (cursor !== undefined) params.set("cursor", cursor);
  return `/search?${params}`;
}

/**
 * drawSearch draws the search page for an address's query at `now`. With `refused` (words the
 * search language refuses, a hand-edited cursor, a search too broad) the message is beside the box and nothing is
 * searched; with `refusal`, a bulk action sent from the page was refused: its message is above
 * the results' form, with its status. `searcher` runs the search.
 */
export async function drawSearch(searcher: Searcher, shelf: Shelf, query: Query, now: number, refused?: ValidationFailed | QueryTooBroad, refusal?: { message: string; status: number }): Promise<Response> {
  const asked = askedOf(query);
  const cursor = oneValue(query.cursor) || undefined;
  const results = refused || asked.q === "" ? null
    : await searcher.find(shelf, { q: asked.q, collectionId: asked.collectionId, favorite: asked.favorites ? true : undefined, cursor }, now);
  // A search too broad to run is refused for its words: its message goes beside the box.
  const messages = refused instanceof QueryTooBroad ? [{ path: "/q", message: refused.message }] : refused?.errors ?? [];
  const queryError = messages.find((error) => error.path === "/q")?.message;
  const collections = shelf.collections.summaries();
  return htmlResponse(searchPage({
    user: shelf.viewer(),
    collections,
    asked,
    hits: results?.hits ?? null,
    queryError: queryError?.replace(/(?<![.?!])$/, "."),
    notice: refusal ? undefined
      : messages.some((error) => error.path !== "/q") ? "That page of results does not exist: start again from the best results." : bulkNoticeOf(query, collections),
    more: results?.nextCursor ? addressOf(asked, results.nextCursor) : undefined,
    first: cursor === undefined ? undefined : addressOf(asked),
    broken: shelf.health.brokenAmong((results?.hits ?? []).map((hit) => hit.link.id)),
    self: addressOf(asked, cursor),
    refusal: refusal?.message,
  }), { status: refused?.status ?? refusal?.status ?? 200 });
}

/**
 * searchPages: `GET /search?q=` runs the shelf's full-text search (the API's own, over names,
 * descriptions, URLs and saved page text) and shows a page of ranked hits with their snippets
 * highlighted, their collections, and where each snippet came from; `collection=ID` and
 * `favorites=on` filter, `cursor=` from "More results" pages on. An empty box shows the page
 * with nothing searched. Words the search language refuses (or a hand-edited cursor) show the
 * page again with the message beside the box, 422, through the route's `invalid`, and so does
 * a search too broad to run (QueryTooBroad); another user's collection is the 404 page. Each
 * search counts against the user's rate limit, as the API's does.
 */
export function searchPages(deps: SearchPlace & { clock: () => number }, guard: PageGuard) {
  const searcher = searcherOf(deps);
  const show = (shelf: Shelf, query: Query, refused?: ValidationFailed | QueryTooBroad) => drawSearch(searcher, shelf, query, deps.clock(), refused);

  const declared: Surface = {
    ...PAGE_ROUTE,
    limited: true,
    invalid: ({ request }, error) => {
      const shelf = guard.shelfOf(request);
      if (!shelf) return error;
      const asked = Object.fromEntries(new URL(request.url).searchParams);
      return error instanceof ValidationFailed || error instanceof QueryTooBroad ? show(shelf, asked, error) : error;
    },
  };
  return new Elysia().use(surfaces).get("/search", ({ request, query }) => guard.page(request, (shelf) => show(shelf, query), declared), { surface: declared });
}
