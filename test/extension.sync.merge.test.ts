/**
 * The folder sync's pure parts: the merge's rules on small trees (moves on both sides that would
 * nest two folders in each other, order merges, parents brought back), the failsafe's bounds on
 * both sides, the folder picker's rows and the status line.
 */
import { describe, expect, it } from "bun:test";
import { tooMany } from "../extension/src/sync/engine";
import { matchNew, merge, renameKeys, type Times } from "../extension/src/sync/merge";
import { folderRows } from "../extension/src/sync/sides";
import { folderName, markName, ROOT, syncable, type Item, type Key, type Side } from "../extension/src/sync/tree";
import { statusLine } from "../extension/src/sync/status";

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

  it("says the last sync, its items and the last problem in one line", () => {
    const config = { folderId: "5", collectionId: 3 };
    const at = Date.parse("2026-11-27T10:00:00Z");
    expect(statusLine({ config, status: null, prompt: null, base: null, cursor: null, times: {}, approved: false })).toBe("Not synced yet.");
    expect(statusLine({ config, status: { at, ok: true, message: "Up to date.", items: 1234 }, prompt: null, base: null, cursor: null, times: {}, approved: false }))
      .toBe(`Last sync ${new Date(at).toLocaleString()}: 1,234 items. Up to date.`);
    expect(statusLine({ config, status: { at, ok: false, message: "Cannot reach it.", items: 1 }, prompt: null, base: null, cursor: null, times: {}, approved: false }))
      .toBe(`Last sync ${new Date(at).toLocaleString()}: 1 item. Problem: Cannot reach it.`);
    expect(statusLine({ config, status: null, prompt: { message: "Sync would delete 412 bookmarks from the browser", keys: [] }, base: null, cursor: null, times: {}, approved: false }))
      .toBe("Sync would delete 412 bookmarks from the browser.");
  });
});
