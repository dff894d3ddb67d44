/**
 * The membership limits through `app.handle` and the importer: a link is in at most
 * MEMBERSHIP_LIMITS.perLink collections whatever puts it there (POST and PUT of a link, a batch's
 * createLink and updateLink, the bulk action, the link forms, an import), and one batch names at
 * most MEMBERSHIP_LIMITS.perBatch collections. A refusal is a 422 at the field's path and writes
 * nothing (the database compared before and after); an import keeps a link's first collections
 * and lists the entries beyond in its report.
 */
import { describe, expect, it } from "bun:test";
import { importBookmarks } from "../../src/bookmarks/plan";
import { readImportFile } from "../../src/bookmarks/formats";
import { MEMBERSHIP_LIMITS, MEMBERSHIP_MESSAGES } from "../../src/shelf/limits";
import {
  createLink, createUser, get, makeEnv, post, put, refused, sessionCookie, shelfFor, snapshot, START, type TestEnv, type TestUser,
} from "../support/helpers";
import { submit } from "../support/html";

const LIMIT = MEMBERSHIP_LIMITS.perLink;

/** collectionsOf creates `n` collections of a user's (through the shelf: the API would take as long for nothing) and returns their ids. */
function collectionsOf(env: TestEnv, as: TestUser, n: number, prefix = "C"): number[] {
  const shelf = shelfFor(env, as);
  return Array.from({ length: n }, (_, i) => shelf.collections.create({ name: `${prefix}${i}`, visibility: "PRIVATE", parentId: null }, START).id);
}

async function setup(collections = LIMIT + 1) {
  const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
  const alice = await createUser(env);
  return { env, alice, ids: collectionsOf(env, alice, collections) };
}

const errorsOf = (response: { body: { errors?: { path: string; message: string }[] } }) => response.body.errors ?? [];
const batch = (env: TestEnv, as: TestUser, operations: unknown[]) => post(env, "/api/v1/batch", { token: as.token, body: { operations } });
const linkOf = async (env: TestEnv, as: TestUser, id: number) => (await get(env, `/api/v1/links/${id}`, { token: as.token })).body.link;

