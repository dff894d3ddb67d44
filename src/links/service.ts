import { and, eq, sql } from "drizzle-orm";
import { preparedQueries, type Db } from "../db/client";
import { collections, linkCollections, links, type LinkRow } from "../db/schema";
import { NotFound } from "../errors";
import { Rules } from "../rules";
import { toLinkJson, type CreateLinkInput, type LinkJson, type UpdateLinkInput } from "./model";

type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

export const LINK_LIMITS = { name: 254, description: 300 } as const;

/** requireOwnedLink returns the user's link with that id, or throws NotFound (also for other users' links). */
export function requireOwnedLink(db: DbOrTx, userId: number, id: number): LinkRow {
  const link = db.select().from(links).where(and(eq(links.id, id), eq(links.userId, userId))).get();
  if (!link) throw new NotFound();
  return link;
}

/** What creating and updating a link runs, built once per database (a POST's own cost is mostly these). */
const linkQueries = preparedQueries((db) => ({
  inbox: db
    .select({ id: collections.id })
    .from(collections)
    .where(and(eq(collections.userId, sql.placeholder("userId")), eq(collections.isDefault, true)))
    .prepare(),
  ownedCount: db
    .select({ n: sql<number>`count(*)` })
    .from(collections)
    .where(and(
      eq(collections.userId, sql.placeholder("userId")),
      sql`${collections.id} IN (SELECT value FROM json_each(${sql.placeholder("ids")}))`,
    ))
    .prepare(),
  insertLink: db
    .insert(links)
    .values({
      userId: sql.placeholder("userId"), name: sql.placeholder("name"), description: sql.placeholder("description"),
      url: sql.placeholder("url"), favorite: sql.placeholder("favorite"),
      createdAt: sql.placeholder("now"), updatedAt: sql.placeholder("now"),
    })
    .returning()
    .prepare(),
  clearMemberships: db.delete(linkCollections).where(eq(linkCollections.linkId, sql.placeholder("linkId"))).prepare(),
  addMembership: db
    .insert(linkCollections)
    .values({ linkId: sql.placeholder("linkId"), collectionId: sql.placeholder("collectionId") })
    .prepare(),
}));

/** inboxId returns the id of the user's default collection (inside a transaction too). */
export function inboxId(db: Db, userId: number): number {
  return linkQueries(db).inbox.get({ userId })!.id;
}

/**
 * resolveCollectionIds folds duplicates, sorts, falls back to the Inbox when empty, and
 * records a violation unless every id is one of the user's collections. Unknown ids and
 * other users' ids get the same message, so nothing leaks.
 */
function resolveCollectionIds(db: Db, userId: number, ids: number[] | undefined, rules: Rules): number[] {
  const wanted = [...new Set(ids ?? [])].sort((a, b) => a - b);
  if (wanted.length === 0) return [inboxId(db, userId)];
  const owned = linkQueries(db).ownedCount.get({ userId, ids: JSON.stringify(wanted) })!.n;
  if (owned !== wanted.length) rules.fail("/collectionIds", "Expected ids of your own collections");
  return wanted;
}

/** addMemberships puts a link in collections (inside the caller's transaction). */
function addMemberships(db: Db, linkId: number, collectionIds: number[]): void {
  const { addMembership } = linkQueries(db);
  for (const collectionId of collectionIds) addMembership.run({ linkId, collectionId });
}

/** createLink stores a new link (clicks 0) in its collections, or the Inbox, in a transaction of its own. */
export function createLink(db: Db, userId: number, input: CreateLinkInput, now: number): LinkJson {
  return db.transaction(() => writeLink(db, userId, input, now), { behavior: "immediate" });
}

/**
 * writeLink is createLink inside the caller's transaction: the same rules and the same insert,
 * without a transaction (a savepoint) of its own. An import writes thousands of links per
 * transaction with it; the caller's transaction is what rolls back a failure.
 */
export function writeLink(db: Db, userId: number, input: CreateLinkInput, now: number): LinkJson {
  const rules = new Rules();
  const name = rules.name("/name", input.name, 1, LINK_LIMITS.name);
  const description = rules.text("/description", input.description ?? "", 0, LINK_LIMITS.description);
  const url = rules.url("/url", input.url);
  const collectionIds = resolveCollectionIds(db, userId, input.collectionIds, rules);
  rules.check();
  const row = linkQueries(db).insertLink.all({ userId, name, description, url, favorite: input.favorite, now })[0]!;
  addMemberships(db, row.id, collectionIds);
  return toLinkJson(row, collectionIds);
}

/** updateLink replaces a link's fields and collections; an omitted description keeps its value. */
export function updateLink(db: Db, userId: number, id: number, input: UpdateLinkInput, now: number): void {
  db.transaction((tx) => {
    const current = requireOwnedLink(tx, userId, id);
    const rules = new Rules();
    const name = rules.name("/name", input.name, 1, LINK_LIMITS.name);
    const description = rules.text("/description", input.description ?? current.description, 0, LINK_LIMITS.description);
    const url = rules.url("/url", input.url);
    const collectionIds = resolveCollectionIds(db, userId, input.collectionIds, rules);
    rules.check();
    tx.update(links).set({ name, description, url, favorite: input.favorite, updatedAt: now }).where(eq(links.id, id)).run();
    linkQueries(db).clearMemberships.run({ linkId: id });
    addMemberships(db, id, collectionIds);
  }, { behavior: "immediate" });
}

/** deleteLink deletes one of the user's links (its memberships go with it). */
export function deleteLink(db: Db, userId: number, id: number): void {
  db.transaction((tx) => {
    requireOwnedLink(tx, userId, id);
    tx.delete(links).where(eq(links.id, id)).run();
  }, { behavior: "immediate" });
}
