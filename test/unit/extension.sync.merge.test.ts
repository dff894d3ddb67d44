/**
 * The folder sync's pure parts: the merge's rules on small trees (moves on both sides that would
 * nest two folders in each other, order merges, parents brought back), the failsafe's bounds on
 * both sides, the folder picker's rows and the status line.
 */
import { describe, expect, it } from "bun:test";
import { tooMany } from "../../extension/src/sync/engine";
import { matchNew, merge, renameKeys, type Times } from "../../extension/src/sync/merge";
import { folderRows } from "../../extension/src/sync/sides";
import { folderName, markName, ROOT, syncable, type Item, type Key, type Side } from "../../extension/src/sync/tree";
import { promptWords, statusLine } from "../../extension/src/sync-status";
import type { SyncPrompt, SyncStatus } from "../../extension/src/sync/store";

/** side builds a tree from `key: parent` lines: a folder as `F:title`, a mark as `M:title:url`. */
function side(spec: Record<Key, [string, Key]>, order?: Record<Key, Key[]>): Side {
  const items = new Map<Key, Item>();
  const children = new Map<Key, Key[]>([[ROOT, []]]);
  for (const [key, [what, parent]] of Object.entries(spec)) {
    const [kind, title, ...url] = what.split(":");
    items.set(key, { kind: kind === "F" ? "folder" : "mark", title: title!, url: url.join(":"), parent });
    if (kind === "F" && !children.has(key)) children.set(key, []);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(key);
  }
  for (const [key, list] of Object.entries(order ?? {})) children.set(key, list);
  return { items, children };
}

function mergeOf(base: Side, browser: Side, server: Side, options: { browserTimes?: Record<Key, Times>; serverTimes?: Record<Key, number>; now?: number } = {}) {
  return merge({
    base, browser, server,
    browserTimes: new Map(Object.entries(options.browserTimes ?? {})),
    serverTimes: new Map(Object.entries(options.serverTimes ?? {})),
    links: new Map(),
    now: options.now ?? 1000,
  });
}

const parents = (tree: Side) => Object.fromEntries([...tree.items].map(([key, item]) => [key, item.parent]));

