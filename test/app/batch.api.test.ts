/**
 * `POST /api/v1/batch` and `GET /api/v1/collections?under=` through `app.handle`: each operation
 * does what its single route does (the same rules and messages, the trash, the change feed), all
 * of a batch or none of it (`unchanged`: every row of every table, the trash and the feed
 * included), refusals naming the operation, refs, `since` as a precondition, the bounds, the
 * idempotency key and the rate limit. Ownership across users is also in permissions.api.test.ts.
 */
import { describe, expect, it } from "bun:test";
import { PARENT_MESSAGES } from "../../src/shelf/order";
import { BATCH_MESSAGES } from "../../src/shelf/batch";
import { TREE_DEPTH } from "../../src/shelf/limits";
import {
  chars, contents, createCollection, createLink, createUser, del, get, inboxOf, makeEnv, post, put,
  type ApiResponse, type TestEnv, type TestUser,
} from "../support/helpers";

type Operation = Record<string, unknown>;

const batch = (env: TestEnv, as: TestUser, operations: unknown[], more: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  post(env, "/api/v1/batch", { token: as.token, body: { ...more, operations }, headers });

/** everything is every row a batch could write: `contents` with the trash and the change feed's rows and marks. */
function everything(env: TestEnv): string {
  const client = env.db.$client;
  const more = ["trash", "changes", "pending_changes", "change_floors"].map((table) => client.query(`SELECT * FROM ${table} ORDER BY rowid`).all());
  return contents(env) + JSON.stringify(more);
}

/** unchanged sends a batch that must be refused with `status`/`code` and errors at exactly `paths`, and proves nothing at all was written. */
async function unchanged(env: TestEnv, send: () => Promise<ApiResponse>, status: number, code: string, paths?: string[]): Promise<ApiResponse> {
  const before = everything(env);
  const response = await send();
  expect({ status: response.status, code: response.body?.code, paths: response.body?.errors?.map((e: { path: string }) => e.path) })
    .toEqual({ status, code, paths });
  expect(everything(env)).toBe(before);
  return response;
}

/** A user with a collection tree: Top > (Left > Deep), Right; a link in Left and Right, one in Left only, one in the Inbox. */
async function shelf(env: TestEnv = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" })) {
  const alice = await createUser(env);
  const inbox = await inboxOf(env, alice);
  const top = await createCollection(env, alice, { name: "Top" });
  const left = await createCollection(env, alice, { name: "Left", parentId: top.id });
  const deep = await createCollection(env, alice, { name: "Deep", parentId: left.id });
  const right = await createCollection(env, alice, { name: "Right", parentId: top.id, icon: "🚲", description: "Bikes", visibility: "PUBLIC" });
  const both = await createLink(env, alice, { name: "Both", url: "https://both.example/", collectionIds: [left.id, right.id], favorite: true, description: "kept" });
  const only = await createLink(env, alice, { name: "Only", url: "https://only.example/", collectionIds: [left.id] });
  const loose = await createLink(env, alice, { name: "Loose", url: "https://loose.example/" });
  return { env, alice, inbox, top, left, deep, right, both, only, loose };
}

const collection = async (env: TestEnv, as: TestUser, id: number) => (await get(env, `/api/v1/collections/${id}`, { token: as.token })).body.collection;
const link = async (env: TestEnv, as: TestUser, id: number) => (await get(env, `/api/v1/links/${id}`, { token: as.token })).body.link;
const feed = async (env: TestEnv, as: TestUser, since?: string) =>
  (await get(env, `/api/v1/changes?limit=1000${since === undefined ? "" : `&since=${since}`}`, { token: as.token })).body;
const named = (changes: { kind: string; id: number; deleted: boolean }[]) => changes.map((c) => `${c.kind} ${c.id}${c.deleted ? " deleted" : ""}`);

describe("POST /api/v1/batch: creating", () => {
  it("creates collections and links by ref, in order, and answers every ref's id", async () => {
    const { env, alice, top, right } = await shelf();
    const response = await batch(env, alice, [
      { op: "createCollection", ref: "folder", name: " Folder ", parent: { id: top.id } },
      { op: "createCollection", ref: "inner", name: "Inner", parent: { ref: "folder" } },
      { op: "createLink", ref: "a", name: "A", url: "https://a.example/", collections: [{ ref: "inner" }, { id: right.id }] },
    ]);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["message", "refs"]);
    expect(response.body.message).toBe("3 operations applied.");
    const { folder, inner, a } = response.body.refs;
    expect(Object.keys(response.body.refs).sort()).toEqual(["a", "folder", "inner"]);
    const created = await collection(env, alice, folder);
    expect(created).toMatchObject({ name: "Folder", visibility: "PRIVATE", icon: "📁", description: null, parentId: top.id, isDefault: false });
    // At the end of its parent's order.
    expect((await collection(env, alice, top.id)).order.at(-1)).toEqual({ kind: "collection", id: folder });
    expect((await collection(env, alice, inner)).parentId).toBe(folder);
    // One link, in both collections, at the end of each one's order; favorite false, description "".
    expect(await link(env, alice, a)).toMatchObject({ name: "A", url: "https://a.example/", favorite: false, description: "", collectionIds: [right.id, inner].sort((x, y) => x - y) });
    expect((await collection(env, alice, right.id)).order.at(-1)).toEqual({ kind: "link", id: a });
    expect((await collection(env, alice, inner)).order).toEqual([{ kind: "link", id: a }]);
    const links = (await get(env, "/api/v1/links?limit=100", { token: alice.token })).body.links.filter((l: { url: string }) => l.url === "https://a.example/");
    expect(links.length).toBe(1);
  });

  it("creates a link always, even for a URL already saved, and a collection named twice holds it once", async () => {
    const { env, alice, left, only } = await shelf();
    const response = await batch(env, alice, [{ op: "createLink", ref: "again", name: "Again", url: only.url, collections: [{ id: left.id }, { id: left.id }] }]);
    expect(response.status).toBe(200);
    expect(response.body.refs.again).not.toBe(only.id);
    expect((await link(env, alice, response.body.refs.again)).collectionIds).toEqual([left.id]);
    expect((await collection(env, alice, left.id)).order.filter((item: { kind: string; id: number }) => item.kind === "link" && item.id === response.body.refs.again).length).toBe(1);
  });

  it("refuses a createLink with no collection, at its path", async () => {
    const { env, alice } = await shelf();
    await unchanged(env, () => batch(env, alice, [{ op: "createLink", ref: "a", name: "A", url: "https://a.example/", collections: [] }]), 422, "VALIDATION_FAILED", ["/operations/0/collections"]);
  });
});

