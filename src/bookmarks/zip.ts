/**
 * Reading a zip file's entries with hard bounds. The central directory is read first (names,
 * sizes as the zip declares them, where each entry's bytes are), and an entry whose declared
 * sizes are beyond ZIP_LIMITS or make no sense is refused before anything is inflated. Then
 * each entry is inflated as a stream (fflate's `Inflate`), a KiB of packed bytes or less at a time,
 * and what comes out is counted: the moment an entry gives more than its directory said, more
 * than one entry may, or more than the whole zip may, the reading stops and the zip is refused.
 * A declared size is a claim, never a bound. The event loop runs between slices, so the server
 * keeps answering while a zip is read (or refused).
 */
import { Inflate } from "fflate";
import { formatNumber } from "../common/format";
import { BookmarkFileRefused } from "./netscape";

/**
 * What a zip may hold and give. `entryBytes` and `bytes` are counted on the bytes inflation
 * produces, and checked on the declared sizes first. 32 MiB in all is the largest file the
 * import page takes, so a zip costs no more to read than a plain file can, and more than twice
 * Pocket's export of 100,000 items (about 13 MB of CSV; Pocket splits it in parts of about
 * 1.3 MB). `ratio` is what no real export reaches (CSV, JSON and HTML pack 3 to 20 times) and
 * what only a file of one byte repeated comes near (deflate's most is 1032).
 */
export const ZIP_LIMITS = {
  entries: 10_000,
  /** Inflated bytes of one entry. */
  entryBytes: 16 * 1024 * 1024,
  /** Inflated bytes of the zip's entries that are read, together. */
  bytes: 32 * 1024 * 1024,
  /** Declared inflated size ÷ packed size of one entry. */
  ratio: 1000,
} as const;

/** One entry of a zip, as its central directory states it. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; linkshelf reads no other. */
  method: number;
  encrypted: boolean;
  /** Packed bytes, as declared. */
  packedSize: number;
  /** Inflated bytes, as declared: a claim, checked while inflating. */
  declaredSize: number;
  /** Where its local header starts in the file. */
  headerOffset: number;
}

/** How many bytes inflation has produced (added to `produced`): read by the caller, also after a refusal. */
export interface InflateTally {
  produced: number;
}

/** The most bytes deflate can make of one packed byte (258 repeated bytes from two bits). */
const DEFLATE_MAX_EXPANSION = 1032;
/** Packed bytes handed to the inflater at once, at most: at most ~1 MiB comes of one push (smaller pushes cost more). */
const PUSH_BYTES = 1024;
/** What one push aims to give, once the entry has shown how much it expands: a stream of one repeated byte is given 256 bytes at a time. */
const PUSH_OUTPUT = 256 * 1024;
/** Packed bytes handed at once near an entry's bound: at most ~64 KiB more than the bound comes out. */
const MIN_PUSH_BYTES = 64;
/** Bytes inflated, or packed bytes read, between two turns of the event loop. */
const STEP_PRODUCED = 256 * 1024;
const STEP_PACKED = 64 * 1024;

const MiB = (bytes: number) => formatNumber(Math.ceil(bytes / 1024 / 1024));
const damaged = (what: string) => new BookmarkFileRefused(`The zip file is damaged: ${what}.`);
const pause = () => new Promise((resolve) => setImmediate(resolve));

