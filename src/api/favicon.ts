import { Elysia } from "elysia";
import type { Guards } from "../auth/requester";
import { describeRoute, errorDoc, rateLimited } from "../openapi/describe";
import { matchesEtag } from "../request/etag";
import { surfaces } from "../request/surface";
import { createFaviconService, parseFaviconTarget, type FaviconOptions, type FaviconStore } from "../favicon/service";

/** The content security policy an SVG is served with: no scripts, no fetches, sandboxed. */
export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/**
 * faviconRoutes: `GET /favicon?url=<http(s) URL>` answers the icon of the URL's origin,
 * verified by its bytes and cached, or a generated placeholder; never an error for anything
 * the origin does. A missing or non-http(s) `url` is 400 INVALID_URL; 503 BUSY when too many
 * lookups run and wait already (see Slots). Options for tests
 * (resolver, connection, timeout) come from `deps.favicon`.
 */
export function faviconRoutes(deps: FaviconStore & { favicon?: FaviconOptions }, { visitor }: Guards) {
  const service = createFaviconService(deps, deps.favicon);
  return new Elysia().use(surfaces).use(visitor).get("/favicon", async ({ request, set }) => {
    const target = parseFaviconTarget(new URL(request.url).searchParams.get("url"));
    const image = await service.getFavicon(target);
    // Written into `set` (not a new Response) so the RateLimit headers set earlier stay.
    set.headers["content-type"] = image.contentType;
    set.headers["cache-control"] = "public, max-age=86400";
    set.headers.etag = image.etag;
    set.headers["x-content-type-options"] = "nosniff";
    if (image.contentType === "image/svg+xml") set.headers["content-security-policy"] = SVG_CSP;
    if (matchesEtag(request.headers.get("if-none-match"), image.etag)) {
      set.status = 304;
      return null;
    }
    return image.bytes;
  }, {
    // An image for anyone; its errors are JSON even to a browser (an <img> cannot show a page).
    surface: { kind: "api", limited: true, callers: ["anyone"] },
    detail: describeRoute({
      tag: "favicon", summary: "The icon of a URL's site",
      description: "Found through the site's root page or /favicon.ico, checked by its bytes and cached; a generated SVG placeholder when there is none. No authentication.",
      query: { url: { description: "An absolute http(s) URL, URL-encoded.", required: true } },
      responses: {
        200: {
          description: "The icon, or the placeholder.",
          media: ["image/png", "image/x-icon", "image/svg+xml", "image/gif", "image/jpeg", "image/webp"],
          headers: { "Cache-Control": "public, max-age=86400", ETag: "Of the bytes.", "X-Content-Type-Options": "nosniff" },
        },
        304: { description: "If-None-Match named the ETag." },
        400: errorDoc("INVALID_URL: the url parameter is missing, unparsable or not http(s)."),
        429: rateLimited(),
        503: errorDoc("BUSY: 8 lookups of other sites run and 32 wait already, or this one waited 5 s for its turn; Retry-After says when to ask again."),
      },
    }),
  });
}