describe("POST /api/v1/batch: bounds", () => {
  const many = (n: number, collectionId: number, url = (i: number) => `https://example.org/${i}`) =>
    Array.from({ length: n }, (_, i) => ({ op: "createLink", ref: `r${i}`, name: `Link ${i}`, url: url(i), collections: [{ id: collectionId }] }));

  it("takes 1 and 500 operations, and refuses 0 and 501, writing nothing", async () => {
    const { env, alice, right } = await shelf();
    await unchanged(env, () => batch(env, alice, []), 422, "VALIDATION_FAILED", ["/operations"]);
    await unchanged(env, () => batch(env, alice, many(501, right.id)), 422, "VALIDATION_FAILED", ["/operations"]);
    const one = await batch(env, alice, many(1, right.id));
    expect({ status: one.status, message: one.body.message }).toEqual({ status: 200, message: "1 operation applied." });
    const full = await batch(env, alice, many(500, right.id));
    expect({ status: full.status, message: full.body.message, refs: Object.keys(full.body.refs).length }).toEqual({ status: 200, message: "500 operations applied.", refs: 500 });
    expect((await collection(env, alice, right.id)).order.length).toBe(1 + 1 + 500);
  });

  it("takes 500 createLink operations with 300-character URLs and the longest names, sent as \\u escapes (a body over 1 MiB); refuses a body over 4 MiB", async () => {
    const { env, alice, right } = await shelf();
    const longName = chars(254, "😀");
    const operations = many(500, right.id, (i) => `https://example.org/${String(i).padStart(280, "0")}`.padEnd(300, "x"))
      .map((operation) => ({ ...operation, name: longName }));
    expect(operations[0]!.url.length).toBe(300);
    // As a client that escapes everything outside ASCII writes it (Python's json.dumps does by default).
    const body = JSON.stringify({ operations }).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const response = await post(env, "/api/v1/batch", { token: alice.token, body, headers: { "content-type": "application/json" } });
    expect({ status: response.status, message: response.body.message }).toEqual({ status: 200, message: "500 operations applied." });
    expect((await link(env, alice, response.body.refs.r499)).name).toBe(longName);

    const huge = JSON.stringify({ operations: [{ op: "createLink", ref: "a", name: "A", url: "https://a.example/", collections: [{ id: right.id }], pad: "x".repeat(4 * 1024 * 1024) }] });
    await unchanged(env, () => post(env, "/api/v1/batch", { token: alice.token, body: huge, headers: { "content-type": "application/json" } }), 413, "PAYLOAD_TOO_LARGE");
  });

  it("takes a ref of 64 characters and refuses one of 65 or none", async () => {
    const { env, alice, right } = await shelf();
    const op = (ref: string) => ({ op: "createCollection", ref, name: "N", parent: { id: right.id } });
    await unchanged(env, () => batch(env, alice, [op(chars(65))]), 422, "VALIDATION_FAILED", ["/operations/0/ref"]);
    await unchanged(env, () => batch(env, alice, [op("")]), 422, "VALIDATION_FAILED", ["/operations/0/ref"]);
    const response = await batch(env, alice, [op(chars(64)), { op: "createLink", ref: "l", name: "L", url: "https://l.example/", collections: [{ ref: chars(64) }] }]);
    expect(response.status).toBe(200);
    expect((await link(env, alice, response.body.refs.l)).collectionIds).toEqual([response.body.refs[chars(64)]]);
  });

  it("refuses what breaks an operation's schema at the operation's path, each one", async () => {
    const { env, alice, right } = await shelf();
    const response = await unchanged(env, () => batch(env, alice, [
      { op: "createCollection", ref: "a", name: 5, parent: { id: right.id } },
      { op: "teleport" },
      "nothing",
      { op: "updateLink", id: 1.5 },
      { op: "order", collection: { id: right.id }, order: [{ kind: "tag", id: 1 }] },
    ]), 422, "VALIDATION_FAILED", ["/operations/0/name", "/operations/1/op", "/operations/2", "/operations/3/id", "/operations/4/order/0/kind"]);
    expect(response.body.errors[0].message).toBe("Expected string");
    expect(response.body.errors[4].message).toBe('Expected "link" or "collection"');
    await unchanged(env, () => batch(env, alice, [{ op: "createCollection", ref: "a", name: "A", parent: { id: right.id } }], { since: "12a" }), 422, "VALIDATION_FAILED", ["/since"]);
  });
});