/** zipDirectory reads a zip's central directory; refuses (BookmarkFileRefused) a damaged one, or one of more than ZIP_LIMITS.entries entries. */
export function zipDirectory(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const unreadable = () => damaged("linkshelf cannot read its list of files");
  // Past either end of the file a field reads as NaN, which no check lets through.
  const inside = (at: number, size: number) => Number.isSafeInteger(at) && at >= 0 && at + size <= bytes.length;
  const u16 = (at: number) => (inside(at, 2) ? view.getUint16(at, true) : Number.NaN);
  const u32 = (at: number) => (inside(at, 4) ? view.getUint32(at, true) : Number.NaN);
  const u64 = (at: number) => (inside(at, 8) ? Number(view.getBigUint64(at, true)) : Number.NaN);

  // The end record: the last 22 bytes, or further back past a comment of up to 65,535 bytes.
  let end = bytes.length - 22;
  while (end >= 0 && u32(end) !== 0x06054b50) {
    if (bytes.length - end > 22 + 0xffff) throw unreadable();
    end--;
  }
  if (end < 0) throw unreadable();
  let count = u16(end + 10);
  let directorySize = u32(end + 12);
  let directoryOffset = u32(end + 16);
  if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    // Zip64: the locator just before the end record gives the zip64 end record.
    if (u32(end - 20) !== 0x07064b50) throw unreadable();
    const end64 = u64(end - 12);
    if (u32(end64) !== 0x06064b50) throw unreadable();
    count = u64(end64 + 32);
    directorySize = u64(end64 + 40);
    directoryOffset = u64(end64 + 48);
  }
  if (!(directoryOffset + directorySize <= bytes.length)) throw unreadable();
  if (count > ZIP_LIMITS.entries) {
    throw new BookmarkFileRefused(`The zip file holds ${formatNumber(count)} files, more than the ${formatNumber(ZIP_LIMITS.entries)} linkshelf reads.`);
  }

  const entries: ZipEntry[] = [];
  let at = directoryOffset;
  for (let n = 0; n < count; n++) {
    if (u32(at) !== 0x02014b50) throw unreadable();
    const flags = u16(at + 8);
    const nameLength = u16(at + 28);
    const extraLength = u16(at + 30);
    const nameBytes = bytes.subarray(at + 46, at + 46 + nameLength);
    // Bit 11: the name is UTF-8; else each byte is a character, as fflate reads it.
    const name = flags & 0x800 ? new TextDecoder().decode(nameBytes) : Array.from(nameBytes, (byte) => String.fromCharCode(byte)).join("");
    const entry: ZipEntry = {
      name, method: u16(at + 10), encrypted: (flags & 1) === 1,
      packedSize: u32(at + 20), declaredSize: u32(at + 24), headerOffset: u32(at + 42),
    };
    // Zip64's extra field holds, in this order, each size or offset too large for 32 bits.
    const extraEnd = at + 46 + nameLength + extraLength;
    for (let field = at + 46 + nameLength; field + 4 <= extraEnd; field += 4 + u16(field + 2)) {
      if (u16(field) !== 0x0001) continue;
      let value = field + 4;
      for (const key of ["declaredSize", "packedSize", "headerOffset"] as const) {
        if (entry[key] === 0xffffffff) entry[key] = u64(value), value += 8;
      }
    }
    if (![entry.packedSize, entry.declaredSize, entry.headerOffset].every(Number.isSafeInteger)) throw unreadable();
    entries.push(entry);
    at = extraEnd + u16(at + 32);
  }
  if (at > directoryOffset + directorySize) throw unreadable();
  return entries;
}

/**
 * checkDeclared refuses (BookmarkFileRefused) entries whose declared sizes are beyond
 * ZIP_LIMITS or impossible, before anything is inflated: more than one entry or all of them
 * may give, a ratio no real file has, a stored entry whose two sizes differ, an encrypted
 * entry or a method linkshelf does not read.
 */
function checkDeclared(entries: ZipEntry[]): void {
  let total = 0;
  for (const entry of entries) {
    const named = `“${entry.name}” in the zip file`;
    if (entry.encrypted) throw new BookmarkFileRefused(`${named} is encrypted: linkshelf reads only files that are not.`);
    if (entry.method !== 0 && entry.method !== 8) {
      throw new BookmarkFileRefused(`${named} is packed with a method linkshelf does not read (${entry.method}); export the zip again, or unpack it and import its files.`);
    }
    if (entry.method === 0 && entry.packedSize !== entry.declaredSize) throw damaged(`${named} states two sizes`);
    if (entry.declaredSize > ZIP_LIMITS.entryBytes) {
      throw new BookmarkFileRefused(`${named} unpacks to ${MiB(entry.declaredSize)} MiB, more than the ${MiB(ZIP_LIMITS.entryBytes)} MiB linkshelf reads from one file of a zip.`);
    }
    if (entry.declaredSize > ZIP_LIMITS.ratio * entry.packedSize) {
      throw new BookmarkFileRefused(`${named} claims to unpack to more than ${formatNumber(ZIP_LIMITS.ratio)} times its packed size, which no export does: the zip file is damaged or made to overload the server.`);
    }
    total += entry.declaredSize;
  }
  if (total > ZIP_LIMITS.bytes) {
    throw new BookmarkFileRefused(`The zip file unpacks to ${MiB(total)} MiB, more than the ${MiB(ZIP_LIMITS.bytes)} MiB linkshelf reads.`);
  }
}

/**
 * inflateEntries inflates `entries` of the zip `bytes` (from zipDirectory), one after another,
 * each as a stream, with the event loop running between slices, and yields each one's name and
 * bytes when it is whole (the caller lets go of one before the next is inflated). It refuses
 * (BookmarkFileRefused) when the declared sizes are beyond ZIP_LIMITS or impossible, before
 * inflating any, and stops inflating the moment an entry gives more than its directory says or
 * than ZIP_LIMITS allow, counted on the bytes produced; `tally` counts them for the caller.
 */
