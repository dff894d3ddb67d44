/**
 * What anyone may see without owning it: a link in a PUBLIC collection (through `/l/:id`), the
 * page copy of a link in a PUBLIC collection whose owner lets it show copies, and
 * a PUBLIC collection's page (with its PUBLIC sub-collections) and feed. The one place that decides visibility; a private link
 * or collection answers exactly like an unknown id.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { preparedQueries, type Db } from "../db/client";
import { collections, linkCopies, links, users, type CollectionRow } from "../db/schema";
import { iso } from "../common/timestamps";
import type { StoredCopy } from "./copies";
import type { LinkPage, LinkQuery, PublicCollectionView } from "./types";
import { ShelfLinks } from "./links";

/** `/l/:id` asks this at every click: built once per database. */
const visibilityQueries = preparedQueries((db) => ({
  target: db
    .select({
      url: links.url,
      userId: links.userId,
      // Written out: drizzle names a column of a one-table select without its table (`"id"`),
      // which inside this subquery would be the collection's id.
      isPublic: sql<number>`EXISTS (SELECT 1 FROM link_collections lc JOIN collections c ON c.id = lc.collection_id
        WHERE lc.link_id = links.id AND c.visibility = 'PUBLIC')`,
    })
    .from(links)
    .where(eq(links.id, sql.placeholder("id")))
    .prepare(),
}));

/**
 * visibleLinkUrl is the URL a link opens to (serialized as a `Location`), when the viewer may
 * open it: one of its collections is PUBLIC, or the viewer (a user id; null: anonymous) owns it.
 * Undefined otherwise, and for an unknown id, so nothing tells them apart.
 */
export function visibleLinkUrl(db: Db, id: number, viewerId: number | null): string | undefined {
  const link = visibilityQueries(db).target.get({ id });
  return link && (link.isPublic || link.userId === viewerId) ? new URL(link.url).href : undefined;
}

/** A PUBLIC collection as anyone sees it: the collection, its owner's name, and its links. */
export interface PublicCollection {
  collection: PublicCollectionView;
  authorName: string;
  /** A page of its links, newest first (a cursor that names no page is a ValidationFailed). */
  links(query: Omit<LinkQuery, "collectionId" | "q" | "favorite">): LinkPage;
  /** Its PUBLIC sub-collections, in its order: a PRIVATE one is never among them. */
  children(): PublicChild[];
}

/** A PUBLIC sub-collection as a public page links to it. */
export type PublicChild = Pick<CollectionRow, "id" | "name" | "icon">;

/** publicCollection is a PUBLIC collection; private and unknown ids alike are undefined. */
export function publicCollection(db: Db, id: number): PublicCollection | undefined {
  const found = db
    .select({
      collection: { id: collections.id, name: collections.name, icon: collections.icon, description: collections.description, updatedAt: collections.updatedAt },
      author: users,
    })
    .from(collections)
    .innerJoin(users, eq(users.id, collections.userId))
    .where(and(eq(collections.id, id), eq(collections.visibility, "PUBLIC")))
    .get();
  if (!found) return undefined;
  const { collection, author } = found;
  const authorLinks = new ShelfLinks({ db, user: author });
  return {
    collection,
    authorName: author.name,
    links: (query) => authorLinks.search({ ...query, collectionId: collection.id }),
    children: () => db.select({ id: collections.id, name: collections.name, icon: collections.icon }).from(collections)
      .where(and(eq(collections.parentId, collection.id), eq(collections.visibility, "PUBLIC")))
      .orderBy(asc(collections.position), asc(collections.id)).all(),
  };
}

/** copiesShown: does the link sit in a PUBLIC collection whose owner lets it show its page copies? */
const copiesShown = sql`EXISTS (SELECT 1 FROM link_collections lc JOIN collections c ON c.id = lc.collection_id
  WHERE lc.link_id = ${linkCopies.linkId} AND c.visibility = 'PUBLIC' AND c.copies_public = 1)`;

/**
 * publicCopy is the page copy of a link anyone may open it from: one of its collections is PUBLIC
 * and shows copies (the owner's choice, per collection). Undefined otherwise, as for a link
 * without a copy or an unknown id, so nothing tells them apart.
 */
export function publicCopy(db: Db, id: number): StoredCopy | undefined {
  const row = db.select({ body: linkCopies.body, savedAt: linkCopies.savedAt }).from(linkCopies)
    .innerJoin(links, and(eq(links.id, linkCopies.linkId), eq(links.userId, linkCopies.userId)))
    .where(and(eq(linkCopies.linkId, id), copiesShown)).get();
  return row && { zstd: row.body, savedAt: iso(row.savedAt) };
}
