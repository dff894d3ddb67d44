/**
 * What a restore from the trash keeps of the collection tree, through `app.handle`: it never
 * nests collections deeper than TREE_DEPTH (one that would be too deep comes back at the top
 * level, named in the answer's `tooDeep`, and the account's exports import back), one restore of
 * collections that were nested keeps them nested, whatever order the request names them in; a
 * restore never takes a link past 100 collections; emptying a trash larger than one slice.
 */
import { describe, expect, it } from "bun:test";
import { exportBookmarks } from "../../src/bookmarks/export";
import { importBookmarks } from "../../src/bookmarks/plan";
import { exportJson } from "../../src/bookmarks/linkshelf-json";
import { readImportFile } from "../../src/bookmarks/formats";
import { NotFound } from "../../src/common/errors";
import { MEMBERSHIP_LIMITS, TREE_DEPTH } from "../../src/shelf/limits";
import { createCollection, createLink, createUser, del, get, makeEnv, post, sessionCookie, shelfFor, START, type TestEnv, type TestUser } from "../support/helpers";
import { open, submit, texts } from "../support/html";

const restore = (env: TestEnv, as: TestUser, body: Record<string, number[]>) => post(env, "/api/v1/trash/restore", { token: as.token, body });

/** depths is every collection's depth (1 at the top level), read through the API. */
async function depths(env: TestEnv, as: TestUser): Promise<Map<number, number>> {
  const rows: { id: number; parentId: number | null }[] = (await get(env, "/api/v1/collections", { token: as.token })).body.collections;
  const parents = new Map(rows.map((row) => [row.id, row.parentId]));
  const depthOf = (id: number): number => {
    const parent = parents.get(id);
    return parent === null || parent === undefined ? 1 : 1 + depthOf(parent);
  };
  return new Map(rows.map((row) => [row.id, depthOf(row.id)]));
}

/** chain creates collections each inside the one before, `length` deep from the top level, in one batch; returns their ids, top first. */
async function chain(env: TestEnv, as: TestUser, length: number): Promise<number[]> {
  const operations = Array.from({ length }, (_, i) => ({ op: "createCollection", ref: `c${i}`, name: `Level ${i + 1}`, parent: i === 0 ? undefined : { ref: `c${i - 1}` } }));
  // The first one at the top level: created alone, then the rest inside it.
  const top = await createCollection(env, as, { name: "Level 1" });
  const response = await post(env, "/api/v1/batch", { token: as.token, body: { operations: operations.slice(1).map((op, i) => ({ ...op, parent: i === 0 ? { id: top.id } : op.parent })) } });
  expect(response.status).toBe(200);
  return [top.id, ...operations.slice(1).map((op) => response.body.refs[op.ref] as number)];
}

