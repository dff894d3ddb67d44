/** Conditional requests: whether the client already holds what would be sent. */

/** matchesEtag: does `If-None-Match` name this ETag (weak comparison, as RFC 9110 asks), or `*`? */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/** strongEtag is the ETag of an answer's exact bytes: SHA-256 of them, quoted. */
export function strongEtag(body: string): string {
  return `"${new Bun.CryptoHasher("sha256").update(body).digest("base64url")}"`;
}

/**
 * matchesIfMatch: may a write proceed on an item whose ETag is `etag`? Yes without `If-Match`,
 * with `*`, or when its list names that ETag (strong comparison, as RFC 9110 asks: a weak one never matches).
 */
export function matchesIfMatch(ifMatch: string | null, etag: string): boolean {
  if (ifMatch === null || ifMatch.trim() === "*") return true;
  return ifMatch.split(",").some((tag) => tag.trim() === etag);
}