describe("POST /api/v1/batch: all or nothing, the refusal naming its operation", () => {
  it("a refused fourth operation leaves the database as it was, with the single route's message", async () => {
    const { env, alice, top, left, deep, right, both, only } = await shelf();
    const single = await put(env, `/api/v1/links/${only.id}`, { token: alice.token, body: { name: "", url: only.url, favorite: false, collectionIds: [left.id] } });
    const response = await unchanged(env, () => batch(env, alice, [
      { op: "createCollection", ref: "c", name: "New", parent: { id: top.id } },
      { op: "updateLink", id: both.id, name: "Renamed", remove: [right.id] },
      { op: "deleteCollection", id: deep.id },
      { op: "updateLink", id: only.id, name: "  " },
    ]), 422, "VALIDATION_FAILED", ["/operations/3/name"]);
    expect(response.body.errors[0].message).toBe(single.body.errors[0].message);
    const url = await unchanged(env, () => batch(env, alice, [{ op: "updateLink", id: only.id, url: "ftp://x" }]), 422, "VALIDATION_FAILED", ["/operations/0/url"]);
    const singleUrl = await put(env, `/api/v1/links/${only.id}`, { token: alice.token, body: { name: "x", url: "ftp://x", favorite: false, collectionIds: [left.id] } });
    expect(url.body.errors[0].message).toBe(singleUrl.body.errors[0].message);
    const name = await unchanged(env, () => batch(env, alice, [{ op: "createCollection", ref: "c", name: chars(255), parent: { id: top.id } }]), 422, "VALIDATION_FAILED", ["/operations/0/name"]);
    const singleName = await post(env, "/api/v1/collections", { token: alice.token, body: { name: chars(255), visibility: "PRIVATE" } });
    expect(name.body.errors[0].message).toBe(singleName.body.errors[0].message);
  });

  it("refs: used before they are defined, defined twice, unknown, of a link where a collection is meant: 422 at each path", async () => {
    const { env, alice, top, right } = await shelf();
    const response = await unchanged(env, () => batch(env, alice, [
      { op: "createLink", ref: "l", name: "L", url: "https://l.example/", collections: [{ ref: "later" }] },
      { op: "createCollection", ref: "later", name: "Later", parent: { id: top.id } },
      { op: "createCollection", ref: "later", name: "Again", parent: { id: top.id } },
      { op: "createCollection", ref: "x", name: "X", parent: { ref: "l" } },
      { op: "updateLink", id: 1, add: [{ ref: "nowhere" }] },
      { op: "order", collection: { id: right.id }, order: [{ kind: "collection", ref: "l" }, { kind: "link" }, { kind: "link", id: 1, ref: "l" }] },
    ]), 422, "VALIDATION_FAILED", [
      "/operations/0/collections/0/ref", "/operations/2/ref", "/operations/3/parent/ref", "/operations/4/add/0/ref",
      "/operations/5/order/0/ref", "/operations/5/order/1", "/operations/5/order/2",
    ]);
    expect(response.body.errors.map((e: { message: string }) => e.message)).toEqual([
      BATCH_MESSAGES.unknownRef, BATCH_MESSAGES.refTwice("later", 1), BATCH_MESSAGES.linkRef, BATCH_MESSAGES.unknownRef,
      BATCH_MESSAGES.linkRef, BATCH_MESSAGES.idOrRef, BATCH_MESSAGES.idOrRef,
    ]);
  });

  it("an id that is not the requester's (another user's, unknown, in the trash) is 404 at its path, the same answer for each", async () => {
    const { env, alice, left, right, both } = await shelf();
    const bob = await createUser(env);
    const bobs = await createCollection(env, bob, { name: "Bob's" });
    const bobsLink = await createLink(env, bob, { name: "Bob's link", collectionIds: [bobs.id] });
    const trashed = await createCollection(env, alice, { name: "Trashed" });
    const trashedLink = await createLink(env, alice, { name: "Trashed link" });
    expect((await del(env, `/api/v1/collections/${trashed.id}`, { token: alice.token })).status).toBe(200);
    expect((await del(env, `/api/v1/links/${trashedLink.id}`, { token: alice.token })).status).toBe(200);
    const cases: [string, (collectionId: number, linkId: number) => Operation, string][] = [
      ["updateCollection", (c) => ({ op: "updateCollection", id: c, name: "Mine" }), "/operations/1/id"],
      ["deleteCollection", (c) => ({ op: "deleteCollection", id: c }), "/operations/1/id"],
      ["updateLink", (_, l) => ({ op: "updateLink", id: l, name: "Mine" }), "/operations/1/id"],
      ["a parent", (c) => ({ op: "createCollection", ref: "p", name: "P", parent: { id: c } }), "/operations/1/parent/id"],
      ["a new parent", (c) => ({ op: "updateCollection", id: left.id, parent: { id: c } }), "/operations/1/parent/id"],
      ["a link's collection", (c) => ({ op: "createLink", ref: "l", name: "L", url: "https://l.example/", collections: [{ id: right.id }, { id: c }] }), "/operations/1/collections/1/id"],
      ["add", (c) => ({ op: "updateLink", id: both.id, add: [{ id: c }] }), "/operations/1/add/0/id"],
      ["remove", (c) => ({ op: "updateLink", id: both.id, remove: [right.id, c] }), "/operations/1/remove/1"],
      ["an order's collection", (c) => ({ op: "order", collection: { id: c }, order: [] }), "/operations/1/collection/id"],
    ];
    const first = { op: "createCollection", ref: "first", name: "First", parent: { id: right.id } };
    for (const [what, operation, path] of cases) {
      const others = await unchanged(env, () => batch(env, alice, [first, operation(bobs.id, bobsLink.id)]), 404, "NOT_FOUND", [path]);
      const unknown = await unchanged(env, () => batch(env, alice, [first, operation(999_999, 999_999)]), 404, "NOT_FOUND", [path]);
      const inTrash = await unchanged(env, () => batch(env, alice, [first, operation(trashed.id, trashedLink.id)]), 404, "NOT_FOUND", [path]);
      expect({ what, same: others.text === unknown.text && unknown.text === inTrash.text }).toEqual({ what, same: true });
    }
    // Bob's were never touched.
    expect((await collection(env, bob, bobs.id)).name).toBe("Bob's");
  });
});

