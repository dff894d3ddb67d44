import { Elysia } from "elysia";
import { LINK_SORTS, type CollectionSummary, type LinkSort } from "../shelf/types";
import { LINK_PAGE } from "../shelf/limits";
import { NotFound } from "../common/errors";
import { parseId } from "../common/ids";
import { firstRunPage } from "../pages/auth";
import { homePage, sortedNotice, type HomeView } from "../pages/home";
import { htmlResponse } from "../pages/html";
import { seeOther } from "../request/origin";
import type { Shelf, ShelfDb } from "../shelf/shelf";
import { PAGE_ROUTE, surfaces } from "../request/surface";
import { countUsers } from "../users/service";
import type { PageGuard } from "./guard";
import { bulkNoticeOf, noticeOf } from "./notices";
import { oneValue } from "./query";

/** addressOf is the home page's address for a view, at one of its pages (a collection's own order needs no `sort`). */
function addressOf(view: HomeView, page = 1): string {
  const params = new URLSearchParams();
  if (view.kind === "favorites") params.set("view", "favorites");
  else params.set("collection", String(view.collection.id));
  if (view.kind === "collection" && view.sort !== "order") params.set("sort", view.sort);
  if (page > 1) params.set("page", String(page));
  return `/?${params}`;
}

type Query = Record<string, unknown>;

/** viewOf reads which list the address asks for (an unknown sort is the collection's order); an unknown collection is NotFound. */
function viewOf(query: Query, collections: CollectionSummary[]): HomeView {
  if (query.view === "favorites") return { kind: "favorites" };
  const raw = oneValue(query.collection);
  const wanted = raw === undefined ? undefined : parseId(raw);
  const collection = collections.find((c) => (wanted === undefined ? c.isDefault : c.id === wanted));
  if (!collection) throw new NotFound();
  const sort = oneValue(query.sort) ?? "";
  const page = Number(oneValue(query.page) ?? "1");
  return {
    kind: "collection",
    collection,
    sort: (LINK_SORTS as readonly string[]).includes(sort) ? (sort as LinkSort) : "order",
    page: Number.isSafeInteger(page * LINK_PAGE.defaultLimit) && page >= 1 ? page : 1,
  };
}

/** drawHome draws the home page for an address's query; with `refusal` (a bulk action refused), with that message above the list. */
export function drawHome(shelf: Shelf, query: Query, refusal?: { message: string; status: number }): Response {
  const collections = shelf.collections.summaries();
  const view = viewOf(query, collections);
  const { links, total } = view.kind === "favorites" ? { links: shelf.links.favorites(), total: undefined }
    : shelf.links.list({ sort: view.sort, collectionId: view.collection.id, offset: (view.page - 1) * LINK_PAGE.defaultLimit, limit: LINK_PAGE.defaultLimit });
  const page = view.kind === "collection" ? view.page : 1;
  const shownTo = (page - 1) * LINK_PAGE.defaultLimit + links.length;
  return htmlResponse(homePage({
    user: shelf.viewer(),
    collections,
    view,
    links,
    total,
    pages: {
      older: total !== undefined && links.length > 0 && shownTo < total ? addressOf(view, page + 1) : undefined,
      previous: page > 1 ? addressOf(view, page - 1) : undefined,
      first: page > 1 ? addressOf(view) : undefined,
    },
    self: addressOf(view, page),
    notice: refusal ? undefined : query.done === "sorted" && view.kind === "collection" ? sortedNotice(view.collection.id, addressOf(view, page))
      : noticeOf(query.done) ?? bulkNoticeOf(query, collections),
    refusal: refusal?.message,
    broken: shelf.health.brokenAmong(links.map((link) => link.id)),
  }), { status: refusal?.status ?? 200 });
}

/**
 * homeRoutes: `GET /` shows the collections sidebar and one list: a collection (the Inbox by
 * default, `?collection=ID`; `sort=` one of LINK_SORTS, its own order by default; 50 links a
 * page, `page=N`) or the favorites (`?view=favorites`, ranked as the extension pins them). A
 * search (`?q=`, the address of earlier versions' search box) goes to the search page, `/search?q=`.
 */
export function homeRoutes({ db, setupCode }: { db: ShelfDb; setupCode?: string }, guard: PageGuard) {
  return new Elysia().use(surfaces).get("/", ({ request, query }) => {
    const q = oneValue(query.q)?.trim() ?? "";
    return q === "" ? guard.page(request, (shelf) => drawHome(shelf, query)) : seeOther(`/search?${new URLSearchParams({ q })}`);
  }, {
    surface: PAGE_ROUTE,
    // A new server has nobody to sign in: say where the first account is made instead.
    beforeHandle: () => (setupCode !== undefined && countUsers(db) === 0 ? htmlResponse(firstRunPage()) : undefined),
  });
}