describe("a restore never nests collections deeper than the limit", () => {
  it("delete a middle collection, grow the leaf, restore: the middle one comes back at the top level, said in the answer; repeated, still never deeper", async () => {
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
    const alice = await createUser(env);
    const ids = await chain(env, alice, TREE_DEPTH);
    expect(Math.max(...(await depths(env, alice)).values())).toBe(TREE_DEPTH);
    let leaf = ids.at(-1)!;
    for (let round = 0; round < 3; round++) {
      // A plain delete of the leaf's ancestor at depth 30: its sub-collections move up one level.
      const rows: { id: number; parentId: number | null }[] = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections;
      const parentOf = new Map(rows.map((row) => [row.id, row.parentId]));
      const path = [leaf];
      while (parentOf.get(path[0]!) !== null) path.unshift(parentOf.get(path[0]!)!);
      expect(path).toHaveLength(TREE_DEPTH);
      const middle = path[29]!;
      expect((await del(env, `/api/v1/collections/${middle}`, { token: alice.token })).status).toBe(200);
      // The leaf is one level higher now: it takes one more, and the tree is as deep as it may be again.
      leaf = (await createCollection(env, alice, { name: `Grown ${round}`, parentId: leaf })).id;
      expect((await depths(env, alice)).get(leaf)).toBe(TREE_DEPTH);
      const restored = await restore(env, alice, { collections: [middle] });
      expect(restored.status).toBe(200);
      expect(restored.body).toEqual({ message: expect.any(String), links: 0, collections: 1, tooDeep: [middle] });
      const after = await depths(env, alice);
      expect(Math.max(...after.values())).toBeLessThanOrEqual(TREE_DEPTH);
      expect(after.get(middle)).toBe(1);
      // The next round starts from a leaf 64 deep again: what the restore moved back under the middle one grows.
      const grow = TREE_DEPTH - after.get(leaf)!;
      if (grow > 0) {
        const response = await post(env, "/api/v1/batch", { token: alice.token, body: { operations: Array.from({ length: grow }, (_, i) => ({
          op: "createCollection", ref: `g${i}`, name: `More ${round}.${i}`, parent: i === 0 ? { id: leaf } : { ref: `g${i - 1}` },
        })) } });
        expect(response.status).toBe(200);
        leaf = response.body.refs[`g${grow - 1}`];
      }
      expect((await depths(env, alice)).get(leaf)).toBe(TREE_DEPTH);
    }
    // Both exports of the account import back.
    const bob = await createUser(env);
    const shelf = shelfFor(env, alice);
    for (const file of [new TextEncoder().encode(exportBookmarks(shelf)), new TextEncoder().encode(JSON.stringify(exportJson(shelf, START)))]) {
      const report = await importBookmarks(shelfFor(env, bob), await readImportFile(file, START), START, { dryRun: true });
      expect(report.collectionsCreated.length).toBeGreaterThan(TREE_DEPTH);
    }
  }, 60_000);

  it("a collection deleted with its contents comes back at the top level when its parent has grown deeper meanwhile", async () => {
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
    const alice = await createUser(env);
    const ids = await chain(env, alice, TREE_DEPTH);
    const branch = ids[40]!;
    expect((await del(env, `/api/v1/collections/${branch}?contents=1`, { token: alice.token })).status).toBe(200);
    // Its parent moves one level deeper: inside a new collection at the top level, above the chain's top.
    const above = await createCollection(env, alice, { name: "Above" });
    expect((await post(env, "/api/v1/batch", { token: alice.token, body: { operations: [{ op: "updateCollection", id: ids[0], parent: { id: above.id } }] } })).status).toBe(200);
    const restored = await restore(env, alice, { collections: [branch] });
    expect(restored.body.tooDeep).toEqual([branch]);
    const after = await depths(env, alice);
    expect(Math.max(...after.values())).toBeLessThanOrEqual(TREE_DEPTH);
    expect(after.get(branch)).toBe(1);
    expect(after.get(ids.at(-1)!)).toBe(TREE_DEPTH - 40);
    // Where it fits, it goes back inside its parent, and tooDeep is empty.
    const small = await createCollection(env, alice, { name: "Small", parentId: above.id });
    await del(env, `/api/v1/collections/${small.id}`, { token: alice.token });
    expect((await restore(env, alice, { collections: [small.id] })).body).toEqual({ message: expect.any(String), links: 0, collections: 1, tooDeep: [] });
    expect((await depths(env, alice)).get(small.id)).toBe(2);
  }, 60_000);
  it("a top-level collection whose moved-up sub-collection grew to the limit comes back without it: the sub-collection stays at the top level", async () => {
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
    const alice = await createUser(env);
    const ids = await chain(env, alice, TREE_DEPTH);
    expect((await del(env, `/api/v1/collections/${ids[0]}`, { token: alice.token })).status).toBe(200);
    await createCollection(env, alice, { name: "Grown", parentId: ids.at(-1) });
    const restored = await restore(env, alice, { collections: [ids[0]!] });
    expect(restored.body.tooDeep).toEqual([]);
    const after = await depths(env, alice);
    expect(Math.max(...after.values())).toBe(TREE_DEPTH);
    expect([after.get(ids[0]!), after.get(ids[1]!)]).toEqual([1, 1]);
  }, 60_000);
});