describe("POST /api/v1/batch: collections gone in the batch", () => {
  it("a collection found or created earlier in the batch, then deleted with its parent, is refused to a later createLink, writing nothing", async () => {
    const { env, alice, top, left, right } = await shelf();
    const link = (ref: string, collections: Operation[]) => ({ op: "createLink", ref, name: "Late", url: "https://late.example/", collections });
    // Created in the batch inside Top, then Top deleted with its contents: the ref names nothing of Alice's any more.
    await unchanged(env, () => batch(env, alice, [
      { op: "createCollection", ref: "made", name: "Made", parent: { id: top.id } },
      link("early", [{ ref: "made" }]),
      { op: "deleteCollection", id: top.id },
      link("late", [{ ref: "made" }]),
    ]), 422, "VALIDATION_FAILED", ["/operations/3/collections"]);
    // Named by id earlier (found then), then deleted with Top.
    await unchanged(env, () => batch(env, alice, [
      link("early", [{ id: left.id }, { id: right.id }]),
      { op: "deleteCollection", id: top.id },
      link("late", [{ id: right.id }]),
    ]), 404, "NOT_FOUND", ["/operations/2/collections/0/id"]);
  });
});

describe("POST /api/v1/batch: collections", () => {
  it("updateCollection renames and moves, keeping description, icon and visibility; a new parent puts it at the end of that parent's order", async () => {
    const { env, alice, top, left, right } = await shelf();
    const response = await batch(env, alice, [{ op: "updateCollection", id: right.id, name: "Wheels", parent: { id: left.id } }]);
    expect(response.body).toEqual({ message: "1 operation applied.", refs: {} });
    const moved = await collection(env, alice, right.id);
    expect(moved).toMatchObject({ name: "Wheels", description: "Bikes", icon: "🚲", visibility: "PUBLIC", parentId: left.id });
    expect((await collection(env, alice, left.id)).order.at(-1)).toEqual({ kind: "collection", id: right.id });
    expect((await collection(env, alice, top.id)).order).toEqual([{ kind: "collection", id: left.id }]);
    // A rename alone stays where it is.
    const deepBefore = (await collection(env, alice, left.id)).order;
    expect((await batch(env, alice, [{ op: "updateCollection", id: right.id, name: "Bikes" }])).status).toBe(200);
    expect((await collection(env, alice, left.id)).order).toEqual(deepBefore);
  });

  it("refuses the parent rules at the operation's parent: the Inbox, a cycle, deeper than 64 levels, moving the Inbox", async () => {
    const { env, alice, inbox, top, left, deep } = await shelf();
    const inboxParent = await unchanged(env, () => batch(env, alice, [{ op: "createCollection", ref: "c", name: "C", parent: { id: inbox } }]), 422, "VALIDATION_FAILED", ["/operations/0/parent"]);
    expect(inboxParent.body.errors[0].message).toBe(PARENT_MESSAGES.inbox);
    const cycle = await unchanged(env, () => batch(env, alice, [{ op: "updateCollection", id: top.id, parent: { id: deep.id } }]), 422, "VALIDATION_FAILED", ["/operations/0/parent"]);
    expect(cycle.body.errors[0].message).toBe(PARENT_MESSAGES.cycle);
    // A cycle made of a collection created in the batch: its ref's path is the operation's parent.
    const viaRef = await unchanged(env, () => batch(env, alice, [
      { op: "createCollection", ref: "under", name: "Under", parent: { id: left.id } },
      { op: "updateCollection", id: left.id, parent: { ref: "under" } },
    ]), 422, "VALIDATION_FAILED", ["/operations/1/parent"]);
    expect(viaRef.body.errors[0].message).toBe(PARENT_MESSAGES.cycle);
    const inboxMoves = await unchanged(env, () => batch(env, alice, [{ op: "updateCollection", id: inbox, parent: { id: top.id } }]), 422, "VALIDATION_FAILED", ["/operations/0/parent"]);
    expect(inboxMoves.body.errors[0].message).toBe(PARENT_MESSAGES.inboxMoves);
    // Top > Left > Deep is 3 levels: 61 more fit, the 62nd does not.
    const chain = (n: number): Operation[] => Array.from({ length: n }, (_, i) => ({ op: "createCollection", ref: `d${i}`, name: `D${i}`, parent: i === 0 ? { id: deep.id } : { ref: `d${i - 1}` } }));
    const tooDeep = await unchanged(env, () => batch(env, alice, chain(TREE_DEPTH - 3 + 1)), 422, "VALIDATION_FAILED", [`/operations/${TREE_DEPTH - 3}/parent`]);
    expect(tooDeep.body.errors[0].message).toBe(PARENT_MESSAGES.depth);
    expect((await batch(env, alice, chain(TREE_DEPTH - 3))).status).toBe(200);
  });

  it("deleteCollection puts it with its contents in the trash as one item, exactly as DELETE ?contents=1; one restore brings all back", async () => {
    const viaBatch = await shelf();
    const viaRoute = await shelf();
    const before = contents(viaBatch.env);
    expect((await batch(viaBatch.env, viaBatch.alice, [{ op: "deleteCollection", id: viaBatch.left.id }])).status).toBe(200);
    expect((await del(viaRoute.env, `/api/v1/collections/${viaRoute.left.id}?contents=1`, { token: viaRoute.alice.token })).status).toBe(200);
    // The same rows, the same trash (the two shelves were made alike, ids included; their users' emails and tokens differ).
    const shelfRows = (env: TestEnv) => {
      const { users: _, tokens: __, ...rest } = JSON.parse(contents(env));
      return JSON.stringify(rest) + JSON.stringify(env.db.$client.query("SELECT kind, item_id, name, links, collections, data FROM trash").all());
    };
    expect(shelfRows(viaBatch.env)).toBe(shelfRows(viaRoute.env));
    const trash = (await get(viaBatch.env, "/api/v1/trash", { token: viaBatch.alice.token })).body.items;
    expect(trash).toEqual([expect.objectContaining({ kind: "collection", id: viaBatch.left.id, links: 1, collections: 2 })]);
    expect(trash).toEqual((await get(viaRoute.env, "/api/v1/trash", { token: viaRoute.alice.token })).body.items);
    // "Only" was only in the subtree: gone with it, never to the Inbox; "Both" stays in Right.
    expect((await get(viaBatch.env, `/api/v1/links/${viaBatch.only.id}`, { token: viaBatch.alice.token })).status).toBe(404);
    expect((await link(viaBatch.env, viaBatch.alice, viaBatch.both.id)).collectionIds).toEqual([viaBatch.right.id]);
    const changes = named((await feed(viaBatch.env, viaBatch.alice)).changes);
    for (const item of [`collection ${viaBatch.left.id} deleted`, `collection ${viaBatch.deep.id} deleted`, `link ${viaBatch.only.id} deleted`]) expect(changes).toContain(item);
    expect((await post(viaBatch.env, "/api/v1/trash/restore", { token: viaBatch.alice.token, body: { collections: [viaBatch.left.id] } })).body)
      .toEqual({ message: "Restored.", links: 1, collections: 2, tooDeep: [] });
    expect(contents(viaBatch.env)).toBe(before);
  });

  it("refuses deleting the Inbox with 409 DEFAULT_COLLECTION naming the operation", async () => {
    const { env, alice, inbox, right } = await shelf();
    await unchanged(env, () => batch(env, alice, [{ op: "createCollection", ref: "c", name: "C", parent: { id: right.id } }, { op: "deleteCollection", id: inbox }]),
      409, "DEFAULT_COLLECTION", ["/operations/1/id"]);
  });
});

