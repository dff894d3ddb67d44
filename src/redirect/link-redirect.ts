import { Elysia } from "elysia";
import type { Guards } from "../auth/requester";
import { NotFound } from "../common/errors";
import type { ShelfDb, Shelf } from "../shelf/shelf";
import type { WriteBatches } from "../shelf/types";
import { readId } from "../common/ids";
import { describeRoute, errorDoc, rateLimited, type RouteDoc } from "../openapi/describe";
import { pathOf } from "../request/path";
import type { RequestPipeline } from "../request/pipeline";
import { surfaces, type Surface } from "../request/surface";
import { ClickRecorder } from "../shelf/clicks";
import { visibleLinkUrl } from "../shelf/visibility";

const notVisible = {
  ...errorDoc("NOT_FOUND: no such link, a malformed id, or a link that is in no PUBLIC collection and not yours. A browser (Accept: text/html) gets an HTML page; without a session it says the link is private or does not exist and offers to sign in and come back."),
  media: ["text/html"],
};
/** What the 404 page of a browser without a session says: the link may be a private one of theirs (a pinned favorite after the session lapsed). */
const PRIVATE_OR_MISSING = { message: "This link is private or does not exist.", why: "If it is one of your links, sign in to open it." };

/** Anyone may open a link (its owner by session or token); a browser gets its errors as HTML pages. */
const REDIRECT_ROUTE: Surface = { kind: "browser", limited: true, callers: ["anyone", "session", "bearer"] };

const redirectDoc = (summary: string, description: string): RouteDoc => ({
  tag: "redirect", summary, description,
  responses: {
    302: { description: "The link's URL.", headers: { Location: "The link's URL.", "Cache-Control": "no-store" } },
    404: notVisible,
    429: rateLimited(),
  },
});

/** What the redirect needs beside the app's dependencies: who is asking, the group commit and the request pipeline. */
export interface RedirectParts {
  guards: Guards;
  commits: WriteBatches;
  pipeline: RequestPipeline<Shelf | null>;
}

/**
 * redirectRoutes: `GET /l/:id` answers 302 to the link's URL and counts a click (committed
 * before the answer leaves); `HEAD` answers the same and counts nothing. A link is visible
 * when one of its collections is PUBLIC or the requester owns it; otherwise, and for unknown
 * or malformed ids, 404, so existence never leaks.
 *
 * The redirect is the one answer the server gives most often, so it is served two ways, by
 * the same `open`. `native` is the route Bun's own router calls on a listening server
 * (`serve.routes` of the app): it goes through the request pipeline as one function
 * (`pipeline.serve`, src/request/pipeline.ts), not through Elysia's per-request hooks.
 * `routes` holds the same paths for Elysia's router, which answers `app.handle` (the tests) and
 * the paths Bun's router does not match (`/l/1/`), through the same pipeline as the app's hooks.
 */
export function redirectRoutes(deps: { db: ShelfDb; clock: () => number }, { guards, commits, pipeline }: RedirectParts) {
  const { db, clock } = deps;
  const clicks = new ClickRecorder(db, commits, clock);

  /** location is where the requester goes: a GET counts its click (decided and committed in the group commit), a HEAD only looks. */
  const location = (request: Request, rawId: string, viewer: Shelf | null): Promise<string | undefined> | string | undefined => {
    const id = readId(rawId);
    if (id === undefined) return undefined;
    const viewerId = viewer?.user.id ?? null;
    // Elysia answers HEAD with the GET handler on paths its general router serves (app.handle,
    // `/l/1/`), even though a HEAD route exists: a HEAD must never count.
    return request.method === "HEAD" ? visibleLinkUrl(db, id, viewerId) : clicks.open(id, viewerId);
  };

  /**
   * open answers 302, or throws the 404 of every id the requester may not open. A browser
   * without a session may just have been signed out: its 404 page offers to sign in and come
   * back here. The same page for every id that is not visible, so nothing leaks.
   */
  const open = async (request: Request, rawId: string, requester: Shelf | null): Promise<Response> => {
    const to = await location(request, rawId, requester);
    if (to === undefined) throw new NotFound(undefined, requester === null ? { ...PRIVATE_OR_MISSING, next: pathOf(request.url) } : undefined);
    return new Response(null, { status: 302, headers: { location: to, "cache-control": "no-store" } });
  };

  const viaElysia = ({ request, params, requester }: { request: Request; params: { id: string }; requester: Shelf | null }) => open(request, params.id, requester);
  const routes = new Elysia()
    .use(surfaces)
    .use(guards.requester)
    .get("/l/:id", viaElysia, {
      surface: REDIRECT_ROUTE,
      detail: describeRoute(redirectDoc(
        "Open a link, counting one click",
        "Visible when one of the link's collections is PUBLIC, or to its owner (session cookie or bearer token). The click is committed before the answer.",
      )),
    })
    .head("/l/:id", viaElysia, {
      surface: REDIRECT_ROUTE,
      detail: describeRoute(redirectDoc("Check a link without counting a click", "Answers like GET, for link checkers and unfurlers.")),
    });
  // Bun names the parameter as the path does; typed for any path, as `serve.routes` takes them.
  const served = pipeline.serve(REDIRECT_ROUTE, (request, requester) => open(request, request.params.id ?? "", requester));
  const native = { "/l/:id": { GET: served, HEAD: served } };
  return { routes, native };
}
