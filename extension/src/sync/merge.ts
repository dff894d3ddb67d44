/**
 * The three-way merge of a sync: the last synced state, the browser's folder and the server's
 * collection as they are now, into the one tree both sides should hold. Pure: the engine reads
 * the sides, this decides, and the engine writes the difference to each side.
 *
 * The rules, item by item (a folder or a mark):
 * - new on one side: it is added to the other; new on both at the same place (a mark with the
 *   same address, a folder with the same name) is one item, with the server's fields;
 * - changed on one side: the change is taken; the same field changed on both: the later change
 *   wins (the browser's time from its bookmark events, the server's from `updatedAt`);
 * - deleted on one side and unchanged on the other: deleted; changed on the other: an edit beats
 *   a delete and the item comes back, with the folders above it;
 * - a link shown by several marks (it is in several synced collections) has one name and one
 *   address: a mark's change is the link's, and so every mark's;
 * - a folder's order: the side that reordered it wins (both: the later), and the items the other
 *   side added or moved in take their place after the item before them there.
 */
import { longestIncreasingRun } from "../reconcile";
import { ROOT, type Item, type Key, type Side } from "./tree";

/** When the browser changed an item (from its bookmark events), field by field, in ms. */
export interface Times {
  title?: number;
  url?: number;
  parent?: number;
  /** For a folder: when its children were last reordered, added to or taken from. */
  order?: number;
}

export interface MergeInput {
  base: Side;
  browser: Side;
  browserTimes: ReadonlyMap<Key, Times>;
  server: Side;
  /** When the server last changed each item (`updatedAt`), in ms. */
  serverTimes: ReadonlyMap<Key, number>;
  /** The link each of the server's (and the base's) marks shows. */
  links: ReadonlyMap<Key, number>;
  /** The time of a browser change its events did not report. */
  now: number;
  /**
   * A union after the server's history was replaced (base empty): the last synced state of the
   * earlier history, keyed by bookmark id. A bookmark matched with a link takes the link's name,
   * unless the browser renamed it since that sync.
   */
  earlier?: Side;
}

/**
 * matchNew pairs items new on both sides at the same place: a mark with the same address, a
 * folder with the same name (each once, in order), searching down matched folders. It answers
 * the server keys to rename to browser keys.
 */
export function matchNew(base: Side, browser: Side, server: Side): Map<Key, Key> {
  const renamed = new Map<Key, Key>();
  const pairs: [Key, Key][] = [...browser.children.keys()].filter((key) => server.children.has(key)).map((key) => [key, key]);
  for (let pair = pairs.pop(); pair !== undefined; pair = pairs.pop()) {
    const [inBrowser, inServer] = pair;
    const fresh = (side: Side, folder: Key) => (side.children.get(folder) ?? []).filter((key) => !base.items.has(key) && !renamed.has(key));
    const candidates = fresh(server, inServer);
    for (const key of fresh(browser, inBrowser)) {
      const mine = browser.items.get(key)!;
      const index = candidates.findIndex((other) => sameItem(mine, server.items.get(other)!));
      if (index === -1) continue;
      const [other] = candidates.splice(index, 1);
      renamed.set(other!, key);
      if (mine.kind === "folder") pairs.push([key, other!]);
    }
  }
  return renamed;
}

function sameItem(a: Item, b: Item): boolean {
  return a.kind === b.kind && (a.kind === "folder" ? a.title === b.title : a.url === b.url);
}

/** renameKeys is a side with some keys renamed (items, parents and children lists). */
export function renameKeys(side: Side, renamed: ReadonlyMap<Key, Key>): Side {
  if (renamed.size === 0) return side;
  const name = (key: Key) => renamed.get(key) ?? key;
  const items = new Map<Key, Item>();
  for (const [key, item] of side.items) items.set(name(key), { ...item, parent: name(item.parent) });
  const children = new Map<Key, Key[]>();
  for (const [key, list] of side.children) children.set(name(key), list.map(name));
  return { items, children };
}

function changedFrom(before: Item, now: Item): boolean {
  return before.title !== now.title || before.url !== now.url || before.parent !== now.parent;
}

/** pick is one field's merge: the side that changed it, or the later of two changes (a tie goes to the server). */
function pick<T>(before: T, browser: T, server: T, browserAt: number, serverAt: number): T {
  if (browser === server || browser === before) return server;
  if (server === before) return browser;
  return browserAt > serverAt ? browser : server;
}

