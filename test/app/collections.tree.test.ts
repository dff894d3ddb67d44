/**
 * Collections as a tree through `app.handle`: `parentId` on create and update, the refusals at
 * `/parentId` (another user's and an unknown id alike, the Inbox, cycles, the depth limit on
 * both sides), each collection's `order` of links and sub-collections, `PUT …/order` and its
 * `409 ORDER_STALE`, and deleting a collection that holds others. Every refusal leaves the
 * database byte for byte as it was.
 */
import { describe, expect, it } from "bun:test";
import { TREE_DEPTH } from "../../src/shelf/limits";
import { PARENT_MESSAGES } from "../../src/shelf/order";
import { aliceWithInbox, createCollection, createLink, createUser, del, get, post, put, refused, snapshot, type TestEnv, type TestUser } from "../support/helpers";

const read = async (env: TestEnv, as: TestUser, id: number) => (await get(env, `/api/v1/collections/${id}`, { token: as.token })).body.collection;
const orderOf = async (env: TestEnv, as: TestUser, id: number) => (await read(env, as, id)).order;
const update = (env: TestEnv, as: TestUser, id: number, body: Record<string, unknown>) =>
  put(env, `/api/v1/collections/${id}`, { token: as.token, body: { name: "Renamed", visibility: "PRIVATE", ...body } });
const setOrder = (env: TestEnv, as: TestUser, id: number, order: unknown) => put(env, `/api/v1/collections/${id}/order`, { token: as.token, body: { order } });
const link = (id: number) => ({ kind: "link", id });
const sub = (id: number) => ({ kind: "collection", id });

/** A chain of `levels` collections, each inside the one before; returns their ids, top first. */
async function chain(env: TestEnv, as: TestUser, levels: number, parentId: number | null = null): Promise<number[]> {
  const ids: number[] = [];
  for (let level = 0; level < levels; level++) ids.push((await createCollection(env, as, { name: `Level ${level + 1}`, parentId: ids.at(-1) ?? parentId })).id);
  return ids;
}

