import { Elysia } from "elysia";
import { matchesEtag } from "../request/etag";
import type { Network } from "../request/arrival";
import { ownOrigin } from "../request/origin";
import { NotFound, ValidationFailed } from "../common/errors";
import { readId } from "../common/ids";
import type { ShelfDb } from "../shelf/shelf";
import { publicCollection as findPublicCollection } from "../shelf/visibility";
import { htmlResponse } from "../pages/html";
import { describeRoute } from "../openapi/describe";
import { publicCollectionPage } from "../pages/public";
import { surfaces, type Surface } from "../request/surface";
import { atomFeed } from "./atom";

/** How many of the newest links the feed carries (feed readers keep what they saw). */
export const FEED_ENTRIES = 50;

/** publicCollection finds a PUBLIC collection by a path id; private, unknown and malformed ids alike are NotFound. */
function publicCollection(db: ShelfDb, rawId: string) {
  const id = readId(rawId);
  const found = id === undefined ? undefined : findPublicCollection(db, id);
  if (!found) throw new NotFound();
  return found;
}

/** Anyone may read a public collection; its errors are HTML pages, whoever asks. */
const PUBLIC_ROUTE: Surface = { kind: "page", limited: false, callers: ["anyone"] };

/**
 * publicRoutes: `GET /c/:id`, a PUBLIC collection's read-only page for anyone, and
 * `GET /c/:id/feed`, its Atom feed. A private collection answers exactly like an unknown
 * id (the same 404 page), so nothing tells them apart; so does a cursor that names no page.
 * Anything unexpected is a 500, like everywhere else. Links go through `/l/:id`, so a
 * visitor's click counts.
 */
export function publicRoutes({ db, config, peerAddress }: Network & { db: ShelfDb }) {
  return new Elysia()
    .use(surfaces)
    .get("/c/:id", ({ params, query }) => {
      const found = publicCollection(db, params.id);
      const cursor = typeof query.cursor === "string" && query.cursor !== "" ? query.cursor : undefined;
      const page = found.links({ cursor });
      const self = `/c/${found.collection.id}`;
      return htmlResponse(publicCollectionPage({
        collection: found.collection,
        authorName: found.authorName,
        links: page.links,
        children: found.children(),
        older: page.nextCursor === null ? undefined : `${self}?cursor=${encodeURIComponent(page.nextCursor)}`,
        first: cursor === undefined ? undefined : self,
      }));
    }, {
      // A hand-made cursor (ValidationFailed from the links) names no page: answered as an unknown id.
      surface: { ...PUBLIC_ROUTE, invalid: (_, error) => (error instanceof ValidationFailed ? new NotFound() : error) },
      detail: describeRoute({
        tag: "public", summary: "A public collection's page",
        description: "Read-only HTML for anyone: the collection, its owner's name, its public sub-collections and its links (newest first, 50 a page), each through /l/{id} so clicks count.",
        query: { cursor: { description: "The next page, from the page's \"Older links\" link.", required: false } },
        responses: {
          200: { description: "The page.", media: ["text/html"] },
          404: { description: "No public collection has this id (private, unknown or malformed alike), or the cursor names no page.", media: ["text/html"] },
        },
      }),
    })
    .get("/c/:id/feed", ({ params, request }) => {
      const found = publicCollection(db, params.id);
      const { links } = found.links({ limit: FEED_ENTRIES });
      const origin = ownOrigin(request, { config, peerAddress }) ?? new URL(request.url).origin;
      const body = atomFeed({ collection: found.collection, authorName: found.authorName, links, origin });
      const etag = `"${new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 22)}"`;
      // Feed readers poll: an unchanged feed costs them a 304. Revalidated every time, so a
      // collection made private stops being served at once.
      const headers = { "Content-Type": "application/atom+xml; charset=utf-8", "Cache-Control": "no-cache", ETag: etag, "X-Content-Type-Options": "nosniff" };
      if (matchesEtag(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
      return new Response(body, { headers });
    }, {
      surface: PUBLIC_ROUTE,
      detail: describeRoute({
        tag: "public", summary: "A public collection's Atom feed",
        description: `Atom 1.0 with the collection's ${FEED_ENTRIES} newest links, newest first; entries link through /l/{id}.`,
        responses: {
          200: { description: "The feed.", media: ["application/atom+xml"], headers: { ETag: "Of the feed.", "Cache-Control": "no-cache" } },
          304: { description: "If-None-Match named the current ETag." },
          404: { description: "No public collection has this id (private, unknown or malformed alike).", media: ["text/html"] },
        },
      }),
    });
}
