/**
 * This server's origin as the client sees it, and the checks that keep a request or a redirect
 * on it: the cross-site POST check and the open-redirect-proof `next`.
 */
import { Forbidden } from "../common/errors";
import { arrivalOf, type Network } from "./arrival";

/** The parts of a request's context that say who sent it and how. */
export interface Origin {
  /** `http` or `https`, as the client used it. */
  scheme: string;
  /** `host[:port]` the client addressed. */
  host: string;
}

/**
 * requestOrigin is the scheme and Host a request arrived with; behind a trusted proxy the
 * scheme comes from `X-Forwarded-Proto` (see arrivalOf).
 */
export function requestOrigin(request: Request, network: Network): Origin {
  const url = new URL(request.url);
  return { scheme: arrivalOf(request, network).scheme, host: request.headers.get("host") ?? url.host };
}

/** ownOrigin is this server's origin as the client sees it (null when `Host` is garbage). */
export function ownOrigin(request: Request, network: Network): string | null {
  const { scheme, host } = requestOrigin(request, network);
  return URL.parse(`${scheme}://${host}`)?.origin ?? null;
}

/**
 * safeNext honours a `next` parameter only as a path on this server: it must start with `/`
 * and, resolved against this origin the way a browser would (tabs and newlines dropped, `\`
 * read as `/`), stay on it. Anything else is `/`.
 */
export function safeNext(next: unknown, own: string | null): string {
  if (typeof next !== "string" || !next.startsWith("/") || own === null) return "/";
  const resolved = URL.parse(next, own);
  if (resolved === null || resolved.origin !== own) return "/";
  const path = resolved.pathname + resolved.search + resolved.hash;
  // Dot segments can leave a path such as `//evil.test` (from `/.//evil.test`), which a
  // browser reads as another host: the path returned must itself stay on this origin.
  return URL.parse(path, own)?.href === resolved.href ? path : "/";
}

/**
 * isCrossSitePost is true when a POST's `Origin` (or, lacking it, `Referer`) is not this
 * server's own origin. A POST with neither header is not from a browser: false.
 */
export function isCrossSitePost(request: Request, network: Network): boolean {
  const claimed = request.headers.get("origin") ?? request.headers.get("referer");
  if (claimed === null) return false;
  const own = ownOrigin(request, network);
  return own === null || URL.parse(claimed)?.origin !== own;
}

/** refuseCrossSite throws Forbidden (403, nothing runs) for a cross-site POST: every form of the site checks here. */
export function refuseCrossSite(request: Request, network: Network): void {
  if (isCrossSitePost(request, network)) throw new Forbidden();
}

/** seeOther is the answer to a successful form (post/redirect/get) and to a missing session. */
export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

/** toSignIn sends a browser without a session to sign in, then back to `next` (a path on this server). */
export function toSignIn(next: string): Response {
  return seeOther(`/login?next=${encodeURIComponent(next)}`);
}
