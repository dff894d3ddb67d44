/**
 * Writing the merged tree to each side: the bookmark calls that turn the browser's folder into
 * it, and the batch operations that turn the server's collection into it.
 */
import { longestIncreasingRun } from "../reconcile";
import { moveTo } from "../pins";
import type { Bookmarks } from "../webext";
import type { BrowserRead, ServerRead } from "./sides";
import { foldersTopDown, ROOT, type Key, type Side } from "./tree";
import type { BatchOperation, Target } from "../../../src/contract/batch";

/** What a sync would delete on each side: the items of the side that the merged tree lacks. */
export function deletions(side: Side, merged: Side): Key[] {
  return [...side.items.keys()].filter((key) => !merged.items.has(key));
}

/**
 * applyToBrowser makes the folder hold the merged tree: folders made top down, marks made,
 * names and addresses set, items moved to their folders, what is gone removed, then each
 * folder put in order with what the sync leaves alone (separators, other addresses) kept after
 * the item it followed. It answers the bookmark id of each item it made, by key.
 */
export async function applyToBrowser(bookmarks: Bookmarks, rootId: string, read: BrowserRead, merged: Side): Promise<Map<Key, string>> {
  const { side } = read;
  const made = new Map<Key, string>();
  const idOf = (key: Key) => (key === ROOT ? rootId : made.get(key) ?? key);
  for (const key of foldersTopDown(merged)) {
    const item = merged.items.get(key);
    if (item === undefined) continue;
    const now = side.items.get(key);
    if (now === undefined) made.set(key, (await bookmarks.create({ parentId: idOf(item.parent), title: item.title })).id);
    else if (now.title !== item.title) await bookmarks.update(key, { title: item.title });
  }
  for (const [key, item] of merged.items) {
    if (item.kind !== "mark") continue;
    const now = side.items.get(key);
    if (now === undefined) made.set(key, (await bookmarks.create({ parentId: idOf(item.parent), title: item.title, url: item.url })).id);
    else if (now.title !== item.title || now.url !== item.url) {
      await bookmarks.update(key, { ...(now.title === item.title ? {} : { title: item.title }), ...(now.url === item.url ? {} : { url: item.url }) });
    }
  }
  for (const [key, item] of merged.items) {
    const now = side.items.get(key);
    if (now !== undefined && now.parent !== item.parent) await bookmarks.move(key, { parentId: idOf(item.parent), index: (await bookmarks.getChildren(idOf(item.parent))).length });
  }
  const gone = new Set(deletions(side, merged));
  for (const key of gone) {
    if (gone.has(side.items.get(key)!.parent)) continue;
    await (side.items.get(key)!.kind === "folder" ? bookmarks.removeTree(key) : bookmarks.remove(key));
  }
  for (const folder of foldersTopDown(merged)) {
    const id = idOf(folder);
    const current = (await bookmarks.getChildren(id)).map((node) => node.id);
    const wanted = (merged.children.get(folder) ?? []).map(idOf);
    await arrange(bookmarks, id, current, withLeftAlone(current, wanted, new Set(wanted), read));
  }
  return made;
}

/**
 * withLeftAlone is a folder's wanted order with the children the sync leaves alone put back
 * after the synced item they followed (or first, when none did).
 */
function withLeftAlone(current: readonly string[], wanted: readonly string[], synced: ReadonlySet<string>, read: BrowserRead): string[] {
  const known = new Set(read.side.items.keys());
  const after = new Map<string | null, string[]>();
  let previous: string | null = null;
  for (const id of current) {
    if (synced.has(id)) previous = id;
    else if (!known.has(id)) after.set(previous, [...(after.get(previous) ?? []), id]);
  }
  const order = [...(after.get(null) ?? [])];
  const placed = new Set(order);
  for (const id of wanted) {
    order.push(id);
    for (const alone of after.get(id) ?? []) {
      order.push(alone);
      placed.add(alone);
    }
  }
  // Left alone after an item that moved away: at the end, in their order.
  for (const [, list] of after) for (const id of list) if (!placed.has(id)) order.push(id);
  return order;
}

/** arrange moves the fewest children so that `current` becomes `wanted` (the same ids), each mover right after its predecessor. */
async function arrange(bookmarks: Bookmarks, folderId: string, current: readonly string[], wanted: readonly string[]): Promise<void> {
  const position = new Map(wanted.map((id, index) => [id, index]));
  const staying = new Set(longestIncreasingRun(current.map((id) => position.get(id) ?? -1)).map((index) => current[index]!));
  const folder = [...current];
  for (let at = 0; at < wanted.length; at++) {
    const id = wanted[at]!;
    if (staying.has(id)) continue;
    folder.splice(folder.indexOf(id), 1);
    const index = at === 0 ? 0 : folder.indexOf(wanted[at - 1]!) + 1;
    folder.splice(index, 0, id);
    await moveTo(bookmarks, folderId, id, index);
  }
}