describe("POST /api/v1/batch: links", () => {
  it("updateLink changes name and url, keeping favorite, description and its other collections", async () => {
    const { env, alice, left, right, both } = await shelf();
    expect((await batch(env, alice, [{ op: "updateLink", id: both.id, name: "New name", url: "https://new.example/" }])).status).toBe(200);
    expect(await link(env, alice, both.id)).toMatchObject({ name: "New name", url: "https://new.example/", favorite: true, description: "kept", collectionIds: [left.id, right.id] });
  });

  it("add: a collection it is in already keeps its place, a new one gets it at the end", async () => {
    const { env, alice, left, right, deep, both, only } = await shelf();
    const leftOrder = (await collection(env, alice, left.id)).order;
    expect(leftOrder.findIndex((item: { id: number; kind: string }) => item.kind === "link" && item.id === both.id)).toBeLessThan(leftOrder.length - 1);
    expect((await batch(env, alice, [{ op: "updateLink", id: both.id, add: [{ id: left.id }, { id: deep.id }] }])).status).toBe(200);
    expect((await collection(env, alice, left.id)).order).toEqual(leftOrder);
    expect((await collection(env, alice, deep.id)).order).toEqual([{ kind: "link", id: both.id }]);
    expect((await link(env, alice, both.id)).collectionIds).toEqual([left.id, deep.id, right.id].sort((a, b) => a - b));
    expect((await link(env, alice, only.id)).collectionIds).toEqual([left.id]);
  });

  it("remove: leaves those collections; removed from its last one, the link goes to the trash (never the Inbox), shows deleted in the feed, and restores", async () => {
    const { env, alice, inbox, left, right, both, only } = await shelf();
    const { cursor } = await feed(env, alice);
    const before = contents(env);
    expect((await batch(env, alice, [{ op: "updateLink", id: both.id, remove: [right.id] }, { op: "updateLink", id: only.id, remove: [left.id] }])).status).toBe(200);
    expect((await link(env, alice, both.id)).collectionIds).toEqual([left.id]);
    expect((await get(env, `/api/v1/links/${only.id}`, { token: alice.token })).status).toBe(404);
    expect((await collection(env, alice, inbox)).order.some((item: { id: number; kind: string }) => item.kind === "link" && item.id === only.id)).toBe(false);
    const trash = (await get(env, "/api/v1/trash", { token: alice.token })).body.items;
    expect(trash).toEqual([expect.objectContaining({ kind: "link", id: only.id, name: "Only", links: 1, collections: 0 })]);
    const changes = named((await feed(env, alice, cursor)).changes);
    expect(changes).toContain(`link ${only.id} deleted`);
    expect(changes).toContain(`link ${both.id}`);
    expect(changes).toContain(`collection ${right.id}`);
    // Back in Left, at its place.
    expect((await post(env, "/api/v1/trash/restore", { token: alice.token, body: { links: [only.id] } })).status).toBe(200);
    expect((await link(env, alice, only.id)).collectionIds).toEqual([left.id]);
    expect((await batch(env, alice, [{ op: "updateLink", id: both.id, add: [{ id: right.id }] }])).status).toBe(200);
    // Removing and adding the same collections in one operation is the same set; a remove of a collection it is not in changes nothing.
    const order = (await collection(env, alice, left.id)).order;
    expect((await batch(env, alice, [{ op: "updateLink", id: only.id, remove: [right.id] }])).status).toBe(200);
    expect((await collection(env, alice, left.id)).order).toEqual(order);
    expect(contents(env)).not.toBe(before);
  });

  it("the name rules of an updateLink that empties the link still apply (nothing goes to the trash)", async () => {
    const { env, alice, left, only } = await shelf();
    await unchanged(env, () => batch(env, alice, [{ op: "updateLink", id: only.id, name: "", remove: [left.id] }]), 422, "VALIDATION_FAILED", ["/operations/0/name"]);
  });
});

