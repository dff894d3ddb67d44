/**
 * Where each operation of a batch names items: the one mapping that the server (the ids `since`
 * is checked against, the rules of refs, the memberships counted) and the extension (refs made
 * by an earlier batch sent as ids) both read, so that a new operation or a new target field is
 * told in one place. Plain values and types, no schema: the extension bundles this module.
 */
import type { BatchOperation, BatchOperationName, BatchOrderItem, Target } from "./batch";

/** What an id or a ref of a batch names. */
export type ItemKind = "link" | "collection";

type OperationOf<N extends BatchOperationName> = Extract<BatchOperation, { op: N }>;
/** The fields of an operation whose value, when given, is a V. */
type FieldsOf<O, V> = { [K in keyof O]-?: NonNullable<O[K]> extends V ? K : never }[keyof O] & string;

/** Where one kind of operation names items. */
interface Places<O> {
  /** The existing item it acts on, by its `id`. */
  readonly item?: ItemKind;
  /** The item it creates, named by its `ref`. */
  readonly creates?: ItemKind;
  /** Its fields naming collections as targets (`{id}` or `{ref}`), one each or a list. */
  readonly targets?: readonly FieldsOf<O, Target | readonly Target[]>[];
  /** Its targets are collections a link joins: each one a membership the batch's limit counts. */
  readonly joins?: boolean;
  /** Its field listing the ids of collections a link leaves. */
  readonly removes?: FieldsOf<O, readonly number[]>;
  /** Its field listing items in order (`{kind, id}` or `{kind, ref}`). */
  readonly orders?: FieldsOf<O, readonly BatchOrderItem[]>;
}

/** BATCH_PLACES is, for each operation of the contract, where it names items. */
export const BATCH_PLACES: { readonly [N in BatchOperationName]: Places<OperationOf<N>> } = {
  createCollection: { creates: "collection", targets: ["parent"] },
  updateCollection: { item: "collection", targets: ["parent"] },
  deleteCollection: { item: "collection" },
  createLink: { creates: "link", targets: ["collections"], joins: true },
  updateLink: { item: "link", targets: ["add"], joins: true, removes: "remove" },
  order: { targets: ["collection"], orders: "order" },
};

/** One place where an operation names an item; `path` is under the operation's (`/add/1`). */
export type Named =
  /** The existing item the operation acts on. */
  | { role: "item"; path: "/id"; kind: ItemKind; id: number }
  /** The item the operation creates, and the ref later operations know it by. */
  | { role: "creates"; path: "/ref"; kind: ItemKind; ref: string }
  /** A collection the operation puts something in; `joins` when it is a link's membership. */
  | { role: "target"; path: string; field: string; kind: "collection"; target: Target; joins: boolean }
  /** A collection a link leaves. */
  | { role: "removed"; path: string; kind: "collection"; id: number }
  /** An item of an order, as a target; null when the item gives not exactly one of id and ref. */
  | { role: "ordered"; path: string; kind: ItemKind; target: Target | null };

/** What the code walking an operation reads of its places: the field names as plain strings. */
interface FieldPlaces {
  readonly item?: ItemKind;
  readonly creates?: ItemKind;
  readonly targets?: readonly string[];
  readonly joins?: boolean;
  readonly removes?: string;
  readonly orders?: string;
}

type Fields = Readonly<Record<string, unknown>>;

/** targetOfItem is an order item as a target, or null when it gives not exactly one of id and ref. */
function targetOfItem(item: BatchOrderItem): Target | null {
  if ((item.id === undefined) === (item.ref === undefined)) return null;
  return item.ref !== undefined ? { ref: item.ref } : { id: item.id! };
}

/** targetsIn is a target field's value as a list with the paths of its targets (none when the field is not given). */
function targetsIn(fields: Fields, field: string): [string, Target][] {
  const value = fields[field] as Target | readonly Target[] | undefined;
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly Target[]).map((target, index) => [`/${field}/${index}`, target]) : [[`/${field}`, value as Target]];
}

/**
 * targetsOf lists every place where an operation names an item, in this order: the item it acts
 * on, its targets field by field, the collections it removes, its order's items, the item it creates.
 */
export function targetsOf(operation: BatchOperation): Named[] {
  const places: FieldPlaces = BATCH_PLACES[operation.op];
  const fields: Fields = operation;
  const named: Named[] = [];
  if (places.item !== undefined) named.push({ role: "item", path: "/id", kind: places.item, id: fields.id as number });
  for (const field of places.targets ?? []) {
    for (const [path, target] of targetsIn(fields, field)) named.push({ role: "target", path, field, kind: "collection", target, joins: places.joins === true });
  }
  if (places.removes !== undefined) {
    (fields[places.removes] as readonly number[] | undefined ?? []).forEach((id, index) => named.push({ role: "removed", path: `/${places.removes}/${index}`, kind: "collection", id }));
  }
  if (places.orders !== undefined) {
    (fields[places.orders] as readonly BatchOrderItem[]).forEach((item, index) => named.push({ role: "ordered", path: `/${places.orders}/${index}`, kind: item.kind, target: targetOfItem(item) }));
  }
  if (places.creates !== undefined) named.push({ role: "creates", path: "/ref", kind: places.creates, ref: fields.ref as string });
  return named;
}

/**
 * mapTargets is the operation with each of its targets, and each item of its order that gives
 * exactly one of id and ref, passed through `f` (an order item keeps its kind); the rest as it was.
 */
export function mapTargets<O extends BatchOperation>(operation: O, f: (target: Target) => Target): O {
  const places: FieldPlaces = BATCH_PLACES[operation.op];
  const fields: Fields = operation;
  const mapped: Record<string, unknown> = { ...operation };
  for (const field of places.targets ?? []) {
    const value = fields[field] as Target | readonly Target[] | undefined;
    if (value !== undefined) mapped[field] = Array.isArray(value) ? (value as readonly Target[]).map((target) => f(target)) : f(value as Target);
  }
  if (places.orders !== undefined) {
    mapped[places.orders] = (fields[places.orders] as readonly BatchOrderItem[]).map((item) => {
      const target = targetOfItem(item);
      return target === null ? item : { kind: item.kind, ...f(target) };
    });
  }
  return mapped as O;
}
