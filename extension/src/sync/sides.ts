/**
 * Reading each side into the sync's shape: the browser's folder (what the sync leaves alone
 * set aside) and the server's collection subtree (its items keyed by the last synced state).
 */
import type { CollectionJson } from "../../../src/contract/collections";
import type { LinkJson } from "../../../src/contract/links";
import type { BookmarkNode } from "../webext";
import { folderName, markName, ROOT, syncable, type Base, type Key, type Side } from "./tree";

export interface BrowserRead {
  side: Side;
  /** Every folder's children as the browser lists them (bookmark ids), what the sync leaves alone included. */
  all: Map<Key, string[]>;
}

/**
 * browserSide reads the synced folder: sub-folders and http(s) bookmarks are synced; separators,
 * other addresses (`javascript:`, `place:`) and the folders in `skip` (the favorites folder)
 * stay in the browser, untouched and unsent.
 */
export function browserSide(root: BookmarkNode, skip: ReadonlySet<string>): BrowserRead {
  const side: Side = { items: new Map(), children: new Map() };
  const all = new Map<Key, string[]>();
  const walk = (node: BookmarkNode, key: Key) => {
    const children = node.children ?? [];
    all.set(key, children.map((child) => child.id));
    const synced: Key[] = [];
    for (const child of children) {
      if (skip.has(child.id) || (child as { type?: string }).type === "separator") continue;
      if (child.url === undefined) {
        side.items.set(child.id, { kind: "folder", title: folderName(child.title), url: "", parent: key });
        synced.push(child.id);
        walk(child, child.id);
      } else if (syncable(child.url)) {
        side.items.set(child.id, { kind: "mark", title: markName(child.title, child.url), url: child.url, parent: key });
        synced.push(child.id);
      }
    }
    side.children.set(key, synced);
  };
  walk(root, ROOT);
  return { side, all };
}

export interface ServerRead {
  side: Side;
  /** Each item's id on the server: a folder's collection, a mark's link. */
  ids: Map<Key, number>;
  /** Each item's `updatedAt`, in ms. */
  times: Map<Key, number>;
  /** The link each mark shows. */
  links: Map<Key, number>;
  /** The links as the server answered them. */
  linkJson: Map<number, LinkJson>;
}

/**
 * serverSide reads the collection subtree (`GET /api/v1/collections?under=`, the root first).
 * A collection keeps its key from the last sync; a link in a collection (a placement) keeps
 * the key of its mark there, and a link that left one synced collection for another keeps the
 * key of the mark it had (a move); anything else is new: `s:c<id>`, `s:l<link>:c<collection>`.
 */
export function serverSide(base: Base, collections: readonly CollectionJson[]): ServerRead {
  const rootId = collections[0]!.id;
  const collectionKeys = new Map<number, Key>([[rootId, ROOT]]);
  for (const [key, item] of Object.entries(base.items)) if (item.kind === "folder") collectionKeys.set(item.server, key);
  const collectionOf = (key: Key) => (key === ROOT ? rootId : base.items[key]?.server);
  const basePlacements = new Map<string, Key>();
  for (const [key, item] of Object.entries(base.items)) if (item.kind === "mark") basePlacements.set(`${item.server}:${collectionOf(item.parent)}`, key);

  const read: ServerRead = { side: { items: new Map(), children: new Map() }, ids: new Map(), times: new Map(), links: new Map(), linkJson: new Map() };
  const keyOf = (collection: number) => collectionKeys.get(collection) ?? `s:c${collection}`;
  for (const collection of collections) for (const link of collection.links) read.linkJson.set(link.id, link);

  // Placements: those the last sync knew, then moves (a link gone from one synced collection and in another), then new ones.
  const placements = collections.flatMap((collection) =>
    collection.order.filter((item) => item.kind === "link").map((item) => ({ link: item.id, collection: collection.id })));
  const keys = new Map<string, Key>();
  const seen = new Set<Key>();
  for (const placement of placements) {
    const key = basePlacements.get(`${placement.link}:${placement.collection}`);
    if (key !== undefined) {
      keys.set(`${placement.link}:${placement.collection}`, key);
      seen.add(key);
    }
  }
  const left = new Map<number, Key[]>();
  for (const [key, item] of Object.entries(base.items)) {
    if (item.kind === "mark" && !seen.has(key)) left.set(item.server, [...(left.get(item.server) ?? []), key]);
  }
  for (const placement of placements) {
    const id = `${placement.link}:${placement.collection}`;
    if (keys.has(id)) continue;
    keys.set(id, left.get(placement.link)?.shift() ?? `s:l${placement.link}:c${placement.collection}`);
  }

  for (const collection of collections) {
    const key = keyOf(collection.id);
    read.times.set(key, Date.parse(collection.updatedAt));
    if (key !== ROOT) {
      read.side.items.set(key, { kind: "folder", title: collection.name, url: "", parent: keyOf(collection.parentId!) });
      read.ids.set(key, collection.id);
    }
    read.side.children.set(key, collection.order.map((item) => (item.kind === "collection" ? keyOf(item.id) : keys.get(`${item.id}:${collection.id}`)!)));
    for (const item of collection.order) {
      if (item.kind !== "link") continue;
      const markKey = keys.get(`${item.id}:${collection.id}`)!;
      const link = read.linkJson.get(item.id)!;
      read.side.items.set(markKey, { kind: "mark", title: link.name, url: link.url, parent: key });
      read.ids.set(markKey, link.id);
      read.links.set(markKey, link.id);
      read.times.set(markKey, Date.parse(link.updatedAt));
    }
  }
  return read;
}

/** folderRows lists the profile's folders depth first with their depth, the favorites folder and what is inside it left out. */
export function folderRows(tree: readonly BookmarkNode[], skip: string | null): { node: BookmarkNode; depth: number }[] {
  const rows: { node: BookmarkNode; depth: number }[] = [];
  const walk = (node: BookmarkNode, depth: number) => {
    for (const child of node.children ?? []) {
      if (child.url !== undefined || child.type === "separator" || child.id === skip) continue;
      rows.push({ node: child, depth });
      walk(child, depth + 1);
    }
  };
  for (const root of tree) walk(root, 1);
  return rows;
}
