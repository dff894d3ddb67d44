import type { Server } from "bun";
import { t } from "elysia";

/** The versioned API lives under this prefix. */
export const API_PREFIX = "/api/v1";
/** The OpenAPI document of the whole HTTP surface; public, like the reference page at `/api/docs`. */
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

/**
 * pathOf returns the path of a request URL without its query string and without building a
 * URL object. A URL that is only a path (Bun gives one when `Host` does not parse) is read
 * as such.
 */
export function pathOf(url: string): string {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.indexOf("?", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

/** The answer of a write that returns nothing else (PUT, DELETE). */
export const MessageJson = t.Object({ message: t.String() });

/** The parts of a request's context that say who sent it and how. */
export interface Origin {
  /** `http` or `https`, as the client used it. */
  scheme: string;
  /** `host[:port]` the client addressed. */
  host: string;
}

/**
 * requestOrigin is the scheme and Host a request arrived with; behind a trusted proxy
 * (`LINKSHELF_TRUST_PROXY=1`) the scheme comes from `X-Forwarded-Proto`.
 */
export function requestOrigin(request: Request, trustProxy: boolean): Origin {
  const url = new URL(request.url);
  const forwarded = trustProxy ? request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() : undefined;
  const scheme = forwarded === "https" || forwarded === "http" ? forwarded : url.protocol.slice(0, -1);
  return { scheme, host: request.headers.get("host") ?? url.host };
}

/** ownOrigin is this server's origin as the client sees it (null when `Host` is garbage). */
export function ownOrigin(request: Request, trustProxy: boolean): string | null {
  const { scheme, host } = requestOrigin(request, trustProxy);
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
export function isCrossSitePost(request: Request, trustProxy: boolean): boolean {
  const claimed = request.headers.get("origin") ?? request.headers.get("referer");
  if (claimed === null) return false;
  const own = ownOrigin(request, trustProxy);
  return own === null || URL.parse(claimed)?.origin !== own;
}

/**
 * clientAddress is the peer address of the socket, or with `LINKSHELF_TRUST_PROXY=1` the
 * last `X-Forwarded-For` entry (the one the trusted proxy appended; earlier entries are the
 * client's own claims). "unknown" when neither exists (requests made in-process).
 */
export function clientAddress(request: Request, server: Server<unknown> | null | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").map((part) => part.trim()).filter(Boolean);
    if (forwarded && forwarded.length > 0) return forwarded[forwarded.length - 1]!;
  }
  return server?.requestIP(request)?.address ?? "unknown";
}
