/**
 * The batch write of the API (`POST /api/v1/batch`): up to BATCH_MAX_OPERATIONS writes of
 * collections and links in one transaction, all of them or none. A created item is named by a
 * `ref` the client chooses, which later operations of the same batch may use instead of an id.
 * Descriptions document the rules the server applies; they validate nothing but the shapes.
 */
import { Type, type Static } from "@sinclair/typebox";
import { IdNumber, Int } from "./common";
import { LINK_MAX_COLLECTIONS } from "./links";

/** The most operations one batch holds. */
export const BATCH_MAX_OPERATIONS = 500;
/** The most memberships one batch may ask for: the collections of its createLink operations and the `add` of its updateLink ones, all counted. */
export const BATCH_MAX_MEMBERSHIPS = 5000;
/** The largest batch body, in bytes: 500 createLink operations with the longest names and long URLs fit. */
export const BATCH_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A name the client gives an item the batch creates, valid within this batch only. */
export const Ref = Type.String({ minLength: 1, maxLength: 64, description: "1-64 characters: a name for the created item, valid within this batch only; each ref once per batch." });
export type Ref = Static<typeof Ref>;

/** An existing collection of yours (`id`), or one created earlier in this batch (`ref`). */
export const Target = Type.Union([
  Type.Object({ id: IdNumber }),
  Type.Object({ ref: Ref }),
], { description: "{id} of one of your collections, or {ref} of a collection created by an earlier operation of this batch." });
export type Target = Static<typeof Target>;

export const CreateCollectionOperation = Type.Object({
  op: Type.Literal("createCollection"),
  ref: Ref,
  name: Type.String({ description: "As POST /api/v1/collections: 1-254 characters." }),
  parent: Target,
}, { description: "A PRIVATE collection with the default icon, at the end of its parent's order." });

export const UpdateCollectionOperation = Type.Object({
  op: Type.Literal("updateCollection"),
  id: IdNumber,
  name: Type.Optional(Type.String()),
  parent: Type.Optional(Target),
}, { description: "Renames and/or moves a collection (to the end of its new parent's order); its description, icon and visibility are kept." });

export const DeleteCollectionOperation = Type.Object({
  op: Type.Literal("deleteCollection"),
  id: IdNumber,
}, { description: "Into the trash with its sub-collections and the links in no other collection, as one item (DELETE /api/v1/collections/:id?contents=1)." });

export const CreateLinkOperation = Type.Object({
  op: Type.Literal("createLink"),
  ref: Ref,
  name: Type.String({ description: "As POST /api/v1/links: 1-254 characters." }),
  url: Type.String({ description: "As POST /api/v1/links: an absolute http: or https: URL of at most 2048 characters." }),
  collections: Type.Array(Target, {
    minItems: 1, maxItems: LINK_MAX_COLLECTIONS,
    description: `1-${LINK_MAX_COLLECTIONS}; the link goes at the end of each one's order (a collection named twice holds it once). The whole batch names at most ${BATCH_MAX_MEMBERSHIPS} collections here and in \`add\`.`,
  }),
}, { description: "A new link (favorite false, description \"\"), always: no URL is looked up." });

export const UpdateLinkOperation = Type.Object({
  op: Type.Literal("updateLink"),
  id: IdNumber,
  name: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  toRead: Type.Optional(Type.Boolean({ description: "On the reading list; omitted keeps it." })),
  archived: Type.Optional(Type.Boolean({ description: "Archived; omitted keeps it." })),
  add: Type.Optional(Type.Array(Target, {
    maxItems: LINK_MAX_COLLECTIONS,
    description: `Collections it joins, at the end of their order (one it is in already keeps its place); at most ${LINK_MAX_COLLECTIONS}, and the link ends in at most ${LINK_MAX_COLLECTIONS}.`,
  })),
  remove: Type.Optional(Type.Array(IdNumber, { maxItems: LINK_MAX_COLLECTIONS, description: `Collections it leaves, at most ${LINK_MAX_COLLECTIONS}; a link left in none goes to the trash (never to the Inbox).` })),
}, { description: "Its favorite, description and other collections are kept, and its toRead and archived unless given." });

/** One item of an `order` operation: an existing link or collection (`id`), or one this batch created (`ref`). */
export const BatchOrderItem = Type.Object({
  kind: Type.Union([Type.Literal("link"), Type.Literal("collection")]),
  id: Type.Optional(IdNumber),
  ref: Type.Optional(Ref),
}, { description: "Exactly one of id and ref." });
export type BatchOrderItem = Static<typeof BatchOrderItem>;

export const OrderOperation = Type.Object({
  op: Type.Literal("order"),
  collection: Target,
  order: Type.Array(BatchOrderItem, { description: "Exactly the collection's items after the operations before this one, each once (otherwise 409 ORDER_STALE)." }),
});

/** The operations a batch may hold, told apart by `op`. */
export const BATCH_OPERATIONS = {
  createCollection: CreateCollectionOperation,
  updateCollection: UpdateCollectionOperation,
  deleteCollection: DeleteCollectionOperation,
  createLink: CreateLinkOperation,
  updateLink: UpdateLinkOperation,
  order: OrderOperation,
} as const;
export type BatchOperationName = keyof typeof BATCH_OPERATIONS;

export const BatchOperation = Type.Union([
  CreateCollectionOperation, UpdateCollectionOperation, DeleteCollectionOperation, CreateLinkOperation, UpdateLinkOperation, OrderOperation,
]);
export type BatchOperation = Static<typeof BatchOperation>;

export const BatchBody = Type.Object({
  since: Type.Optional(Type.String({
    description: "A `cursor` of GET /api/v1/changes: the batch is applied only if none of the items it names by id changed after it (otherwise 412 PRECONDITION_FAILED); "
      + "a cursor of another history or beyond the feed's end is 410 HISTORY_REPLACED, one older than the server remembers 410 CURSOR_EXPIRED.",
  })),
  operations: Type.Array(BatchOperation, { minItems: 1, maxItems: BATCH_MAX_OPERATIONS, description: `1-${BATCH_MAX_OPERATIONS} operations, applied in order.` }),
});
export type BatchBody = Static<typeof BatchBody>;

export const BatchJson = Type.Object({
  message: Type.String(),
  refs: Type.Record(Type.String(), Int(), { description: "Every ref of the batch and the id of the item it created." }),
});
export type BatchJson = Static<typeof BatchJson>;
