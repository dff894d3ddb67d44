import { Elysia } from "elysia";
import { Conflict, QueryTooBroad, ValidationFailed, type AppError } from "../common/errors";
import { parseId, readId } from "../common/ids";
import { LINK_PAGE, SEARCH_PAGE } from "../shelf/limits";
import { COLLECTION_ACTIONS, LINK_SORTS, type LinkListQuery, type LinkSort } from "../shelf/types";
import { BULK_ACTIONS, BULK_MAX_IDS, type BulkAction } from "../contract/links";
import { allLinksPage, READING_OFFER_PATH, type AllLinksView } from "../pages/all-links";
import { TO_READ_VIEW } from "../pages/shell";
import { bulkDeletePage } from "../pages/bulk";
import { SHORTCUTS_JS, SHORTCUTS_SCRIPT } from "../pages/shortcuts";
import { ARRANGE_JS, ARRANGE_SCRIPT } from "../pages/arrange";
import { htmlResponse } from "../pages/html";
import { formField, formValues, submittedForm } from "../request/form-body";
import { ownOrigin, safeNext, seeOther } from "../request/origin";
import type { Shelf } from "../shelf/shelf";
import { PAGE_ROUTE, surfaces } from "../request/surface";
import type { PageGuard } from "./guard";
import { drawHome } from "./home";
import { drawSearch } from "./search";
import { searcherOf, type Searcher, type SearchPlace } from "../search/searcher";
import type { Network } from "../request/arrival";
import { bulkNoticeOf, noticeOf, withBulkNotice, withNotice } from "./notices";
import { oneValue } from "./query";
import { formatNumber } from "../common/format";

type Query = Record<string, unknown>;

/**
 * viewOf reads an all-links view from an address's query (or a bulk form's `view-*` fields):
 * an unknown sort is the newest first, as is a collection's order without a collection; a
 * collection that is not an id NotFound.
 */
