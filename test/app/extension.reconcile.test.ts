import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { applyOps } from "../../extension/src/pins";
import { longestIncreasingRun, reconcile, type Current, type Op, type Target } from "../../extension/src/reconcile";
import { FakeBookmarks, type MoveSemantics } from "../support/extension.fakes";

/** simulate applies operations to a list the way the contract of `Op` says (final indices). */
function simulate(current: readonly Current[], ops: readonly Op[]): Current[] {
  const list = current.map((item) => ({ ...item }));
  let created = 0;
  for (const op of ops) {
    if (op.type === "remove") list.splice(list.findIndex((item) => item.id === op.id), 1);
    else if (op.type === "rename") list.find((item) => item.id === op.id)!.title = op.title;
    else if (op.type === "create") list.splice(op.index, 0, { id: `new${created++}`, title: op.title, url: op.url });
    else {
      const [item] = list.splice(list.findIndex((candidate) => candidate.id === op.id), 1);
      list.splice(op.index, 0, item!);
    }
  }
  return list;
}

const count = (ops: readonly Op[], type: Op["type"]) => ops.filter((op) => op.type === type).length;
const view = (items: readonly { title: string; url?: string }[]) => items.map((item) => `${item.title} ${item.url ?? "/"}`);
const at = (id: number) => `http://localhost/l/${id}`;

/** Longest strictly increasing subsequence length, by the quadratic textbook method (an independent check). */
function lisLength(values: readonly number[]): number {
  const best = values.map(() => 1);
  values.forEach((value, i) => {
    for (let j = 0; j < i; j++) if (values[j]! < value) best[i] = Math.max(best[i]!, best[j]! + 1);
  });
  return Math.max(0, ...best);
}

const currentArb = fc
  .array(fc.record({ url: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }), title: fc.constantFrom("a", "b", "c") }), { maxLength: 12 })
  .map((items) => items.map((item, index) => ({ id: `c${index}`, title: item.title, url: item.url === undefined ? undefined : at(item.url) })));
const targetArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 10 })
  .chain((ids) => fc.tuple(fc.constant(ids), fc.array(fc.constantFrom("a", "b", "c"), { minLength: ids.length, maxLength: ids.length })))
  .map(([ids, titles]) => ids.map((id, index) => ({ url: at(id), title: titles[index]! })));

describe("reconcile", () => {
  it("does nothing when the folder already matches", () => {
    const target = [{ title: "A", url: at(1) }, { title: "B", url: at(2) }];
    expect(reconcile([{ id: "x", ...target[0]! }, { id: "y", ...target[1]! }], target)).toEqual([]);
  });

  it("fills an empty folder in order", () => {
    const target = [{ title: "A", url: at(1) }, { title: "B", url: at(2) }];
    expect(reconcile([], target)).toEqual([
      { type: "create", index: 0, title: "A", url: at(1) },
      { type: "create", index: 1, title: "B", url: at(2) },
    ]);
  });

  it("moves one bookmark when the last one became the most clicked", () => {
    const current = [1, 2, 3, 4].map((id) => ({ id: `b${id}`, title: `L${id}`, url: at(id) }));
    const target = [4, 1, 2, 3].map((id) => ({ title: `L${id}`, url: at(id) }));
    expect(reconcile(current, target)).toEqual([{ type: "move", id: "b4", index: 0 }]);
  });

  it("moves one bookmark down when the first one fell to the end", () => {
    const current = [1, 2, 3, 4].map((id) => ({ id: `b${id}`, title: `L${id}`, url: at(id) }));
    const target = [2, 3, 4, 1].map((id) => ({ title: `L${id}`, url: at(id) }));
    expect(reconcile(current, target)).toEqual([{ type: "move", id: "b1", index: 3 }]);
  });

  it("renames in place, removes what is no longer a favorite, subfolders and second copies", () => {
    const current: Current[] = [
      { id: "a", title: "Old name", url: at(1) },
      { id: "sub", title: "stuff" },
      { id: "b", title: "B", url: at(2) },
      { id: "a2", title: "Old name", url: at(1) },
    ];
    const ops = reconcile(current, [{ title: "New name", url: at(1) }]);
    expect(ops).toEqual([
      { type: "remove", id: "sub", folder: true },
      { type: "remove", id: "b", folder: false },
      { type: "remove", id: "a2", folder: false },
      { type: "rename", id: "a", title: "New name" },
    ]);
  });

  it("turns any folder into exactly the target with the fewest operations of each kind (property)", () => {
    fc.assert(
      fc.property(currentArb, targetArb, (current, target) => {
        const ops = reconcile(current, target);
        const result = simulate(current, ops);
        expect(view(result)).toEqual(view(target));

        const wanted = new Set(target.map((item) => item.url));
        const kept = current.filter((item, index) => item.url !== undefined && wanted.has(item.url) && current.findIndex((other) => other.url === item.url) === index);
        // A bookmark already there is reused: never removed and created again.
        expect(result.filter((item) => !item.id.startsWith("new")).map((item) => item.id).sort()).toEqual(kept.map((item) => item.id).sort());
        expect(count(ops, "remove")).toBe(current.length - kept.length);
        expect(count(ops, "create")).toBe(target.length - kept.length);
        const order = kept.map((item) => target.findIndex((want) => want.url === item.url));
        expect(count(ops, "move")).toBe(kept.length - lisLength(order));
        const renames = kept.filter((item) => target.find((want) => want.url === item.url)!.title !== item.title).length;
        expect(count(ops, "rename")).toBe(renames);
      }),
      { numRuns: 500, seed: 20261123 },
    );
  });

  it("finds a longest increasing run", () => {
    const values = [3, 1, 4, 1, 5, 9, 2, 6];
    const run = longestIncreasingRun(values);
    expect(run.length).toBe(lisLength(values));
    expect(run.map((index) => values[index]!)).toEqual([...run.map((index) => values[index]!)].sort((a, b) => a - b));
  });
});

describe("applyOps on a browser's bookmarks", () => {
  for (const semantics of ["before-removal", "final"] as MoveSemantics[]) {
    it(`leaves the folder equal to the target whichever way the browser reads a move's index (${semantics}, property)`, async () => {
      await fc.assert(
        fc.asyncProperty(currentArb, targetArb, async (current, target: Target[]) => {
          const bookmarks = new FakeBookmarks(semantics);
          const folder = bookmarks.add("1", "linkshelf");
          const ids = new Map(current.map((item) => [item.id, bookmarks.add(folder, item.title, item.url)]));
          const children = current.map((item) => ({ ...item, id: ids.get(item.id)! }));
          await applyOps(bookmarks, folder, reconcile(children, target));
          expect(bookmarks.titles(folder)).toEqual(target.map((item) => `${item.title} ${item.url}`));
        }),
        { numRuns: 200, seed: 20261124 },
      );
    });
  }
});
