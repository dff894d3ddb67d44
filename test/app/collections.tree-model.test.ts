/**
 * A model-based property test (fast-check) of the collection tree through `app.handle`: random
 * sequences of creates, moves, reorders (current and stale), deletes, link edits and bulk
 * actions, each checked against a plain model of every collection's order. After every step:
 * the API's tree equals the model's (every collection's `parentId` and `order`), there is no
 * cycle and no tree deeper than the limit, every item is in exactly one place of its
 * collection's order, and no link is ever lost. A refused step changes nothing.
 *
 * Bounded and seeded in `npm test`; `FUZZ_RUNS` and `FUZZ_SEED` lengthen or replay it as in fuzz.test.ts.
 */
import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { TREE_DEPTH } from "../../src/shelf/limits";
import { aliceWithInbox, del, get, post, put, snapshot, type TestEnv, type TestUser } from "../support/helpers";

const LONG_RUNS = Number(process.env.FUZZ_RUNS ?? 0) || 0;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : LONG_RUNS > 0 ? Date.now() % 2 ** 31 : 20261127;
const RUNS = LONG_RUNS > 0 ? LONG_RUNS : 60;

type Item = { kind: "link" | "collection"; id: number };
const same = (a: Item, b: Item) => a.kind === b.kind && a.id === b.id;

/** The model: each collection's parent and order, each link's collections. */
class Model {
  readonly parent = new Map<number, number | null>();
  readonly order = new Map<number, Item[]>();
  readonly top: number[] = [];
  readonly memberships = new Map<number, Set<number>>();
  constructor(readonly inbox: number) {
    this.addCollection(inbox, null);
  }

  addCollection(id: number, parentId: number | null): void {
    this.parent.set(id, parentId);
    this.order.set(id, []);
    this.place(id, parentId);
  }

  private place(id: number, parentId: number | null): void {
    if (parentId === null) this.top.push(id);
    else this.order.get(parentId)!.push({ kind: "collection", id });
  }

  private unplace(id: number): void {
    const parentId = this.parent.get(id)!;
    if (parentId === null) this.top.splice(this.top.indexOf(id), 1);
    else this.order.set(parentId, this.order.get(parentId)!.filter((item) => !same(item, { kind: "collection", id })));
  }

  /** Ids of the collection and everything under it. */
  subtree(id: number): number[] {
    return [id, ...this.order.get(id)!.filter((item) => item.kind === "collection").flatMap((item) => this.subtree(item.id))];
  }

  depth(id: number | null): number {
    let depth = 0;
    for (let at = id; at !== null; at = this.parent.get(at)!) depth++;
    return depth;
  }

  height(id: number): number {
    return 1 + Math.max(0, ...this.order.get(id)!.filter((item) => item.kind === "collection").map((item) => this.height(item.id)));
  }

  /** Whether moving `id` under `parentId` is allowed. */
  canMove(id: number, parentId: number | null): boolean {
    if (parentId === this.parent.get(id)) return true;
    if (id === this.inbox) return parentId === null;
    if (parentId === null) return true;
    if (parentId === this.inbox || this.subtree(id).includes(parentId)) return false;
    return this.depth(parentId) + this.height(id) <= TREE_DEPTH;
  }

  move(id: number, parentId: number | null): void {
    if (parentId === this.parent.get(id)) return;
    this.unplace(id);
    this.parent.set(id, parentId);
    this.place(id, parentId);
  }

  addLink(id: number, collections: number[]): void {
    const into = collections.length === 0 ? [this.inbox] : [...new Set(collections)].sort((a, b) => a - b);
    this.memberships.set(id, new Set(into));
    for (const collection of into) this.order.get(collection)!.push({ kind: "link", id });
  }

  /** An edit: collections it stays in keep its place, new ones get it at the end, none means the Inbox. */
  setLinkCollections(id: number, collections: number[]): void {
    const into = collections.length === 0 ? [this.inbox] : [...new Set(collections)].sort((a, b) => a - b);
    const before = this.memberships.get(id)!;
    for (const collection of before) {
      if (!into.includes(collection)) this.order.set(collection, this.order.get(collection)!.filter((item) => !same(item, { kind: "link", id })));
    }
    for (const collection of into) if (!before.has(collection)) this.order.get(collection)!.push({ kind: "link", id });
    this.memberships.set(id, new Set(into));
  }