describe("POST /api/v1/batch: order", () => {
  it("sets the order of the items the collection holds after the operations before it, refs included", async () => {
    const { env, alice, left, deep, both, only } = await shelf();
    const response = await batch(env, alice, [
      { op: "createLink", ref: "new", name: "New", url: "https://new.example/", collections: [{ id: left.id }] },
      { op: "createCollection", ref: "sub", name: "Sub", parent: { id: left.id } },
      { op: "order", collection: { id: left.id }, order: [
        { kind: "collection", ref: "sub" }, { kind: "link", ref: "new" }, { kind: "link", id: only.id }, { kind: "collection", id: deep.id }, { kind: "link", id: both.id },
      ] },
    ]);
    expect(response.status).toBe(200);
    expect((await collection(env, alice, left.id)).order).toEqual([
      { kind: "collection", id: response.body.refs.sub }, { kind: "link", id: response.body.refs.new }, { kind: "link", id: only.id },
      { kind: "collection", id: deep.id }, { kind: "link", id: both.id },
    ]);
  });

  it("refuses an order that misses an item added earlier in the batch, or names one twice, with 409 ORDER_STALE naming the operation", async () => {
    const { env, alice, left, deep, both, only } = await shelf();
    const current = [{ kind: "collection", id: deep.id }, { kind: "link", id: both.id }, { kind: "link", id: only.id }];
    await unchanged(env, () => batch(env, alice, [
      { op: "createLink", ref: "new", name: "New", url: "https://new.example/", collections: [{ id: left.id }] },
      { op: "order", collection: { id: left.id }, order: current },
    ]), 409, "ORDER_STALE", ["/operations/1/order"]);
    await unchanged(env, () => batch(env, alice, [{ op: "order", collection: { id: left.id }, order: [...current, current[1]] }]), 409, "ORDER_STALE", ["/operations/0/order"]);
    expect((await batch(env, alice, [{ op: "order", collection: { id: left.id }, order: [...current].reverse() }])).status).toBe(200);
  });
});

