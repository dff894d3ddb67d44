/**
 * The one form every reader of an import file gives the planner (`importBookmarks`): folders
 * in a tree and entries in file order, each entry one link in one folder, as a bookmark file
 * holds them. A service's item in several collections (its folder, a collection per tag, the
 * Archive) is one entry per collection with the same URL, which the planner folds into one
 * link with several memberships, as it does for a URL a browser file repeats. An item's reading
 * state (to read, archived) goes with each of its entries as flags, not collections.
 */
import { formatNumber } from "../common/format";
import { BookmarkFileRefused, IMPORT_LIMITS, type NetscapeBookmark, type NetscapeDocument, type NetscapeFolder } from "./netscape";

/** The kinds of file an import recognises by their content (each a row of the table in `formats/index.ts`). */
export type ImportFormat = "netscape" | "pocket" | "omnivore" | "raindrop" | "pinboard" | "instapaper" | "karakeep" | "linkshelf" | "chromium" | "firefox";

/** An entry a reader leaves out, with the reason (a CSV line that does not parse, a text bookmark...). */
export interface SkippedEntry {
  name: string;
  url: string;
  reason: string;
}

/** A file as every reader gives it: a bookmark file's folders and entries, and what the reader could not use. */
export interface ImportDocument extends NetscapeDocument {
  format: ImportFormat;
  /** Columns or fields the reader does not know, listed in the preview (their values are not imported). */
  unknownFields: string[];
  skipped: SkippedEntry[];
  /**
   * The file's URLs the planner found storable and already in their canonical form, kept with the
   * file between the preview's plan and the confirmed import's, which then reads none of them again.
   */
  canonicalUrls?: Set<string>;
}

/** One saved item of a service's export, as its reader reads it. */
export interface SourceItem {
  name: string;
  url: string;
  description: string;
  /**
   * Its folders inside the import's collection, each a path of names outermost first (none, or an
   * empty path: the import's collection itself), or a folder the reader made itself (`folder`).
   */
  folders: (string[] | NetscapeFolder)[];
  tags: string[];
  archived: boolean;
  favorite: boolean;
  toRead?: boolean;
  /** Milliseconds; null when the file has none. */
  createdAt: number | null;
  updatedAt?: number | null;
  /** The saved page text, with its highlights. */
  text?: string;
  /** Its dates that cannot be read, as the report lists them (`time_added "x"`; see `dateField`). */
  unreadDates?: string[];
}

/** unreadDatesText says which dates of an entry could not be read, and what the import did instead. */
export function unreadDatesText(dates: readonly string[]): string {
  return `${dates.join(", ")}: not a date linkshelf reads; kept the import time`;
}

/**
 * dateField reads one date of an item with `read`; a value that is there but cannot be read is
 * added to `unread` as `name "value"`, for the report (the import keeps its own time instead).
 */
export function dateField(name: string, value: unknown, read: (value: unknown) => number | null, unread: string[]): number | null {
  const date = read(value);
  if (date === null && value !== undefined && value !== null && String(value).trim() !== "") unread.push(`${name} "${String(value).trim()}"`);
  return date;
}

/** The collection an item's tags put it in, beside its folder (its reading state is flags: see `flagged`). */
export const SPECIAL = { tags: "Tags" } as const;

/**
 * documentBuilder gathers a service's items into an ImportDocument: everything inside one
 * folder named `root` (the top level when null: a browser file's tags), folders made the first
 * time an item needs them. Refuses (BookmarkFileRefused) beyond IMPORT_LIMITS: more items than
 * `bookmarks`, more folders than `folders`, or folders deeper than `depth`.
 */
