/** The collections of the API: the body of `POST`/`PUT /api/v1/collections` and a collection with its links. */
import { Type, type Static } from "@sinclair/typebox";
import { IdNumber, Int, QueryInteger, Timestamp } from "./common";
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
  parentId: Type.Optional(Type.Union([IdNumber, Type.Null()], {
    description: "The collection it goes inside, or null for the top level (the default on POST; omitted on PUT keeps its place). "
      + "One of your collections other than the Inbox, not itself or one of its sub-collections, at most 64 levels deep in all. "
      + "A collection that changes parent goes at the end of its new parent's order.",
  })),
  copiesPublic: Type.Optional(Type.Boolean({ description: "While PUBLIC, anyone may open the page copies of its links (GET /links/{id}/copy). Default false; omitted on PUT keeps it." })),
});
export type CollectionBody = Static<typeof CollectionBody>;

export const AuthorJson = Type.Object({ id: Int(), name: Type.String(), email: Type.String() });
export type AuthorJson = Static<typeof AuthorJson>;

/** One item of a collection's order: a link or a sub-collection. */
export const OrderItem = Type.Object({
  kind: Type.Union([Type.Literal("link"), Type.Literal("collection")]),
  id: IdNumber,
});
export type OrderItem = Static<typeof OrderItem>;

/** The body of `PUT /api/v1/collections/:id/order`: every item of the collection, each once, in the new order. */
export const OrderBody = Type.Object({
  order: Type.Array(OrderItem, { description: "Exactly the collection's current links and sub-collections, each once, in their new order (otherwise 409 ORDER_STALE)." }),
});
export type OrderBody = Static<typeof OrderBody>;

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
  copiesPublic: Type.Boolean({ description: "While PUBLIC, anyone may open the page copies of its links." }),
  parentId: Type.Union([Int(), Type.Null()], { description: "The collection it is inside; null at the top level (always for the Inbox)." }),
  order: Type.Array(Type.Object({ kind: OrderItem.properties.kind, id: Int() }), {
    description: "Its links and sub-collections interleaved, in the order the person chose (new items at the end), as a browser folder keeps them.",
  }),
});
export type CollectionJson = Static<typeof CollectionJson>;

export const CollectionListJson = Type.Object({
  collections: Type.Array(CollectionJson, { description: "As a tree, depth first: the Inbox, then each top-level collection in its order, each followed by its sub-collections in theirs." }),
});
export type CollectionListJson = Static<typeof CollectionListJson>;
export const CollectionCreatedJson = Type.Object({ message: Type.String(), collection: CollectionJson });
export type CollectionCreatedJson = Static<typeof CollectionCreatedJson>;
export const CollectionItemJson = Type.Object({ collection: CollectionJson });
export type CollectionItemJson = Static<typeof CollectionItemJson>;

/** The query of `DELETE /api/v1/collections/:id`. */
export const DeleteCollectionQuery = Type.Object({
  contents: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")], {
    description: "1: delete it with its sub-collections and the links that are in no other collection (into the trash, as one item).",
  })),
});
export type DeleteCollectionQuery = Static<typeof DeleteCollectionQuery>;

/** The query of `GET /api/v1/collections`. */
export const CollectionListQuery = Type.Object({
  under: Type.Optional(QueryInteger),
});
export type CollectionListQuery = Static<typeof CollectionListQuery>;