describe("POST /api/v1/batch: since", () => {
  it("applies the batch when nothing it names by id changed after the cursor (other items may have)", async () => {
    const { env, alice, left, right, both, loose } = await shelf();
    const { cursor } = await feed(env, alice);
    expect((await put(env, `/api/v1/links/${loose.id}`, { token: alice.token, body: { name: "Elsewhere", url: loose.url, favorite: false, collectionIds: [] } })).status).toBe(200);
    const response = await batch(env, alice, [
      { op: "updateLink", id: both.id, name: "Fine", add: [{ id: left.id }], remove: [right.id] },
      { op: "createCollection", ref: "c", name: "C", parent: { id: left.id } },
    ], { since: cursor });
    expect(response.status).toBe(200);
    expect((await link(env, alice, both.id)).name).toBe("Fine");
  });

  it("refuses with 412, writing nothing, when a named item changed after the cursor: by id, as a target, in remove, deleted", async () => {
    const { env, alice, top, left, deep, right, both, only } = await shelf();
    const { cursor } = await feed(env, alice);
    // Another request, between this client's read of the feed and its batch.
    expect((await put(env, `/api/v1/collections/${deep.id}`, { token: alice.token, body: { name: "Deeper", visibility: "PRIVATE" } })).status).toBe(200);
    expect((await put(env, `/api/v1/links/${only.id}`, { token: alice.token, body: { name: "Changed", url: only.url, favorite: false, collectionIds: [left.id] } })).status).toBe(200);
    const stale: Operation[] = [
      { op: "updateCollection", id: deep.id, name: "Mine" },
      { op: "deleteCollection", id: deep.id },
      { op: "updateLink", id: only.id, name: "Mine" },
      { op: "createCollection", ref: "c", name: "C", parent: { id: deep.id } },
      { op: "createLink", ref: "l", name: "L", url: "https://l.example/", collections: [{ id: deep.id }] },
      { op: "updateLink", id: both.id, add: [{ id: deep.id }] },
      { op: "order", collection: { id: deep.id }, order: [] },
    ];
    for (const operation of stale) {
      const response = await unchanged(env, () => batch(env, alice, [operation], { since: cursor }), 412, "PRECONDITION_FAILED");
      expect(response.body.errors).toBeUndefined();
    }
    // A collection in remove (Deep, renamed) is named too; Left, Right and Both did not change.
    await unchanged(env, () => batch(env, alice, [{ op: "updateLink", id: both.id, remove: [deep.id] }], { since: cursor }), 412, "PRECONDITION_FAILED");
    expect((await batch(env, alice, [{ op: "updateLink", id: both.id, remove: [left.id] }, { op: "updateLink", id: both.id, add: [{ id: left.id }] }], { since: cursor })).status).toBe(200);
    // A deleted item changed too.
    const { cursor: later } = await feed(env, alice);
    expect((await del(env, `/api/v1/collections/${right.id}`, { token: alice.token })).status).toBe(200);
    await unchanged(env, () => batch(env, alice, [{ op: "updateLink", id: both.id, add: [{ id: top.id }] }, { op: "deleteCollection", id: right.id }], { since: later }), 412, "PRECONDITION_FAILED");
    // From the newest cursor the same batches go through.
    const { cursor: now } = await feed(env, alice);
    expect((await batch(env, alice, [{ op: "updateCollection", id: deep.id, name: "Mine" }, { op: "updateLink", id: only.id, name: "Mine" }], { since: now })).status).toBe(200);
  });

  it("sees a change committed but not yet read by any feed, and an expired cursor is 410", async () => {
    const { env, alice, right, both } = await shelf();
    const { cursor } = await feed(env, alice);
    // The change is only marked: nobody read the feed since.
    expect((await put(env, `/api/v1/links/${both.id}`, { token: alice.token, body: { name: "Edited", url: both.url, favorite: true, collectionIds: [right.id] } })).status).toBe(200);
    expect(env.db.$client.query("SELECT count(*) AS n FROM pending_changes").get()).toEqual({ n: expect.any(Number) });
    await unchanged(env, () => batch(env, alice, [{ op: "updateLink", id: both.id, name: "Mine" }], { since: cursor }), 412, "PRECONDITION_FAILED");
    // Emptying the trash forgets tombstones: the floor rises past the cursor.
    expect((await del(env, `/api/v1/links/${both.id}`, { token: alice.token })).status).toBe(200);
    expect((await del(env, "/api/v1/trash", { token: alice.token })).status).toBe(200);
    const expired = await get(env, `/api/v1/changes?since=${cursor}`, { token: alice.token });
    expect(expired.status).toBe(410);
    await unchanged(env, () => batch(env, alice, [{ op: "updateCollection", id: right.id, name: "R" }], { since: cursor }), 410, "CURSOR_EXPIRED");
  });
});

describe("POST /api/v1/batch: a since of another history", () => {
  it("refuses with 410 HISTORY_REPLACED, writing nothing, a since of another history, beyond the feed's end, or from before cursors named their history", async () => {
    const { env, alice, right, both } = await shelf();
    const { cursor } = await feed(env, alice);
    const [generation, place] = cursor.split(".");
    // A change not yet read by any feed: settling it in a refused batch is rolled back too.
    expect((await put(env, `/api/v1/links/${both.id}`, { token: alice.token, body: { name: "Edited", url: both.url, favorite: true, collectionIds: [right.id] } })).status).toBe(200);
    const operations: Operation[] = [{ op: "updateCollection", id: right.id, name: "R" }, { op: "createLink", ref: "l", name: "L", url: "https://l.example/", collections: [{ id: right.id }] }];
    for (const since of [`${"f".repeat(32)}.${place}`, `${generation}.${Number(place) + 50}`, `${generation}.999999999999999`, place!, "0"]) {
      const response = await unchanged(env, () => batch(env, alice, operations, { since }), 410, "HISTORY_REPLACED");
      expect(response.body.message).toContain("without since");
    }
    // A cursor that is no cursor at all is still 422 (below the floor is CURSOR_EXPIRED, above).
    await unchanged(env, () => batch(env, alice, operations, { since: `${generation}.x` }), 422, "VALIDATION_FAILED", ["/since"]);
    // The database given a new history (as a restored copy is): the cursor from before is refused.
    env.db.$client.run("UPDATE history SET generation = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'");
    await unchanged(env, () => batch(env, alice, operations, { since: cursor }), 410, "HISTORY_REPLACED");
    const { cursor: now } = await feed(env, alice);
    expect(now.startsWith("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.")).toBe(true);
    expect((await batch(env, alice, operations, { since: now })).status).toBe(200);
  });
});

