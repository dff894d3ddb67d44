import { desc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { collections, linkCollections, links, type UserRow } from "../db/schema";
import { toLinkJson, type LinkJson } from "../links/model";
import { toCollectionJson, type CollectionJson } from "./model";

/** Inbox first, then by name ignoring case, then by id. */
function compareCollections(a: { isDefault: boolean; name: string; id: number }, b: typeof a): number {
  if (a.isDefault !== b.isDefault) return a.isDefault ? -1 : 1;
  const nameA = a.name.toLowerCase();
  const nameB = b.name.toLowerCase();
  if (nameA !== nameB) return nameA < nameB ? -1 : 1;
  return a.id - b.id;
}

/**
 * listCollections returns all of the user's collections with their links (newest first).
 * Two queries, however many collections and links there are.
 */
export function listCollections(db: Db, user: UserRow): CollectionJson[] {
  const collectionRows = db.select().from(collections).where(eq(collections.userId, user.id)).all();
  const memberships = db
    .select({ collectionId: linkCollections.collectionId, link: links })
    .from(links)
    .innerJoin(linkCollections, eq(linkCollections.linkId, links.id))
    .where(eq(links.userId, user.id))
    .orderBy(desc(links.createdAt), desc(links.id))
    .all();

  const linkJsonById = new Map<number, LinkJson>();
  const linksByCollection = new Map<number, LinkJson[]>();
  for (const { collectionId, link } of memberships) {
    let json = linkJsonById.get(link.id);
    if (!json) {
      json = toLinkJson(link, []);
      linkJsonById.set(link.id, json);
    }
    json.collectionIds.push(collectionId);
    const list = linksByCollection.get(collectionId);
    if (list) list.push(json);
    else linksByCollection.set(collectionId, [json]);
  }
  for (const json of linkJsonById.values()) json.collectionIds.sort((a, b) => a - b);

  return collectionRows
    .sort(compareCollections)
    .map((row) => toCollectionJson(row, user, linksByCollection.get(row.id) ?? []));
}
