/** Conditional requests: whether the client already holds what would be sent. */

/** matchesEtag: does `If-None-Match` name this ETag (weak comparison, as RFC 9110 asks), or `*`? */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
