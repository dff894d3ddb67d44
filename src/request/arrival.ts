/**
 * Who sent a request and over which scheme, as the network in front of the app tells it: the TCP
 * peer, and the forwarded headers of trusted proxies only.
 */
import type { Config } from "../common/config";
import { inIpRanges } from "../common/ip";

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
  const { address, proxied } = clientOf(request, network);
  const own = URL.parse(request.url)?.protocol.slice(0, -1) ?? "http";
  const forwarded = proxied ? request.headers.get("x-forwarded-proto")?.split(",").at(-1)?.trim().toLowerCase() : undefined;
  return { address, scheme: forwarded === "https" || forwarded === "http" ? forwarded : own };
}

/** clientOf is the client's address (see arrivalOf), and whether it came through a trusted proxy; the TCP peer is asked once. */
function clientOf(request: Request, network: Network): { address: string; proxied: boolean } {
  const peer = network.peerAddress?.(request) ?? "unknown";
  const proxies = network.config.trustedProxies;
  if (!inIpRanges(peer, proxies)) return { address: peer, proxied: false };
  const hops = request.headers.get("x-forwarded-for")?.split(",").map(hostOfHop).filter(Boolean) ?? [];
  return { address: hops.findLast((hop) => !inIpRanges(hop, proxies)) ?? hops[0] ?? peer, proxied: true };
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

/** clientAddress is the client's IP address (see arrivalOf): the key of per-address limits. Every limited request asks, so it reads neither the URL nor the scheme. */
export function clientAddress(request: Request, network: Network): string {
  return clientOf(request, network).address;
}
