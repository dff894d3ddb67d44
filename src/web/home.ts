import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { NotFound, ValidationFailed } from "../errors";
import { parseId } from "../ids";
import type { LinkPage } from "../links/model";
import { firstRunPage } from "../pages/auth";
import { homePage, type HomeView } from "../pages/home";
import { htmlResponse } from "../pages/html";
import { countUsers } from "../users/service";
import type { PageGuard } from "./guard";
import { noticeOf } from "./notices";

/** addressOf is the home page's address for a view, optionally at a later page. */
function addressOf(view: HomeView, cursor?: string): string {
  const params = new URLSearchParams();
  if (view.kind === "search") params.set("q", view.query);
  else if (view.kind === "favorites") params.set("view", "favorites");
  else params.set("collection", String(view.collection.id));
  if (cursor !== undefined) params.set("cursor", cursor);
  return `/?${params}`;
}

/**
 * homeRoutes: `GET /` shows the collections sidebar and one list: a collection (the Inbox by
 * default, `?collection=ID`), the favorites (`?view=favorites`, ranked as the extension pins
 * them), or a search (`?q=`) over names, URLs and descriptions. Collections and searches come
 * in pages of 50, newest first (`?cursor=` from "Older links").
 */
export function homeRoutes({ db, setupCode }: AppDeps, guard: PageGuard) {
  return new Elysia().get("/", ({ request, query }) => guard.page(request, (shelf) => {
    const collections = shelf.collections.summaries();
    const q = typeof query.q === "string" ? query.q.trim() : "";
    const cursor = typeof query.cursor === "string" && query.cursor !== "" ? query.cursor : undefined;
    let view: HomeView;
    if (q !== "") {
      view = { kind: "search", query: q };
    } else if (query.view === "favorites") {
      view = { kind: "favorites" };
    } else {
      const wanted = typeof query.collection === "string" ? parseId(query.collection) : undefined;
      const collection = collections.find((c) => (wanted === undefined ? c.isDefault : c.id === wanted));
      if (!collection) throw new NotFound();
      view = { kind: "collection", collection };
    }

    let page: LinkPage;
    let notice = noticeOf(query.done);
    let status = 200;
    try {
      page = view.kind === "favorites"
        ? { links: shelf.links.favorites(), nextCursor: null }
        : shelf.links.search(view.kind === "search" ? { q, cursor } : { collectionId: view.collection.id, cursor });
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error;
      // A hand-edited cursor or an over-long search: say so instead of showing a wrong list.
      page = { links: [], nextCursor: null };
      notice = error.errors?.map((e) => (e.path === "/q" ? `Search: ${e.message}.` : "That page of links does not exist: start again from the newest.")).join(" ");
      status = 422;
    }
    return htmlResponse(homePage({
      user: shelf.user,
      collections,
      view,
      links: page.links,
      older: page.nextCursor === null ? undefined : addressOf(view, page.nextCursor),
      first: cursor === undefined ? undefined : addressOf(view),
      self: addressOf(view, cursor),
      notice,
    }), { status });
  }), {
    // A new server has nobody to sign in: say where the first account is made instead.
    beforeHandle: () => (setupCode !== undefined && countUsers(db) === 0 ? htmlResponse(firstRunPage()) : undefined),
  });
}
