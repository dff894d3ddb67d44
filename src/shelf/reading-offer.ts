/**
 * The offer to turn the collections named "To read" and "Archive" that earlier imports made
 * into the reading flags. Imports once put a service's reading list and archive in such
 * collections; they now set the flags instead, and the links of those earlier imports are left
 * as they are unless the owner says so, once, on the To read view: accepted, the links of every
 * such collection are marked (to read, archived; a flag is added, never cleared) and the
 * collections stay (the owner may delete them); declined, nothing changes. Either answer is
 * stored (`reading_offers`) and the offer is not shown again. Only collections an import
 * created count (`collections.import_id`), never one the owner made or named so.
 */
import { eq, sql } from "drizzle-orm";
import { readingOffers } from "../db/schema";
import { addFlags } from "./links";
import type { Owner } from "./scope";

/** The collection names earlier imports gave a service's reading list and archive. */
export const OFFERED_NAMES = { toRead: "To read", archived: "Archive" } as const;

/** What the offer would do: the links of those collections, in all and by flag. */
export interface ReadingOffer {
  /** Links in any of them (a link in both counts once). */
  links: number;
  /** Links in a collection named "To read" an import made. */
  toRead: number[];
  /** Links in a collection named "Archive" an import made. */
  archived: number[];
}

export class ShelfReadingOffer {
  constructor(private readonly owner: Owner) {}

  /** answered says whether the owner answered the offer (either way). */
  answered(): boolean {
    return this.owner.db.select({ userId: readingOffers.userId }).from(readingOffers).where(eq(readingOffers.userId, this.owner.user.id)).get() !== undefined;
  }

  /**
   * pending is the offer to show: the links of the owner's collections named "To read" or
   * "Archive" that an import created; null once answered, or when those collections hold no link.
   */
  pending(): ReadingOffer | null {
    if (this.answered()) return null;
    const offer = this.links();
    return offer.links === 0 ? null : offer;
  }

  /**
   * accept marks the links of the offer (to read, archived), leaves the collections, and stores
   * the answer, in one transaction. Returns how many links it marked each way (a link already
   * marked counts too); null when the offer was answered already (nothing changes).
   */
  accept(now: number): { toRead: number; archived: number } | null {
    const { db } = this.owner;
    return db.transaction(() => {
      if (this.answered()) return null;
      const offer = this.links();
      addFlags(this.owner, offer.toRead, { toRead: true, archived: false }, now);
      addFlags(this.owner, offer.archived, { toRead: false, archived: true }, now);
      this.answer("accepted", now);
      return { toRead: offer.toRead.length, archived: offer.archived.length };
    }, { behavior: "immediate" });
  }

  /** decline stores "No thanks": the offer is not shown again and nothing else changes. False when it was answered already. */
  decline(now: number): boolean {
    const { db } = this.owner;
    return db.transaction(() => {
      if (this.answered()) return false;
      this.answer("declined", now);
      return true;
    }, { behavior: "immediate" });
  }

  private answer(answer: "accepted" | "declined", now: number): void {
    this.owner.db.insert(readingOffers).values({ userId: this.owner.user.id, answer, answeredAt: now }).run();
  }

  /** links reads the links of the owner's import-made collections of the offered names: one query. */
  private links(): ReadingOffer {
    const rows = this.owner.db.all<{ name: string; linkId: number }>(sql`
      SELECT c.name AS name, lc.link_id AS linkId FROM collections c JOIN link_collections lc ON lc.collection_id = c.id
      WHERE c.user_id = ${this.owner.user.id} AND c.import_id IS NOT NULL AND c.name IN (${OFFERED_NAMES.toRead}, ${OFFERED_NAMES.archived})`);
    const toRead = new Set<number>();
    const archived = new Set<number>();
    for (const row of rows) (row.name === OFFERED_NAMES.toRead ? toRead : archived).add(row.linkId);
    return { links: new Set([...toRead, ...archived]).size, toRead: [...toRead], archived: [...archived] };
  }
}
