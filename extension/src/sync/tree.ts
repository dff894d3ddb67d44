/**
 * The synced folder and its collection as one shape: items under a root, each a folder or a
 * mark (a bookmark with an http(s) address), keyed so that the same item has the same key on
 * both sides and in the last synced state. A key is the item's bookmark id once it has one;
 * an item the server has and the browser has not yet is `s:…` until its bookmark is made.
 */

export type Key = string;

/** The synced folder itself, whose children are the collection's items. */
export const ROOT: Key = "root";

export interface Item {
  kind: "folder" | "mark";
  /** The name as the server keeps it: trimmed, at most 254 code points, never empty. */
  title: string;
  /** A mark's address; "" for a folder. */
  url: string;
  parent: Key;
}

/** One side as it is: its items and every folder's children (ROOT's included), in order. */
export interface Side {
  items: Map<Key, Item>;
  children: Map<Key, Key[]>;
}

/** The last synced state, as kept in storage: each item with its server id (a collection's, or a mark's link's). */
export interface Base {
  items: Record<Key, Item & { server: number }>;
  children: Record<Key, Key[]>;
}

export const EMPTY_BASE: Base = { items: {}, children: { [ROOT]: [] } };

/** The longest name the server keeps (its limit, in code points). */
export const NAME_MAX = 254;
/** The longest address the server keeps. */
export const URL_MAX = 2048;

/** cut keeps the first `max` code points of a trimmed text. */
function cut(text: string, max: number): string {
  const points = [...text.trim()];
  return points.length <= max ? points.join("").trim() : points.slice(0, max).join("").trim();
}

/** markName is the name a bookmark's title gives its link: the title, or without one its address. */
export function markName(title: string, url: string): string {
  return cut(title, NAME_MAX) || cut(url, NAME_MAX);
}

/** folderName is the name a folder's title gives its collection ("Unnamed folder" without one, as imports name it). */
export function folderName(title: string): string {
  return cut(title, NAME_MAX) || "Unnamed folder";
}

/** syncable says whether a bookmark's address is one the server keeps: http(s), parseable, at most URL_MAX long. */
export function syncable(url: string): boolean {
  if (url.length > URL_MAX || !/^https?:\/\//i.test(url)) return false;
  return URL.canParse(url);
}

/** sideOfBase is the last synced state as a side (what both sides were then). */
export function sideOfBase(base: Base): Side {
  const items = new Map<Key, Item>();
  for (const [key, { kind, title, url, parent }] of Object.entries(base.items)) items.set(key, { kind, title, url, parent });
  return { items, children: new Map(Object.entries(base.children).map(([key, list]) => [key, [...list]])) };
}

/** descendants lists the items under `key` (not itself), depth first. */
export function descendants(side: Side, key: Key): Key[] {
  const found: Key[] = [];
  const walk = (folder: Key) => {
    for (const child of side.children.get(folder) ?? []) {
      found.push(child);
      if (side.items.get(child)?.kind === "folder") walk(child);
    }
  };
  walk(key);
  return found;
}

/** foldersTopDown lists a side's folders so that each comes after its parent (ROOT first). */
export function foldersTopDown(side: Side): Key[] {
  return [ROOT, ...descendants(side, ROOT).filter((key) => side.items.get(key)?.kind === "folder")];
}
