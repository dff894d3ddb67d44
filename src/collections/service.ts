import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { collections, linkCollections, type CollectionRow, type UserRow } from "../db/schema";
import { Conflict, NotFound } from "../errors";
import { inboxId } from "../links/service";
import { Rules } from "../rules";
import { INBOX } from "../users/service";
import { toCollectionJson, type CollectionInput, type CollectionJson } from "./model";

type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

export const COLLECTION_LIMITS = { name: 254, description: 254 } as const;
export const DEFAULT_ICON = "📁";

/** requireOwnedCollection returns the user's collection with that id, or throws NotFound. */
export function requireOwnedCollection(db: DbOrTx, userId: number, id: number): CollectionRow {
  const row = db.select().from(collections).where(and(eq(collections.id, id), eq(collections.userId, userId))).get();
  if (!row) throw new NotFound();
  return row;
}

/**
 * checkCollectionInput applies the rules to a collection body. `current` is the stored
 * collection on update: an omitted description or icon keeps its value, and `null` or ""
 * clears it (a cleared icon is the default one again).
 */
function checkCollectionInput(input: CollectionInput, current?: CollectionRow) {
  const rules = new Rules();
  const name = rules.name("/name", input.name, 1, COLLECTION_LIMITS.name);
  const rawDescription = input.description === undefined ? current?.description ?? null : input.description;
  const description = rawDescription === null ? null : rules.text("/description", rawDescription, 0, COLLECTION_LIMITS.description) || null;
  const defaultIcon = current?.isDefault ? INBOX.icon : DEFAULT_ICON;
  const rawIcon = input.icon === undefined ? current?.icon ?? defaultIcon : input.icon;
  const icon = rawIcon.trim() === "" ? defaultIcon : rules.emoji("/icon", rawIcon);
  rules.check();
  return { name, description, visibility: input.visibility, icon };
}

/** createCollection creates an empty, non-default collection. */
export function createCollection(db: Db, user: UserRow, input: CollectionInput, now: number): CollectionJson {
  const values = checkCollectionInput(input);
  const row = db
    .insert(collections)
    .values({ ...values, userId: user.id, isDefault: false, createdAt: now, updatedAt: now })
    .returning()
    .all()[0]!;
  return toCollectionJson(row, user, []);
}

/** updateCollection changes a collection's name, description, visibility and icon. */
export function updateCollection(db: Db, userId: number, id: number, input: CollectionInput, now: number): void {
  db.transaction((tx) => {
    const values = checkCollectionInput(input, requireOwnedCollection(tx, userId, id));
    tx.update(collections).set({ ...values, updatedAt: now }).where(eq(collections.id, id)).run();
  }, { behavior: "immediate" });
}

/**
 * deleteCollection deletes a collection but never a link: links that were only in it move
 * to the Inbox, links that are elsewhere too just leave it. The Inbox cannot be deleted.
 */
export function deleteCollection(db: Db, userId: number, id: number): void {
  db.transaction((tx) => {
    const collection = requireOwnedCollection(tx, userId, id);
    if (collection.isDefault) throw new Conflict("DEFAULT_COLLECTION", "The Inbox collection cannot be deleted.");
    const inbox = inboxId(db, userId);
    tx.run(sql`
      INSERT INTO ${linkCollections} (link_id, collection_id)
      SELECT lc.link_id, ${inbox} FROM ${linkCollections} AS lc
      WHERE lc.collection_id = ${id}
        AND NOT EXISTS (SELECT 1 FROM ${linkCollections} AS other WHERE other.link_id = lc.link_id AND other.collection_id <> ${id})`);
    tx.delete(collections).where(eq(collections.id, id)).run();
  }, { behavior: "immediate" });
}
