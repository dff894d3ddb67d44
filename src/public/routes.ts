import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { matchesEtag } from "../favicon/routes";
import { ownOrigin } from "../request/origin";
import { parseId } from "../ids";
import type { LinkPage } from "../links/model";
import { publicCollection as findPublicCollection } from "../shelf/visibility";
import { htmlResponse } from "../pages/html";
import { describeRoute } from "../openapi/describe";
import { messagePage } from "../pages/layout";
import { publicCollectionPage } from "../pages/public";
import { atomFeed } from "./atom";

/** How many of the newest links the feed carries (feed readers keep what they saw). */
export const FEED_ENTRIES = 50;

const notFound = () => htmlResponse(messagePage("Not found", "There is nothing here."), { status: 404 });

/** publicCollection finds a PUBLIC collection by a path id; private, unknown and malformed ids are all undefined. */
function publicCollection(db: AppDeps["db"], rawId: string) {
  let id: number;
  try {
    id = parseId(rawId);
  } catch {
    return undefined;
  }
  return findPublicCollection(db, id);
}

/**
 * publicRoutes: `GET /c/:id`, a PUBLIC collection's read-only page for anyone, and
 * `GET /c/:id/feed`, its Atom feed. A private collection answers exactly like an unknown
 * id (the same 404 page), so nothing tells them apart. Links go through `/l/:id`, so a
 * visitor's click counts.
 */
export function publicRoutes({ db, config, peerAddress }: AppDeps) {
  return new Elysia()
    .get("/c/:id", ({ params, query }) => {
      const found = publicCollection(db, params.id);
      if (!found) return notFound();
      const cursor = typeof query.cursor === "string" && query.cursor !== "" ? query.cursor : undefined;
      let page: LinkPage;
      try {
        page = found.links({ cursor });
      } catch {
        return notFound(); // a hand-made cursor names no page
      }
      const self = `/c/${found.collection.id}`;
      return htmlResponse(publicCollectionPage({
        collection: found.collection,
        authorName: found.authorName,
        links: page.links,
        older: page.nextCursor === null ? undefined : `${self}?cursor=${encodeURIComponent(page.nextCursor)}`,
        first: cursor === undefined ? undefined : self,
      }));
    }, {
      detail: describeRoute({
        tag: "public", summary: "A public collection's page",
        description: "Read-only HTML for anyone: the collection, its owner's name and its links (newest first, 50 a page), each through /l/{id} so clicks count.",
        query: { cursor: { description: "The next page, from the page's \"Older links\" link.", required: false } },
        responses: {
          200: { description: "The page.", media: ["text/html"] },
          404: { description: "No public collection has this id (private, unknown or malformed alike), or the cursor names no page.", media: ["text/html"] },
        },
      }),
    })
    .get("/c/:id/feed", ({ params, request }) => {
      const found = publicCollection(db, params.id);
      if (!found) return notFound();
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
