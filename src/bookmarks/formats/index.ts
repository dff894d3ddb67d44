/**
 * The formats an import reads: one file each (`formats/<format>.ts`, exporting its `sniff` and its
 * `read`), and this table, which `readImportFile`, the names the pages and the CLI give, `--help`
 * and the list in docs/import.md (a test compares them) come from. A format's module loads the
 * first time a file is read, not when the server starts. A new format is one file, one row here,
 * one fixture (and its name in ImportFormat).
 */
import type { ImportDocument, ImportFormat } from "../document";
import { BookmarkFileRefused } from "../netscape";
import type { ImportInput, ReadContext } from "./common";

/** What a format's module exports. */
export interface FormatModule {
  /** Whether the file is of this format, from its content only. */
  sniff(input: ImportInput): boolean;
  /** The file read into the one form the planner takes; refuses (BookmarkFileRefused) what it cannot read. */
  read(input: ImportInput, context: ReadContext): ImportDocument | Promise<ImportDocument>;
}

export interface FormatRow {
  format: ImportFormat;
  /** How the pages, the CLI and the docs name it (a service's collection is named after it too). */
  name: string;
  /** The kinds of file it comes as: a file of one of these kinds that no format takes is refused naming those that take it. */
  kinds: readonly ("html" | "json" | "csv" | "zip")[];
  load: () => Promise<FormatModule>;
}

/** Every format, in the order the pages, `--help` and the docs list them (a bookmark file is tried last). */
export const FORMATS: readonly FormatRow[] = [
  { format: "netscape", name: "Bookmarks file (HTML)", kinds: ["html"], load: () => import("./netscape") },
  { format: "chromium", name: "Chromium bookmarks (JSON)", kinds: ["json"], load: () => import("./chromium") },
  { format: "firefox", name: "Firefox bookmark backup (JSON)", kinds: ["json"], load: () => import("./firefox") },
  { format: "pocket", name: "Pocket", kinds: ["zip", "csv", "html"], load: () => import("./pocket") },
  { format: "omnivore", name: "Omnivore", kinds: ["zip", "json"], load: () => import("./omnivore") },
  { format: "raindrop", name: "Raindrop.io", kinds: ["csv"], load: () => import("./raindrop") },
  { format: "pinboard", name: "Pinboard", kinds: ["json"], load: () => import("./pinboard") },
  { format: "instapaper", name: "Instapaper", kinds: ["csv"], load: () => import("./instapaper") },
  { format: "karakeep", name: "Karakeep", kinds: ["json"], load: () => import("./karakeep") },
  { format: "linkshelf", name: "linkshelf JSON", kinds: ["json"], load: () => import("./linkshelf") },
];

/** How the pages and the CLI name each format. */
export const FORMAT_NAMES = Object.fromEntries(FORMATS.map((row) => [row.format, row.name])) as Record<ImportFormat, string>;

/** The formats that come as one kind of file, by name: `Pocket, Omnivore`. */
const namesOf = (kind: FormatRow["kinds"][number]) => FORMATS.filter((row) => row.kinds.includes(kind) && row.format !== "netscape").map((row) => row.name).join(", ");

/**
 * readImportFile reads an uploaded file of any format linkshelf imports, recognised by its
 * content (each format's `sniff`, in the table's order, the bookmark file last), never by its name.
 * `now` names a service's collection (`Pocket 2026-11-27`). Throws BookmarkFileRefused (422,
 * nothing stored) for a damaged zip or one beyond ZIP_LIMITS (declared, or given while
 * inflating), a zip or JSON of no known shape, or a file beyond IMPORT_LIMITS.
 */
export async function readImportFile(bytes: Uint8Array, now: number): Promise<ImportDocument> {
  // Loaded here: the table is read at start-up (the pages' and --help's names), the readers' parsers only for a file.
  const { collectionName, ImportInput } = await import("./common");
  const input = new ImportInput(bytes);
  const rows = [...FORMATS.filter((row) => row.format !== "netscape"), ...FORMATS.filter((row) => row.format === "netscape")];
  for (const row of rows) {
    const module = await row.load();
    if (module.sniff(input)) return module.read(input, { now, collection: collectionName(row.name, now) });
  }
  if (input.isZip) throw new BookmarkFileRefused(`The zip file is none of the exports linkshelf imports (${namesOf("zip")}).`);
  throw new BookmarkFileRefused(`The JSON file is none of the exports linkshelf imports (${namesOf("json")}).`);
}
