/** The trash (`/api/v1/trash`): what is in it, a page of it, and what a restore takes and answers. */
import { Type, type Static } from "@sinclair/typebox";
import { IdNumber, Int, QueryInteger, Timestamp } from "./common";

export const TrashItemJson = Type.Object({
  kind: Type.Union([Type.Literal("link"), Type.Literal("collection"), Type.Literal("import")], {
    description: "`import`: an undone import, its links and the collections it left empty together; restoring it makes the import stand again.",
  }),
  id: Int({ description: "The link's or collection's own id, which it gets back when restored; for an import, the import's id." }),
  name: Type.String(),
  deletedAt: Timestamp,
  purgeAt: Timestamp,
  links: Int({ description: "Links a restore brings back: 1 for a link; for a collection deleted with its contents, the links that were only in it." }),
  collections: Int({ description: "Collections a restore brings back: 0 for a link; for a collection, itself and its sub-collections deleted with it." }),
});
export type TrashItemJson = Static<typeof TrashItemJson>;

export const TrashPageJson = Type.Object({
  items: Type.Array(TrashItemJson, { description: "Newest first." }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: "Pass as `cursor` for the next page; null on the last page." }),
});
export type TrashPageJson = Static<typeof TrashPageJson>;

export const TrashQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(QueryInteger),
});
export type TrashQuery = Static<typeof TrashQuery>;

export const RestoreBody = Type.Object({
  links: Type.Optional(Type.Array(IdNumber, { description: "Ids of trashed links." })),
  collections: Type.Optional(Type.Array(IdNumber, { description: "Ids of trashed collections (each with what was deleted with it)." })),
  imports: Type.Optional(Type.Array(IdNumber, { description: "Ids of undone imports in the trash (each with all it took)." })),
});
export type RestoreBody = Static<typeof RestoreBody>;

export const RestoredJson = Type.Object({
  message: Type.String(),
  links: Int({ description: "Links back on the shelf." }),
  collections: Int({ description: "Collections back on the shelf." }),
  tooDeep: Type.Array(Int(), {
    description: "Ids of restored collections that came back at the top level instead of inside their parent, where they (with what they hold) would have been nested more than 64 levels deep. Usually empty.",
  }),
});
export type RestoredJson = Static<typeof RestoredJson>;

export const EmptiedJson = Type.Object({ message: Type.String(), items: Int({ description: "Items deleted for good." }) });
export type EmptiedJson = Static<typeof EmptiedJson>;
