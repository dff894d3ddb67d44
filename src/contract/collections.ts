/** The collections of the API: the body of `POST`/`PUT /api/v1/collections` and a collection with its links. */
import { Type, type Static } from "@sinclair/typebox";
import { Int, Timestamp } from "./common";
import { LinkJson } from "./links";

export const Visibility = Type.Union([Type.Literal("PUBLIC"), Type.Literal("PRIVATE")]);
export type Visibility = Static<typeof Visibility>;

/**
 * POST and PUT take the same body; on PUT an omitted optional field keeps its stored value.
 * Descriptions document the rules the server applies; they validate nothing.
 */
export const CollectionBody = Type.Object({
  name: Type.String({ description: "1-254 characters (Unicode code points, counted after trimming; stored trimmed)." }),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "At most 254 characters; null or \"\" stores null. Omitted on PUT keeps the stored value." })),
  visibility: Visibility,
  icon: Type.Optional(Type.String({ description: "One emoji (one RGI emoji, at most 10 code points: a flag, a keycap, a ZWJ family are one). Default 📁 (📥 for the Inbox); \"\" resets it; omitted on PUT keeps it." })),
});
export type CollectionBody = Static<typeof CollectionBody>;

export const AuthorJson = Type.Object({ id: Int(), name: Type.String(), email: Type.String() });
export type AuthorJson = Static<typeof AuthorJson>;

export const CollectionJson = Type.Object({
  id: Int(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  visibility: Visibility,
  authorId: Int(),
  author: AuthorJson,
  links: Type.Array(LinkJson, { description: "Newest first (createdAt, then id, descending)." }),
  icon: Type.String(),
  isDefault: Type.Boolean({ description: "True for the Inbox." }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  isOwner: Type.Boolean(),
});
export type CollectionJson = Static<typeof CollectionJson>;

export const CollectionListJson = Type.Object({
  collections: Type.Array(CollectionJson, { description: "The Inbox first, then by name (case-insensitive), then id." }),
});
export type CollectionListJson = Static<typeof CollectionListJson>;
export const CollectionCreatedJson = Type.Object({ message: Type.String(), collection: CollectionJson });
export type CollectionCreatedJson = Static<typeof CollectionCreatedJson>;
export const CollectionItemJson = Type.Object({ collection: CollectionJson });
export type CollectionItemJson = Static<typeof CollectionItemJson>;
