/**
 * IP address classification for the outbound guard, on the ranges ipaddr.js names.
 *
 * Addresses arrive in canonical form: the WHATWG URL parser has already turned numeric host
 * forms (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`) into dotted IPv4, and resolvers
 * answer with dotted IPv4 or RFC 5952 IPv6. Anything that does not parse strictly is treated
 * as unknown, and unknown is refused.
 */

import { IPv4, IPv6 } from "ipaddr.js";
import { parseAddress, parseIPv4, parseIPv6 } from "../common/ip";

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

/**
 * The kind of each range ipaddr.js names in IPv4. The library's `reserved` holds 240.0.0.0/4
 * (reserved for future use: refused) beside ranges that are no one's local network and stay
 * public: documentation (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24), benchmarking
 * (198.18.0.0/15, also what fake-IP DNS proxies answer for public names), IETF protocol
 * assignments (192.0.0.0/24) and the 6to4 relay anycast (192.88.99.0/24). AS112 and AMT are
 * public services.
 */
const IPV4_KINDS: Readonly<Record<string, AddressKind>> = {
  unicast: "public",
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "cgnat",
  private: "private",
  reserved: "public",
  as112: "public",
  amt: "public",
};

const FUTURE_USE = IPv4.parseCIDR("240.0.0.0/4");

/**
 * classifyIPv4 names the range an IPv4 address belongs to; a range the library names that is
 * not decided above is reserved.
 */
export function classifyIPv4(address: IPv4): AddressKind {
  const range = address.range();
  if (range === "reserved" && address.match(FUTURE_USE)) return "reserved";
  return IPV4_KINDS[range] ?? "reserved";
}

const NAT64_LOCAL = IPv6.parseCIDR("64:ff9b:1::/48");
const IPV4_COMPATIBLE = IPv6.parseCIDR("::/96");
const GLOBAL_UNICAST = IPv6.parseCIDR("2000::/3");

/** The IPv4 address two 16-bit groups carry. */
const v4From = (high: number, low: number): IPv4 => new IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** The first non-public kind among the IPv4 addresses an IPv6 address carries, else public. */
const worstOf = (...addresses: IPv4[]): AddressKind =>
  addresses.map(classifyIPv4).find((kind) => kind !== "public") ?? "public";

/**
 * classifyIPv6 names the range of an IPv6 address, looking inside the forms that carry IPv4.
 * The library's other names fall to the last line: inside 2000::/3 and public like the rest of
 * it are `reserved` (2001::/23, documentation 2001:db8::/32 and 3fff::/20), `benchmarking`,
 * `amt`, `as112v6`, `deprecatedOrchid`, `orchid2` and `droneRemoteIdProtocolEntityTags`;
 * outside it and reserved are `discard` (100::/64) and `segmentRouting` (5f00::/16).
 */
export function classifyIPv6(address: IPv6): AddressKind {
  const g = address.parts;
  const embedded = () => classifyIPv4(v4From(g[6]!, g[7]!));
  // `range()` is typed with fewer names than the library gives (`deprecatedSiteLocal` among them).
  const range: string = address.range();
  switch (range) {
    case "unspecified":
      return "unspecified";
    case "loopback":
      return "loopback";
    case "multicast":
      return "multicast";
    case "linkLocal":
      return "link-local";
    // fc00::/7, and fec0::/10: the deprecated site-local range meant "this site".
    case "uniqueLocal":
    case "deprecatedSiteLocal":
      return "private";
    // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT): the IPv4 decides.
    case "ipv4Mapped":
    case "rfc6145":
      return embedded();
    // 64:ff9b::/96 translates to the embedded IPv4; 64:ff9b:1::/48 is for local NAT64
    // deployments: a private network by definition.
    case "rfc6052":
      return address.match(NAT64_LOCAL) ? "private" : embedded();
    // 6to4 2002:AABB:CCDD::/48 embeds the IPv4 AA.BB.CC.DD.
    case "6to4":
      return classifyIPv4(v4From(g[1]!, g[2]!));
    // Teredo 2001:0::/32: server IPv4 in groups 2-3, client IPv4 inverted in groups 6-7.
    case "teredo":
      return worstOf(v4From(g[2]!, g[3]!), v4From(g[6]! ^ 0xffff, g[7]! ^ 0xffff));
  }
  // ::a.b.c.d (IPv4-compatible, deprecated; the library leaves it unnamed): the IPv4 decides.
  if (address.match(IPV4_COMPATIBLE)) return embedded();
  // Only 2000::/3 is allocated as global unicast; everything else is special or unassigned.
  return address.match(GLOBAL_UNICAST) ? "public" : "reserved";
}

/** classifyAddress names the range of an IP address in text form; "unknown" if it is not one. */
export function classifyAddress(text: string): AddressKind {
  const address = parseAddress(text);
  if (address === null) return "unknown";
  return address instanceof IPv4 ? classifyIPv4(address) : classifyIPv6(address);
}

/** isIpLiteral: is this URL hostname (`1.2.3.4`, `[::1]`) an address rather than a name? */
export function isIpLiteral(hostname: string): boolean {
  return parseIPv4(hostname) !== null || (hostname.startsWith("[") && parseIPv6(hostname) !== null);
}