  delete(id: number): void {
    const parentId = this.parent.get(id)!;
    const items = this.order.get(id)!;
    const children = items.filter((item) => item.kind === "collection").map((item) => item.id);
    const siblings = parentId === null ? this.top.map((c) => ({ kind: "collection" as const, id: c })) : this.order.get(parentId)!;
    const at = siblings.findIndex((item) => same(item, { kind: "collection", id }));
    siblings.splice(at, 1, ...children.map((c) => ({ kind: "collection" as const, id: c })));
    if (parentId === null) this.top.splice(0, this.top.length, ...siblings.map((item) => item.id));
    for (const child of children) this.parent.set(child, parentId);
    for (const item of items) {
      if (item.kind !== "link") continue;
      const set = this.memberships.get(item.id)!;
      set.delete(id);
      if (set.size === 0) {
        set.add(this.inbox);
        this.order.get(this.inbox)!.push(item);
      }
    }
    this.order.delete(id);
    this.parent.delete(id);
  }

  collections(): number[] {
    return [...this.parent.keys()];
  }
}

type Step =
  | { op: "create"; parent: number }
  | { op: "link"; into: number[] }
  | { op: "move"; which: number; parent: number }
  | { op: "reorder"; which: number; seed: number; stale: boolean }
  | { op: "delete"; which: number }
  | { op: "edit"; link: number; into: number[] }
  | { op: "bulk"; action: "add" | "move" | "remove"; links: number[]; which: number };

const pick = fc.nat({ max: 1000 });
// Creates weigh more, so that deletes and moves meet collections with sub-collections and siblings.
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant("create" as const), parent: pick }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant("link" as const), into: fc.array(pick, { maxLength: 3 }) }), weight: 2 },
  fc.record({ op: fc.constant("move" as const), which: pick, parent: pick }),
  fc.record({ op: fc.constant("reorder" as const), which: pick, seed: fc.nat(), stale: fc.boolean() }),
  fc.record({ op: fc.constant("delete" as const), which: pick }),
  fc.record({ op: fc.constant("edit" as const), link: pick, into: fc.array(pick, { maxLength: 3 }) }),
  fc.record({ op: fc.constant("bulk" as const), action: fc.constantFrom("add" as const, "move" as const, "remove" as const), links: fc.uniqueArray(pick, { minLength: 1, maxLength: 4 }), which: pick }),
);

/** shuffled is a permutation of the items chosen by a seed. */
function shuffled<T>(items: T[], seed: number): T[] {
  const copy = [...items];
  let state = seed || 1;
  for (let at = copy.length - 1; at > 0; at--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const other = state % (at + 1);
    [copy[at], copy[other]] = [copy[other]!, copy[at]!];
  }
  return copy;
}

interface Run {
  env: TestEnv;
  alice: TestUser;
  model: Model;
  links: number[];
  serial: number;
}

/** apply sends one step, checks that a step the model refuses was refused and changed nothing, and updates the model as the server must have. */
async function apply(run: Run, s: Step): Promise<void> {
  const { env, alice, model } = run;
  const token = alice.token;
  const ids = model.collections();
  const nonInbox = ids.filter((id) => id !== model.inbox);
  const parentOf = (n: number): number | null => (n % (nonInbox.length + 1) === 0 ? null : nonInbox[(n % (nonInbox.length + 1)) - 1]!);
  const collectionOf = (n: number) => ids[n % ids.length]!;
  const before = snapshot(env);
  const refusedWith = (status: number, response: { status: number }) => {
    expect(response.status).toBe(status);
    expect(snapshot(env)).toBe(before);
  };
  switch (s.op) {
    case "create": {
      const parentId = parentOf(s.parent);
      const ok = parentId === null || model.depth(parentId) < TREE_DEPTH;
      const response = await post(env, "/api/v1/collections", { token, body: { name: `C${run.serial++}`, visibility: "PRIVATE", parentId } });
      if (!ok) return refusedWith(422, response);
      expect(response.status).toBe(201);
      model.addCollection(response.body.collection.id, parentId);
      return;
    }
    case "link": {
      const into = s.into.map(collectionOf);
      const response = await post(env, "/api/v1/links", { token, body: { name: "L", url: `https://l${run.serial++}.example/`, favorite: false, collectionIds: into } });
      expect(response.status).toBe(201);
      model.addLink(response.body.link.id, into);
      run.links.push(response.body.link.id);
      return;
    }
    case "move": {
      const id = collectionOf(s.which);
      const parentId = parentOf(s.parent);
      const response = await put(env, `/api/v1/collections/${id}`, { token, body: { name: id === model.inbox ? "Inbox" : `M${id}`, visibility: "PRIVATE", parentId } });
      if (!model.canMove(id, parentId)) return refusedWith(422, response);
      expect(response.status).toBe(200);
      model.move(id, parentId);
      return;
    }
    case "reorder": {
      const id = collectionOf(s.which);
      const order = shuffled(model.order.get(id)!, s.seed);
      const sent = s.stale ? order.slice(1).concat(order.length === 0 ? [{ kind: "link", id: 999_999 }] : []) : order;
      const response = await put(env, `/api/v1/collections/${id}/order`, { token, body: { order: sent } });
      if (s.stale) return refusedWith(409, response);
      expect(response.status).toBe(200);
      model.order.set(id, order);
      return;
    }
    case "delete": {
      const id = collectionOf(s.which);
      const response = await del(env, `/api/v1/collections/${id}`, { token });
      if (id === model.inbox) return refusedWith(409, response);
      expect(response.status).toBe(200);
      model.delete(id);
      return;
    }
    case "edit": {
      if (run.links.length === 0) return;
      const link = run.links[s.link % run.links.length]!;
      const into = s.into.map(collectionOf);
      const response = await put(env, `/api/v1/links/${link}`, { token, body: { name: "L", url: `https://edited${link}.example/`, favorite: false, collectionIds: into } });
      expect(response.status).toBe(200);
      model.setLinkCollections(link, into);
      return;
    }
    case "bulk": {
      if (run.links.length === 0) return;
      const links = [...new Set(s.links.map((n) => run.links[n % run.links.length]!))];
      const id = collectionOf(s.which);
      const response = await post(env, "/api/v1/links/bulk", { token, body: { action: s.action, ids: links, collectionId: id } });
      if (s.action === "remove" && id === model.inbox) return refusedWith(409, response);
      expect(response.status).toBe(200);
      // Added at the end in the order given; a link already there keeps its place.
      if (s.action === "add") {
        for (const link of links) model.setLinkCollections(link, [...model.memberships.get(link)!, id]);
      } else if (s.action === "move") {
        for (const link of links) model.setLinkCollections(link, [id]);
      } else {
        // Removed from the collection; those left in none go to the end of the Inbox, in the order given.
        for (const link of links) {
          const set = model.memberships.get(link)!;
          if (!set.has(id)) continue;
          model.order.set(id, model.order.get(id)!.filter((item) => !same(item, { kind: "link", id: link })));
          set.delete(id);
        }
        for (const link of links) {
          const set = model.memberships.get(link)!;
          if (set.size === 0) model.setLinkCollections(link, [model.inbox]);
        }
      }
      return;
    }
  }
}

