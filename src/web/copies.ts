import { Elysia } from "elysia";
import type { Guards } from "../auth/requester";
import { copyResponse } from "../api/copy-response";
import { NotFound } from "../errors";
import { readId } from "../ids";
import type { ShelfDb } from "../shelf/shelf";
import { publicCopy } from "../shelf/visibility";
import { describeRoute } from "../openapi/describe";
import { surfaces, type Surface } from "../surface";

/** The owner's page (a session, or a token), or anyone's when the link's PUBLIC collection shows its copies; errors are HTML pages. */
const COPY_PAGE: Surface = { kind: "page", limited: true, callers: ["session", "bearer", "anyone"] };

/**
 * copyPages: `GET /links/:id/copy`, a link's page copy as a page of its own, under the headers
 * every copy is served with (src/api/copy-response.ts): for its owner (signed in), and for
 * anyone when the link is in a PUBLIC collection whose owner lets it show its copies. Anything
 * else answers as an unknown id does.
 */
export function copyPages({ db }: { db: ShelfDb }, { requester }: Pick<Guards, "requester">) {
  return new Elysia()
    .use(surfaces)
    .use(requester)
    .get("/links/:id/copy", ({ params, requester: shelf }) => {
      const id = readId(params.id);
      if (id === undefined) throw new NotFound();
      const own = shelf?.copies.find(id);
      const copy = own ?? publicCopy(db, id);
      if (!copy) throw new NotFound();
      return copyResponse(copy);
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
