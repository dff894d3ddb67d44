import { t } from "elysia";
import type { CollectionRow, UserRow } from "../db/schema";
import { iso } from "../timestamps";
import { Int, LinkJson, Timestamp } from "../links/model";

/** The longest name and description of a collection, in code points after trimming. */
export const COLLECTION_LIMITS = { name: 254, description: 254 } as const;
/** The icon of a collection that names none (the Inbox's is its own). */
export const DEFAULT_ICON = "📁";

/** A collection as the pages list it: no links, their count instead. */
export type CollectionSummary = CollectionRow & { linkCount: number };

export const Visibility = t.Union([t.Literal("PUBLIC"), t.Literal("PRIVATE")]);

/**
 * POST and PUT take the same body; on PUT an omitted optional field keeps its stored value.
 * Descriptions document the rules the service applies (src/rules.ts); they validate nothing.
 */
export const CollectionBody = t.Object({
  name: t.String({ description: "1-254 characters (Unicode code points, counted after trimming; stored trimmed)." }),
  description: t.Optional(t.Union([t.String(), t.Null()], { description: "At most 254 characters; null or \"\" stores null. Omitted on PUT keeps the stored value." })),
  visibility: Visibility,
  icon: t.Optional(t.String({ description: "One emoji (one RGI emoji, at most 10 code points: a flag, a keycap, a ZWJ family are one). Default 📁 (📥 for the Inbox); \"\" resets it; omitted on PUT keeps it." })),
});
export type CollectionInput = typeof CollectionBody.static;

export const AuthorJson = t.Object({ id: Int(), name: t.String(), email: t.String() });

export const CollectionJson = t.Object({
  id: Int(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  visibility: Visibility,
  authorId: Int(),
  author: AuthorJson,
  links: t.Array(LinkJson, { description: "Newest first (createdAt, then id, descending)." }),
  icon: t.String(),
  isDefault: t.Boolean({ description: "True for the Inbox." }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  isOwner: t.Boolean(),
});
export type CollectionJson = typeof CollectionJson.static;

export const CollectionListJson = t.Object({
  collections: t.Array(CollectionJson, { description: "The Inbox first, then by name (case-insensitive), then id." }),
});
export const CollectionCreatedJson = t.Object({ message: t.String(), collection: CollectionJson });
export const CollectionItemJson = t.Object({ collection: CollectionJson });

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