describe("the trash page says when a restore put a collection at the top level", () => {
  it("restoring the too-deep collection through the page's form: the notice says it", async () => {
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
    const alice = await createUser(env);
    const ids = await chain(env, alice, TREE_DEPTH);
    expect((await del(env, `/api/v1/collections/${ids[30]}`, { token: alice.token })).status).toBe(200);
    await createCollection(env, alice, { name: "Grown", parentId: ids.at(-1) });
    const cookie = sessionCookie(env, alice.user.id);
    const restored = await submit(env, "/trash/restore", { item: `collection:${ids[30]}` }, cookie);
    expect(restored.headers.get("location")).toBe("/trash?done=trash-restored-top");
    const page = await open(env, restored.headers.get("location")!, cookie);
    expect(texts(page.text, ".notice")).toEqual([expect.stringContaining(`nested more than ${TREE_DEPTH} levels deep`)]);
    expect((await depths(env, alice)).get(ids[30]!)).toBe(1);
  }, 60_000);
});

describe("one restore of nested collections keeps them nested", () => {
  for (const [name, contents] of [["deleted with their contents", "?contents=1"], ["deleted plainly", ""]] as const) {
    it(`${name}, the inner one first, named in either order`, async () => {
      for (const order of ["inner first", "outer first"]) {
        const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
        const alice = await createUser(env);
        const top = await createCollection(env, alice, { name: "Top" });
        const outer = await createCollection(env, alice, { name: "A", parentId: top.id });
        const middle = await createCollection(env, alice, { name: "M", parentId: outer.id });
        const inner = await createCollection(env, alice, { name: "B", parentId: middle.id });
        expect((await del(env, `/api/v1/collections/${inner.id}${contents}`, { token: alice.token })).status).toBe(200);
        expect((await del(env, `/api/v1/collections/${outer.id}${contents}`, { token: alice.token })).status).toBe(200);
        const ids = order === "inner first" ? [inner.id, outer.id] : [outer.id, inner.id];
        const restored = await restore(env, alice, { collections: ids });
        expect(restored.status).toBe(200);
        expect(restored.body.tooDeep).toEqual([]);
        const rows: { id: number; parentId: number | null }[] = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections;
        const parentOf = new Map(rows.map((row) => [row.id, row.parentId]));
        expect({ order, outer: parentOf.get(outer.id), middle: parentOf.get(middle.id), inner: parentOf.get(inner.id) })
          .toEqual({ order, outer: top.id, middle: outer.id, inner: middle.id });
      }
    });
  }
});

describe("emptying a trash larger than one slice", () => {
  it("deletes every item for good, answers how many, and the feed forgets them", async () => {
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
    const alice = await createUser(env);
    const operations = Array.from({ length: 450 }, (_, i) => ({ op: "createLink", ref: `l${i}`, name: `L${i}`, url: `https://l${i}.example/`, collections: [{ ref: "c" }] }));
    const top = await createCollection(env, alice, { name: "Top" });
    const made = await post(env, "/api/v1/batch", { token: alice.token, body: { operations: [{ op: "createCollection", ref: "c", name: "C", parent: { id: top.id } }, ...operations] } });
    expect(made.status).toBe(200);
    const ids = operations.map((operation) => made.body.refs[operation.ref] as number);
    const cursor = (await get(env, "/api/v1/changes?limit=1", { token: alice.token })).body.nextCursor ?? "0";
    expect((await post(env, "/api/v1/links/bulk", { token: alice.token, body: { ids, action: "delete" } })).status).toBe(200);
    const emptied = await del(env, "/api/v1/trash", { token: alice.token });
    expect(emptied.body).toEqual({ message: "Trash emptied.", items: 450 });
    expect((await get(env, "/api/v1/trash", { token: alice.token })).body.items).toEqual([]);
    expect(env.db.$client.query("SELECT count(*) AS n FROM trash").get()).toEqual({ n: 0 });
    expect((await get(env, `/api/v1/changes?since=${cursor}`, { token: alice.token })).status).toBe(410);
  }, 60_000);
});

