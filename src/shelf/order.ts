/**
 * The tree of a shelf's collections and the order of their items. A collection's links
 * (`link_collections.position`) and its sub-collections (`collections.position` under its
 * `parent_id`) share one sequence of positions, as a browser folder interleaves bookmarks and
 * folders; the top level (no parent) has a sequence of its own, the Inbox always first. A new
 * item goes after the last one; a reorder writes the positions 0, 1, 2...; positions may have
 * gaps, and two items never compare equal (a collection before a link, then by id).
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { OrderItem } from "../contract/collections";
import { preparedQueries, type Db } from "../db/client";
import { collections, linkCollections, type CollectionRow } from "../db/schema";
import type { Rules } from "../common/rules";
import { TREE_DEPTH } from "./limits";
import type { Owner } from "./scope";

/** An item of an order with its position, as read. */
export type Placed = OrderItem & { position: number };

/** byPosition orders placed items: by position, then sub-collections before links, then by id. */
export function byPosition(a: Placed, b: Placed): number {
  return a.position - b.position || (a.kind === b.kind ? a.id - b.id : a.kind === "collection" ? -1 : 1);
}

const treeQueries = preparedQueries((db) => ({
  /**
   * The position after the last item of a collection (its links and its sub-collections). Each
   * max is a subquery of its own, which SQLite answers from the position index in one step; a
   * max inside an expression reads every membership of the collection (an import of 100,000
   * links into one collection took a minute).
   */
  nextInside: db
    .select({
      next: sql<number>`max(coalesce((SELECT max(position) FROM link_collections WHERE collection_id = ${sql.placeholder("parentId")}), -1), coalesce((
        SELECT max(position) FROM collections WHERE user_id = ${sql.placeholder("userId")} AND parent_id = ${sql.placeholder("parentId")}), -1)) + 1`,
    })
    .from(sql`(SELECT 1)`)
    .prepare(),
  placeLink: db.update(linkCollections).set({ position: sql.placeholder("position") as unknown as number })
    .where(and(eq(linkCollections.collectionId, sql.placeholder("collectionId")), eq(linkCollections.linkId, sql.placeholder("id")))).prepare(),
  placeCollection: db.update(collections).set({ position: sql.placeholder("position") as unknown as number })
    .where(and(eq(collections.userId, sql.placeholder("userId")), eq(collections.id, sql.placeholder("id")))).prepare(),
  nextAtTop: db
    .select({ next: sql<number>`coalesce(max(${collections.position}), -1) + 1` })
    .from(collections)
    .where(and(eq(collections.userId, sql.placeholder("userId")), isNull(collections.parentId)))
    .prepare(),
}));

/** nextPosition is the position after the last item of a collection of the owner's, or of the top level (null). */
export function nextPosition({ db, user }: Owner, parentId: number | null): number {
  const queries = treeQueries(db);
  return parentId === null ? queries.nextAtTop.get({ userId: user.id })!.next : queries.nextInside.get({ userId: user.id, parentId })!.next;
}

/**
 * itemsOf is a collection's items in their order, or the top level's collections (null). One
 * query each for its links and its sub-collections.
 */
export function itemsOf({ db, user }: Owner, parentId: number | null): Placed[] {
  const children = db.select({ id: collections.id, position: collections.position, isDefault: collections.isDefault }).from(collections)
    .where(and(eq(collections.userId, user.id), parentId === null ? isNull(collections.parentId) : eq(collections.parentId, parentId))).all();
  const items: Placed[] = children.map(({ id, position, isDefault }) => ({ kind: "collection", id, position: isDefault ? -Infinity : position }));
  if (parentId !== null) {
    const members = db.select({ id: linkCollections.linkId, position: linkCollections.position }).from(linkCollections)
      .where(eq(linkCollections.collectionId, parentId)).all();
    for (const { id, position } of members) items.push({ kind: "link", id, position });
  }
  return items.sort(byPosition);
}

/** writeOrder gives the items of a collection (or of the top level: null) the positions 0, 1, 2... in the order given (inside the caller's transaction). */
export function writeOrder(owner: Owner, parentId: number | null, items: readonly OrderItem[]): void {
  writePlaces(owner, parentId, items.map((item, position) => ({ ...item, position })));
}

