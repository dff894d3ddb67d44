import { describe, expect, it } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { BATCH_OPERATIONS, BatchOperation, BatchOrderItem, Ref, Target, type BatchOperation as Operation } from "../../src/contract/batch";
import { BATCH_PLACES, mapTargets, targetsOf, type Named } from "../../src/contract/batch-targets";
import { IdNumber } from "../../src/contract/common";

/**
 * The mapping of a batch's operations to the items they name (src/contract/batch-targets.ts) is
 * checked against the contract's schema itself: every operation of the union, every field of each,
 * classified by its schema, so that an operation or a target field added to the contract and not
 * to the mapping fails here, not as a `since` that misses an item or a ref never resolved.
 */

/** How a field of an operation names items, read from its schema. */
type Shape = "plain" | "id" | "ref" | "target" | "targets" | "ids" | "order";

interface FieldSchema {
  type?: string;
  const?: unknown;
  items?: TSchema;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** shapeOf classifies a field by its schema; a field of any other shape throws: whether it names an item is to be decided in the mapping first. */
function shapeOf(where: string, schema: FieldSchema): Shape {
  if (same(schema, IdNumber)) return "id";
  if (same(schema, Ref)) return "ref";
  if (same(schema, Target)) return "target";
  if (schema.type === "array" && same(schema.items, Target)) return "targets";
  if (schema.type === "array" && same(schema.items, IdNumber)) return "ids";
  if (schema.type === "array" && same(schema.items, BatchOrderItem)) return "order";
  if (schema.type === "string" || schema.type === "boolean") return "plain";
  throw new Error(`${where}: a field of a shape this test does not know; tell src/contract/batch-targets.ts whether it names an item, then this test`);
}

/** The operations of the contract's union, each with its fields' schemas. */
const UNION = (BatchOperation.anyOf as { properties: Record<string, FieldSchema> }[]).map(({ properties }) => ({ op: String(properties.op!.const), properties }));

/** A named place without what only the mapping knows (the field of a target, whether it joins). */
type Expected = { role: Named["role"]; path: string; kind: string; id?: number; ref?: string; target?: unknown };

/**
 * example is an operation with every field given (lists of two or three, targets by id and by
 * ref, an order item with neither id nor ref), and the places the schema says it names.
 */
function example(op: string, properties: Record<string, FieldSchema>): { operation: Operation; expected: Expected[] } {
  const kind = op.endsWith("Link") ? "link" : op.endsWith("Collection") ? "collection" : "none";
  let n = 100;
  const operation: Record<string, unknown> = {};
  const expected: Expected[] = [];
  for (const [field, schema] of Object.entries(properties)) {
    const shape = shapeOf(`${op}.${field}`, schema);
    const id = ++n;
    const ref = `ref-${id}`;
    switch (shape) {
      case "plain":
        operation[field] = schema.const ?? (schema.type === "boolean" ? true : `${field} ${id}`);
        break;
      case "id":
        operation[field] = id;
        expected.push({ role: "item", path: `/${field}`, kind, id });
        break;
      case "ref":
        operation[field] = ref;
        expected.push({ role: "creates", path: `/${field}`, kind, ref });
        break;
      case "target":
        operation[field] = id % 2 === 0 ? { id } : { ref };
        expected.push({ role: "target", path: `/${field}`, kind: "collection", target: operation[field] });
        break;
      case "targets": {
        const targets = [{ id }, { ref }];
        operation[field] = targets;
        targets.forEach((target, index) => expected.push({ role: "target", path: `/${field}/${index}`, kind: "collection", target }));
        break;
      }
      case "ids":
        operation[field] = [id, id + 1000];
        expected.push({ role: "removed", path: `/${field}/0`, kind: "collection", id }, { role: "removed", path: `/${field}/1`, kind: "collection", id: id + 1000 });
        break;
      case "order": {
        const items = [{ kind: "link", id }, { kind: "collection", ref }, { kind: "link" }];
        operation[field] = items;
        expected.push(
          { role: "ordered", path: `/${field}/0`, kind: "link", target: { id } },
          { role: "ordered", path: `/${field}/1`, kind: "collection", target: { ref } },
          { role: "ordered", path: `/${field}/2`, kind: "link", target: null },
        );
        break;
      }
    }
  }
  return { operation: operation as Operation, expected };
}

/** asTheSchemaTells is a place without what only the mapping knows: the field of a target, and whether it joins. */
const asTheSchemaTells = (named: Named[]): Expected[] => named.map((place) => {
  if (place.role !== "target") return place;
  const { field: _field, joins: _joins, ...rest } = place;
  return rest;
});

const byPath = (places: Expected[]) => [...places].sort((a, b) => a.path.localeCompare(b.path));

describe("the mapping of a batch's operations to the items they name", () => {
  it("covers exactly the operations of the contract's union", () => {
    const ops = UNION.map(({ op }) => op).sort();
    expect(ops).toEqual(Object.keys(BATCH_OPERATIONS).sort());
    expect(Object.keys(BATCH_PLACES).sort()).toEqual(ops);
    expect(ops).toHaveLength(6);
  });

  for (const { op, properties } of UNION) {
    it(`${op}: names every id, ref, target, removed collection and order item its schema holds, at its path`, () => {
      const { operation, expected } = example(op, properties);
      // The example is a valid operation: what the schema holds, not what this test imagines.
      expect(Value.Check(BatchOperation, operation)).toBe(true);
      expect(byPath(asTheSchemaTells(targetsOf(operation)))).toEqual(byPath(expected));
    });

    it(`${op}: mapTargets passes every target and order item through the function, and keeps the rest`, () => {
      const { operation } = example(op, properties);
      const before = structuredClone(operation);
      const mark = (target: Target): Target => ({ ref: `mapped ${JSON.stringify(target)}` });
      const mapped = mapTargets(operation, mark);
      expect(operation).toEqual(before);
      expect(Value.Check(BatchOperation, mapped)).toBe(true);
      const places = targetsOf(operation);
      expect(asTheSchemaTells(targetsOf(mapped))).toEqual(asTheSchemaTells(places.map((place) => (
        (place.role === "target" || place.role === "ordered") && place.target !== null ? { ...place, target: mark(place.target) } : place
      ))));
      // Mapped back, the operation is the one given, field for field.
      expect(mapTargets(mapped, (target) => ("ref" in target && target.ref.startsWith("mapped ") ? JSON.parse(target.ref.slice("mapped ".length)) : target))).toEqual(operation);
      expect(mapTargets(operation, (target) => target)).toEqual(operation);
    });
  }

  it("the targets a link joins are the collections of createLink and the add of updateLink: the memberships a batch's limit counts", () => {
    const joining = UNION.flatMap(({ op, properties }) => targetsOf(example(op, properties).operation)
      .flatMap((place) => (place.role === "target" && place.joins ? [`${op}.${place.field}`] : [])));
    expect([...new Set(joining)].sort()).toEqual(["createLink.collections", "updateLink.add"]);
  });

  it("turns refs into ids as the extension sends a later batch: targets, and order items keeping their kind", () => {
    const made = new Map([["folder", 7], ["mark", 9]]);
    const resolve = (target: Target): Target => ("ref" in target && made.has(target.ref) ? { id: made.get(target.ref)! } : target);
    expect(mapTargets<Operation>({ op: "updateLink", id: 3, name: "x", add: [{ ref: "folder" }, { ref: "later" }, { id: 4 }], remove: [5] }, resolve))
      .toEqual({ op: "updateLink", id: 3, name: "x", add: [{ id: 7 }, { ref: "later" }, { id: 4 }], remove: [5] });
    expect(mapTargets<Operation>({ op: "order", collection: { ref: "folder" }, order: [{ kind: "link", ref: "mark" }, { kind: "collection", id: 2 }, { kind: "link", ref: "later" }] }, resolve))
      .toEqual({ op: "order", collection: { id: 7 }, order: [{ kind: "link", id: 9 }, { kind: "collection", id: 2 }, { kind: "link", ref: "later" }] });
    expect(mapTargets<Operation>({ op: "updateCollection", id: 3, name: "kept" }, resolve)).toEqual({ op: "updateCollection", id: 3, name: "kept" });
  });
});
