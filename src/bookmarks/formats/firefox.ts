/**
 * Firefox's bookmark backup (`.json`): `text/x-moz-place-container` folders and `text/x-moz-place`
 * bookmarks under the `placesRoot`, `dateAdded` in microseconds since 1970. Read as a bookmark
 * file's tree, given to the planner as an HTML file is. Its compressed backups (`.jsonlz4`, the
 * ones Firefox makes every day) are decompressed first (mozlz4.ts) and read the same way.
 */
import type { ImportDocument } from "../document";
import { BookmarkFileRefused, type NetscapeBookmark, type NetscapeFolder } from "../netscape";
import { MOZ_LZ4_MAGIC, readMozLz4 } from "../mozlz4";
import { browserTree, ImportInput, isObject, microsecondsField, text } from "./common";

const NOT_A_BACKUP = "This Firefox compressed file (.jsonlz4) holds no bookmark backup. In Firefox, open Bookmarks › Manage bookmarks, then Import and Backup › Export Bookmarks to HTML, and import that file.";

/** isBackup: the backup's root, a place container holding `children`. */
function isBackup(input: ImportInput): boolean {
  if (!input.looksJson) return false;
  const value = input.json;
  return isObject(value) && value.type === "text/x-moz-place-container" && Array.isArray(value.children);
}

/** sniff: the backup (`.json`), or its compressed form (`.jsonlz4`, whose content `read` checks). */
export function sniff(input: ImportInput): boolean {
  return input.startsWith(MOZ_LZ4_MAGIC) || isBackup(input);
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
 * read reads Firefox's bookmark backup: each root with something in it a top-level
 * folder named as Firefox's HTML export names it (the toolbar as the toolbar folder), folders and
 * bookmarks in their order (`index`), `dateAdded` as created, `lastModified` as changed, `tags`
 * as the HTML file's tags. Separators and the tags folder are not bookmarks; a `keyword` is
 * listed, not imported.
 */
export function read(input: ImportInput): ImportDocument {
  if (input.startsWith(MOZ_LZ4_MAGIC)) {
    const inner = new ImportInput(readMozLz4(input.bytes));
    if (!isBackup(inner)) throw new BookmarkFileRefused(NOT_A_BACKUP);
    return read(inner);
  }
  const value = input.json as Record<string, unknown>;
  const { folder, bookmark, unknown, done } = browserTree();
  const ordered = (children: unknown) =>
    (Array.isArray(children) ? children.filter(isObject) : []).map((child, at) => ({ child, at }))
      .sort((a, b) => (Number(a.child.index ?? a.at) - Number(b.child.index ?? b.at)) || a.at - b.at).map(({ child }) => child);
  const walk = (node: Record<string, unknown>, parent: NetscapeFolder | null, name?: string): NetscapeFolder | null => {
    for (const key of Object.keys(node)) if (!FIREFOX_KEYS.has(key)) unknown(key);
    if (node.type === "text/x-moz-place") {
      const unreadDates: string[] = [];
      const annos = Array.isArray(node.annos) ? node.annos.filter(isObject) : [];
      const entry: Omit<NetscapeBookmark, "foldersBefore" | "favorite"> = {
        name: text(node.title).trim(), href: text(node.uri).trim(), folder: parent,
        description: text(annos.find((anno) => anno.name === FIREFOX_DESCRIPTION)?.value).trim(),
        addDate: microsecondsField(node, "dateAdded", 0, unreadDates), lastModified: microsecondsField(node, "lastModified", 0),
        tags: text(node.tags).split(",").map((tag) => tag.trim()).filter((tag) => tag !== ""),
      };
      if (unreadDates.length > 0) entry.unreadDates = unreadDates;
      bookmark(entry);
      return null;
    }
    if (node.type !== "text/x-moz-place-container") return null;
    const made = folder(name ?? text(node.title).trim(), parent, { addDate: microsecondsField(node, "dateAdded", 0), lastModified: microsecondsField(node, "lastModified", 0) });
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
