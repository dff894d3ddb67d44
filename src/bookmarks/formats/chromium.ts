/**
 * Chromium's profile file `Bookmarks` (Chrome's and Edge's likewise), JSON: the roots
 * `bookmark_bar`, `other` and `synced`, each a tree of `folder` and `url` nodes, `date_added` in
 * microseconds since 1601. Read as a bookmark file's tree, given to the planner as an HTML file is.
 */
import type { ImportDocument } from "../document";
import type { NetscapeFolder } from "../netscape";
import { browserTree, isObject, microsecondsField, text, type ImportInput } from "./common";

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
function isChromiumBookmarks(value: unknown): value is Record<string, unknown> {
  return isObject(value) && isObject(value.roots) && CHROMIUM_ROOTS.some(({ key }) => isObject((value.roots as Record<string, unknown>)[key]));
}

/**
 * read reads Chromium's `Bookmarks` file: each non-empty root a top-level folder
 * (the bookmarks bar as the toolbar folder), its folders and bookmarks in their order,
 * `date_added` as created, `date_modified` as changed. Fields it does not know are listed.
 */
export function read(input: ImportInput): ImportDocument {
  const value = input.json as Record<string, unknown>;
  const { folder, bookmark, unknown, done } = browserTree();
  const walk = (node: Record<string, unknown>, parent: NetscapeFolder | null) => {
    for (const key of Object.keys(node)) if (!CHROMIUM_KEYS.has(key)) unknown(key);
    if (node.type === "url") {
      const unreadDates: string[] = [];
      const entry = {
        name: text(node.name).trim(), href: text(node.url).trim(), description: "", folder: parent,
        addDate: microsecondsField(node, "date_added", FROM_1601_MS, unreadDates), lastModified: microsecondsField(node, "date_modified", FROM_1601_MS),
      };
      bookmark(unreadDates.length > 0 ? { ...entry, unreadDates } : entry);
      return;
    }
    const made = folder(text(node.name).trim(), parent, { addDate: microsecondsField(node, "date_added", FROM_1601_MS), lastModified: microsecondsField(node, "date_modified", FROM_1601_MS) });
    for (const child of Array.isArray(node.children) ? node.children : []) if (isObject(child)) walk(child, made);
    return made;
  };
  const roots = value.roots as Record<string, unknown>;
  for (const { key, name, toolbar } of CHROMIUM_ROOTS) {
    const root = roots[key];
    if (!isObject(root) || !Array.isArray(root.children) || root.children.length === 0) continue;
    const made = walk({ ...root, type: "folder", name: text(root.name).trim() || name }, null)!;
    if (toolbar) made.toolbar = true;
  }
  return done("chromium");
}


/** sniff: a JSON object with `roots` holding at least one of Chromium's three. */
export const sniff = (input: ImportInput) => input.looksJson && isChromiumBookmarks(input.json);
