import type { CollectionJson } from "../contract/collections";
import type { LinkJson } from "../contract/links";
import type { CollectionRow, UserRow } from "../db/schema";
import { iso } from "../timestamps";

/** The longest name and description of a collection, in code points after trimming. */
export const COLLECTION_LIMITS = { name: 254, description: 254 } as const;
/** The icon of a collection that names none (the Inbox's is its own). */
export const DEFAULT_ICON = "📁";

/** A collection as the pages list it: no links, their count instead. */
export type CollectionSummary = CollectionRow & { linkCount: number };

/** toCollectionJson shapes a collection the requesting user owns. */
export function toCollectionJson(row: CollectionRow, author: UserRow, links: LinkJson[]): CollectionJson {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    visibility: row.visibility,
    authorId: row.userId,
    author: { id: author.id, name: author.name, email: author.email },
    links,
    icon: row.icon,
    isDefault: row.isDefault,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    isOwner: row.userId === author.id,
  };
}
