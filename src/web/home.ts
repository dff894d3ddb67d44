import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import { listCollectionSummaries } from "../collections/queries";
import { ValidationFailed } from "../errors";
import { parseId } from "../ids";
import type { LinkJson } from "../links/model";
import { listFavorites, searchLinks, type LinkPage } from "../links/queries";
import { homePage, type HomeView } from "../pages/home";
import { htmlResponse } from "../pages/html";
import type { PageGuard } from "./guard";
import { noticeOf } from "./notices";

/** The home page's address for a view, optionally at a later page. */
function addressOf(view: { collection?: number; q?: string; favorites?: boolean }, cursor?: string): string {
  const params = new URLSearchParams();
  if (view.q !== undefined) params.set("q", view.q);
  else if (view.favorites) params.set("view", "favorites");
  else if (view.collection !== undefined) params.set("collection", String(view.collection));
  if (cursor !== undefined) params.set("cursor", cursor);
  const search = params.toString();
  return search ? `/?${search}` : "/";
}

/**
 * homeRoutes: `GET /` shows the collections sidebar and one list: a collection (the Inbox by
 * default, `?collection=ID`), the favorites (`?view=favorites`, ranked as the extension pins
 * them), or a search (`?q=`) over names, URLs and descriptions. Collections and searches come
 * in pages of 50, newest first (`?cursor=` from "Older links").
 */
export function homeRoutes({ db }: AppDeps, guard: PageGuard) {
  return new Elysia().get("/", ({ request, query }) => guard.page(request, (user) => {
    const collections = listCollectionSummaries(db, user.id);
    const q = typeof query.q === "string" ? query.q.trim() : "";
    const cursor = typeof query.cursor === "string" && query.cursor !== "" ? query.cursor : undefined;
    let view: HomeView;
    let address: { collection?: number; q?: string; favorites?: boolean };
    if (q !== "") {
      view = { kind: "search", query: q };
      address = { q };
    } else if (query.view === "favorites") {
      view = { kind: "favorites" };
      address = { favorites: true };
    } else {
      const wanted = typeof query.collection === "string" ? parseId(query.collection) : undefined;
      const collection = collections.find((c) => (wanted === undefined ? c.isDefault : c.id === wanted));
      if (!collection) return guard.notFound(user);
      view = { kind: "collection", collection };
      address = { collection: collection.id };
    }

    let page: LinkPage;
    let notice = noticeOf(query.done);
    let status = 200;
    try {
      page = view.kind === "favorites"
        ? { links: listFavorites(db, user.id), nextCursor: null }
        : searchLinks(db, user.id, view.kind === "search" ? { q, cursor } : { collectionId: view.collection.id, cursor });
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error;
      // A hand-edited cursor or an over-long search: say so instead of showing a wrong list.
      page = { links: [] as LinkJson[], nextCursor: null };
      notice = error.errors?.map((e) => (e.path === "/q" ? `Search: ${e.message}.` : "That page of links does not exist: start again from the newest.")).join(" ");
      status = 422;
    }
    return htmlResponse(homePage({
      user,
      collections,
      view,
      links: page.links,
      older: page.nextCursor === null ? undefined : addressOf(address, page.nextCursor),
      first: cursor === undefined ? undefined : addressOf(address),
      self: addressOf(address, cursor),
      notice,
    }), { status });
  }));
}
