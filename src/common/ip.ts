/**
 * IP addresses in text form and the ranges (`address/prefix`) that hold them, read strictly on
 * ipaddr.js: shared by the outbound guard's classification and the list of trusted reverse
 * proxies. The library reads more than is wanted here (`127.1`, `0x7f.0.0.1`, `2130706433`,
 * leading zeros, a `/08` prefix); those forms are refused before it is asked.
 */
import { IPv4, IPv6 } from "ipaddr.js";

/** An address as ipaddr.js holds it. */
export type IpAddress = IPv4 | IPv6;

/** Four decimal parts without leading zeros: the only IPv4 spelling read (each part then at most 255). */
const FOUR_PART_DECIMAL = /^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}$/;

/** parseIPv4 reads strict dotted decimal (`a.b.c.d`, no leading zeros), as the library's isValidFourPartDecimal does, parsing once. */
export function parseIPv4(text: string): IPv4 | null {
  if (!FOUR_PART_DECIMAL.test(text)) return null;
  const octets = text.split(".").map(Number);
  return octets.every((octet) => octet <= 255) ? new IPv4(octets) : null;
}

/**
 * asIPv6 places an address in the IPv6 space: IPv4 (`10.1.2.3`) as its IPv4-mapped form
 * (`::ffff:10.1.2.3`, how a dual-stack socket reports an IPv4 peer), so that both match alike.
 * Built from the octets: the library's `toIPv4MappedAddress` writes the address out as text
 * and parses it again.
 */
function asIPv6(address: IpAddress): IPv6 {
  if (address instanceof IPv6) return address;
  const [a, b, c, d] = address.octets;
  return new IPv6([0, 0, 0, 0, 0, 0xffff, (a! << 8) | b!, (c! << 8) | d!]);
}

/**
 * readIPv6 reads an IPv6 address (optionally in brackets, optionally with a zone `%eth0`,
 * optionally ending in dotted IPv4).
 */
function readIPv6(text: string): IPv6 | null {
  let body = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = body.indexOf("%");
  if (zone !== -1) body = body.slice(0, zone);
  if (!body.includes(":")) return null;

  // A dotted IPv4 tail becomes the two groups it stands for, here rather than in the library: it
  // must be strict dotted decimal, and `::a.b.c.d` stays IPv4-compatible (`::7f00:1`), where the
  // library would read it as IPv4-mapped (`::ffff:7f00:1`).
  const lastColon = body.lastIndexOf(":");
  const tail = body.slice(lastColon + 1);
  if (tail.includes(".")) {
    const v4 = parseIPv4(tail);
    if (v4 === null) return null;
    const [high, low] = asIPv6(v4).parts.slice(6);
    body = `${body.slice(0, lastColon + 1)}${high!.toString(16)}:${low!.toString(16)}`;
  }
  try {
    return IPv6.parse(body);
  } catch {
    return null;
  }
}

/** parseIPv6 reads an IPv6 address as readIPv6 does, into its eight 16-bit groups. */
export function parseIPv6(text: string): number[] | null {
  return readIPv6(text)?.parts ?? null;
}

/** parseAddress reads an IPv4 or IPv6 address in text form (as parseIPv4 and parseIPv6 do); null if it is not one. */
export function parseAddress(text: string): IpAddress | null {
  return parseIPv4(text) ?? readIPv6(text);
}

/** A range of addresses, kept in the IPv6 space (IPv4 as IPv4-mapped): its first address and prefix length (0-128). */
export type IpRange = [IPv6, number];

/**
 * parseIpRange reads an address (`127.0.0.1`, `::1`: that one address) or a CIDR range
 * (`10.0.0.0/8`, `fd00::/8`). The prefix is 0-32 for IPv4 and 0-128 for IPv6, and the address
 * must be the range's first (`10.1.0.0/8` is refused: it names a host as much as a range).
 * Null for anything else, zones (`%eth0`) included.
 */
export function parseIpRange(text: string): IpRange | null {
  if (text.includes("%")) return null;
  const [address, prefix, ...rest] = text.split("/");
  if (rest.length > 0) return null;
  const parsed = parseAddress(address!);
  if (parsed === null) return null;
  const familyBits = parsed instanceof IPv4 ? 32 : 128;
  let bits = familyBits;
  if (prefix !== undefined) {
    if (!/^(0|[1-9]\d{0,2})$/.test(prefix) || Number(prefix) > familyBits) return null;
    bits = Number(prefix);
  }
  const base = asIPv6(parsed);
  const fullBits = 128 - familyBits + bits;
  const mask = IPv6.subnetMaskFromPrefixLength(fullBits).toByteArray();
  if (base.toByteArray().some((byte, i) => (byte & ~mask[i]!) !== 0)) return null;
  return [base, fullBits];
}

/** inIpRanges: is this address (text form) inside one of the ranges? Not an address: false. */
export function inIpRanges(address: string, ranges: readonly IpRange[]): boolean {
  if (ranges.length === 0) return false;
  const parsed = parseAddress(address);
  if (parsed === null) return false;
  const bits = asIPv6(parsed);
  return ranges.some((range) => bits.match(range));
}