function viewOf(read: (name: string) => string | undefined): AllLinksView {
  const sort = read("sort") ?? "";
  const collection = read("collection") ?? "";
  const page = Number(read("page") ?? "1");
  const known = (LINK_SORTS as readonly string[]).includes(sort) && (sort !== "order" || collection !== "");
  return {
    sort: known ? (sort as LinkSort) : "newest",
    collectionId: collection === "" ? undefined : parseId(collection),
    favorites: read("favorites") === "on",
    broken: read("broken") === "on",
    toRead: read("toread") === "on",
    archived: read("archived") === "on",
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
}

/** queryOf is a view's parameters without its page (the form's `view-*` fields, and every page's address). */
function queryOf(view: AllLinksView): Record<string, string> {
  const query: Record<string, string> = { sort: view.sort };
  if (view.collectionId !== undefined) query.collection = String(view.collectionId);
  if (view.favorites) query.favorites = "on";
  if (view.broken) query.broken = "on";
  if (view.toRead) query.toread = "on";
  if (view.archived) query.archived = "on";
  return query;
}

/** addressOf is the all-links view's address at one of its pages. */
function addressOf(view: AllLinksView, page = 1): string {
  const params = new URLSearchParams(queryOf(view));
  if (page > 1) params.set("page", String(page));
  return `/links?${params}`;
}

/** listQueryOf is the shelf's query of a view (one page of LINK_PAGE.defaultLimit). */
const listQueryOf = (view: AllLinksView): LinkListQuery => ({
  sort: view.sort,
  collectionId: view.collectionId,
  favorite: view.favorites || undefined,
  broken: view.broken || undefined,
  toRead: view.toRead || undefined,
  archived: view.archived || undefined,
  offset: (view.page - 1) * LINK_PAGE.defaultLimit,
  limit: LINK_PAGE.defaultLimit,
});

/** drawAllLinks draws the all-links view for an address's query; with `refusal`, a refused bulk action's message above the list. */
function drawAllLinks(shelf: Shelf, query: Query, refusal?: { message: string; status: number }): Response {
  const view = viewOf((name) => oneValue(query[name]));
  const collections = shelf.collections.summaries();
  const { links, total } = shelf.links.list(listQueryOf(view));
  const shownTo = (view.page - 1) * LINK_PAGE.defaultLimit + links.length;
  return htmlResponse(allLinksPage({
    user: shelf.viewer(),
    collections,
    view,
    query: queryOf(view),
    links,
    total,
    self: addressOf(view, view.page),
    next: links.length > 0 && shownTo < total ? addressOf(view, view.page + 1) : undefined,
    previous: view.page > 1 ? addressOf(view, view.page - 1) : undefined,
    first: view.page > 1 ? addressOf(view) : undefined,
    notice: refusal ? undefined : noticeOf(query.done) ?? bulkNoticeOf(query, collections),
    refusal: refusal?.message,
    broken: shelf.health.brokenAmong(links.map((link) => link.id)),
    // The To read view's one-time offer, until answered.
    readingOffer: view.toRead ? shelf.readingOffer.pending()?.links : undefined,
  }), { status: refusal?.status ?? 200 });
}

/** script answers one of the pages' scripts. */
const script = (text: string) => new Response(text, {
  headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" },
});

/** idsOf reads ids from form values; one that is not an id is read as 0, which the shelf refuses. */
const idsOf = (values: string[]) => values.map((id) => readId(id) ?? 0);

/**
 * chosenIds is the links a bulk form acts on, by its `scope`: the ticked ones (`ids`), every
 * one on the page (`page-ids`), or every one the view (`view-*` fields: a list's sort and
 * filters, or a search's words and filters) matches, at most BULK_MAX_IDS (more is refused,
 * nothing done). A search's pages run where every search runs (`searcher`).
 */
async function chosenIds(searcher: Searcher, shelf: Shelf, body: unknown, now: number): Promise<number[]> {
  const scope = formField(body, "scope");
  if (scope === "page") return idsOf(formField(body, "page-ids").split(",").filter((id) => id !== ""));
  if (scope === "all") {
    const q = formField(body, "view-q");
    const ids = q !== "" ? await searchedIds(searcher, shelf, q, formField(body, "view-collection"), formField(body, "view-favorites") === "on", now)
      : shelf.links.matchingIds(listQueryOf(viewOf((name) => formField(body, `view-${name}`))), BULK_MAX_IDS);
    if (ids.length > BULK_MAX_IDS) {
      throw new ValidationFailed([{ path: "/ids", message: `More than ${formatNumber(BULK_MAX_IDS)} links match, and one action changes at most ${formatNumber(BULK_MAX_IDS)}: narrow the view (a collection, favorites, broken links or search words), or act on a page at a time. Nothing was changed.` }]);
    }
    return ids;
  }
  return idsOf(formValues(body, "ids"));
}

/**
 * searchedIds is every link a search's words and filters find, read a page of SEARCH_PAGE.maxLimit
 * at a time, stopping one past BULK_MAX_IDS (which chosenIds refuses).
 */
async function searchedIds(searcher: Searcher, shelf: Shelf, q: string, collection: string, favorites: boolean, now: number): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await searcher.find(shelf, { q, collectionId: collection === "" ? undefined : parseId(collection), favorite: favorites || undefined, limit: SEARCH_PAGE.maxLimit, cursor }, now);
    ids.push(...page.hits.map((hit) => hit.link.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && ids.length <= BULK_MAX_IDS);
  return ids;
}

/** messageOf is what a refused bulk action says on the list: the shelf's messages, or its conflict. */
function messageOf(error: AppError): string {
  const messages = error instanceof ValidationFailed ? (error.errors ?? []).map((e) => e.message.replace(/(?<![.?!])$/, ".")) : [error.message];
  return messages.join(" ");
}

/**
 * listPages: the all-links view (`GET /links`: every link of the user, `sort=newest|oldest|
 * clicks|recent|name`, `collection=ID`, `favorites=on`, `broken=on`, `toread=on` (the To read view), `archived=on`, `page=N`), the bulk form
 * of every list (`POST /links/bulk`, through `shelf.links.bulk` only, all or nothing; a delete
 * asks first on a confirmation page; done: back to the list, 303, with a notice) and the list
 * pages' scripts (`/assets/shortcuts.js`, and `/assets/arrange.js` of a collection's page). A refused bulk action (nothing chosen, more than
 * BULK_MAX_IDS, removing from the Inbox) shows the list again with the message, through the
 * route's `invalid`; another user's id or collection is the 404 page. The To read view's one-time
 * offer is answered at READING_OFFER_PATH (`answer=accept`: the links of the collections named
 * To read and Archive that imports made are marked; `decline`: nothing changes; either way the
 * offer is gone for good), back to the To read view with a notice.
 */
export function listPages(deps: Network & SearchPlace & { clock: () => number }, guard: PageGuard) {
  const { config, clock, peerAddress } = deps;
  const searcher = searcherOf(deps);
  const nextOf = (request: Request, value: unknown) => safeNext(value, ownOrigin(request, { config, peerAddress }));

  return new Elysia()
    .use(surfaces)
    .get("/links", ({ request, query }) => guard.page(request, (shelf) => drawAllLinks(shelf, query)), { surface: PAGE_ROUTE })
    .post("/links/bulk", ({ request, body }) => guard.form(request, async (shelf) => {
      const next = nextOf(request, formField(body, "next"));
      const action = formField(body, "action");
      if (!(BULK_ACTIONS as readonly string[]).includes(action)) throw new ValidationFailed([{ path: "/action", message: "Choose an action" }]);
      const bulkAction = action as BulkAction;
      const ids = await chosenIds(searcher, shelf, body, clock());
      if (ids.length === 0) throw new ValidationFailed([{ path: "/ids", message: "Select at least one link first" }]);
      const collectionField = formField(body, bulkAction === "remove" ? "here" : "collectionId");
      if ((bulkAction === "move" || bulkAction === "add") && collectionField === "") {
        throw new ValidationFailed([{ path: "/collectionId", message: `Choose the collection to ${bulkAction} the links to first. Nothing was changed` }]);
      }
      const collectionId = !COLLECTION_ACTIONS.includes(bulkAction) ? undefined : readId(collectionField) ?? 0;
      if (bulkAction === "delete" && formField(body, "confirmed") !== "yes") return htmlResponse(bulkDeletePage(shelf.viewer(), ids, next));
      const count = shelf.links.bulk({ ids, action: bulkAction, collectionId }, clock());
      return seeOther(withBulkNotice(next, bulkAction, count, collectionId));
    }), {
      surface: {
        ...PAGE_ROUTE,
        invalid: ({ request }, error) => {
          const shelf = guard.shelfOf(request);
          if (!shelf || !(error instanceof ValidationFailed || error instanceof Conflict || error instanceof QueryTooBroad)) return error;
          const next = new URL(nextOf(request, formField(submittedForm(request), "next")), "http://x");
          const query = Object.fromEntries(next.searchParams);
          const refusal = { message: messageOf(error), status: error.status };
          if (next.pathname === "/links") return drawAllLinks(shelf, query, refusal);
          if (next.pathname === "/") return drawHome(shelf, query, refusal);
          // A search too broad to run is not run again: the search page shows why, beside the box.
          if (next.pathname === "/search") {
            return error instanceof QueryTooBroad ? drawSearch(searcher, shelf, query, clock(), error) : drawSearch(searcher, shelf, query, clock(), undefined, refusal);
          }
          return error;
        },
      },
    })
    .post(READING_OFFER_PATH, ({ request, body }) => guard.form(request, (shelf) => {
      const answer = formField(body, "answer");
      if (answer !== "accept" && answer !== "decline") throw new ValidationFailed([{ path: "/answer", message: "Choose to mark the links, or No thanks" }]);
      if (answer === "accept") shelf.readingOffer.accept(clock());
      else shelf.readingOffer.decline(clock());
      return seeOther(withNotice(TO_READ_VIEW, answer === "accept" ? "reading-offer-accepted" : "reading-offer-declined"));
    }), { surface: PAGE_ROUTE })
    .get(SHORTCUTS_SCRIPT, () => script(SHORTCUTS_JS), { surface: { kind: "browser", limited: false, callers: false } })
    .get(ARRANGE_SCRIPT, () => script(ARRANGE_JS), { surface: { kind: "browser", limited: false, callers: false } });
}
