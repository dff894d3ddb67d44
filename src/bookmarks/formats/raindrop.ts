/** Raindrop.io's CSV export (Settings → Backups / Export → CSV). */
import { dateField, type ImportDocument, type SourceItem } from "../document";
import { HIGHLIGHTS, isoTime, joined, readCsv, split, start, type ImportInput, type ReadContext } from "./common";

/** The columns Raindrop.io's CSV has (others are listed in the preview). */
const COLUMNS = ["id", "title", "note", "excerpt", "url", "folder", "tags", "created", "cover", "highlights", "favorite"] as const;

/** sniff: a CSV with the columns `excerpt` and `folder`. */
export const sniff = (input: ImportInput) => input.hasColumn("excerpt") && input.hasColumn("folder");

/** read reads Raindrop.io's CSV export: folders are `/` paths, tags comma-separated, highlights kept as the page text. */
export async function read(input: ImportInput, context: ReadContext): Promise<ImportDocument> {
  const { document, add } = start("raindrop", context);
  await readCsv(input.text, COLUMNS, document, ({ record }) => {
    const unreadDates: string[] = [];
    const item: SourceItem = {
      name: record.title ?? "", url: record.url ?? "", description: joined(record.note, record.excerpt),
      folders: [split(record.folder, "/")], tags: split(record.tags, ","), archived: false,
      favorite: record.favorite === "true", createdAt: dateField("created", record.created, isoTime, unreadDates), unreadDates,
    };
    if (record.highlights?.trim()) item.text = `${HIGHLIGHTS}\n\n${record.highlights.trim()}`;
    add(item);
  });
  return document;
}

