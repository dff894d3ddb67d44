import { Elysia } from "elysia";
import type { CollectionSummary, LinkPage } from "../shelf/types";
import { NotFound, ValidationFailed, type AppError } from "../errors";
import { parseId } from "../ids";
import { firstRunPage } from "../pages/auth";
import { homePage, type HomeView } from "../pages/home";
import { htmlResponse } from "../pages/html";
import { seeOther } from "../request/origin";
import type { Shelf, ShelfDb } from "../shelf/shelf";
import { PAGE_ROUTE, surfaces } from "../surface";
import { countUsers } from "../users/service";
import type { PageGuard } from "./guard";
import { bulkNoticeOf, noticeOf } from "./notices";
import { oneValue } from "./query";

/** addressOf is the home page's address for a view, optionally at a later page. */
function addressOf(view: HomeView, cursor?: string): string {
  const params = new URLSearchParams();
  if (view.kind === "favorites") params.set("view", "favorites");
  else params.set("collection", String(view.collection.id));
  if (cursor !== undefined) params.set("cursor", cursor);
  return `/?${params}`;
}

type Query = Record<string, unknown>;

/** viewOf reads which list the address asks for; an unknown collection is NotFound. */
function viewOf(query: Query, collections: CollectionSummary[]): HomeView {
  if (query.view === "favorites") return { kind: "favorites" };
  const raw = oneValue(query.collection);
  const wanted = raw === undefined ? undefined : parseId(raw);
  const collection = collections.find((c) => (wanted === undefined ? c.isDefault : c.id === wanted));
  if (!collection) throw new NotFound();
  return { kind: "collection", collection };
}

/**
 * drawHome draws the home page for an address's query. With `refused` (a hand-edited cursor,
 * refused by the links service) the list is empty and the notice says why, instead of a wrong
 * list; with `refusal` (a bulk action refused) the list is shown with that message.
 */
export function drawHome(shelf: Shelf, query: Query, refused?: AppError, refusal?: { message: string; status: number }): Response {
  const collections = shelf.collections.summaries();
  const view = viewOf(query, collections);
  const cursor = oneValue(query.cursor) || undefined;
  let page: LinkPage = { links: [], nextCursor: null };
  if (!refused) {
    page = view.kind === "favorites"
      ? { links: shelf.links.favorites(), nextCursor: null }
      : shelf.links.search({ collectionId: view.collection.id, cursor });
  }
  const notice = refused ? "That page of links does not exist: start again from the newest." : noticeOf(query.done) ?? bulkNoticeOf(query, collections);
  return htmlResponse(homePage({
    user: shelf.viewer(),
    collections,
    view,
    links: page.links,
    older: page.nextCursor === null ? undefined : addressOf(view, page.nextCursor),
    first: cursor === undefined ? undefined : addressOf(view),
    self: addressOf(view, cursor),
    notice: refusal ? undefined : notice,
    refusal: refusal?.message,
    broken: shelf.health.brokenAmong(page.links.map((link) => link.id)),
  }), { status: refused?.status ?? refusal?.status ?? 200 });
}

/**
 * homeRoutes: `GET /` shows the collections sidebar and one list: a collection (the Inbox by
 * default, `?collection=ID`) or the favorites (`?view=favorites`, ranked as the extension pins
 * them). Collections come in pages of 50, newest first (`?cursor=` from "Older links"). A
 * cursor the links service refuses shows an empty list with a notice (422), through the
 * route's `invalid`. A search (`?q=`, the address of earlier versions' search box) goes to
 * the search page, `/search?q=`.
 */
export function homeRoutes({ db, setupCode }: { db: ShelfDb; setupCode?: string }, guard: PageGuard) {
  return new Elysia().use(surfaces).get("/", ({ request, query }) => {
    const q = oneValue(query.q)?.trim() ?? "";
    return q === "" ? guard.page(request, (shelf) => drawHome(shelf, query)) : seeOther(`/search?${new URLSearchParams({ q })}`);
  }, {
    surface: {
      ...PAGE_ROUTE,
      invalid: ({ request }, error) => {
        const shelf = guard.shelfOf(request);
        return shelf && error instanceof ValidationFailed ? drawHome(shelf, Object.fromEntries(new URL(request.url).searchParams), error) : error;
      },
    },
    // A new server has nobody to sign in: say where the first account is made instead.
    beforeHandle: () => (setupCode !== undefined && countUsers(db) === 0 ? htmlResponse(firstRunPage()) : undefined),
  });
}