export async function* inflateEntries(bytes: Uint8Array, entries: ZipEntry[], tally: InflateTally = { produced: 0 }): AsyncGenerator<[string, Uint8Array]> {
  checkDeclared(entries);
  /** Bytes produced by this call, all entries together. */
  let total = 0;
  let sinceYield = { produced: 0, packed: 0 };
  for (const entry of entries) {
    const named = `“${entry.name}” in the zip file`;
    // The most this entry may give: what it declares, within what one entry and the rest of the zip may.
    // checkDeclared makes the declared size the smallest; the caps bound the inflating all the same.
    const allowed = Math.min(entry.declaredSize, ZIP_LIMITS.entryBytes, ZIP_LIMITS.bytes - total);
    /** refuseBeyond throws once `produced` bytes of this entry pass what it is allowed, naming the bound it passed. */
    const refuseBeyond = (produced: number) => {
      if (produced <= allowed) return;
      if (allowed === entry.declaredSize) {
        throw new BookmarkFileRefused(`${named} unpacks to more than the ${formatNumber(entry.declaredSize)} bytes the zip states for it: the zip file is damaged or made to overload the server.`);
      }
      if (allowed === ZIP_LIMITS.entryBytes) {
        throw new BookmarkFileRefused(`${named} unpacks to more than the ${MiB(ZIP_LIMITS.entryBytes)} MiB linkshelf reads from one file of a zip.`);
      }
      throw new BookmarkFileRefused(`The zip file unpacks to more than the ${MiB(ZIP_LIMITS.bytes)} MiB linkshelf reads.`);
    };
    const start = dataStart(bytes, entry);
    const packed = bytes.subarray(start, start + entry.packedSize);
    if (entry.method === 0 || entry.packedSize === 0) {
      // Stored, or empty: what comes out is what is there.
      total += packed.length;
      tally.produced += packed.length;
      refuseBeyond(packed.length);
      if (entry.method === 8 && entry.declaredSize !== 0) throw damaged(`${named} holds no data`);
      yield [entry.name, packed];
      continue;
    }
    const chunks: Uint8Array[] = [];
    let produced = 0;
    /** The most this entry has expanded in one push so far. */
    let expansion = 1;
    const inflater = new Inflate((chunk) => {
      produced += chunk.length;
      total += chunk.length;
      tally.produced += chunk.length;
      sinceYield.produced += chunk.length;
      chunks.push(chunk);
    });
    for (let at = 0; at < packed.length;) {
      // Small enough that what comes out passes `allowed` by 64 KiB at most.
      const size = Math.max(MIN_PUSH_BYTES, Math.min(PUSH_BYTES, Math.floor(PUSH_OUTPUT / expansion), Math.floor((allowed - produced) / DEFLATE_MAX_EXPANSION)));
      const slice = packed.subarray(at, at + size);
      at += slice.length;
      const before = produced;
      try {
        inflater.push(slice, at >= packed.length);
      } catch {
        throw damaged(`linkshelf cannot unpack ${named}`);
      }
      refuseBeyond(produced);
      expansion = Math.max(expansion, (produced - before) / slice.length);
      sinceYield.packed += slice.length;
      if (sinceYield.produced >= STEP_PRODUCED || sinceYield.packed >= STEP_PACKED) {
        sinceYield = { produced: 0, packed: 0 };
        await pause();
      }
    }
    if (produced !== entry.declaredSize) throw damaged(`${named} unpacks to ${formatNumber(produced)} bytes, not the ${formatNumber(entry.declaredSize)} the zip states`);
    yield [entry.name, concat(chunks, produced)];
  }
}

/** unzipEntries is inflateEntries gathered: every entry's bytes by name, all held at once. */
export async function unzipEntries(bytes: Uint8Array, entries: ZipEntry[], tally: InflateTally = { produced: 0 }): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for await (const [name, data] of inflateEntries(bytes, entries, tally)) files.set(name, data);
  return files;
}

/** dataStart is where an entry's packed bytes start, past its local header; refuses an entry whose bytes are not all in the file. */
function dataStart(bytes: Uint8Array, entry: ZipEntry): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.headerOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== 0x04034b50) throw damaged(`linkshelf cannot find “${entry.name}” in it`);
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  if (start + entry.packedSize > bytes.length) throw damaged(`“${entry.name}” ends past the end of the file`);
  return start;
}

/** concat joins chunks of `length` bytes in all into one array (the one chunk itself when there is one). */
function concat(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const joined = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) joined.set(chunk, at), at += chunk.length;
  return joined;
}
