import type { ImportJson, ImportUndoneJson } from "../contract/imports";
import type { ImportRow } from "../db/schema";
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

/** What undoing an import removed. */
export type ImportUndone = Omit<ImportUndoneJson, "message">;

/** toImportJson shapes an import's record for clients. */
export function toImportJson(row: ImportRow): ImportJson {
  return {
    id: row.id, createdAt: iso(row.createdAt), source: row.source, fileName: row.fileName,
    links: row.links, collections: row.collections, duplicates: row.duplicates, skipped: row.skipped,
    undoneAt: row.undoneAt === null ? null : iso(row.undoneAt),
  };
}