describe("a link is in at most 100 collections", () => {
  it("POST and PUT /api/v1/links: 100 pass, 101 are refused at /collectionIds and nothing is written", async () => {
    const { env, alice, ids } = await setup();
    const fields = { name: "Many", url: "https://many.example/", favorite: false };
    const created = await post(env, "/api/v1/links", { token: alice.token, body: { ...fields, collectionIds: ids.slice(0, LIMIT) } });
    expect(created.status).toBe(201);
    expect(created.body.link.collectionIds).toHaveLength(LIMIT);
    await refused(env, () => post(env, "/api/v1/links", { token: alice.token, body: { ...fields, collectionIds: ids } }), 422, "VALIDATION_FAILED", ["/collectionIds"]);
    await refused(env, () => put(env, `/api/v1/links/${created.body.link.id}`, { token: alice.token, body: { ...fields, collectionIds: ids } }), 422, "VALIDATION_FAILED", ["/collectionIds"]);
    // Duplicates are folded before they are counted.
    const folded = await post(env, "/api/v1/links", { token: alice.token, body: { ...fields, url: "https://folded.example/", collectionIds: [...ids.slice(0, 50), ...ids.slice(0, 50)] } });
    expect(folded.body.link.collectionIds).toHaveLength(50);
  });

  it("a batch's createLink with 101 collections, and an updateLink whose add would leave the link in 101, are refused at their path", async () => {
    const { env, alice, ids } = await setup();
    const create = { op: "createLink", ref: "a", name: "A", url: "https://a.example/" };
    await refused(env, () => batch(env, alice, [{ ...create, collections: ids.map((id) => ({ id })) }]), 422, "VALIDATION_FAILED", ["/operations/0/collections"]);
    const link = await createLink(env, alice, { collectionIds: ids.slice(0, 60) });
    const response = await refused(env, () => batch(env, alice, [
      { ...create, collections: [{ id: ids[0] }] },
      { op: "updateLink", id: link.id, add: ids.slice(60, LIMIT + 1).map((id) => ({ id })) },
    ]), 422, "VALIDATION_FAILED", ["/operations/1/add"]);
    expect(errorsOf(response)[0]!.message).toBe(MEMBERSHIP_MESSAGES.perLink);
    // Up to the limit it passes, and a collection it leaves makes room.
    const ok = await batch(env, alice, [{ op: "updateLink", id: link.id, add: ids.slice(60, LIMIT + 1).map((id) => ({ id })), remove: [ids[0]!] }]);
    expect(ok.status).toBe(200);
    expect((await linkOf(env, alice, link.id)).collectionIds).toHaveLength(LIMIT);
  });

  it("the bulk add refuses links that are in 100 collections already (at /ids), and takes them into one they are in", async () => {
    const { env, alice, ids } = await setup();
    const full = await createLink(env, alice, { name: "Full", collectionIds: ids.slice(0, LIMIT) });
    const other = await createLink(env, alice, { name: "Other", url: "https://other.example/" });
    const response = await refused(env, () => post(env, "/api/v1/links/bulk", { token: alice.token, body: { ids: [other.id, full.id], action: "add", collectionId: ids[LIMIT] } }),
      422, "VALIDATION_FAILED", ["/ids"]);
    expect(errorsOf(response)[0]!.message).toBe(MEMBERSHIP_MESSAGES.bulkFull(1));
    const into = await post(env, "/api/v1/links/bulk", { token: alice.token, body: { ids: [other.id, full.id], action: "add", collectionId: ids[0] } });
    expect(into.status).toBe(200);
    // move leaves a link in one collection: always allowed.
    const moved = await post(env, "/api/v1/links/bulk", { token: alice.token, body: { ids: [full.id], action: "move", collectionId: ids[LIMIT] } });
    expect(moved.status).toBe(200);
    expect((await linkOf(env, alice, full.id)).collectionIds).toEqual([ids[LIMIT]]);
  });

  it("the all-links page's bulk Add refuses a link in 100 collections already: 422 on the page, nothing written", async () => {
    const { env, alice, ids } = await setup();
    const full = await createLink(env, alice, { name: "Full", collectionIds: ids.slice(0, LIMIT) });
    const cookie = sessionCookie(env, alice.user.id);
    const before = snapshot(env);
    const response = await submit(env, "/links/bulk", { next: "/links", scope: "selected", action: "add", collectionId: String(ids[LIMIT]), ids: String(full.id) }, cookie);
    expect(response.status).toBe(422);
    expect(response.text).toContain(`in ${LIMIT} already`);
    expect(snapshot(env)).toBe(before);
  });

  it("the edit form of a link refuses 101 collections and writes nothing", async () => {
    const { env, alice, ids } = await setup();
    const link = await createLink(env, alice, { name: "Edited" });
    const cookie = sessionCookie(env, alice.user.id);
    const before = snapshot(env);
    const response = await submit(env, `/links/${link.id}`, { name: "Edited", url: "https://example.com/", description: "", collectionIds: ids.map(String) }, cookie);
    expect(response.status).toBe(422);
    expect(response.text).toContain(MEMBERSHIP_MESSAGES.perLink);
    expect(snapshot(env)).toBe(before);
  });
});

