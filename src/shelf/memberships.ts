/**
 * The one writer of `link_collections` rows: every way a link is put in a collection (created in
 * one, added by an edit, a batch, the bulk action or an import, moved to the Inbox when its
 * collection is deleted, put back by a trash restore) goes through a function of this module,
 * which marks the change feed in the same statement run or transaction: the link (its
 * `collectionIds` changed) and the collection (its `order` changed). A new link is always put in
 * a collection, so this marks new links too (drizzle/0013 dropped the insert triggers, which cost
 * an import ~3 µs a row). Taking a link out of a collection is still marked by a trigger
 * (`changes_membership_delete`): foreign-key cascades do it too, which no code sees. No other
 * file inserts into `link_collections` (test/unit/memberships.source.test.ts checks the sources).
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { linkCollections } from "../db/schema";
import { nextPosition } from "./order";
import type { Owner } from "./scope";

/**
 * Each collection's next free place, kept by a writer that adds many links in one transaction (an
 * import) so that a place is looked up once per collection, not once per link.
 */
export type NextPlaces = Map<number, number>;

/** A membership with its place, as the trash keeps it. */
export interface PlacedMembership {
  linkId: number;
  collectionId: number;
  position: number;
}

/**
 * mark marks, in the caller's transaction, the links put in collections and those collections
 * in the change feed (`pending_changes`), in one statement however many.
 */
function mark(db: Db, userId: number, linkIds: Iterable<number>, collectionIds: Iterable<number>): void {
  // Raw statement (a measured hot path): every link written marks here; compiled once and kept, ~3 µs against ~10 µs as a `sql` template (POST /api/v1/links).
  db.$client.query<never, [number, string, string]>(`INSERT OR IGNORE INTO pending_changes (user_id, kind, item_id)
    SELECT ?1, 'link', value FROM json_each(?2) UNION ALL SELECT ?1, 'collection', value FROM json_each(?3)`)
    .run(userId, JSON.stringify([...linkIds]), JSON.stringify([...collectionIds]));
}

/**
 * Memberships adds memberships inside one transaction, each link at the end of each of its
 * collections' orders (`places`: each collection's next place, looked up once; a writer of many
 * transactions may keep them from one to the next), one compiled statement per row, and marks
 * everything it added in one statement at the end of `within`: an import of 100,000 links marks
 * them in a handful of statements.
 */
export class Memberships {
  private readonly links = new Set<number>();
  private readonly collections = new Set<number>();
  private readonly insert;

  private constructor(private readonly owner: Owner, private readonly places: NextPlaces) {
    // Raw statement (a measured hot path): compiled once and kept, an import runs it for every membership.
    this.insert = owner.db.$client.query<never, [number, number, number]>("INSERT INTO link_collections (link_id, collection_id, position) VALUES (?, ?, ?)");
  }

  /**
   * within runs `write` with a Memberships for the caller's transaction and then marks what it
   * added, so no writer can add memberships and forget their marks. Returns what `write` returns.
   */
  static within<T>(owner: Owner, places: NextPlaces, write: (memberships: Memberships) => T): T {
    const memberships = new Memberships(owner, places);
    const result = write(memberships);
    if (memberships.links.size > 0) mark(owner.db, owner.user.id, memberships.links, memberships.collections);
    return result;
  }

  /** add puts a link at the end of each of those collections' orders. */
  add(linkId: number, collectionIds: readonly number[]): void {
    for (const collectionId of collectionIds) {
      const position = this.places.get(collectionId) ?? nextPosition(this.owner, collectionId);
      this.places.set(collectionId, position + 1);
      this.insert.run(linkId, collectionId, position);
      this.collections.add(collectionId);
    }
    if (collectionIds.length > 0) this.links.add(linkId);
  }
}

/**
 * addMemberships puts a link at the end of each of those collections' orders, inside the caller's
 * transaction (`places`: each collection's next place, kept by a caller that adds many links, as
 * a batch does).
 */
export function addMemberships(owner: Owner, linkId: number, collectionIds: readonly number[], places: NextPlaces = new Map()): void {
  Memberships.within(owner, places, (memberships) => memberships.add(linkId, collectionIds));
}

/**
 * appendLinks puts those links at the end of one collection's order, in the order given, in one
 * statement (the bulk action's), inside the caller's transaction; a link already in it keeps its
 * place, and with `onlyHomeless` a link already in any collection is left out. Returns the ids added.
 */
export function appendLinks(owner: Owner, collectionId: number, linkIds: readonly number[], onlyHomeless = false): number[] {
  const { db, user } = owner;
  const added = db.all<{ linkId: number }>(sql`
    INSERT OR IGNORE INTO ${linkCollections} (link_id, collection_id, position)
    SELECT listed.value, ${collectionId}, ${nextPosition(owner, collectionId)} + listed.key FROM json_each(${JSON.stringify(linkIds)}) AS listed
    ${onlyHomeless ? sql`WHERE NOT EXISTS (SELECT 1 FROM ${linkCollections} AS lc WHERE lc.link_id = listed.value)` : sql``}
    RETURNING link_id AS linkId`).map((row) => row.linkId);
  if (added.length > 0) mark(db, user.id, added, [collectionId]);
  return added;
}

/**
 * adoptLoneLinks puts the links of collection `from` that are in no other collection at the end of
 * collection `to`'s order (in their order in `from`), in one statement, inside the caller's
 * transaction: what deleting `from` does with them. Returns the ids moved.
 */
export function adoptLoneLinks(owner: Owner, from: number, to: number): number[] {
  const { db, user } = owner;
  const start = nextPosition(owner, to);
  const moved = db.all<{ linkId: number }>(sql`
    INSERT INTO ${linkCollections} (link_id, collection_id, position)
    SELECT lc.link_id, ${to}, ${start} + row_number() OVER (ORDER BY lc.position, lc.link_id) - 1 FROM ${linkCollections} AS lc
    WHERE lc.collection_id = ${from}
      AND NOT EXISTS (SELECT 1 FROM ${linkCollections} AS other WHERE other.link_id = lc.link_id AND other.collection_id <> ${from})
    RETURNING link_id AS linkId`).map((added) => added.linkId);
  if (moved.length > 0) mark(db, user.id, moved, [to]);
  return moved;
}

/**
 * putMemberships writes memberships at the places given (a trash restore puts them back where they
 * were), inside the caller's transaction, with one prepared statement bound row after row (a
 * restore of 10,000 links writes them in ~10 ms); one that exists already is left as it is.
 */
export function putMemberships(owner: Owner, memberships: readonly PlacedMembership[]): void {
  if (memberships.length === 0) return;
  const { db, user } = owner;
  // Raw statement (a measured hot path): a restore's memberships, bound row after row.
  const insert = db.$client.query<never, [number, number, number]>("INSERT OR IGNORE INTO link_collections (link_id, collection_id, position) VALUES (?, ?, ?)");
  for (const { linkId, collectionId, position } of memberships) insert.run(linkId, collectionId, position);
  mark(db, user.id, memberships.map((membership) => membership.linkId), new Set(memberships.map((membership) => membership.collectionId)));
}
