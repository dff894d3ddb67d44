import { t } from "elysia";
import type { Config } from "./config";
import { inIpRanges } from "./ip";

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

/**
 * What the helpers below need to know about the network in front of the app: the proxies
 * whose forwarded headers count, and how to read a request's TCP peer (the listening server's
 * socket; requests made in-process have none unless one is given).
 */
export interface Network {
  config: Pick<Config, "trustedProxies">;
  peerAddress?: (request: Request) => string | undefined;
}

/** How a request reached the server. */
export interface Arrival {
  /** The client's IP address; "unknown" for a request without a socket. */
  address: string;
  /** `http` or `https`, as the client used it. */
  scheme: string;
}

/**
 * arrivalOf tells who sent a request and over which scheme. Forwarded headers count only when
 * the TCP peer is one of the trusted proxies (`LINKSHELF_TRUST_PROXY`); anyone else could write
 * them. Then the client is the right-most `X-Forwarded-For` entry that is not itself a trusted
 * proxy (entries to its left are the client's own claims; if every entry is a proxy, the
 * left-most), and the scheme is the last `X-Forwarded-Proto` entry (the one the proxy next to
 * this server set).
 */
export function arrivalOf(request: Request, network: Network): Arrival {
  const own = { address: network.peerAddress?.(request) ?? "unknown", scheme: URL.parse(request.url)?.protocol.slice(0, -1) ?? "http" };
  const proxies = network.config.trustedProxies;
  if (!inIpRanges(own.address, proxies)) return own;
  const hops = request.headers.get("x-forwarded-for")?.split(",").map(hostOfHop).filter(Boolean) ?? [];
  const client = hops.findLast((hop) => !inIpRanges(hop, proxies)) ?? hops[0] ?? own.address;
  const forwarded = request.headers.get("x-forwarded-proto")?.split(",").at(-1)?.trim().toLowerCase();
  return { address: client, scheme: forwarded === "https" || forwarded === "http" ? forwarded : own.scheme };
}

/**
 * hostOfHop is the address of one `X-Forwarded-For` entry without the port some proxies add
 * (`203.0.113.7:41234`, `[2001:db8::7]:41234`): the same client on another source port is the
 * same client.
 */
function hostOfHop(entry: string): string {
  const hop = entry.trim();
  const bracketed = /^\[([^\]]*)\](?::\d{1,5})?$/.exec(hop);
  if (bracketed) return bracketed[1]!;
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(hop);
  return v4WithPort ? v4WithPort[1]! : hop;
}

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

/** clientAddress is the client's IP address (see arrivalOf): the key of per-address limits. */
export function clientAddress(request: Request, network: Network): string {
  return arrivalOf(request, network).address;
}
