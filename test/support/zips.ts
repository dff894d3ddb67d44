/**
 * Zip files for the tests and benches of zip reading, hostile ones included: a deflate stream of
 * any length made from one repeated chunk (never the whole input in memory), and a zip around
 * such streams whose directory states whatever size it is told.
 */
import { constants, deflateRawSync } from "node:zlib";
import { strToU8, zipSync } from "fflate";
import { ZIP_LIMITS } from "../../src/bookmarks/zip";

const MiB = 1024 * 1024;

/**
 * deflated is the raw deflate stream of `chunk` repeated `times` times (zlib's level 9), made in
 * the time of two chunks: the chunk deflated alone, then deflated again with the chunk's last
 * 32 KiB as the window before it (deflate looks no further back), each ended at a byte boundary
 * (a sync flush); the second stands for every later chunk, and an empty final block ends it.
 */
export function deflated(chunk: Uint8Array, times: number): Uint8Array {
  const options = { level: 9, finishFlush: constants.Z_SYNC_FLUSH };
  const first = deflateRawSync(chunk, options);
  const again = deflateRawSync(chunk, { ...options, dictionary: chunk.subarray(-32 * 1024) });
  // An empty stored block marked final.
  const end = Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]);
  return new Uint8Array(Buffer.concat([first, ...Array.from({ length: times - 1 }, () => again), end]));
}

/** spaces is the deflate stream of `mebibytes` MiB of spaces: about 1,000 times smaller. */
export const spaces = (mebibytes: number) => deflated(new Uint8Array(MiB).fill(0x20), mebibytes);

/** One file of a zip written by rawZip: its packed bytes, and the inflated size its headers state. */
export interface RawEntry {
  name: string;
  /** 8 (deflated, the default) or 0 (stored). */
  method?: number;
  packed: Uint8Array;
  declaredSize: number;
}

/**
 * rawZip writes a zip of `entries` as they are given: each local header and the central
 * directory state `declaredSize` (true or not), the packed bytes follow as they are, and the
 * CRC is left 0 (linkshelf does not check it; neither did the reader before it).
 */
export function rawZip(entries: RawEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(entry.method ?? 8, 8);
    local.writeUInt32LE(entry.packed.length, 18);
    local.writeUInt32LE(entry.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(0x800, 8);
    record.writeUInt16LE(entry.method ?? 8, 10);
    record.writeUInt32LE(entry.packed.length, 20);
    record.writeUInt32LE(entry.declaredSize, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(offset, 42);
    parts.push(local, name, Buffer.from(entry.packed.buffer, entry.packed.byteOffset, entry.packed.byteLength));
    central.push(record, name);
    offset += local.length + name.length + entry.packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, directory, end]));
}

/** lyingZip is the hostile zip: `count` CSV parts that each state `declaredSize` bytes and hold `mebibytes` MiB of spaces (one stream, written once). */
export function lyingZip(count: number, mebibytes: number, declaredSize = 200): Uint8Array {
  const packed = spaces(mebibytes);
  return rawZip(Array.from({ length: count }, (_, n) => ({ name: `part_${String(n).padStart(6, "0")}.csv`, packed, declaredSize })));
}

/** honestZip is one CSV part that states and holds `mebibytes` MiB: a header line, then spaces. */
export function honestZip(mebibytes: number): Uint8Array {
  const header = Buffer.from("title,url,time_added,tags,status\n");
  const chunk = new Uint8Array(MiB).fill(0x20);
  chunk.set(header);
  return rawZip([{ name: "part_000000.csv", packed: deflated(chunk, mebibytes), declaredSize: mebibytes * MiB }]);
}

/**
 * pocketRows is `bytes` of Pocket CSV rows (no header), each a different item, titles of
 * `titleWords` words beyond their number: they pack about 5 times, as real exports do. The last
 * row is cut where `bytes` ends.
 */
export function pocketRows(bytes: number, titleWords = 0, first = 0): Uint8Array {
  const lines: string[] = [];
  const words = " words".repeat(titleWords);
  for (let n = first, length = 0; length < bytes; n++) {
    const line = `"Article ${n}${words}",https://site${(n * 7919) % 100_003}.example/${n},${1600000000 + n * 37},tag ${n % 211},unread\n`;
    lines.push(line);
    length += line.length;
  }
  return strToU8(lines.join("").slice(0, bytes));
}

/** zipAtTheCaps is a Pocket export as large as a zip may give: two CSV parts as large as one may be (16 MiB), about 24,000 items with long titles each. */
export function zipAtTheCaps(): Uint8Array {
  const header = strToU8("title,url,time_added,tags,status\n");
  const part = (first: number) => {
    const body = pocketRows(ZIP_LIMITS.entryBytes - header.length, 100, first);
    const file = new Uint8Array(ZIP_LIMITS.entryBytes);
    file.set(header);
    file.set(body, header.length);
    return file;
  };
  return zipSync({ "part_000000.csv": part(0), "part_000001.csv": part(1_000_000) });
}
