/**
 * IP addresses in text form and the ranges (`address/prefix`) that hold them: read strictly,
 * shared by the favicon proxy's outbound guard and the list of trusted reverse proxies.
 */

/** parseIPv4 reads strict dotted decimal (`a.b.c.d`, no leading zeros) as an unsigned 32-bit number. */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/**
 * parseIPv6 reads an IPv6 address (optionally in brackets, optionally with a zone `%eth0`,
 * optionally ending in dotted IPv4) into its eight 16-bit groups.
 */
export function parseIPv6(text: string): number[] | null {
  let body = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = body.indexOf("%");
  if (zone !== -1) body = body.slice(0, zone);
  if (!body.includes(":")) return null;

  // A dotted IPv4 tail (`::ffff:1.2.3.4`) becomes the two groups it stands for.
  const lastColon = body.lastIndexOf(":");
  const last = body.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = parseIPv4(last);
    if (v4 === null) return null;
    body = `${body.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }

  const halves = body.split("::");
  if (halves.length > 2) return null;
  const readGroups = (part: string): number[] | null => {
    if (part === "") return [];
    const groups: number[] = [];
    for (const group of part.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
      groups.push(parseInt(group, 16));
    }
    return groups;
  };
  const head = readGroups(halves[0]!);
  const rest = halves.length === 2 ? readGroups(halves[1]!) : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return null;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest];
}

/** A range of addresses, kept in the IPv6 space: IPv4 as its IPv4-mapped form (`::ffff:a.b.c.d`). */
export interface IpRange {
  /** The first address, as 128 bits. */
  base: bigint;
  /** How many leading bits every address of the range shares with `base` (0-128). */
  bits: number;
}

const ALL_BITS = (1n << 128n) - 1n;
const IPV4_MAPPED = 0xffffn << 32n;

/**
 * addressBits reads an address as 128 bits, IPv4 (`10.1.2.3`) and IPv4-mapped IPv6
 * (`::ffff:10.1.2.3`, how a dual-stack socket reports an IPv4 peer) alike; null if it is not one.
 */
export function addressBits(text: string): bigint | null {
  const v4 = parseIPv4(text);
  if (v4 !== null) return IPV4_MAPPED | BigInt(v4);
  const groups = parseIPv6(text);
  return groups === null ? null : groups.reduce((bits, group) => (bits << 16n) | BigInt(group), 0n);
}

const maskOf = (bits: number): bigint => (ALL_BITS << BigInt(128 - bits)) & ALL_BITS;

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
  const base = addressBits(address!);
  if (base === null) return null;
  const isV4 = parseIPv4(address!) !== null;
  let bits = isV4 ? 32 : 128;
  if (prefix !== undefined) {
    if (!/^(0|[1-9]\d{0,2})$/.test(prefix) || Number(prefix) > bits) return null;
    bits = Number(prefix);
  }
  const fullBits = isV4 ? 96 + bits : bits;
  if ((base & ~maskOf(fullBits) & ALL_BITS) !== 0n) return null;
  return { base, bits: fullBits };
}

/** inIpRanges: is this address (text form) inside one of the ranges? Not an address: false. */
export function inIpRanges(address: string, ranges: readonly IpRange[]): boolean {
  if (ranges.length === 0) return false;
  const bits = addressBits(address);
  return bits !== null && ranges.some((range) => (bits & maskOf(range.bits)) === range.base);
}