describe("the merge", () => {
  it("never nests two folders in each other when each side moved one into the other", () => {
    const base = side({ x: ["F:X", ROOT], y: ["F:Y", ROOT] });
    const browser = side({ x: ["F:X", "y"], y: ["F:Y", ROOT] });
    const server = side({ x: ["F:X", ROOT], y: ["F:Y", "x"] });
    const merged = mergeOf(base, browser, server);
    // Each move alone is taken; together they would be a cycle: one goes back to its server parent.
    const result = parents(merged);
    expect(result.x === "y" && result.y === "x").toBe(false);
    for (const key of ["x", "y"]) {
      let at = key;
      for (let steps = 0; at !== ROOT; steps++) {
        expect(steps).toBeLessThan(3);
        at = result[at]!;
      }
    }
  });

  it("folders moved into each other from both sides: the later move wins, whichever side made it", () => {
    const base = side({ a: ["F:A", ROOT], b: ["F:B", ROOT] });
    // The browser moved A into B, the server B into A.
    const browser = side({ a: ["F:A", "b"], b: ["F:B", ROOT] });
    const server = side({ a: ["F:A", ROOT], b: ["F:B", "a"] });
    // The browser's move later: A in B, B stays at the top.
    expect(parents(mergeOf(base, browser, server, { browserTimes: { a: { parent: 500 } }, serverTimes: { b: 400 } }))).toEqual({ a: "b", b: ROOT });
    // The server's move later: B in A.
    expect(parents(mergeOf(base, browser, server, { browserTimes: { a: { parent: 300 } }, serverTimes: { b: 400 } }))).toEqual({ a: ROOT, b: "a" });
  });

  it("a union after the server's history was replaced keeps a title the browser changed since the last sync, else takes the link's", () => {
    const empty = side({});
    const earlier = side({ m: ["M:Old:https://m/", ROOT], n: ["M:Same:https://n/", ROOT] });
    const browser = side({ m: ["M:Renamed here:https://m/", ROOT], n: ["M:Same:https://n/", ROOT] });
    const server = side({ m: ["M:Old on the server:https://m/", ROOT], n: ["M:Server name:https://n/", ROOT] });
    const merged = merge({ base: empty, browser, server, browserTimes: new Map(), serverTimes: new Map(), links: new Map(), now: 1000, earlier });
    expect(merged.items.get("m")!.title).toBe("Renamed here");
    expect(merged.items.get("n")!.title).toBe("Server name");
  });

  it("takes the order of the side that reordered, and places the other side's additions after their predecessors", () => {
    const base = side({ a: ["M:A:https://a/", ROOT], b: ["M:B:https://b/", ROOT], c: ["M:C:https://c/", ROOT] });
    const browser = side({ a: ["M:A:https://a/", ROOT], b: ["M:B:https://b/", ROOT], c: ["M:C:https://c/", ROOT] }, { [ROOT]: ["c", "b", "a"] });
    const server = side({ a: ["M:A:https://a/", ROOT], n: ["M:N:https://n/", ROOT], b: ["M:B:https://b/", ROOT], c: ["M:C:https://c/", ROOT] }, { [ROOT]: ["a", "n", "b", "c"] });
    expect(mergeOf(base, browser, server).children.get(ROOT)).toEqual(["c", "b", "a", "n"]);
    // Both reordered: the later wins.
    const server2 = side({ a: ["M:A:https://a/", ROOT], b: ["M:B:https://b/", ROOT], c: ["M:C:https://c/", ROOT] }, { [ROOT]: ["b", "a", "c"] });
    expect(mergeOf(base, browser, server2, { browserTimes: { [ROOT]: { order: 5 } }, serverTimes: { [ROOT]: 9 } }).children.get(ROOT)).toEqual(["b", "a", "c"]);
    expect(mergeOf(base, browser, server2, { browserTimes: { [ROOT]: { order: 9 } }, serverTimes: { [ROOT]: 5 } }).children.get(ROOT)).toEqual(["c", "b", "a"]);
  });

  it("an item that comes back (an edit beat a delete) keeps its place: it does not follow a neighbour the other side moved away", () => {
    const marks = (order: string[], titles: Record<string, string> = {}) =>
      side(Object.fromEntries(order.map((key) => [key, [`M:${titles[key] ?? key.toUpperCase()}:https://${key}/`, ROOT]])) as Record<Key, [string, Key]>, { [ROOT]: order });
    const base = marks(["a", "b", "c", "d"]);
    // The server moved C to the top and deleted D; the browser renamed D, so D comes back, after B where it was.
    const browser = marks(["a", "b", "c", "d"], { d: "D renamed" });
    const server = marks(["c", "a", "b"]);
    expect(mergeOf(base, browser, server, { serverTimes: { [ROOT]: 5 } }).children.get(ROOT)).toEqual(["c", "a", "b", "d"]);
    // The same the other way round: the browser moved C to the top and deleted D; the server renamed D.
    expect(mergeOf(base, marks(["c", "a", "b"]), marks(["a", "b", "c", "d"], { d: "D renamed" }), { browserTimes: { [ROOT]: { order: 5 } } }).children.get(ROOT)).toEqual(["c", "a", "b", "d"]);
    // D in the middle, its successor moved to the end: D stays before B, where it was.
    const base2 = marks(["a", "d", "b", "c"]);
    expect(mergeOf(base2, marks(["a", "d", "b", "c"], { d: "D renamed" }), marks(["b", "c", "a"]), { serverTimes: { [ROOT]: 5 } }).children.get(ROOT)).toEqual(["d", "b", "c", "a"]);
  });

  it("brings back a folder deleted on one side when the other added to it", () => {
    const base = side({ f: ["F:F", ROOT], a: ["M:A:https://a/", "f"] });
    const browser = side({});
    const server = side({ f: ["F:F", ROOT], a: ["M:A:https://a/", "f"], n: ["M:N:https://n/", "f"] });
    const merged = mergeOf(base, browser, server);
    expect(parents(merged)).toEqual({ f: ROOT, n: "f" });
  });

  it("the later move of an item moved on both sides wins", () => {
    const base = side({ f: ["F:F", ROOT], g: ["F:G", ROOT], a: ["M:A:https://a/", ROOT] });
    const browser = side({ f: ["F:F", ROOT], g: ["F:G", ROOT], a: ["M:A:https://a/", "f"] });
    const server = side({ f: ["F:F", ROOT], g: ["F:G", ROOT], a: ["M:A:https://a/", "g"] });
    expect(parents(mergeOf(base, browser, server, { browserTimes: { a: { parent: 10 } }, serverTimes: { a: 20 } })).a).toBe("g");
    expect(parents(mergeOf(base, browser, server, { browserTimes: { a: { parent: 30 } }, serverTimes: { a: 20 } })).a).toBe("f");
  });

  it("matches new items at the same place only: the same address in another folder is another item", () => {
    const base = side({ f: ["F:F", ROOT] });
    const browser = side({ f: ["F:F", ROOT], a: ["M:A:https://a/", ROOT], d: ["F:D", ROOT] });
    const server = side({ f: ["F:F", ROOT], "s:1": ["M:A elsewhere:https://a/", "f"], "s:2": ["F:D", ROOT], "s:3": ["M:In D:https://d/", "s:2"] });
    const renamed = matchNew(base, browser, server);
    expect([...renamed]).toEqual([["s:2", "d"]]);
    const server2 = renameKeys(server, renamed);
    expect(server2.items.get("s:3")!.parent).toBe("d");
  });
});

