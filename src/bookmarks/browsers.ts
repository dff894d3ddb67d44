/**
 * The browsers' own bookmark files, besides the HTML file they export: Chromium's profile file
 * `Bookmarks` (JSON: the roots `bookmark_bar`, `other` and `synced`, each a tree of `folder` and
 * `url` nodes, `date_added` in microseconds since 1601) and Firefox's bookmark backup (`.json`:
 * `text/x-moz-place-container` folders and `text/x-moz-place` bookmarks under the `placesRoot`,
 * `dateAdded` in microseconds since 1970). Each is read as a bookmark file's tree (folders in
 * order, each root a top-level folder, the toolbar marked as such) and given to the planner the way
 * an HTML file is (`fromNetscape`). Firefox's compressed backup (`.jsonlz4`) is refused: no
 * maintained mozLz4 reader is in use here, and Firefox exports the same bookmarks as HTML.
 */
import { formatNumber } from "../format";
import { fromNetscape, type ImportDocument, type ImportFormat } from "./document";
import { BookmarkFileRefused, IMPORT_LIMITS, type NetscapeBookmark, type NetscapeDocument, type NetscapeFolder } from "./netscape";

/** The first bytes of Firefox's compressed backup (`mozLz40\0`). */
export const MOZ_LZ4_MAGIC = [0x6d, 0x6f, 0x7a, 0x4c, 0x7a, 0x34, 0x30, 0x00] as const;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === "string" ? value : "");

/** Chromium's roots, in the order its own HTML export writes them, with the name each has when the file gives none. */
const CHROMIUM_ROOTS = [
  { key: "bookmark_bar", name: "Bookmarks bar", toolbar: true },
  { key: "other", name: "Other bookmarks", toolbar: false },
  { key: "synced", name: "Mobile bookmarks", toolbar: false },
] as const;

/** Fields of Chromium's nodes read, and those left out on purpose (ids, the last use, sync's data); others are listed. */
const CHROMIUM_KEYS = new Set(["children", "date_added", "date_modified", "name", "type", "url", "guid", "id", "date_last_used", "meta_info", "show_icon", "source", "uuid"]);

/** Milliseconds from 1601-01-01 (Windows' epoch, Chromium's) to 1970-01-01. */
const FROM_1601_MS = 11_644_473_600_000;

/** isChromiumBookmarks: Chromium's `Bookmarks` file (an object with `roots` holding at least one of its three roots). */
export function isChromiumBookmarks(value: unknown): value is Json {
  return isObject(value) && isObject(value.roots) && CHROMIUM_ROOTS.some(({ key }) => isObject((value.roots as Json)[key]));
}

/** isFirefoxBackup: Firefox's bookmark backup (its root is a place container, `root: "placesRoot"`). */
export function isFirefoxBackup(value: unknown): value is Json {
  return isObject(value) && value.type === "text/x-moz-place-container" && Array.isArray(value.children);
}

/** A reader's tree as the HTML reader gives it, built in the file's order within IMPORT_LIMITS. */
function tree() {
  const document: NetscapeDocument = { folders: [], bookmarks: [], unknownAttributes: [] };
  const unknown = (key: string) => {
    if (!document.unknownAttributes!.includes(key)) document.unknownAttributes!.push(key);
  };
  const folder = (name: string, parent: NetscapeFolder | null, dates: { addDate: number | null; lastModified: number | null }): NetscapeFolder => {
    const depth = parent === null ? 1 : parent.depth + 1;
    if (depth > IMPORT_LIMITS.depth) throw new BookmarkFileRefused(`The file nests folders more than ${IMPORT_LIMITS.depth} deep, deeper than linkshelf imports.`);
    if (document.folders.length === IMPORT_LIMITS.folders) {
      throw new BookmarkFileRefused(`The file holds more than ${formatNumber(IMPORT_LIMITS.folders)} folders, the most linkshelf imports from one file. Split it into smaller files.`);
    }
    const made: NetscapeFolder = { name, description: "", ...dates, icon: null, parent, depth };
    document.folders.push(made);
    return made;
  };
  const bookmark = (entry: Omit<NetscapeBookmark, "foldersBefore" | "favorite">) => {
    if (document.bookmarks.length === IMPORT_LIMITS.bookmarks) {
      throw new BookmarkFileRefused(`The file holds more than ${formatNumber(IMPORT_LIMITS.bookmarks)} bookmarks, the most linkshelf imports from one file. Split it into smaller files.`);
    }
    document.bookmarks.push({ ...entry, favorite: false, foldersBefore: document.folders.length });
  };
  const done = (format: ImportFormat): ImportDocument => {
    if (document.unknownAttributes!.length === 0) delete document.unknownAttributes;
    return fromNetscape(document, format);
  };
  return { folder, bookmark, unknown, done };
}

/** microseconds reads a count of microseconds (a number or a string of digits) after `epochMs` as milliseconds since 1970; null when it is none. */
function microseconds(value: unknown, epochMs: number): number | null {
  if (typeof value !== "number" && !(typeof value === "string" && /^\s*\d+\s*$/.test(value))) return null;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) return null;
  const millis = Math.floor(n / 1000) - epochMs;
  return millis > 0 ? millis : null;
}

/** readDate reads one node's date field; a value that is there but cannot be read is added to `unread`. */
function readDate(node: Json, key: string, epochMs: number, unread?: string[]): number | null {
  const millis = microseconds(node[key], epochMs);
  if (millis === null && unread && node[key] !== undefined && node[key] !== null && String(node[key]).trim() !== "" && Number(node[key]) !== 0) {
    unread.push(`${key} "${String(node[key])}"`);
  }
  return millis;
}

