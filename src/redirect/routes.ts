import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import type { Guards } from "../auth/requester";
import type { GroupCommit } from "../db/group-commit";
import { NotFound } from "../errors";
import type { Shelf } from "../shelf/shelf";
import { readId } from "../ids";
import { describeRoute, errorDoc, rateLimited, type RouteDoc } from "../openapi/describe";
import { pathOf } from "../request/path";
import { surfaces, type Surface } from "../surface";
import { ClickRecorder } from "../shelf/clicks";
import { visibleLinkUrl } from "../shelf/visibility";

const notVisible = {
  ...errorDoc("NOT_FOUND: no such link, a malformed id, or a link that is in no PUBLIC collection and not yours. A browser (Accept: text/html) gets an HTML page; without a session it says the link is private or does not exist and offers to sign in and come back."),
  media: ["text/html"],
};
/** What the 404 page of a browser without a session says: the link may be a private one of theirs (a pinned favorite after the session lapsed). */
const PRIVATE_OR_MISSING = { message: "This link is private or does not exist.", why: "If it is one of your links, sign in to open it." };

/** What the redirect reads of a request's context. */
interface Redirecting {
  params: { id: string };
  request: Request;
  requester: Shelf | null;
  set: { status?: number | string; headers: Record<string, string | number> };
}

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

/**
 * redirectRoutes: `GET /l/:id` answers 302 to the link's URL and counts a click (committed
 * before the answer leaves); `HEAD` answers the same and counts nothing. A link is visible
 * when one of its collections is PUBLIC or the requester owns it; otherwise, and for unknown
 * or malformed ids, 404, so existence never leaks.
 */
export function redirectRoutes({ db, clock }: AppDeps, { requester }: Guards, commits: GroupCommit) {
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
   * redirect answers 302 (written into `set`, not a new Response, so Elysia need not merge the
   * RateLimit headers into one), or the 404 of every id the requester may not open. A browser
   * without a session may just have been signed out: its 404 page offers to sign in and come
   * back here. The same page for every id that is not visible, so nothing leaks.
   */
  const redirect = async ({ params, request, requester, set }: Redirecting) => {
    const to = await location(request, params.id, requester);
    if (to === undefined) throw new NotFound(undefined, requester === null ? { ...PRIVATE_OR_MISSING, next: pathOf(request.url) } : undefined);
    set.status = 302;
    set.headers.location = to;
    set.headers["cache-control"] = "no-store";
    return null;
  };

  return new Elysia()
    .use(surfaces)
    .use(requester)
    .get("/l/:id", redirect, {
      surface: REDIRECT_ROUTE,
      detail: describeRoute(redirectDoc(
        "Open a link, counting one click",
        "Visible when one of the link's collections is PUBLIC, or to its owner (session cookie or bearer token). The click is committed before the answer.",
      )),
    })
    .head("/l/:id", redirect, {
      surface: REDIRECT_ROUTE,
      detail: describeRoute(redirectDoc("Check a link without counting a click", "Answers like GET, for link checkers and unfurlers.")),
    });
}