/** merge is the tree both sides should hold after the sync (the server side already renamed by matchNew). */
export function merge(input: MergeInput): Side {
  const { base, browser, server } = input;
  const browserAt = (key: Key, field: keyof Times) => input.browserTimes.get(key)?.[field] ?? input.now;
  const serverAt = (key: Key) => input.serverTimes.get(key) ?? 0;
  const items = new Map<Key, Item>();
  for (const key of new Set([...base.items.keys(), ...browser.items.keys(), ...server.items.keys()])) {
    const before = base.items.get(key);
    const mine = browser.items.get(key);
    const theirs = server.items.get(key);
    if (before === undefined) {
      const renamedHere = mine !== undefined && theirs !== undefined && input.earlier?.items.get(key)?.title !== undefined && input.earlier.items.get(key)!.title !== mine.title;
      items.set(key, renamedHere ? { ...theirs!, title: mine!.title } : theirs ?? mine!);
    }
    else if (mine !== undefined && theirs !== undefined) {
      items.set(key, {
        kind: before.kind,
        title: pick(before.title, mine.title, theirs.title, browserAt(key, "title"), serverAt(key)),
        url: pick(before.url, mine.url, theirs.url, browserAt(key, "url"), serverAt(key)),
        parent: pick(before.parent, mine.parent, theirs.parent, browserAt(key, "parent"), serverAt(key)),
      });
    } else if (mine !== undefined && changedFrom(before, mine)) items.set(key, mine);
    else if (theirs !== undefined && changedFrom(before, theirs)) items.set(key, theirs);
  }
  unifyLinks(items, input);
  bringBackParents(items, input);
  breakCycles(items, input);

  const members = new Map<Key, Key[]>([[ROOT, []]]);
  for (const [key, item] of items) {
    if (item.kind === "folder" && !members.has(key)) members.set(key, []);
    if (!members.has(item.parent)) members.set(item.parent, []);
    members.get(item.parent)!.push(key);
  }
  const children = new Map<Key, Key[]>();
  for (const [folder, keys] of members) children.set(folder, mergeOrder(folder, new Set(keys), input, browserAt(folder, "order"), serverAt(folder)));
  return { items, children };
}

/**
 * unifyLinks gives every mark of one link the same name and address: a value that differs from
 * the server's is a change made in the browser (the latest of several wins).
 */
function unifyLinks(items: Map<Key, Item>, { links, server, browserTimes, now }: MergeInput): void {
  const groups = new Map<number, Key[]>();
  for (const [key, item] of items) {
    const link = links.get(key);
    if (item.kind === "mark" && link !== undefined) groups.set(link, [...(groups.get(link) ?? []), key]);
  }
  for (const keys of groups.values()) {
    if (keys.length < 2) continue;
    const current = keys.map((key) => server.items.get(key)).find((item) => item !== undefined);
    for (const field of ["title", "url"] as const) {
      const changed = keys.filter((key) => current === undefined || items.get(key)![field] !== current[field]);
      if (changed.length === 0) continue;
      const latest = changed.reduce((best, key) => ((browserTimes.get(key)?.[field] ?? now) > (browserTimes.get(best)?.[field] ?? now) ? key : best));
      const value = items.get(latest)![field];
      for (const key of keys) items.set(key, { ...items.get(key)!, [field]: value });
    }
  }
}

/** bringBackParents keeps the folders above every kept item (an edit inside a deleted folder brings it back). */
function bringBackParents(items: Map<Key, Item>, { base, browser, server }: MergeInput): void {
  for (const key of [...items.keys()]) {
    let parent = items.get(key)!.parent;
    while (parent !== ROOT && !items.has(parent)) {
      const folder = browser.items.get(parent) ?? server.items.get(parent) ?? base.items.get(parent);
      if (folder === undefined) {
        // Cannot happen (a parent is an item of the side its child came from); kept safe at the top.
        items.set(key, { ...items.get(key)!, parent: ROOT });
        break;
      }
      items.set(parent, folder);
      parent = folder.parent;
    }
  }
}

/**
 * breakCycles: moves on both sides can put two folders inside each other (each side's tree is
 * a tree, their mix may not be). The later move wins: of a cycle's folders, the one whose move
 * into it was the earliest goes back to where the other side has it (else the last sync's
 * place, else the top), until no cycle is left.
 */