/**
 * readChromiumBookmarks reads Chromium's `Bookmarks` file: each non-empty root a top-level folder
 * (the bookmarks bar as the toolbar folder), its folders and bookmarks in their order,
 * `date_added` as created, `date_modified` as changed. Fields it does not know are listed.
 */
export function readChromiumBookmarks(value: Json): ImportDocument {
  const { folder, bookmark, unknown, done } = tree();
  const walk = (node: Json, parent: NetscapeFolder | null) => {
    for (const key of Object.keys(node)) if (!CHROMIUM_KEYS.has(key)) unknown(key);
    if (node.type === "url") {
      const unreadDates: string[] = [];
      const entry = {
        name: text(node.name).trim(), href: text(node.url).trim(), description: "", folder: parent,
        addDate: readDate(node, "date_added", FROM_1601_MS, unreadDates), lastModified: readDate(node, "date_modified", FROM_1601_MS),
      };
      bookmark(unreadDates.length > 0 ? { ...entry, unreadDates } : entry);
      return;
    }
    const made = folder(text(node.name).trim(), parent, { addDate: readDate(node, "date_added", FROM_1601_MS), lastModified: readDate(node, "date_modified", FROM_1601_MS) });
    for (const child of Array.isArray(node.children) ? node.children : []) if (isObject(child)) walk(child, made);
    return made;
  };
  const roots = value.roots as Json;
  for (const { key, name, toolbar } of CHROMIUM_ROOTS) {
    const root = roots[key];
    if (!isObject(root) || !Array.isArray(root.children) || root.children.length === 0) continue;
    const made = walk({ ...root, type: "folder", name: text(root.name).trim() || name }, null)!;
    if (toolbar) made.toolbar = true;
  }
  return done("chromium");
}

/** Firefox's roots by their `root` name, each with the name Firefox's HTML export gives it; its tags folder is not bookmarks. */
const FIREFOX_ROOTS: Record<string, { name: string; toolbar?: boolean }> = {
  bookmarksMenuFolder: { name: "Bookmarks Menu" },
  menuFolder: { name: "Bookmarks Menu" },
  toolbarFolder: { name: "Bookmarks Toolbar", toolbar: true },
  unfiledBookmarksFolder: { name: "Other Bookmarks" },
  mobileFolder: { name: "Mobile Bookmarks" },
};

/** Fields of Firefox's places read, and those left out on purpose (ids, the icon, the encoding); others (`keyword`, `postData`...) are listed. */
const FIREFOX_KEYS = new Set(["type", "title", "uri", "dateAdded", "lastModified", "children", "tags", "root", "annos", "guid", "index", "id", "typeCode", "charset", "iconUri", "iconuri"]);
/** The annotation Firefox kept a bookmark's description in. */
const FIREFOX_DESCRIPTION = "bookmarkProperties/description";

/**
 * readFirefoxBackup reads Firefox's bookmark backup: each root with something in it a top-level
 * folder named as Firefox's HTML export names it (the toolbar as the toolbar folder), folders and
 * bookmarks in their order (`index`), `dateAdded` as created, `lastModified` as changed, `tags`
 * as the HTML file's tags. Separators and the tags folder are not bookmarks; a `keyword` is
 * listed, not imported.
 */
export function readFirefoxBackup(value: Json): ImportDocument {
  const { folder, bookmark, unknown, done } = tree();
  const ordered = (children: unknown) =>
    (Array.isArray(children) ? children.filter(isObject) : []).map((child, at) => ({ child, at }))
      .sort((a, b) => (Number(a.child.index ?? a.at) - Number(b.child.index ?? b.at)) || a.at - b.at).map(({ child }) => child);
  const walk = (node: Json, parent: NetscapeFolder | null, name?: string): NetscapeFolder | null => {
    for (const key of Object.keys(node)) if (!FIREFOX_KEYS.has(key)) unknown(key);
    if (node.type === "text/x-moz-place") {
      const unreadDates: string[] = [];
      const annos = Array.isArray(node.annos) ? node.annos.filter(isObject) : [];
      const entry: Omit<NetscapeBookmark, "foldersBefore" | "favorite"> = {
        name: text(node.title).trim(), href: text(node.uri).trim(), folder: parent,
        description: text(annos.find((anno) => anno.name === FIREFOX_DESCRIPTION)?.value).trim(),
        addDate: readDate(node, "dateAdded", 0, unreadDates), lastModified: readDate(node, "lastModified", 0),
        tags: text(node.tags).split(",").map((tag) => tag.trim()).filter((tag) => tag !== ""),
      };
      if (unreadDates.length > 0) entry.unreadDates = unreadDates;
      bookmark(entry);
      return null;
    }
    if (node.type !== "text/x-moz-place-container") return null;
    const made = folder(name ?? text(node.title).trim(), parent, { addDate: readDate(node, "dateAdded", 0), lastModified: readDate(node, "lastModified", 0) });
    for (const child of ordered(node.children)) walk(child, made);
    return made;
  };
  for (const root of ordered(value.children)) {
    const known = FIREFOX_ROOTS[text(root.root)];
    if (root.root === "tagsFolder" || !Array.isArray(root.children) || root.children.length === 0) continue;
    const made = walk(root, null, known?.name);
    if (made && known?.toolbar) made.toolbar = true;
  }
  return done("firefox");
}