describe("POST /api/v1/batch: the feed, the idempotency key, the rate limit", () => {
  it("every change shows in the change feed", async () => {
    const { env, alice, top, left, right, both, only } = await shelf();
    const { cursor } = await feed(env, alice);
    const response = await batch(env, alice, [
      { op: "createCollection", ref: "c", name: "C", parent: { id: top.id } },
      { op: "createLink", ref: "l", name: "L", url: "https://l.example/", collections: [{ ref: "c" }] },
      { op: "updateLink", id: only.id, name: "Only, renamed" },
      { op: "updateCollection", id: right.id, name: "Right, renamed" },
      { op: "order", collection: { id: left.id }, order: (await collection(env, alice, left.id)).order.reverse() },
      { op: "updateLink", id: both.id, remove: [left.id, right.id] },
    ]);
    expect(response.status).toBe(200);
    const { c, l } = response.body.refs;
    const after = await feed(env, alice, cursor);
    expect(named(after.changes).sort()).toEqual([
      `collection ${c}`, `collection ${left.id}`, `collection ${right.id}`, `collection ${top.id}`, `link ${both.id} deleted`, `link ${l}`, `link ${only.id}`,
    ].sort());
    const renamed = after.changes.find((change: { kind: string; id: number }) => change.kind === "link" && change.id === only.id);
    expect(renamed.link.name).toBe("Only, renamed");
  });

  it("an Idempotency-Key replays the first answer byte for byte and writes nothing new", async () => {
    const { env, alice, right } = await shelf();
    const operations = [{ op: "createLink", ref: "l", name: "L", url: "https://l.example/", collections: [{ id: right.id }] }];
    const first = await batch(env, alice, operations, {}, { "idempotency-key": "sync-1" });
    expect(first.status).toBe(200);
    const after = everything(env);
    const again = await batch(env, alice, operations, {}, { "idempotency-key": "sync-1" });
    expect({ status: again.status, replayed: again.headers.get("idempotent-replayed"), text: again.text }).toEqual({ status: 200, replayed: "true", text: first.text });
    expect(everything(env)).toBe(after);
    const other = await batch(env, alice, [{ ...operations[0], name: "Other" }], {}, { "idempotency-key": "sync-1" });
    expect({ status: other.status, code: other.body.code }).toEqual({ status: 422, code: "IDEMPOTENCY_KEY_REUSED" });
    expect(everything(env)).toBe(after);
  });

  it("is one request for the rate limit, however many operations", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "3/60", LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
    const alice = await createUser(env);
    const inbox = await inboxOf(env, alice);
    const operations = Array.from({ length: 500 }, (_, i) => ({ op: "createLink", ref: `r${i}`, name: `L${i}`, url: `https://l.example/${i}`, collections: [{ id: inbox }] }));
    const response = await batch(env, alice, operations);
    expect({ status: response.status, remaining: response.headers.get("ratelimit-remaining") }).toEqual({ status: 200, remaining: "1" });
  });
});

describe("GET /api/v1/collections?under=", () => {
  it("answers the collection and its descendants, depth first in their order, with their links, as the whole list shows them", async () => {
    const { env, alice, top, left, deep, right } = await shelf();
    const created = await batch(env, alice, [
      { op: "createCollection", ref: "third", name: "Third", parent: { id: top.id } },
      { op: "createCollection", ref: "inLeft", name: "In left", parent: { id: left.id } },
      { op: "createCollection", ref: "inDeep", name: "In deep", parent: { id: deep.id } },
      { op: "order", collection: { id: top.id }, order: [{ kind: "collection", id: right.id }, { kind: "collection", ref: "third" }, { kind: "collection", id: left.id }] },
    ]);
    expect(created.status).toBe(200);
    const { third, inLeft, inDeep } = created.body.refs;
    const whole = await get(env, "/api/v1/collections", { token: alice.token });
    const subtree = await get(env, `/api/v1/collections?under=${top.id}`, { token: alice.token });
    expect(subtree.status).toBe(200);
    expect(subtree.headers.get("content-type")).toBe(whole.headers.get("content-type"));
    expect(subtree.body.collections.map((c: { id: number }) => c.id)).toEqual([top.id, right.id, third, left.id, deep.id, inDeep, inLeft]);
    // Each collection exactly as the whole list has it.
    const byId = new Map(whole.body.collections.map((c: { id: number }) => [c.id, c]));
    for (const c of subtree.body.collections) expect(c).toEqual(byId.get(c.id));
    expect((await get(env, `/api/v1/collections?under=${deep.id}`, { token: alice.token })).body.collections.map((c: { id: number }) => c.id)).toEqual([deep.id, inDeep]);
    // A leaf: itself.
    expect((await get(env, `/api/v1/collections?under=${inLeft}`, { token: alice.token })).body.collections.map((c: { id: number }) => c.id)).toEqual([inLeft]);
    // The Inbox: itself only.
    const inbox = await inboxOf(env, alice);
    expect((await get(env, `/api/v1/collections?under=${inbox}`, { token: alice.token })).body.collections.map((c: { id: number }) => c.id)).toEqual([inbox]);
    expect(Object.keys(Object.fromEntries(Object.entries(subtree.body)))).toEqual(["collections"]);
  });

  it("answers 404 for another user's collection, an unknown one and a trashed one alike, and 422 for an under that is not decimal digits", async () => {
    const { env, alice, left } = await shelf();
    const bob = await createUser(env);
    const bobs = await createCollection(env, bob, { name: "Bob's" });
    expect((await del(env, `/api/v1/collections/${left.id}`, { token: alice.token })).status).toBe(200);
    const answers = await Promise.all([bobs.id, 999_999, left.id].map((id) => get(env, `/api/v1/collections?under=${id}`, { token: alice.token })));
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404]);
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    for (const under of ["1e2", "-1", "abc", "", "0x10", "%201"]) {
      const response = await get(env, `/api/v1/collections?under=${under}`, { token: alice.token });
      expect({ under, status: response.status, errors: response.body.errors }).toEqual({ under, status: 422, errors: [{ path: "/under", message: "Expected a whole number in decimal digits" }] });
    }
  });

  it("without under answers exactly as before", async () => {
    const { env, alice } = await shelf();
    const whole = await get(env, "/api/v1/collections", { token: alice.token });
    expect(whole.body.collections.length).toBe(5);
    expect(whole.body.collections[0].isDefault).toBe(true);
  });
});
