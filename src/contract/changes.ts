/** The change feed (`GET /api/v1/changes`): every link and collection changed since a cursor, as it is now. */
import { Type, type Static } from "@sinclair/typebox";
import { CollectionJson } from "./collections";
import { Int, QueryInteger } from "./common";
import { LinkJson } from "./links";

/** A collection as the feed gives it: all of it but its links (its `order` names them). */
export const CollectionStateJson = Type.Omit(CollectionJson, ["links"]);
export type CollectionStateJson = Static<typeof CollectionStateJson>;

export const ChangeJson = Type.Union([
  Type.Object({ kind: Type.Literal("link"), id: Int(), deleted: Type.Literal(false), link: LinkJson }),
  Type.Object({ kind: Type.Literal("collection"), id: Int(), deleted: Type.Literal(false), collection: CollectionStateJson }),
  Type.Object({ kind: Type.Union([Type.Literal("link"), Type.Literal("collection")]), id: Int(), deleted: Type.Literal(true) }, {
    description: "Deleted (in the trash, or gone for good).",
  }),
]);
export type ChangeJson = Static<typeof ChangeJson>;

export const ChangesJson = Type.Object({
  changes: Type.Array(ChangeJson, { description: "In the order of the changes; each item once, as it is now." }),
  cursor: Type.String({ description: "Opaque: pass as `since` for what changes next (after the last change listed, or the one given when none was); never parse or build one." }),
  more: Type.Boolean({ description: "True when more changes follow at once: ask again with `cursor`." }),
});
export type ChangesJson = Static<typeof ChangesJson>;

export const ChangesQuery = Type.Object({
  since: Type.Optional(Type.String({ description: "The `cursor` of a previous answer, as it was; omitted: everything from the beginning." })),
  limit: Type.Optional(QueryInteger),
});
export type ChangesQuery = Static<typeof ChangesQuery>;

export const ChangesCursorJson = Type.Object({
  cursor: Type.String({ description: "The feed's end now, opaque: pass as `since` to hear only what changes after this moment." }),
});
export type ChangesCursorJson = Static<typeof ChangesCursorJson>;