describe("the failsafe", () => {
  it("asks past a fifth of more than 10 items, or past 100, and not at the bounds", () => {
    expect(tooMany(3, 10)).toBe(false); // 30 %, but not more than 10 items
    expect(tooMany(3, 11)).toBe(true);
    expect(tooMany(2, 11)).toBe(false);
    expect(tooMany(20, 100)).toBe(false); // a fifth exactly
    expect(tooMany(21, 100)).toBe(true);
    expect(tooMany(100, 1000)).toBe(false);
    expect(tooMany(101, 1000)).toBe(true);
    expect(tooMany(101, 101)).toBe(true);
    expect(tooMany(0, 5)).toBe(false);
  });
});

describe("names, addresses and the pickers", () => {
  it("names a bookmark by its title or, without one, its address, cut to 254 code points; a folder without a title is Unnamed folder", () => {
    expect(markName("  Title ", "https://a/")).toBe("Title");
    expect(markName("", "https://a/")).toBe("https://a/");
    expect([...markName("😀".repeat(300), "https://a/")]).toHaveLength(254);
    expect(folderName(" ")).toBe("Unnamed folder");
    expect(syncable("https://a.example/")).toBe(true);
    expect(syncable("javascript:alert(1)")).toBe(false);
    expect(syncable("place:sort=8")).toBe(false);
    expect(syncable(`https://a.example/${"x".repeat(2048)}`)).toBe(false);
  });

  it("lists the profile's folders as a tree, the favorites folder and what is inside it left out", () => {
    const tree = [{ id: "0", title: "", children: [
      { id: "1", title: "Bookmarks bar", children: [{ id: "10", title: "linkshelf", children: [{ id: "11", title: "Inner", children: [] }] }, { id: "12", title: "Work", children: [{ id: "13", title: "https", url: "https://x/" }] }] },
      { id: "2", title: "Other bookmarks", children: [] },
    ] }];
    expect(folderRows(tree, "10").map(({ node, depth }) => `${depth} ${node.title}`)).toEqual(["1 Bookmarks bar", "2 Work", "1 Other bookmarks"]);
  });

  it("says the last successful sync and its items apart from the last problem and its time; the failsafe's question is not repeated", () => {
    const config = { folderId: "5", collectionId: 3 };
    const at = Date.parse("2026-11-27T10:00:00Z");
    const later = at + 60_000;
    const line = (status: SyncStatus | null, prompt: SyncPrompt | null = null) => statusLine({ config, status, prompt, base: null, cursor: null, times: {}, approved: false });
    expect(line(null)).toBe("Not synced yet.");
    expect(line({ at, ok: true, message: "Up to date.", items: 1234, okAt: at })).toBe(`Last sync ${new Date(at).toLocaleString()}: 1,234 items. Up to date.`);
    // A failed attempt keeps the last successful sync's time, and says its own.
    expect(line({ at: later, ok: false, message: "Cannot reach it.", items: 1, okAt: at }))
      .toBe(`Last sync ${new Date(at).toLocaleString()}: 1 item. Problem at ${new Date(later).toLocaleString()}: Cannot reach it.`);
    expect(line({ at: later, ok: false, message: "Cannot reach it.", items: 0, okAt: null })).toBe(`Not synced yet. Problem at ${new Date(later).toLocaleString()}: Cannot reach it.`);
    const prompt = { message: "Sync would delete 1,488 bookmarks from the browser", keys: Array.from({ length: 1488 }, (_, n) => String(n)), names: Array.from({ length: 10 }, (_, n) => `M${n}`) };
    expect(line({ at: later, ok: false, message: "Sync would delete 1,488 bookmarks from the browser: Apply or Put them back.", items: 5300, okAt: at }, prompt))
      .toBe(`Last sync ${new Date(at).toLocaleString()}: 5,300 items. Waiting for your answer: Apply or Put them back.`);
    expect(promptWords(prompt)).toEqual({ message: "Sync would delete 1,488 bookmarks from the browser:", names: prompt.names, more: "and 1,478 more" });
    expect(promptWords({ ...prompt, keys: prompt.keys.slice(0, 10) }).more).toBe("");
  });
});
