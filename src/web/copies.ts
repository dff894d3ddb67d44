import { Elysia } from "elysia";
import type { Guards } from "../auth/requester";
import { copyResponse } from "../capture/copy-response";
import { NotFound } from "../common/errors";
import { readId } from "../common/ids";
import type { ShelfDb } from "../shelf/shelf";
import { publicCopy } from "../shelf/visibility";
import { describeRoute } from "../openapi/describe";
import { surfaces, type Surface } from "../request/surface";

/** What the 404 page says to someone not signed in. */
const NO_COPY_HERE = { message: "This page copy is private or does not exist.", why: "If it is the copy of one of your links, sign in to open it." };

/** The owner's page (a session, or a token), or anyone's when the link's PUBLIC collection shows its copies; errors are HTML pages. */
const COPY_PAGE: Surface = { kind: "page", limited: true, callers: ["session", "bearer", "anyone"] };

/**
 * copyPages: `GET /links/:id/copy`, a link's page copy as a page of its own, under the headers
 * every copy is served with (src/capture/copy-response.ts): for its owner (signed in), and for
 * anyone when the link is in a PUBLIC collection whose owner lets it show its copies. Anything
 * else answers as an unknown id does.
 */
export function copyPages({ db }: { db: ShelfDb }, { requester }: Pick<Guards, "requester">) {
  return new Elysia()
    .use(surfaces)
    .use(requester)
    .get("/links/:id/copy", ({ request, params, requester: shelf }) => {
      const id = readId(params.id);
      const copy = id === undefined ? undefined : shelf?.copies.find(id) ?? publicCopy(db, id);
      // Someone not signed in may be its owner: the 404 page offers to sign in and come back.
      if (!copy) throw new NotFound(undefined, shelf ? undefined : { ...NO_COPY_HERE, next: `/links/${params.id}/copy` });
      return copyResponse(request, copy);
    }, {
      surface: COPY_PAGE,
      detail: describeRoute({
        tag: "copies", summary: "A link's page copy, as a page",
        description: "For the link's owner; for anyone when the link is in a PUBLIC collection whose owner lets it show page copies. " +
          "Served as GET /api/v1/links/{id}/copy serves it: sandboxed, loading nothing.",
        responses: {
          200: { description: "The copy.", media: ["text/html"], headers: { "Content-Security-Policy": "sandbox; default-src 'none'; ..." } },
          404: { description: "No copy this viewer may open (another user's link, a private one, no copy, an unknown id alike).", media: ["text/html"] },
        },
      }),
    });
}