/**
 * serverPlan is the batch that turns the server's collection into the merged tree: collections
 * made top down, links made, links' names, addresses and collections changed (a mark moved is
 * the link leaving one collection for another), collections renamed and moved, the topmost
 * deleted collections deleted with their contents (into the trash), and the order of every
 * collection whose order differs. A created item's ref is its key.
 */
export function serverPlan(read: ServerRead, rootId: number, merged: Side): BatchOperation[] {
  const { side, ids } = read;
  const operations: BatchOperation[] = [];
  const target = (key: Key): Target => (key === ROOT ? { id: rootId } : side.items.has(key) ? { id: ids.get(key)! } : { ref: key });
  for (const key of foldersTopDown(merged)) {
    const item = merged.items.get(key);
    if (item !== undefined && !side.items.has(key)) operations.push({ op: "createCollection", ref: key, name: item.title, parent: target(item.parent) });
  }
  for (const [key, item] of merged.items) {
    if (item.kind === "mark" && !side.items.has(key)) operations.push({ op: "createLink", ref: key, name: item.title, url: item.url, collections: [target(item.parent)] });
  }

  // Collections deleted, their sub-collections with them: their links leave with the delete.
  const deleted = new Set<Key>();
  for (const key of side.items.keys()) if (side.items.get(key)!.kind === "folder" && !merged.items.has(key)) deleted.add(key);
  const inDeleted = (key: Key) => deleted.has(key);

  const byLink = new Map<number, Key[]>();
  for (const [key, link] of read.links) byLink.set(link, [...(byLink.get(link) ?? []), key]);
  for (const [link, keys] of byLink) {
    const kept = keys.filter((key) => merged.items.has(key));
    const json = read.linkJson.get(link)!;
    const first = kept.length > 0 ? merged.items.get(kept[0]!)! : undefined;
    const before = new Set(keys.map((key) => side.items.get(key)!.parent));
    const after = new Set(kept.map((key) => merged.items.get(key)!.parent));
    const add = [...after].filter((key) => !before.has(key));
    const remove = [...before].filter((key) => !after.has(key) && !inDeleted(key));
    const change: Extract<BatchOperation, { op: "updateLink" }> = { op: "updateLink", id: link };
    if (first !== undefined && first.title !== json.name) change.name = first.title;
    if (first !== undefined && first.url !== json.url) change.url = first.url;
    if (add.length > 0) change.add = add.map(target);
    if (remove.length > 0) change.remove = remove.map((key) => (key === ROOT ? rootId : ids.get(key)!));
    if (Object.keys(change).length > 2) operations.push(change);
  }

  for (const key of foldersTopDown(merged)) {
    const item = merged.items.get(key);
    const now = side.items.get(key);
    if (item === undefined || now === undefined) continue;
    const change: Extract<BatchOperation, { op: "updateCollection" }> = { op: "updateCollection", id: ids.get(key)! };
    if (item.title !== now.title) change.name = item.title;
    if (item.parent !== now.parent) change.parent = target(item.parent);
    if (Object.keys(change).length > 2) operations.push(change);
  }
  for (const key of deleted) {
    if (!deleted.has(side.items.get(key)!.parent)) operations.push({ op: "deleteCollection", id: ids.get(key)! });
  }

  for (const folder of foldersTopDown(merged)) {
    const wanted = merged.children.get(folder) ?? [];
    const now = side.children.get(folder);
    const made = folder !== ROOT && !side.items.has(folder);
    if (made ? wanted.length < 2 : sameKeys(now ?? [], wanted)) continue;
    operations.push({
      op: "order",
      collection: target(folder),
      order: wanted.map((key) => {
        const item = merged.items.get(key)!;
        const kind = item.kind === "folder" ? "collection" as const : "link" as const;
        if (!side.items.has(key)) return { kind, ref: key };
        return { kind, id: kind === "link" ? read.links.get(key)! : ids.get(key)! };
      }),
    });
  }
  return operations;
}

function sameKeys(a: readonly Key[], b: readonly Key[]): boolean {
  return a.length === b.length && a.every((key, index) => key === b[index]);
}
