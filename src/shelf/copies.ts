/**
 * A shelf's page copies: one self-contained HTML file per link, made by the browser extension of
 * the page as the owner saw it, stored compressed (Zstandard) in `link_copies`. The body is read
 * only to serve a copy, export it or index its text; what lists show (`copy` in a link's JSON:
 * when and how large) comes from the row's small columns. Each owner's copies fit in a quota of
 * stored bytes (`LINKSHELF_COPY_QUOTA`): a copy that would pass it is refused whole (507), as is
 * one larger than COPY_LIMITS before compression (413). A link in the trash keeps its copy; a
 * link deleted for good loses it (src/shelf/trash.ts).
 */
import { and, eq, sql } from "drizzle-orm";
import { linkCopies, links } from "../db/schema";
import { InsufficientStorage, NotFound, PayloadTooLarge } from "../common/errors";
import { formatBytes } from "../common/format";
import { iso } from "../common/timestamps";
import { COPY_LIMITS, DEFAULT_COPY_QUOTA } from "./limits";
import type { Owner } from "./scope";

/** What is known of a link's copy without reading it: when it was saved and its size before compression. */
export interface CopySummary {
  savedAt: string;
  bytes: number;
}

/** One copy as stored: its HTML file compressed (Zstandard; copyHtml reads it) and when it was saved. */
export interface StoredCopy {
  zstd: Uint8Array;
  savedAt: string;
}

/** How much of the quota the owner's copies use. */
export interface CopyUsage {
  copies: number;
  /** Stored (compressed) bytes: what the quota counts. */
  storedBytes: number;
  /** The bytes of the files before compression. */
  bytes: number;
}

/** packCopy compresses a copy for storage (Zstandard, level 3: a 20 MiB file in a fraction of a second). */
export const packCopy = (html: Uint8Array): Buffer => Bun.zstdCompressSync(html, { level: 3 });

/** copyHtml is the HTML file of a stored copy. */
export const copyHtml = (copy: StoredCopy): Uint8Array => Bun.zstdDecompressSync(copy.zstd);

/** copyHtmlOffThread is copyHtml decompressed on Bun's thread pool, for a request that must not hold the server. */
export const copyHtmlOffThread = (copy: StoredCopy): Promise<Uint8Array> => Bun.zstdDecompress(copy.zstd);

/** The message of a copy over COPY_LIMITS. */
export const COPY_TOO_LARGE = `A page copy may be at most ${formatBytes(COPY_LIMITS.bytes)} before compression: nothing was stored.`;

export class ShelfCopies {
  constructor(private readonly owner: Owner) {}

  /** The owner's link `id` (NotFound: another user's or unknown). */
  private ownLink(id: number): void {
    const found = this.owner.db.select({ id: links.id }).from(links).where(and(eq(links.id, id), eq(links.userId, this.owner.user.id))).get();
    if (!found) throw new NotFound();
  }