describe("parentId", () => {
  it("nests a new collection at the end of its parent's order, after the links and collections already there", async () => {
    const { env, alice } = await aliceWithInbox();
    const bikes = await createCollection(env, alice, { name: "Bikes" });
    const first = await createLink(env, alice, { url: "https://a.example/", collectionIds: [bikes.id] });
    const home = await createCollection(env, alice, { name: "Home", parentId: bikes.id });
    const second = await createLink(env, alice, { url: "https://b.example/", collectionIds: [bikes.id] });
    expect(home.parentId).toBe(bikes.id);
    expect(await orderOf(env, alice, bikes.id)).toEqual([link(first.id), sub(home.id), link(second.id)]);
    // `links` keeps the interface's shape and order: newest first.
    expect((await read(env, alice, bikes.id)).links.map((l: { id: number }) => l.id)).toEqual([second.id, first.id]);
    const list = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections;
    expect(list.map((c: { name: string; parentId: number | null }) => [c.name, c.parentId])).toEqual([["Inbox", null], ["Bikes", null], ["Home", bikes.id]]);
  });

  it("is kept when a PUT omits it, moves the collection (with its own sub-collections) to the end of a new parent, and back to the top level with null", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const [a, b] = [await createCollection(env, alice, { name: "A" }), await createCollection(env, alice, { name: "B" })];
    const inner = await createCollection(env, alice, { name: "Inner", parentId: a.id });
    const deeper = await createCollection(env, alice, { name: "Deeper", parentId: inner.id });
    const there = await createLink(env, alice, { collectionIds: [b.id] });
    expect((await update(env, alice, inner.id, {})).status).toBe(200);
    expect((await read(env, alice, inner.id)).parentId).toBe(a.id);
    expect((await update(env, alice, inner.id, { parentId: b.id })).status).toBe(200);
    expect(await orderOf(env, alice, b.id)).toEqual([link(there.id), sub(inner.id)]);
    expect(await orderOf(env, alice, a.id)).toEqual([]);
    expect((await read(env, alice, deeper.id)).parentId).toBe(inner.id);
    expect((await update(env, alice, inner.id, { parentId: null })).status).toBe(200);
    const list = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections;
    expect(list.map((c: { id: number }) => c.id)).toEqual([inbox, a.id, b.id, inner.id, deeper.id]);
  });

  it("refuses another user's collection and an unknown id with the same 422 at /parentId, on POST and PUT, changing nothing", async () => {
    const { env, alice } = await aliceWithInbox();
    const bob = await createUser(env);
    const bobs = await createCollection(env, bob, { name: "Bob's" });
    const mine = await createCollection(env, alice, { name: "Mine" });
    const answers = [];
    for (const parentId of [bobs.id, 999_999]) {
      answers.push((await refused(env, () => post(env, "/api/v1/collections", { token: alice.token, body: { name: "X", visibility: "PRIVATE", parentId } }), 422, "VALIDATION_FAILED", ["/parentId"])).body);
      answers.push((await refused(env, () => update(env, alice, mine.id, { parentId }), 422, "VALIDATION_FAILED", ["/parentId"])).body);
    }
    for (const body of answers) expect(body.errors).toEqual([{ path: "/parentId", message: PARENT_MESSAGES.notYours }]);
  });

  it("refuses the Inbox as a parent, and the Inbox anywhere but the top level", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const mine = await createCollection(env, alice, { name: "Mine" });
    const intoInbox = await refused(env, () => post(env, "/api/v1/collections", { token: alice.token, body: { name: "X", visibility: "PRIVATE", parentId: inbox } }), 422, "VALIDATION_FAILED", ["/parentId"]);
    expect(intoInbox.body.errors[0].message).toBe(PARENT_MESSAGES.inbox);
    const inboxMoves = await refused(env, () => update(env, alice, inbox, { name: "Inbox", parentId: mine.id }), 422, "VALIDATION_FAILED", ["/parentId"]);
    expect(inboxMoves.body.errors[0].message).toBe(PARENT_MESSAGES.inboxMoves);
    // Saying where it already is, is no move.
    expect((await update(env, alice, inbox, { name: "Inbox", parentId: null })).status).toBe(200);
  });

  it("refuses a move into the collection itself or any of its sub-collections", async () => {
    const { env, alice } = await aliceWithInbox();
    const [top, middle, bottom] = await chain(env, alice, 3);
    for (const parentId of [top!, middle!, bottom!]) {
      const response = await refused(env, () => update(env, alice, top!, { parentId }), 422, "VALIDATION_FAILED", ["/parentId"]);
      expect(response.body.errors[0].message).toBe(PARENT_MESSAGES.cycle);
    }
  });

  it(`takes a tree ${TREE_DEPTH} levels deep and refuses level ${TREE_DEPTH + 1}, by a new collection or by a move of a subtree`, async () => {
    const { env, alice } = await aliceWithInbox();
    const deep = await chain(env, alice, TREE_DEPTH);
    const tooDeep = await refused(env, () => post(env, "/api/v1/collections", { token: alice.token, body: { name: "X", visibility: "PRIVATE", parentId: deep.at(-1) } }), 422, "VALIDATION_FAILED", ["/parentId"]);
    expect(tooDeep.body.errors[0].message).toBe(PARENT_MESSAGES.depth);
    // A subtree two levels high fits under level 62 and not under level 63.
    const [pair] = await chain(env, alice, 2);
    expect((await update(env, alice, pair!, { parentId: deep[TREE_DEPTH - 3] })).status).toBe(200);
    await refused(env, () => update(env, alice, pair!, { parentId: deep[TREE_DEPTH - 2] }), 422, "VALIDATION_FAILED", ["/parentId"]);
  });

  it("reports a bad parent with the other rules a body breaks, all at once", async () => {
    const { env, alice } = await aliceWithInbox();
    const response = await refused(env, () => post(env, "/api/v1/collections", { token: alice.token, body: { name: "", visibility: "PRIVATE", parentId: 999_999 } }), 422, "VALIDATION_FAILED");
    expect(response.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["/name", "/parentId"]);
  });

  it("refuses a parentId that is not a whole number with 422, changing nothing", async () => {
    const { env, alice } = await aliceWithInbox();
    for (const parentId of ["1", 1.5, true, {}]) {
      await refused(env, () => post(env, "/api/v1/collections", { token: alice.token, body: { name: "X", visibility: "PRIVATE", parentId } }), 422, "VALIDATION_FAILED");
    }
  });
});

