/** The record of bookmark imports (`GET /api/v1/imports`) and undoing one (`DELETE /api/v1/imports/:id`). */
import { Type, type Static } from "@sinclair/typebox";
import { Int, Timestamp } from "./common";

export const ImportJson = Type.Object({
  id: Int(),
  createdAt: Timestamp,
  source: Type.Union([Type.Literal("page"), Type.Literal("cli")], { description: "page: the import page; cli: linkshelf import." }),
  fileName: Type.String({ description: "The file's name as uploaded, or the path given to the CLI." }),
  links: Int({ description: "Links the import created." }),
  collections: Int({ description: "Collections the import created." }),
  duplicates: Int({ description: "Entries not imported because the link was there already." }),
  skipped: Int({ description: "Entries linkshelf cannot store." }),
  undoneAt: Type.Union([Timestamp, Type.Null()], { description: "When the import was undone; null while it stands." }),
});
export type ImportJson = Static<typeof ImportJson>;

export const ImportListJson = Type.Object({ imports: Type.Array(ImportJson, { description: "Newest first." }) });
export type ImportListJson = Static<typeof ImportListJson>;

export const ImportUndoneJson = Type.Object({
  message: Type.String(),
  links: Int({ description: "Links removed: those the import created that still existed." }),
  collections: Int({ description: "Collections removed: those the import created that were then empty." }),
});
export type ImportUndoneJson = Static<typeof ImportUndoneJson>;
