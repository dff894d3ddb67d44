import { t } from "elysia";
import type { ImportRow } from "../db/schema";
import { Int, Timestamp } from "../links/model";
import { iso } from "../timestamps";

/** Where an import came from: the import page or `linkshelf import`. */
export type ImportSource = ImportRow["source"];

/** What an import's record holds besides who and when: its source, its file and its report's counts. */
export interface ImportRecordInput {
  source: ImportSource;
  fileName: string;
  links: number;
  collections: number;
  duplicates: number;
  skipped: number;
}

export const ImportJson = t.Object({
  id: Int(),
  createdAt: Timestamp,
  source: t.Union([t.Literal("page"), t.Literal("cli")], { description: "page: the import page; cli: linkshelf import." }),
  fileName: t.String({ description: "The file's name as uploaded, or the path given to the CLI." }),
  links: Int({ description: "Links the import created." }),
  collections: Int({ description: "Collections the import created." }),
  duplicates: Int({ description: "Entries not imported because the link was there already." }),
  skipped: Int({ description: "Entries linkshelf cannot store." }),
  undoneAt: t.Union([Timestamp, t.Null()], { description: "When the import was undone; null while it stands." }),
});
export type ImportJson = typeof ImportJson.static;

export const ImportListJson = t.Object({ imports: t.Array(ImportJson, { description: "Newest first." }) });

export const ImportUndoneJson = t.Object({
  message: t.String(),
  links: Int({ description: "Links removed: those the import created that still existed." }),
  collections: Int({ description: "Collections removed: those the import created that were then empty." }),
});
export type ImportUndone = Omit<typeof ImportUndoneJson.static, "message">;

/** toImportJson shapes an import's record for clients. */
export function toImportJson(row: ImportRow): ImportJson {
  return {
    id: row.id, createdAt: iso(row.createdAt), source: row.source, fileName: row.fileName,
    links: row.links, collections: row.collections, duplicates: row.duplicates, skipped: row.skipped,
    undoneAt: row.undoneAt === null ? null : iso(row.undoneAt),
  };
}