  /**
   * save stores `html` as the copy of one of the owner's links, replacing the one it had, in one
   * transaction (a savepoint inside the caller's: an import's): larger than COPY_LIMITS before
   * compression is PayloadTooLarge, and a copy that would take the owner's copies past their quota
   * of stored bytes is InsufficientStorage (507); either way nothing is stored and an older copy
   * stays. Returns what it stored and whether it replaced one.
   */
  save(id: number, html: Uint8Array, now: number): { copy: CopySummary; replaced: boolean } {
    const quotaBytes = this.owner.copyQuota ?? DEFAULT_COPY_QUOTA;
    if (html.byteLength > COPY_LIMITS.bytes) throw new PayloadTooLarge(COPY_LIMITS.bytes, COPY_TOO_LARGE);
    this.ownLink(id);
    // Compressed before the transaction: it holds the database only for the writes.
    const body = packCopy(html);
    const { db, user } = this.owner;
    return db.$client.transaction(() => {
      this.ownLink(id);
      const { others, replaced } = db.select({
        others: sql<number>`coalesce(sum(CASE WHEN ${linkCopies.linkId} <> ${id} THEN ${linkCopies.storedBytes} END), 0)`,
        replaced: sql<number>`count(CASE WHEN ${linkCopies.linkId} = ${id} THEN 1 END)`,
      }).from(linkCopies).where(eq(linkCopies.userId, user.id)).get()!;
      if (others + body.byteLength > quotaBytes) {
        throw new InsufficientStorage("COPY_QUOTA_EXCEEDED", quotaBytes === 0
          ? "This server keeps no page copies (LINKSHELF_COPY_QUOTA is 0): nothing was stored."
          : `This copy (${formatBytes(body.byteLength)} compressed) would take your page copies past your ${formatBytes(quotaBytes)}: ` +
            `they use ${formatBytes(others)}${replaced ? " besides this link's" : ""}. Delete some copies, or ask the server's owner for more room. Nothing was stored.`);
      }
      db.insert(linkCopies).values({ linkId: id, userId: user.id, bytes: html.byteLength, storedBytes: body.byteLength, savedAt: now, body })
        .onConflictDoUpdate({ target: linkCopies.linkId, set: { bytes: html.byteLength, storedBytes: body.byteLength, savedAt: now, body } }).run();
      return { copy: { savedAt: iso(now), bytes: html.byteLength }, replaced: replaced > 0 };
    }).immediate();
  }

  /** find is the copy of one of the owner's links; undefined for another user's or an unknown link, or one without a copy. */
  find(id: number): StoredCopy | undefined {
    const row = this.owner.db.select({ body: linkCopies.body, savedAt: linkCopies.savedAt }).from(linkCopies)
      .innerJoin(links, eq(links.id, linkCopies.linkId))
      .where(and(eq(linkCopies.linkId, id), eq(links.userId, this.owner.user.id))).get();
    return row && { zstd: row.body, savedAt: iso(row.savedAt) };
  }

  /** get is the copy of one of the owner's links (NotFound: another user's or unknown link, or no copy). */
  get(id: number): StoredCopy {
    const copy = this.find(id);
    if (copy) return copy;
    this.ownLink(id);
    throw new NotFound("This link has no page copy.");
  }

  /** summary is what is known of the copy of one of the owner's links without reading it; null when it has none (NotFound: another user's or unknown link). */
  summary(id: number): CopySummary | null {
    this.ownLink(id);
    const row = this.owner.db.select({ bytes: linkCopies.bytes, savedAt: linkCopies.savedAt }).from(linkCopies).where(eq(linkCopies.linkId, id)).get();
    return row ? { bytes: row.bytes, savedAt: iso(row.savedAt) } : null;
  }

  /** delete deletes the copy of one of the owner's links (NotFound: another user's or unknown link, or no copy). */
  delete(id: number): void {
    this.owner.db.transaction(() => {
      this.ownLink(id);
      const gone = this.owner.db.delete(linkCopies).where(and(eq(linkCopies.linkId, id), eq(linkCopies.userId, this.owner.user.id))).returning({ id: linkCopies.linkId }).all();
      if (gone.length === 0) throw new NotFound("This link has no page copy.");
    }, { behavior: "immediate" });
  }

  /** quota is the stored bytes the owner's page copies may take. */
  get quota(): number {
    return this.owner.copyQuota ?? DEFAULT_COPY_QUOTA;
  }

  /** usage is how much of the quota the owner's copies take (those of links in the trash included): one query on the owner's index. */
  usage(): CopyUsage {
    return this.owner.db.select({
      copies: sql<number>`count(*)`,
      storedBytes: sql<number>`coalesce(sum(${linkCopies.storedBytes}), 0)`,
      bytes: sql<number>`coalesce(sum(${linkCopies.bytes}), 0)`,
    }).from(linkCopies).where(eq(linkCopies.userId, this.owner.user.id)).get()!;
  }
}
