import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { collections, linkCollections, links, type LinkRow } from "../db/schema";
import { NotFound } from "../errors";
import { Rules } from "../rules";
import { toLinkJson, type CreateLinkInput, type LinkJson, type UpdateLinkInput } from "./model";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
type DbOrTx = Db | Tx;

export const LINK_LIMITS = { name: 254, description: 300 } as const;

/** requireOwnedLink returns the user's link with that id, or throws NotFound (also for other users' links). */
export function requireOwnedLink(db: DbOrTx, userId: number, id: number): LinkRow {
  const link = db.select().from(links).where(and(eq(links.id, id), eq(links.userId, userId))).get();
  if (!link) throw new NotFound();
  return link;
}

/** inboxId returns the id of the user's default collection. */
export function inboxId(db: DbOrTx, userId: number): number {
  return db
    .select({ id: collections.id })
    .from(collections)
    .where(and(eq(collections.userId, userId), eq(collections.isDefault, true)))
    .get()!.id;
}

/**
 * resolveCollectionIds folds duplicates, sorts, falls back to the Inbox when empty, and
 * records a violation unless every id is one of the user's collections. Unknown ids and
 * other users' ids get the same message, so nothing leaks.
 */
function resolveCollectionIds(db: DbOrTx, userId: number, ids: number[] | undefined, rules: Rules): number[] {
  const wanted = [...new Set(ids ?? [])].sort((a, b) => a - b);
  if (wanted.length === 0) return [inboxId(db, userId)];
  const owned = db
    .select({ n: sql<number>`count(*)` })
    .from(collections)
    .where(and(eq(collections.userId, userId), sql`${collections.id} IN (SELECT value FROM json_each(${JSON.stringify(wanted)}))`))
    .get()!.n;
  if (owned !== wanted.length) rules.fail("/collectionIds", "Expected ids of your own collections");
  return wanted;
}

function setMemberships(tx: Tx, linkId: number, collectionIds: number[]): void {
  tx.delete(linkCollections).where(eq(linkCollections.linkId, linkId)).run();
  tx.insert(linkCollections).values(collectionIds.map((collectionId) => ({ linkId, collectionId }))).run();
}

/** createLink stores a new link (clicks 0) in its collections, or the Inbox. */
export function createLink(db: Db, userId: number, input: CreateLinkInput, now: number): LinkJson {
  return db.transaction((tx) => {
    const rules = new Rules();
    const name = rules.text("/name", input.name, 1, LINK_LIMITS.name);
    const description = rules.text("/description", input.description ?? "", 0, LINK_LIMITS.description);
    const url = rules.url("/url", input.url);
    const collectionIds = resolveCollectionIds(tx, userId, input.collectionIds, rules);
    rules.check();
    const row = tx
      .insert(links)
      .values({ userId, name, description, url, favorite: input.favorite, createdAt: now, updatedAt: now })
      .returning()
      .all()[0]!;
    setMemberships(tx, row.id, collectionIds);
    return toLinkJson(row, collectionIds);
  }, { behavior: "immediate" });
}

/** updateLink replaces a link's fields and collections; an omitted description keeps its value. */
export function updateLink(db: Db, userId: number, id: number, input: UpdateLinkInput, now: number): void {
  db.transaction((tx) => {
    const current = requireOwnedLink(tx, userId, id);
    const rules = new Rules();
    const name = rules.text("/name", input.name, 1, LINK_LIMITS.name);
    const description = rules.text("/description", input.description ?? current.description, 0, LINK_LIMITS.description);
    const url = rules.url("/url", input.url);
    const collectionIds = resolveCollectionIds(tx, userId, input.collectionIds, rules);
    rules.check();
    tx.update(links).set({ name, description, url, favorite: input.favorite, updatedAt: now }).where(eq(links.id, id)).run();
    setMemberships(tx, id, collectionIds);
  }, { behavior: "immediate" });
}

/** deleteLink deletes one of the user's links (its memberships go with it). */
export function deleteLink(db: Db, userId: number, id: number): void {
  db.transaction((tx) => {
    requireOwnedLink(tx, userId, id);
    tx.delete(links).where(eq(links.id, id)).run();
  }, { behavior: "immediate" });
}
