/**
 * How a page's text is stored: UTF-8 compressed with Zstandard (level 3). Page text is most of
 * what a database holds once pages are saved, and SQLite would otherwise also spread each
 * few-kilobyte text over overflow pages; compressed, a typical text takes under half its size.
 */

/** packText is the stored form of a text. */
export const packText = (text: string): Buffer => Bun.zstdCompressSync(Buffer.from(text, "utf8"), { level: 3 });

/** unpackText is the text of its stored form. */
export const unpackText = (stored: Uint8Array): string => Buffer.from(Bun.zstdDecompressSync(stored)).toString("utf8");
