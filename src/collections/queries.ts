import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { collections, linkCollections, links, users, type CollectionRow, type UserRow } from "../db/schema";
import { toLinkJson, type LinkJson } from "../links/model";
import { collectionLinks } from "../links/queries";
import { toCollectionJson, type CollectionJson } from "./model";
import { requireOwnedCollection } from "./service";

/** compareCollections orders collections as every list shows them: the Inbox first, then by name ignoring case, then by id. */
export function compareCollections(a: { isDefault: boolean; name: string; id: number }, b: typeof a): number {
  if (a.isDefault !== b.isDefault) return a.isDefault ? -1 : 1;
  const nameA = a.name.toLowerCase();
  const nameB = b.name.toLowerCase();
  if (nameA !== nameB) return nameA < nameB ? -1 : 1;
  return a.id - b.id;
}

/** One link in one of its collections, as the join returns it: a plain array, in this order. */
type MembershipRow = [
  collectionId: number, id: number, userId: number, name: string, description: string, url: string,
  favorite: number, clicks: number, lastClickedAt: number | null, createdAt: number, updatedAt: number,
];

/**
 * collectionListBody is the body of `GET /api/v1/collections`: all of the user's collections
 * with their links (newest first), `{"collections":[...]}` encoded as UTF-8 once, so that it
 * can be kept and sent many times. Two queries, however many collections and links there are.
 *
 * Built for 10,000 links and more: the join's rows are read as plain arrays (drizzle's
 * per-row mapping cost more than the query itself), and each link is stringified once, on
 * its own, then spliced into its collections; one JSON.stringify over the whole nested list
 * measured several times slower here.
 */
export function collectionListBody(db: Db, user: UserRow): Uint8Array {
  const collectionRows = db.select().from(collections).where(eq(collections.userId, user.id)).all().sort(compareCollections);
  const memberships = db.values<MembershipRow>(
    db.select({
      collectionId: linkCollections.collectionId, id: links.id, userId: links.userId, name: links.name,
      description: links.description, url: links.url, favorite: links.favorite, clicks: links.clicks,
      lastClickedAt: links.lastClickedAt, createdAt: links.createdAt, updatedAt: links.updatedAt,
    })
      .from(links)
      .innerJoin(linkCollections, eq(linkCollections.linkId, links.id))
      .where(eq(links.userId, user.id))
      .orderBy(desc(links.createdAt), desc(links.id)),
  );

  const linkJsonById = new Map<number, LinkJson>();
  const linkIdsByCollection = new Map<number, number[]>();
  for (const [collectionId, id, userId, name, description, url, favorite, clicks, lastClickedAt, createdAt, updatedAt] of memberships) {
    let json = linkJsonById.get(id);
    if (!json) {
      json = toLinkJson({ id, userId, name, description, url, favorite: favorite === 1, clicks, lastClickedAt, createdAt, updatedAt }, []);
      linkJsonById.set(id, json);
    }
    json.collectionIds.push(collectionId);
    const ids = linkIdsByCollection.get(collectionId);
    if (ids) ids.push(id);
    else linkIdsByCollection.set(collectionId, [id]);
  }
  const linkText = new Map<number, string>();
  for (const json of linkJsonById.values()) {
    json.collectionIds.sort((a, b) => a - b);
    linkText.set(json.id, JSON.stringify(json));
  }

  const parts = collectionRows.map((row) => {
    const shell = JSON.stringify(toCollectionJson(row, user, []));
    // The only unescaped `"links":[]` in the shell is the key itself: a quote inside a JSON string is always escaped.
    const at = shell.indexOf(EMPTY_LINKS) + EMPTY_LINKS.length - 1;
    const linkList = (linkIdsByCollection.get(row.id) ?? []).map((id) => linkText.get(id)).join(",");
    return shell.slice(0, at) + linkList + shell.slice(at);
  });
  return new TextEncoder().encode(`{"collections":[${parts.join(",")}]}`);
}

const EMPTY_LINKS = '"links":[]';

/** A collection as the pages list it: no links, their count instead. */
export type CollectionSummary = CollectionRow & { linkCount: number };

/** listCollectionSummaries lists the user's collections (Inbox first, then by name) with their link counts. One query. */
export function listCollectionSummaries(db: Db, userId: number): CollectionSummary[] {
  return db
    .select({
      collection: collections,
      linkCount: sql<number>`(SELECT count(*) FROM ${linkCollections} WHERE ${linkCollections.collectionId} = ${collections.id})`,
    })
    .from(collections)
    .where(eq(collections.userId, userId))
    .all()
    .map((row) => ({ ...row.collection, linkCount: row.linkCount }))
    .sort(compareCollections);
}

/** findPublicCollection returns a PUBLIC collection and its author's name; private and unknown ids alike are undefined. */
export function findPublicCollection(db: Db, id: number): { collection: CollectionRow; authorName: string } | undefined {
  return db
    .select({ collection: collections, authorName: users.name })
    .from(collections)
    .innerJoin(users, eq(users.id, collections.userId))
    .where(and(eq(collections.id, id), eq(collections.visibility, "PUBLIC")))
    .get();
}

/** getCollection returns one of the user's collections with its links, newest first (another user's id: NotFound). */
export function getCollection(db: Db, user: UserRow, id: number): CollectionJson {
  const row = requireOwnedCollection(db, user.id, id);
  return toCollectionJson(row, user, collectionLinks(db, user.id, id));
}
