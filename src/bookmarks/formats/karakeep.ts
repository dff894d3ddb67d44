/** Karakeep's JSON export (Settings → Import / Export): `{bookmarks: [...], lists: [...]}`. */
import { dateField, type ImportDocument } from "../document";
import { isObject, isoTime, start, text, unknownKeys, type ImportInput, type ReadContext } from "./common";

/** sniff: a JSON object with a `bookmarks` list (and not linkshelf's own export). */
export function sniff(input: ImportInput): boolean {
  if (!input.looksJson) return false;
  const value = input.json;
  return isObject(value) && Array.isArray(value.bookmarks) && value.format !== "linkshelf";
}

const KARAKEEP_KEYS = ["createdAt", "title", "tags", "lists", "content", "note", "archived", "favourited"] as const;

/** read reads Karakeep's JSON export: its lists (nested by `parentId`) are collections; text bookmarks are skipped. */
export function read(input: ImportInput, context: ReadContext): ImportDocument {
  const value = input.json as Record<string, unknown>;
  const { document, folder, add } = start("karakeep", context);
  const lists = new Map<string, { name: string; icon: string; parentId: string | null }>();
  for (const list of Array.isArray(value.lists) ? value.lists : []) {
    if (isObject(list)) lists.set(String(list.id), { name: text(list.name), icon: text(list.icon), parentId: list.parentId == null ? null : String(list.parentId) });
  }
  // Each list is its own collection, even beside another of the same name: found by its id.
  const folderOf = (id: string) => {
    const path: { name: string; id: string }[] = [];
    for (let at: string | null = id, seen = new Set<string>(); at !== null && lists.has(at) && !seen.has(at); at = lists.get(at)!.parentId) {
      seen.add(at);
      path.unshift({ name: lists.get(at)!.name, id: at });
    }
    return folder(path.map((list) => list.name), path.map((list) => list.id));
  };
  // Every list is a collection, with its icon, even an empty one.
  for (const [id, list] of lists) {
    const made = folderOf(id);
    if (made && list.icon !== "") made.icon = list.icon;
  }
  for (const item of value.bookmarks as unknown[]) {
    if (!isObject(item)) continue;
    unknownKeys(document, item, KARAKEEP_KEYS);
    const content = isObject(item.content) ? item.content : {};
    if (content.type !== "link") {
      document.skipped.push({ name: text(item.title) || text(content.text).slice(0, 80), url: "", reason: "A text note of Karakeep's, not a link." });
      continue;
    }
    const tags = Array.isArray(item.tags) ? item.tags.map((tag) => (isObject(tag) ? text(tag.name) : text(tag))) : [];
    const memberOf = Array.isArray(item.lists) ? item.lists.filter((id) => lists.has(String(id))).map((id) => folderOf(String(id))!) : [];
    const unreadDates: string[] = [];
    add({
      name: text(item.title), url: text(content.url), description: text(item.note), folders: memberOf, tags: tags.filter((tag) => tag !== ""),
      archived: item.archived === true, favorite: item.favourited === true, createdAt: dateField("createdAt", item.createdAt, isoTime, unreadDates), unreadDates,
    });
  }
  return document;
}