function breakCycles(items: Map<Key, Item>, { base, browser, server, browserTimes, serverTimes, now }: MergeInput): void {
  const movedAt = (key: Key): number => {
    const parent = items.get(key)!.parent;
    if (parent !== base.items.get(key)?.parent && parent === browser.items.get(key)?.parent) return browserTimes.get(key)?.parent ?? now;
    if (parent !== base.items.get(key)?.parent && parent === server.items.get(key)?.parent) return serverTimes.get(key) ?? 0;
    return Number.NEGATIVE_INFINITY;
  };
  for (const [start, item] of items) {
    if (item.kind !== "folder") continue;
    for (;;) {
      const path: Key[] = [];
      let at = start;
      while (at !== ROOT && !path.includes(at)) {
        path.push(at);
        at = items.get(at)!.parent;
      }
      if (at === ROOT) break;
      const cycle = path.slice(path.indexOf(at));
      // A folder that did not move (its place is the last sync's) cannot close a cycle alone: the earliest mover goes back.
      const member = cycle.reduce((earliest, key) => (movedAt(key) < movedAt(earliest) && movedAt(key) !== Number.NEGATIVE_INFINITY ? key : earliest),
        cycle.find((key) => movedAt(key) !== Number.NEGATIVE_INFINITY) ?? cycle[0]!);
      const current = items.get(member)!.parent;
      const places = [browser.items.get(member)?.parent, server.items.get(member)?.parent, base.items.get(member)?.parent]
        .filter((parent): parent is Key => parent !== undefined && parent !== current);
      const target = places.find((parent) => (parent === ROOT || items.has(parent)) && !cycle.includes(parent) && !inside(items, parent, member)) ?? ROOT;
      items.set(member, { ...items.get(member)!, parent: target });
    }
  }
}

/** inside says whether `key` is `folder` or below it in the merged items. */
function inside(items: ReadonlyMap<Key, Item>, key: Key, folder: Key): boolean {
  for (let at = key, steps = 0; at !== ROOT && steps <= items.size; at = items.get(at)?.parent ?? ROOT, steps++) if (at === folder) return true;
  return false;
}

function sameOrder(a: readonly Key[], b: readonly Key[]): boolean {
  return a.length === b.length && a.every((key, index) => key === b[index]);
}

/**
 * mergeOrder orders one folder's merged children: the order of the side that reordered the
 * folder since the last sync (both: the later), then each item it lacks placed right after the
 * item before it on its own side, or the base's, or at the end.
 */
function mergeOrder(folder: Key, members: ReadonlySet<Key>, { base, browser, server }: MergeInput, browserAt: number, serverAt: number): Key[] {
  const of = (side: Side) => (side.children.get(folder) ?? []).filter((key) => members.has(key));
  const mine = of(browser);
  const theirs = of(server);
  const before = of(base);
  const reordered = (list: readonly Key[]) => {
    const common = new Set(list.filter((key) => before.includes(key)));
    return !sameOrder(list.filter((key) => common.has(key)), before.filter((key) => common.has(key)));
  };
  const browserHas = browser.children.has(folder) || folder === ROOT;
  const serverHas = server.children.has(folder) || folder === ROOT;
  const browserFirst = !serverHas || (browserHas && reordered(mine) && (!reordered(theirs) || browserAt > serverAt));
  const result = [...(browserFirst ? mine : theirs)];
  const placed = new Set(result);
  // The items the winning order moved since the last sync (those outside its longest run in the last sync's order).
  const baseIndex = new Map(before.map((key, index) => [key, index]));
  const inBase = result.filter((key) => baseIndex.has(key));
  const kept = new Set(longestIncreasingRun(inBase.map((key) => baseIndex.get(key)!)).map((index) => inBase[index]!));
  const movers = new Set(inBase.filter((key) => !kept.has(key)));
  for (const source of [browserFirst ? theirs : mine, before, [...members]]) {
    // An item goes after the nearest item before it on its side that kept its place in the result
    // (an anchor): after one that moved it would move with it, changing places with its old
    // neighbours. Without an anchor before it, before the nearest anchor after it; without
    // either, after the nearest item before it.
    const shared = source.filter((key) => placed.has(key) && !movers.has(key));
    const anchors = new Set(longestIncreasingRun(shared.map((key) => result.indexOf(key))).map((index) => shared[index]!));
    source.forEach((key, index) => {
      if (placed.has(key)) return;
      const previous = source.slice(0, index).reverse();
      const after = previous.find((other) => anchors.has(other));
      const ahead = after === undefined ? source.slice(index + 1).find((other) => anchors.has(other)) : undefined;
      const fallback = after ?? (ahead === undefined ? previous.find((other) => placed.has(other)) : undefined);
      const at = ahead !== undefined ? result.indexOf(ahead) : fallback === undefined ? 0 : result.indexOf(fallback) + 1;
      result.splice(at, 0, key);
      placed.add(key);
      anchors.add(key);
    });
  }
  return result;
}