export function documentBuilder(format: ImportFormat, root: string | null, base?: NetscapeDocument) {
  const document: ImportDocument = { format, unknownFields: [], skipped: [], folders: base?.folders ?? [], bookmarks: base?.bookmarks ?? [] };
  const made = new Map<string, NetscapeFolder>();
  let items = 0;
  /**
   * folder is the folder at `path` inside the root, made the first time. Two folders of the same
   * name in one place are one, unless the reader tells them apart by `ids` (one for each name of
   * the path: Karakeep's lists are their ids).
   */
  const folder = (path: readonly string[], ids?: readonly string[]): NetscapeFolder | null => {
    const full = root === null ? path : [root, ...path];
    const keys = ids === undefined ? full : root === null ? ids : [root, ...ids];
    let parent: NetscapeFolder | null = null;
    for (let depth = 1; depth <= full.length; depth++) {
      const key = (ids === undefined ? "" : "#") + JSON.stringify(keys.slice(0, depth));
      let found = made.get(key);
      if (!found) {
        if (depth > IMPORT_LIMITS.depth) throw new BookmarkFileRefused(`The file nests folders more than ${IMPORT_LIMITS.depth} deep, deeper than linkshelf imports.`);
        if (document.folders.length === IMPORT_LIMITS.folders) {
          throw new BookmarkFileRefused(`The file makes more than ${formatNumber(IMPORT_LIMITS.folders)} folders and tags, the most linkshelf imports from one file. Split it into smaller files.`);
        }
        found = { name: full[depth - 1]!, description: "", addDate: null, lastModified: null, icon: null, parent, depth };
        made.set(key, found);
        document.folders.push(found);
      }
      parent = found;
    }
    return parent;
  };
  const add = (item: SourceItem) => {
    if (++items > IMPORT_LIMITS.bookmarks) {
      throw new BookmarkFileRefused(`The file holds more than ${formatNumber(IMPORT_LIMITS.bookmarks)} items, the most linkshelf imports from one file. Split it into smaller files.`);
    }
    const places = new Set(item.folders.length === 0 ? [folder([])] : item.folders.map((path) => (Array.isArray(path) ? folder(path) : path)));
    for (const place of tagged(item.tags, folder)) places.add(place);
    const { toRead, archived } = flagged(item);
    let first: NetscapeBookmark | undefined;
    for (const place of places) {
      // Every entry has `first` (one shape for all of them: the planner walks 100,000s).
      const entry: NetscapeBookmark = {
        name: item.name, href: item.url, description: item.description, addDate: item.createdAt,
        lastModified: item.updatedAt ?? null, favorite: item.favorite, toRead, archived, folder: place, foldersBefore: document.folders.length, first,
      };
      if (item.text !== undefined) entry.text = item.text;
      if (!first && item.unreadDates?.length) entry.unreadDates = item.unreadDates;
      first ??= entry;
      document.bookmarks.push(entry);
    }
  };
  return { document, folder, add };
}

/**
 * flagged is the one place an item's reading state becomes the link's flags: to read, archived
 * (each format's reader says what its states mean). The flags are set on the link, never
 * collections of their own: the item stays in its folders and tag collections only.
 */
function flagged(item: { archived?: boolean; toRead?: boolean }): { toRead: boolean; archived: boolean } {
  return { toRead: item.toRead === true, archived: item.archived === true };
}

/** tagged is the collections an item's tags put it in: one per tag under `Tags` (of the import's collection; of the top level for a browser file). */
function tagged(tags: readonly string[] | undefined, folder: (path: readonly string[]) => NetscapeFolder | null): Set<NetscapeFolder | null> {
  const places = new Set<NetscapeFolder | null>();
  for (const tag of tags ?? []) places.add(folder([SPECIAL.tags, tag]));
  return places;
}

/** The tags linkding writes for its archived flag (older versions: the second): archived, not a tag. */
const LINKDING_ARCHIVED = new Set(["linkding:bookmarks.archived", "linkding:archived"]);

/**
 * fromNetscape is a browser file as the planner takes it: its own tree, then, for the tags that
 * linkding and Pinboard write, a top-level `Tags` collection with one collection per tag, each
 * link met again there. TOREAD="1" and linkding's archived tag are the link's flags (on every
 * entry of it), not tags. The attributes the reader does not know are listed.
 */
export function fromNetscape(file: NetscapeDocument, format: ImportFormat = "netscape"): ImportDocument {
  const { document, folder } = documentBuilder(format, null, { folders: [...file.folders], bookmarks: [...file.bookmarks] });
  document.unknownFields.push(...(file.unknownAttributes ?? []));
  const count = document.bookmarks.length;
  for (let at = 0; at < count; at++) {
    const bookmark = document.bookmarks[at]!;
    if (!bookmark.tags?.length && !bookmark.toRead && !bookmark.archived) continue;
    const tags = bookmark.tags?.filter((tag) => !LINKDING_ARCHIVED.has(tag));
    const flags = flagged({ archived: bookmark.archived === true || tags?.length !== bookmark.tags?.length, toRead: bookmark.toRead });
    const own: NetscapeBookmark = { ...bookmark, ...flags };
    document.bookmarks[at] = own;
    for (const place of tagged(tags, folder)) {
      const again: NetscapeBookmark = { ...own, folder: place, foldersBefore: document.folders.length, first: own };
      delete again.unreadDates;
      document.bookmarks.push(again);
    }
  }
  return document;
}

/** isImportDocument tells a read file of any format from a bare bookmark file's reading. */
export function isImportDocument(document: NetscapeDocument): document is ImportDocument {
  return "format" in document;
}

/** dayOf is the date of a time (UTC) as the import's collection is named: `2026-11-27`. */
export const dayOf = (millis: number) => new Date(millis).toISOString().slice(0, 10);