/** writePlaces gives each item of a collection (or of the top level: null) the position it names (inside the caller's transaction). */
export function writePlaces({ db, user }: Owner, parentId: number | null, items: readonly Placed[]): void {
  const { placeLink, placeCollection } = treeQueries(db);
  for (const { kind, id, position } of items) {
    if (kind === "link") placeLink.run({ collectionId: parentId ?? -1, id, position });
    else placeCollection.run({ userId: user.id, id, position });
  }
}

/** sameItems says whether two lists name the same items, each once. */
export function sameItems(given: readonly OrderItem[], current: readonly OrderItem[]): boolean {
  if (given.length !== current.length) return false;
  const key = (item: OrderItem) => `${item.kind}:${item.id}`;
  const wanted = new Set(current.map(key));
  const seen = new Set<string>();
  for (const item of given) {
    const at = key(item);
    if (!wanted.has(at) || seen.has(at)) return false;
    seen.add(at);
  }
  return true;
}

/** ancestorsOf is a collection's chain of parents, nearest first (empty at the top level); it stops at TREE_DEPTH + 1 steps. */
export function ancestorsOf(db: Db, userId: number, id: number): number[] {
  return db.all<{ id: number }>(sql`
    WITH RECURSIVE up (id, steps) AS (
      SELECT parent_id, 1 FROM collections WHERE id = ${id} AND user_id = ${userId} AND parent_id IS NOT NULL
      UNION ALL
      SELECT c.parent_id, up.steps + 1 FROM collections AS c JOIN up ON c.id = up.id WHERE c.parent_id IS NOT NULL AND up.steps <= ${TREE_DEPTH}
    )
    SELECT id FROM up ORDER BY steps`).map((row) => row.id);
}

/** heightOf is how many levels a collection and its sub-collections take (1 for one without any). */
export function heightOf(db: Db, id: number): number {
  return db.all<{ height: number }>(sql`
    WITH RECURSIVE down (id, level) AS (
      SELECT ${id}, 1
      UNION ALL
      SELECT c.id, down.level + 1 FROM collections AS c JOIN down ON c.parent_id = down.id WHERE down.level <= ${TREE_DEPTH}
    )
    SELECT max(level) AS height FROM down`)[0]!.height;
}

/** The messages of a refused parent, at `/parentId`. */
export const PARENT_MESSAGES = {
  /** Unknown and another user's alike, so nothing leaks. */
  notYours: "Expected the id of one of your collections",
  inbox: "The Inbox holds no sub-collections",
  inboxMoves: "The Inbox stays at the top level",
  cycle: "A collection cannot go inside itself or one of its sub-collections",
  depth: `Collections nest at most ${TREE_DEPTH} levels deep`,
} as const;

/**
 * checkParent records at `/parentId` why `moving` (null: a new collection) may not go inside
 * `parentId`, if it may not: an unknown or another user's collection, the Inbox, itself or one
 * of its sub-collections, or a tree deeper than TREE_DEPTH. The top level (null) is always
 * allowed but for nothing; the Inbox itself stays there.
 */
export function checkParent(owner: Owner, moving: CollectionRow | null, parentId: number | null, rules: Rules): void {
  if (moving?.isDefault && parentId !== null) return rules.fail("/parentId", PARENT_MESSAGES.inboxMoves);
  if (parentId === null) return;
  const parent = owner.db.select({ isDefault: collections.isDefault }).from(collections)
    .where(and(eq(collections.id, parentId), eq(collections.userId, owner.user.id))).get();
  if (!parent) return rules.fail("/parentId", PARENT_MESSAGES.notYours);
  if (parent.isDefault) return rules.fail("/parentId", PARENT_MESSAGES.inbox);
  const above = ancestorsOf(owner.db, owner.user.id, parentId);
  if (moving && (parentId === moving.id || above.includes(moving.id))) return rules.fail("/parentId", PARENT_MESSAGES.cycle);
  const height = moving ? heightOf(owner.db, moving.id) : 1;
  if (above.length + 1 + height > TREE_DEPTH) rules.fail("/parentId", PARENT_MESSAGES.depth);
}
