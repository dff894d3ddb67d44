/** Instapaper's CSV export (Settings → Export → CSV): `URL,Title,Selection,Folder,Timestamp,Tags`. */
import { dateField, type ImportDocument } from "../document";
import { isObject, readCsv, seconds, split, start, text, type ImportInput, type ReadContext } from "./common";

/** The columns Instapaper's CSV has (others are listed in the preview); older exports have no `Tags`. */
const COLUMNS = ["URL", "Title", "Selection", "Folder", "Timestamp", "Tags"] as const;

/** sniff: a CSV with the columns `Selection` and `URL`. */
export const sniff = (input: ImportInput) => input.hasColumn("selection") && input.hasColumn("url");

/** Instapaper's own folders: the default one (its reading list) and the archive, which are the link's flags, and Starred. */
const INSTAPAPER = { unread: "Unread", archive: "Archive", starred: "Starred" } as const;

/**
 * read reads Instapaper's CSV export: `Unread` is to read and `Archive` archived (both in the
 * import's collection), `Starred` a favorite, other folders collections; `Tags` (newer exports) a JSON list of names.
 */
export async function read(input: ImportInput, context: ReadContext): Promise<ImportDocument> {
  const { document, add } = start("instapaper", context);
  await readCsv(input.text, COLUMNS, document, ({ record }) => {
    const folder = (record.Folder ?? "").trim();
    const own = folder === "" || Object.values(INSTAPAPER).includes(folder as never) ? [] : split(folder, "/");
    const unreadDates: string[] = [];
    add({
      name: record.Title ?? "", url: record.URL ?? "", description: record.Selection ?? "", folders: [own], tags: instapaperTags(record.Tags),
      archived: folder === INSTAPAPER.archive, toRead: folder === INSTAPAPER.unread, favorite: folder === INSTAPAPER.starred,
      createdAt: dateField("Timestamp", record.Timestamp, seconds, unreadDates), unreadDates,
    });
  });
  return document;
}

/** instapaperTags reads Instapaper's `Tags` cell: a JSON list of names (`["coding"]`), or else names separated by commas. */
function instapaperTags(cell: string | undefined): string[] {
  const value = (cell ?? "").trim();
  if (value.startsWith("[")) {
    try {
      const list: unknown = JSON.parse(value);
      if (Array.isArray(list)) return list.map((tag) => (typeof tag === "string" ? tag : isObject(tag) ? text(tag.name) : "")).map((tag) => tag.trim()).filter((tag) => tag !== "");
    } catch {
      // Not JSON after all: read as a plain list.
    }
  }
  return split(value, ",");
}