describe("a batch names at most 5,000 collections", () => {
  it("5,000 pass; one more is refused at the operation that passes the limit, and nothing is written", async () => {
    const { env, alice, ids } = await setup(LIMIT);
    const perOperation = LIMIT;
    const operations = (count: number) => Array.from({ length: count }, (_, i) => ({
      op: "createLink", ref: `l${i}`, name: `L${i}`, url: `https://l${i}.example/`, collections: ids.slice(0, perOperation).map((id) => ({ id })),
    }));
    const over = [...operations(MEMBERSHIP_LIMITS.perBatch / perOperation), { op: "updateLink", id: 1, add: [{ id: ids[0] }] }];
    const response = await refused(env, () => batch(env, alice, over), 422, "VALIDATION_FAILED", [`/operations/${MEMBERSHIP_LIMITS.perBatch / perOperation}/add`]);
    expect(errorsOf(response)[0]!.message).toBe(MEMBERSHIP_MESSAGES.perBatch);
    const ok = await batch(env, alice, operations(MEMBERSHIP_LIMITS.perBatch / perOperation));
    expect(ok.status).toBe(200);
    const memberships = env.db.$client.query("SELECT count(*) AS n FROM link_collections").get() as { n: number };
    expect(memberships.n).toBe(MEMBERSHIP_LIMITS.perBatch);
  }, 60_000);
});

describe("a batch's links in order", () => {
  it("createLink after createLink and after an updateLink into the same collections: each at the end of their order", async () => {
    const { env, alice, ids } = await setup(2);
    const first = await createLink(env, alice, { name: "First", url: "https://first.example/", collectionIds: [ids[0]] });
    const moved = await createLink(env, alice, { name: "Moved", url: "https://moved.example/", collectionIds: [ids[1]] });
    const create = (ref: string) => ({ op: "createLink", ref, name: ref, url: `https://${ref}.example/`, collections: [{ id: ids[0] }, { id: ids[1] }] });
    const response = await batch(env, alice, [create("a"), create("b"), { op: "updateLink", id: first.id, add: [{ id: ids[1] }] }, create("c")]);
    expect(response.status).toBe(200);
    const { a, b, c } = response.body.refs;
    const orderOf = async (id: number) => (await get(env, `/api/v1/collections/${id}`, { token: alice.token })).body.collection.order.map((item: { id: number }) => item.id);
    expect(await orderOf(ids[0]!)).toEqual([first.id, a, b, c]);
    expect(await orderOf(ids[1]!)).toEqual([moved.id, a, b, first.id, c]);
    // Each at a place of its own.
    const places = env.db.$client.query("SELECT position FROM link_collections WHERE collection_id = ?").all(ids[1]!) as { position: number }[];
    expect(new Set(places.map((row) => row.position)).size).toBe(5);
  });
});

describe("an import keeps a link's first 100 collections", () => {
  it("a Pinboard entry with 150 tags is in its first 100 collections; the entry is listed once as skipped, with the reason", async () => {
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" });
    const alice = await createUser(env);
    const tags = Array.from({ length: 150 }, (_, i) => `tag${String(i).padStart(3, "0")}`);
    const file = JSON.stringify([{ href: "https://tagged.example/", description: "Tagged", extended: "", time: "2021-03-04T05:06:07Z", shared: "no", toread: "no", tags: tags.join(" ") }]);
    const now = Date.parse("2026-11-27T12:00:00Z");
    const report = await importBookmarks(shelfFor(env, alice), await readImportFile(new TextEncoder().encode(file), now), now);
    // The service's own collection and the first 99 tags; the 51 collections beyond are left out,
    // and the entry is listed once among the skipped (the report counts entries, not collections).
    const listed = (await get(env, "/api/v1/links", { token: alice.token })).body.links;
    expect(listed).toHaveLength(1);
    expect(listed[0].collectionIds).toHaveLength(LIMIT);
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0]).toEqual({ name: "Tagged", url: "https://tagged.example/", reason: expect.stringContaining(`at most ${LIMIT} collections`) });
    const names = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections
      .filter((collection: { links: { id: number }[] }) => collection.links.some((link) => link.id === listed[0].id)).map((collection: { name: string }) => collection.name);
    expect(names).toContain("tag098");
    expect(names).not.toContain("tag099");
  });
});
