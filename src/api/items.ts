/**
 * One item's ETag: a `GET` of a link or a collection by id sends it, and `If-None-Match` naming
 * it is 304; a write of the item checks `If-Match` against it inside the write's transaction.
 * It is the SHA-256 of the `GET`'s exact body, so any change of the item changes it.
 */
import { PreconditionFailed } from "../common/errors";
import { matchesEtag, matchesIfMatch, strongEtag } from "../request/etag";

/** tagged answers an item's `GET`: its JSON with its ETag, or 304 when `If-None-Match` names it. */
export function tagged(request: Request, set: { headers: Record<string, string | number> }, item: object): string | Response {
  const body = JSON.stringify(item);
  const etag = strongEtag(body);
  if (matchesEtag(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers: { etag } });
  set.headers.etag = etag;
  set.headers["content-type"] = "application/json;charset=utf-8";
  return body;
}

/**
 * unchanged throws PreconditionFailed when the request's `If-Match` names none of the item's
 * ETags; `read` reads the item (NotFound for another user's, which never tells a 412), only
 * when the request has an `If-Match`.
 */
export function unchanged(request: Request, read: () => object): void {
  const ifMatch = request.headers.get("if-match");
  if (ifMatch !== null && !matchesIfMatch(ifMatch, strongEtag(JSON.stringify(read())))) throw new PreconditionFailed();
}
