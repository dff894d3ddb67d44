/**
 * Firefox's compressed files (`.jsonlz4`, the automatic bookmark backups): the magic `mozLz40\0`,
 * the decompressed size as a 32-bit little-endian number, then one LZ4 block. Read here, with every
 * length checked against the input and the output before it is used, rather than with an npm LZ4
 * decoder: the one there is (lz4js, used by the tests as an independent encoder) trusts the
 * block's lengths, so a hostile file claiming a literal run of billions of bytes keeps its copy
 * loop going long after the input ends, holding the server. The size is bounded as a zip's
 * files are (MOZ_LZ4_LIMITS), and LZ4 cannot expand more than 255 times, so a header claiming
 * more is refused before anything is decoded.
 */
import { BookmarkFileRefused } from "./netscape";
import { ZIP_LIMITS } from "./zip";

/** The first bytes of a mozLz4 file: `mozLz40\0`. */
export const MOZ_LZ4_MAGIC = [0x6d, 0x6f, 0x7a, 0x4c, 0x7a, 0x34, 0x30, 0x00] as const;

export const MOZ_LZ4_LIMITS = {
  /** The most one file may decompress to: as much as the files of a zip together. */
  bytes: ZIP_LIMITS.bytes,
  /** LZ4's own bound: a byte of input gives at most 255 of output (a match length byte of 0xff). */
  ratio: 255,
} as const;

/** The fewest bytes a match copies (LZ4's `MINMATCH`). */
const MIN_MATCH = 4;
const HEADER_BYTES = 12;

/**
 * readMozLz4 decompresses a mozLz4 file (its magic checked by the caller) into exactly the size its
 * header declares; one that is damaged or beyond MOZ_LZ4_LIMITS is refused (BookmarkFileRefused).
 */
export function readMozLz4(file: Uint8Array): Uint8Array {
  if (file.length < HEADER_BYTES) throw new BookmarkFileRefused("The compressed file ends before its header does.");
  const size = new DataView(file.buffer, file.byteOffset, file.byteLength).getUint32(8, true);
  const packed = file.length - HEADER_BYTES;
  if (size > MOZ_LZ4_LIMITS.bytes) {
    throw new BookmarkFileRefused(`The compressed file declares ${size.toLocaleString("en")} bytes, more than the ${(MOZ_LZ4_LIMITS.bytes / 1024 / 1024).toFixed(0)} MiB linkshelf reads from one file.`);
  }
  if (size > packed * MOZ_LZ4_LIMITS.ratio) throw new BookmarkFileRefused("The compressed file declares more than its bytes can hold: it is damaged.");
  const out = new Uint8Array(size);
  const damaged = () => new BookmarkFileRefused("The compressed file is damaged: its data does not decompress to the size it declares.");
  let at = HEADER_BYTES;
  let written = 0;
  /** length reads a run length: the token's nibble, and while it is 15, the bytes after it, each added, until one is not 255. */
  const length = (nibble: number): number => {
    let total = nibble;
    if (nibble !== 15) return total;
    for (;;) {
      if (at >= file.length) throw damaged();
      const byte = file[at++]!;
      total += byte;
      if (total > size) throw damaged();
      if (byte !== 255) return total;
    }
  };
  while (at < file.length) {
    const token = file[at++]!;
    const literals = length(token >> 4);
    if (literals > file.length - at || literals > size - written) throw damaged();
    out.set(file.subarray(at, at + literals), written);
    at += literals;
    written += literals;
    // The last sequence is literals alone.
    if (at === file.length) break;
    if (at + 2 > file.length) throw damaged();
    const offset = file[at]! | (file[at + 1]! << 8);
    at += 2;
    const match = length(token & 15) + MIN_MATCH;
    if (offset === 0 || offset > written || match > size - written) throw damaged();
    // A match may overlap what it writes (offset < match): byte by byte, or in steps of `offset`.
    if (offset >= match) out.copyWithin(written, written - offset, written - offset + match);
    else for (let i = 0; i < match; i++) out[written + i] = out[written - offset + i]!;
    written += match;
  }
  if (written !== size) throw damaged();
  return out;
}