describe("a restore never takes a link past 100 collections", () => {
  it("a collection restored after its link filled up its 100 places comes back without that link", async () => {
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
    const alice = await createUser(env);
    const shelf = shelfFor(env, alice);
    const ids = Array.from({ length: MEMBERSHIP_LIMITS.perLink + 1 }, (_, i) => shelf.collections.create({ name: `C${i}`, visibility: "PRIVATE", parentId: null }, START).id);
    const link = await createLink(env, alice, { collectionIds: ids.slice(0, MEMBERSHIP_LIMITS.perLink) });
    const other = await createLink(env, alice, { name: "Other", url: "https://other.example/", collectionIds: [ids[0]] });
    expect((await del(env, `/api/v1/collections/${ids[0]}`, { token: alice.token })).status).toBe(200);
    const added = await post(env, "/api/v1/links/bulk", { token: alice.token, body: { ids: [link.id], action: "add", collectionId: ids.at(-1) } });
    expect(added.status).toBe(200);
    expect((await restore(env, alice, { collections: [ids[0]!] })).status).toBe(200);
    const collectionIds = (await get(env, `/api/v1/links/${link.id}`, { token: alice.token })).body.link.collectionIds;
    expect(collectionIds).toHaveLength(MEMBERSHIP_LIMITS.perLink);
    expect(collectionIds).not.toContain(ids[0]);
    // A link with room goes back in it.
    expect((await get(env, `/api/v1/links/${other.id}`, { token: alice.token })).body.link.collectionIds).toEqual([ids[0]]);
  });
});

describe("a restore whose rows were read ahead", () => {
  /** A collection holding one link, deleted with its contents: one trash row. */
  async function trashed() {
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
    const alice = await createUser(env);
    const holder = await createCollection(env, alice, { name: "Holder" });
    const link = await createLink(env, alice, { name: "Before", url: "https://before.example/", collectionIds: [holder.id] });
    expect((await del(env, `/api/v1/collections/${holder.id}?contents=1`, { token: alice.token })).status).toBe(200);
    return { env, alice, holder, link };
  }
  /** Every row a restore writes or deletes. */
  const everything = (env: TestEnv) => JSON.stringify(["collections", "links", "link_collections", "trash", "pending_changes", "link_search_pending"]
    .map((table) => env.db.$client.query(`SELECT * FROM ${table} ORDER BY rowid`).all()));

  it("restores the item as its trash row is now, not as it was read, when it changed between the two", async () => {
    const { env, alice, holder, link } = await trashed();
    const ahead = shelfFor(env, alice).trash.readAhead({ collections: [holder.id] });
    // Meanwhile: restored, the link renamed, deleted again (a new trash row for the same item).
    expect((await restore(env, alice, { collections: [holder.id] })).status).toBe(200);
    expect((await post(env, "/api/v1/batch", { token: alice.token, body: { operations: [{ op: "updateLink", id: link.id, name: "After" }] } })).status).toBe(200);
    expect((await del(env, `/api/v1/collections/${holder.id}?contents=1`, { token: alice.token })).status).toBe(200);
    expect(shelfFor(env, alice).trash.restore({ collections: [holder.id] }, ahead)).toEqual({ links: 1, collections: 1, tooDeep: [] });
    expect((await get(env, `/api/v1/links/${link.id}`, { token: alice.token })).body.link).toMatchObject({ name: "After", collectionIds: [holder.id] });
  });

  it("a restored link is found by search again, as are the links of a restored collection", async () => {
    const { env, alice, holder, link } = await trashed();
    const alone = await createLink(env, alice, { name: "Quokka island", url: "https://alone.example/" });
    expect((await del(env, `/api/v1/links/${alone.id}`, { token: alice.token })).status).toBe(200);
    const hits = async (q: string) => (await get(env, `/api/v1/search?q=${q}`, { token: alice.token })).body.hits.map((hit: { link: { id: number } }) => hit.link.id);
    expect([await hits("before"), await hits("quokka")]).toEqual([[], []]);
    expect((await restore(env, alice, { collections: [holder.id], links: [alone.id] })).status).toBe(200);
    expect([await hits("before"), await hits("quokka")]).toEqual([[link.id], [alone.id]]);
  });

  it("refuses with NotFound, changing nothing, an item restored since it was read", async () => {
    const { env, alice, holder } = await trashed();
    const ahead = shelfFor(env, alice).trash.readAhead({ collections: [holder.id] });
    expect((await restore(env, alice, { collections: [holder.id] })).status).toBe(200);
    const before = everything(env);
    expect(() => shelfFor(env, alice).trash.restore({ collections: [holder.id] }, ahead)).toThrow(NotFound);
    expect(everything(env)).toBe(before);
  });
});
