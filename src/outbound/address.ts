/**
 * IP address classification for the favicon proxy's outbound guard.
 *
 * Addresses arrive in canonical form: the WHATWG URL parser has already turned numeric host
 * forms (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`) into dotted IPv4, and resolvers
 * answer with dotted IPv4 or RFC 5952 IPv6. Anything that does not parse strictly is treated
 * as unknown, and unknown is refused.
 */

import { parseIPv4, parseIPv6 } from "../ip";

export type AddressKind =
  | "public"
  | "loopback"
  | "private"
  | "cgnat"
  | "link-local"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "unknown";

/** The kinds `LINKSHELF_FAVICON_ALLOW_PRIVATE=1` admits besides public ones. Never link-local. */
const ADMITTED_WITH_FLAG: ReadonlySet<AddressKind> = new Set(["loopback", "private"]);

/** isAdmitted: may the proxy connect to an address of this kind? */
export function isAdmitted(kind: AddressKind, allowPrivate: boolean): boolean {
  return kind === "public" || (allowPrivate && ADMITTED_WITH_FLAG.has(kind));
}

const inV4 = (address: number, base: string, bits: number): boolean => {
  const start = parseIPv4(base)!;
  const size = 2 ** (32 - bits);
  return address >= start && address < start + size;
};

/** classifyIPv4 names the range an IPv4 address (as a 32-bit number) belongs to. */
export function classifyIPv4(address: number): AddressKind {
  if (address === 0xffffffff) return "broadcast";
  if (inV4(address, "0.0.0.0", 8)) return "unspecified";
  if (inV4(address, "127.0.0.0", 8)) return "loopback";
  if (inV4(address, "10.0.0.0", 8) || inV4(address, "172.16.0.0", 12) || inV4(address, "192.168.0.0", 16)) return "private";
  if (inV4(address, "100.64.0.0", 10)) return "cgnat";
  if (inV4(address, "169.254.0.0", 16)) return "link-local";
  if (inV4(address, "224.0.0.0", 4)) return "multicast";
  if (inV4(address, "240.0.0.0", 4)) return "reserved";
  return "public";
}

const v4From = (high: number, low: number): number => high * 0x10000 + low;

/** The first non-public kind among the IPv4 addresses an IPv6 address carries, else public. */
const worstOf = (...addresses: number[]): AddressKind =>
  addresses.map(classifyIPv4).find((kind) => kind !== "public") ?? "public";

/** classifyIPv6 names the range of an IPv6 address, looking inside the forms that carry IPv4. */
export function classifyIPv6(g: number[]): AddressKind {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (SIIT): the IPv4 decides.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyIPv4(v4From(g[6]!, g[7]!));
  if (zeroUpTo(6)) return classifyIPv4(v4From(g[6]!, g[7]!));
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return classifyIPv4(v4From(g[6]!, g[7]!));
  // NAT64 well-known prefix 64:ff9b::/96 translates to the embedded IPv4.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyIPv4(v4From(g[6]!, g[7]!));
  // 64:ff9b:1::/48 is for local NAT64 deployments: a private network by definition.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "private";
  // 6to4 2002:AABB:CCDD::/48 embeds the IPv4 AA.BB.CC.DD.
  if (g[0] === 0x2002) return classifyIPv4(v4From(g[1]!, g[2]!));
  // Teredo 2001:0::/32: server IPv4 in groups 2-3, client IPv4 inverted in groups 6-7.
  if (g[0] === 0x2001 && g[1] === 0) return worstOf(v4From(g[2]!, g[3]!), v4From(g[6]! ^ 0xffff, g[7]! ^ 0xffff));
  if ((g[0]! & 0xfe00) === 0xfc00) return "private";
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local";
  // fec0::/10, the deprecated site-local range, meant "this site": private.
  if ((g[0]! & 0xffc0) === 0xfec0) return "private";
  if ((g[0]! & 0xff00) === 0xff00) return "multicast";
  // Only 2000::/3 is allocated as global unicast; everything else is special or unassigned.
  if ((g[0]! & 0xe000) !== 0x2000) return "reserved";
  return "public";
}

/** classifyAddress names the range of an IP address in text form; "unknown" if it is not one. */
export function classifyAddress(text: string): AddressKind {
  const v4 = parseIPv4(text);
  if (v4 !== null) return classifyIPv4(v4);
  const v6 = parseIPv6(text);
  if (v6 !== null) return classifyIPv6(v6);
  return "unknown";
}

/** isIpLiteral: is this URL hostname (`1.2.3.4`, `[::1]`) an address rather than a name? */
export function isIpLiteral(hostname: string): boolean {
  return parseIPv4(hostname) !== null || (hostname.startsWith("[") && parseIPv6(hostname) !== null);
}