describe("PUT /api/v1/collections/:id/order", () => {
  async function folder() {
    const { env, alice, inbox } = await aliceWithInbox();
    const bikes = await createCollection(env, alice, { name: "Bikes" });
    const a = await createLink(env, alice, { url: "https://a.example/", collectionIds: [bikes.id] });
    const tools = await createCollection(env, alice, { name: "Tools", parentId: bikes.id });
    const b = await createLink(env, alice, { url: "https://b.example/", collectionIds: [bikes.id, inbox] });
    return { env, alice, inbox, bikes: bikes.id, a: a.id, b: b.id, tools: tools.id };
  }

  it("puts links and sub-collections in the order given, and moves the collection's updatedAt only", async () => {
    const { env, alice, bikes, a, b, tools, inbox } = await folder();
    const before = await read(env, alice, bikes);
    env.clock.now += 1000;
    const response = await setOrder(env, alice, bikes, [link(b), sub(tools), link(a)]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: "Order saved." });
    const after = await read(env, alice, bikes);
    expect(after.order).toEqual([link(b), sub(tools), link(a)]);
    expect(after.updatedAt).not.toBe(before.updatedAt);
    expect(after.links).toEqual(before.links);
    // The same link keeps its own place in its other collection.
    expect(await orderOf(env, alice, inbox)).toEqual([link(b)]);
  });

  it("answers 409 ORDER_STALE, changing nothing, for an order missing an item, with one too many, twice the same, or the wrong kind", async () => {
    const { env, alice, bikes, a, b, tools } = await folder();
    const other = await createLink(env, alice, { url: "https://c.example/" });
    for (const order of [
      [link(b), sub(tools)],
      [link(b), sub(tools), link(a), link(other.id)],
      [link(b), sub(tools), link(a), link(a)],
      [link(b), link(tools), link(a)],
      [],
    ]) {
      await refused(env, () => setOrder(env, alice, bikes, order), 409, "ORDER_STALE");
    }
  });

  it("refuses a malformed body with 422 and an unknown collection with 404, changing nothing", async () => {
    const { env, alice, bikes, a } = await folder();
    for (const body of [{}, { order: "x" }, { order: [{ kind: "tag", id: a }] }, { order: [{ kind: "link", id: "1" }] }]) {
      await refused(env, () => put(env, `/api/v1/collections/${bikes}/order`, { token: alice.token, body }), 422, "VALIDATION_FAILED");
    }
    await refused(env, () => setOrder(env, alice, 999_999, []), 404, "NOT_FOUND");
  });

  it("keeps a link's place when an edit leaves it in a collection, and puts it at the end of a collection it joins", async () => {
    const { env, alice, bikes, a, b, tools, inbox } = await folder();
    await setOrder(env, alice, bikes, [link(b), sub(tools), link(a)]);
    const edited = await put(env, `/api/v1/links/${b}`, { token: alice.token, body: { name: "B", url: "https://b.example/", favorite: false, collectionIds: [bikes, tools] } });
    expect(edited.status).toBe(200);
    expect(await orderOf(env, alice, bikes)).toEqual([link(b), sub(tools), link(a)]);
    expect(await orderOf(env, alice, tools)).toEqual([link(b)]);
    expect(await orderOf(env, alice, inbox)).toEqual([]);
  });

  it("puts links added in bulk at the end, in the order of their ids in the request", async () => {
    const { env, alice, bikes, a, b, tools } = await folder();
    const c = await createLink(env, alice, { url: "https://c.example/" });
    const response = await post(env, "/api/v1/links/bulk", { token: alice.token, body: { action: "add", ids: [c.id, a], collectionId: tools } });
    expect(response.status).toBe(200);
    expect(await orderOf(env, alice, tools)).toEqual([link(c.id), link(a)]);
    expect(await orderOf(env, alice, bikes)).toEqual([link(a), sub(tools), link(b)]);
  });
});

describe("DELETE /api/v1/collections/:id with sub-collections", () => {
  it("moves its sub-collections up to its place in its parent's order, its lone links to the end of the Inbox, and deletes no link", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const top = await createCollection(env, alice, { name: "Top" });
    const before = await createLink(env, alice, { url: "https://before.example/", collectionIds: [top.id] });
    const doomed = await createCollection(env, alice, { name: "Doomed", parentId: top.id });
    const after = await createLink(env, alice, { url: "https://after.example/", collectionIds: [top.id] });
    const x = await createCollection(env, alice, { name: "X", parentId: doomed.id });
    const lone = await createLink(env, alice, { url: "https://lone.example/", collectionIds: [doomed.id] });
    const y = await createCollection(env, alice, { name: "Y", parentId: doomed.id });
    const grandchild = await createCollection(env, alice, { name: "Z", parentId: y.id });
    const inInbox = await createLink(env, alice, { url: "https://inbox.example/" });

    expect((await del(env, `/api/v1/collections/${doomed.id}`, { token: alice.token })).status).toBe(200);
    expect(await orderOf(env, alice, top.id)).toEqual([link(before.id), sub(x.id), sub(y.id), link(after.id)]);
    expect((await read(env, alice, x.id)).parentId).toBe(top.id);
    expect((await read(env, alice, grandchild.id)).parentId).toBe(y.id);
    expect(await orderOf(env, alice, inbox)).toEqual([link(inInbox.id), link(lone.id)]);
    const links = (await get(env, "/api/v1/links", { token: alice.token })).body.links;
    expect(links).toHaveLength(4);
  });

  it("moves the sub-collections of a top-level collection to the top level, at its place", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const first = await createCollection(env, alice, { name: "First" });
    const doomed = await createCollection(env, alice, { name: "Doomed" });
    const last = await createCollection(env, alice, { name: "Last" });
    const inner = await createCollection(env, alice, { name: "Inner", parentId: doomed.id });
    expect((await del(env, `/api/v1/collections/${doomed.id}`, { token: alice.token })).status).toBe(200);
    const list = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections;
    expect(list.map((c: { id: number }) => c.id)).toEqual([inbox, first.id, inner.id, last.id]);
    expect(snapshot(env)).not.toContain('"name":"Doomed"');
  });
});