/** check compares the API's tree with the model and checks the invariants. */
async function check(run: Run): Promise<void> {
  const { env, alice, model } = run;
  const list: { id: number; parentId: number | null; order: Item[]; links: { id: number }[]; isDefault: boolean }[] =
    (await get(env, "/api/v1/collections", { token: alice.token })).body.collections;
  const byId = new Map(list.map((c) => [c.id, c]));
  expect(new Set(byId.keys())).toEqual(new Set(model.collections()));
  for (const collection of list) {
    expect(collection.parentId).toBe(model.parent.get(collection.id)!);
    expect(collection.order).toEqual(model.order.get(collection.id)!);
    // Every item once: its links and its sub-collections, nothing else.
    const links = collection.order.filter((item) => item.kind === "link").map((item) => item.id);
    expect(new Set(links).size).toBe(links.length);
    expect(new Set(links)).toEqual(new Set(collection.links.map((l) => l.id)));
    const children = list.filter((c) => c.parentId === collection.id).map((c) => c.id);
    expect(collection.order.filter((item) => item.kind === "collection").map((item) => item.id).sort()).toEqual(children.sort());
    // No cycle, no tree deeper than the limit.
    let depth = 0;
    for (let at: number | null = collection.id; at !== null; at = byId.get(at)!.parentId) {
      depth++;
      expect(depth).toBeLessThanOrEqual(TREE_DEPTH);
    }
  }
  expect(byId.get(model.inbox)!.parentId).toBeNull();
  expect(list[0]!.id).toBe(model.inbox);
  // The list is the tree, depth first, each level in its order.
  const expected: number[] = [];
  const walk = (ids: number[]) => {
    for (const id of ids) {
      expected.push(id);
      walk(model.order.get(id)!.filter((item) => item.kind === "collection").map((item) => item.id));
    }
  };
  walk(model.top);
  expect(list.map((c) => c.id)).toEqual(expected);
  // No link lost: every link created exists, in at least one collection.
  const total = env.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM links").get()!.n;
  expect(total).toBe(run.links.length);
  const homeless = env.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM links WHERE id NOT IN (SELECT link_id FROM link_collections)").get()!.n;
  expect(homeless).toBe(0);
}

describe("the collection tree, against a model", () => {
  it("keeps parents, orders and links as the model says after every step of random sequences", async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
      const { env, alice, inbox } = await aliceWithInbox();
      const run: Run = { env, alice, model: new Model(inbox), links: [], serial: 0 };
      for (const s of steps) {
        await apply(run, s);
        await check(run);
      }
    }), { seed: SEED, numRuns: RUNS });
  }, LONG_RUNS > 0 ? 6 * 60 * 60 * 1000 : 120_000);
});
