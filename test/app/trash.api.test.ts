/**
 * The trash through `app.handle`: every way of deleting (a link, a collection, one with its
 * contents, a bulk delete, an import's undo, the pages' forms) lands in the trash and a restore
 * gives back exactly the database as it was before the delete (`contents`, every row of every table); trashed items are
 * invisible everywhere else; a restore whose collection or parent is gone falls back to the
 * Inbox or the top level; `LINKSHELF_TRASH_DAYS=0` deletes at once; the list's pages; and the
 * purge after the days, at the boundary. Ownership across users is in permissions.api.test.ts.
 */
import { describe, expect, it } from "bun:test";
import { importBookmarks } from "../../src/bookmarks/plan";
import { recordCheck } from "../../src/shelf/link-checks";
import { Shelf } from "../../src/shelf/shelf";
import { purgeTrash } from "../../src/shelf/trash";
import {
  contents, createCollection, createLink, createUser, del, get, inboxOf, makeEnv, post, put, refused, sessionCookie, submitForm,
  type TestEnv, type TestUser,
} from "../support/helpers";

const DAY = 86_400_000;

/** A shelf with something of every kind: nested collections, a public one, links in several, saved text, health, clicks, a reordered collection. */
async function shelf(env: TestEnv = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" })) {
  const alice = await createUser(env);
  const inbox = await inboxOf(env, alice);
  const top = await createCollection(env, alice, { name: "Top" });
  const doomed = await createCollection(env, alice, { name: "Doomed", parentId: top.id, visibility: "PUBLIC" });
  const child = await createCollection(env, alice, { name: "Child", parentId: doomed.id });
  const grandchild = await createCollection(env, alice, { name: "Grandchild", parentId: child.id });
  // A second sub-collection: moved up, the two push the parent's later items along.
  const second = await createCollection(env, alice, { name: "Second child", parentId: doomed.id });
  const after = await createCollection(env, alice, { name: "After", parentId: top.id });
  const lone = await createLink(env, alice, { name: "Lone", url: "https://lone.example/", collectionIds: [doomed.id], favorite: true });
  const shared = await createLink(env, alice, { name: "Shared", url: "https://shared.example/", collectionIds: [doomed.id, top.id] });
  const deep = await createLink(env, alice, { name: "Deep", url: "https://deep.example/", collectionIds: [grandchild.id] });
  const loose = await createLink(env, alice, { name: "Loose", url: "https://loose.example/" });
  const s = new Shelf(env.db, alice.user);
  s.links.setContent(lone.id, { text: "the lone page's words" }, "browser", env.clock.now++);
  recordCheck(env.db, lone.id, { outcome: "unchecked", status: null, detail: "private address" }, env.clock.now++, env.config.linkCheck);
  await get(env, `/l/${lone.id}`, { token: alice.token });
  s.collections.setOrder(doomed.id, [{ kind: "link", id: shared.id }, { kind: "collection", id: child.id }, { kind: "link", id: lone.id }, { kind: "collection", id: second.id }], env.clock.now++);
  return { env, alice, inbox, top, doomed, child, grandchild, after, lone, shared, deep, loose };
}

const restore = (env: TestEnv, as: TestUser, body: Record<string, number[]>) => post(env, "/api/v1/trash/restore", { token: as.token, body });
const trashOf = async (env: TestEnv, as: TestUser) => (await get(env, "/api/v1/trash", { token: as.token })).body.items;

describe("every delete lands in the trash, and a restore gives back the database as it was", () => {
  it("a link (its collections and places, clicks, favorite, saved text, health)", async () => {
    const { env, alice, lone } = await shelf();
    const before = contents(env);
    expect((await del(env, `/api/v1/links/${lone.id}`, { token: alice.token })).status).toBe(200);
    expect(contents(env)).not.toBe(before);
    expect(await trashOf(env, alice)).toEqual([expect.objectContaining({ kind: "link", id: lone.id, name: "Lone", links: 1, collections: 0 })]);
    const restored = await restore(env, alice, { links: [lone.id] });
    expect(restored.body).toEqual({ message: "Restored.", links: 1, collections: 0, tooDeep: [] });
    expect(contents(env)).toBe(before);
    expect(await trashOf(env, alice)).toEqual([]);
    // Searchable again: the index took it back.
    const found = await get(env, "/api/v1/search?q=lone", { token: alice.token });
    expect(found.body.hits.map((hit: { link: { id: number } }) => hit.link.id)).toEqual([lone.id]);
  });

  it("a collection: its sub-collections come back inside it, its lone links out of the Inbox, its siblings' places as they were", async () => {
    const { env, alice, doomed } = await shelf();
    const before = contents(env);
    expect((await del(env, `/api/v1/collections/${doomed.id}`, { token: alice.token })).status).toBe(200);
    expect(await trashOf(env, alice)).toEqual([expect.objectContaining({ kind: "collection", id: doomed.id, links: 0, collections: 1 })]);
    expect((await restore(env, alice, { collections: [doomed.id] })).status).toBe(200);
    expect(contents(env)).toBe(before);
  });

  it("a collection with its contents: its subtree and the links only in it go, one restore brings all of it back", async () => {
    const { env, alice, doomed, child, grandchild, lone, deep, shared, top } = await shelf();
    const before = contents(env);
    expect((await del(env, `/api/v1/collections/${doomed.id}?contents=1`, { token: alice.token })).status).toBe(200);
    for (const id of [doomed.id, child.id, grandchild.id]) expect((await get(env, `/api/v1/collections/${id}`, { token: alice.token })).status).toBe(404);
    for (const id of [lone.id, deep.id]) expect((await get(env, `/api/v1/links/${id}`, { token: alice.token })).status).toBe(404);
    // A link also elsewhere stays, in its other collection only.
    expect((await get(env, `/api/v1/links/${shared.id}`, { token: alice.token })).body.link.collectionIds).toEqual([top.id]);
    expect(await trashOf(env, alice)).toEqual([expect.objectContaining({ kind: "collection", id: doomed.id, links: 2, collections: 4 })]);
    expect((await restore(env, alice, { collections: [doomed.id] })).body).toEqual({ message: "Restored.", links: 2, collections: 4, tooDeep: [] });
    expect(contents(env)).toBe(before);
  });

  it("a bulk delete: each link its own item, all restored at once", async () => {
    const { env, alice, lone, shared, loose } = await shelf();
    const before = contents(env);
    const ids = [lone.id, shared.id, loose.id];
    expect((await post(env, "/api/v1/links/bulk", { token: alice.token, body: { action: "delete", ids } })).status).toBe(200);
    expect((await trashOf(env, alice)).map((item: { id: number }) => item.id).sort()).toEqual([...ids].sort());
    expect((await restore(env, alice, { links: ids })).body.links).toBe(3);
    expect(contents(env)).toBe(before);
  });

  it("an import's undo: ONE item holding its links and the collections it made; restoring it makes the import stand again", async () => {
    const { env, alice } = await shelf();
    const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Imported</H3>\n<DL><p>\n<DT><A HREF="https://one.example/">One</A>\n<DT><H3>Inner</H3>\n<DL><p>\n<DT><A HREF="https://two.example/">Two</A>\n</DL><p>\n</DL><p>\n</DL><p>\n`;
    const { importId } = await importBookmarks(new Shelf(env.db, alice.user), file, env.clock.now++, { record: { source: "page", fileName: "f.html" } });
    const before = contents(env);
    expect((await del(env, `/api/v1/imports/${importId}`, { token: alice.token })).body).toEqual({ message: "Import undone.", links: 2, collections: 2 });
    const items = await trashOf(env, alice);
    expect(items).toEqual([expect.objectContaining({ kind: "import", id: importId, name: "Import of f.html (2 links, 2 collections)", links: 2, collections: 2 })]);
    await refused(env, () => restore(env, alice, { links: [items[0].id] }), 404, "NOT_FOUND");
    const restored = await restore(env, alice, { imports: [importId!] });
    expect(restored.body).toMatchObject({ links: 2, collections: 2 });
    expect(contents(env)).toBe(before);
    expect(new Shelf(env.db, alice.user).imports.get(importId!)).toMatchObject({ undoneAt: null });
    expect(await trashOf(env, alice)).toEqual([]);
  });

  it("an undone import is purged as a whole, its links and collections leaving the change feed with it", async () => {
    const env = makeEnv({ LINKSHELF_TRASH_DAYS: "1" });
    const alice = await createUser(env);
    const lines = Array.from({ length: 120 }, (_, n) => `<DT><A HREF="https://many.example/${n}">Link ${n}</A>`).join("\n");
    const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Many</H3>\n<DL><p>\n${lines}\n</DL><p>\n</DL><p>\n`;
    const start = env.clock.now;
    const { importId } = await importBookmarks(new Shelf(env.db, alice.user, undefined, 1), file, start, { record: { source: "cli", fileName: "many.html" } });
    new Shelf(env.db, alice.user, undefined, 1).imports.undo(importId!, start);
    expect((await trashOf(env, alice)).map((item: { kind: string; name: string }) => [item.kind, item.name])).toEqual([["import", "Import of many.html (120 links, 1 collection)"]]);
    expect(await purgeTrash(env.db, start + DAY + 1, 1)).toBe(1);
    expect(env.db.$client.query("SELECT count(*) AS n FROM trash").get()).toEqual({ n: 0 });
    expect(env.db.$client.query("SELECT count(*) AS n FROM changes WHERE user_id = ? AND (kind = 'link' OR item_id <> (SELECT id FROM collections WHERE is_default = 1 AND user_id = ?))").get(alice.user.id, alice.user.id)).toEqual({ n: 0 });
  });

  it("the pages' delete forms: a link, and a collection with its links", async () => {
    const { env, alice, lone, doomed } = await shelf();
    const cookie = sessionCookie(env, alice.user.id);
    const before = contents(env);
    const form = (path: string, fields: Record<string, string> = {}) => submitForm(env, path, fields, { headers: { cookie, origin: "http://localhost" } });
    expect((await form(`/links/${lone.id}/delete`)).status).toBe(303);
    expect((await form(`/collections/${doomed.id}/delete`, { contents: "1" })).status).toBe(303);
    expect((await trashOf(env, alice)).map((item: { kind: string; id: number }) => `${item.kind} ${item.id}`).sort()).toEqual([`collection ${doomed.id}`, `link ${lone.id}`]);
    expect((await restore(env, alice, { collections: [doomed.id], links: [lone.id] })).status).toBe(200);
    expect(contents(env)).toBe(before);
  });
});

describe("a trashed item", () => {
  it("is invisible everywhere else: lists, search, favorites, the redirect, its public page and feed, link health", async () => {
    const { env, alice, lone, doomed } = await shelf();
    await del(env, `/api/v1/collections/${doomed.id}?contents=1`, { token: alice.token });
    const token = { token: alice.token };
    expect((await get(env, "/api/v1/links?limit=100", token)).body.links.map((l: { id: number }) => l.id)).not.toContain(lone.id);
    expect((await get(env, "/api/v1/links/favorites", token)).body).toEqual([]);
    expect((await get(env, "/api/v1/search?q=lone", token)).body.hits).toEqual([]);
    expect((await get(env, "/api/v1/links/health?state=unchecked", token)).body.links).toEqual([]);
    expect((await get(env, `/l/${lone.id}`, token)).status).toBe(404);
    expect((await get(env, `/c/${doomed.id}`)).status).toBe(404);
    expect((await get(env, `/c/${doomed.id}/feed`)).status).toBe(404);
    const list: { id: number; links: { id: number }[] }[] = (await get(env, "/api/v1/collections", token)).body.collections;
    expect(list.map((c) => c.id)).not.toContain(doomed.id);
    expect(list.flatMap((c) => c.links.map((l) => l.id))).not.toContain(lone.id);
  });

  it("comes back to the Inbox when none of its collections is left, and a collection to the top level when its parent is gone", async () => {
    const { env, alice, inbox, lone, doomed, child, top } = await shelf();
    await del(env, `/api/v1/links/${lone.id}`, { token: alice.token });
    await del(env, `/api/v1/collections/${child.id}`, { token: alice.token });
    await del(env, `/api/v1/collections/${doomed.id}?contents=1`, { token: alice.token });
    new Shelf(env.db, alice.user).trash.empty();
    const again = await createCollection(env, alice, { name: "Again", parentId: top.id });
    await del(env, `/api/v1/collections/${again.id}`, { token: alice.token });
    await del(env, `/api/v1/collections/${top.id}?contents=1`, { token: alice.token });
    // `Again`'s parent is in the trash: it comes back at the top level.
    expect((await restore(env, alice, { collections: [again.id] })).status).toBe(200);
    expect((await get(env, `/api/v1/collections/${again.id}`, { token: alice.token })).body.collection.parentId).toBeNull();
    // A link trashed, its collection purged since: it comes back to the Inbox.
    const link = await createLink(env, alice, { url: "https://alone.example/", collectionIds: [again.id] });
    await del(env, `/api/v1/links/${link.id}`, { token: alice.token });
    await del(env, `/api/v1/collections/${again.id}`, { token: alice.token });
    new Shelf(env.db, alice.user).trash.empty();
    const trashed = await createLink(env, alice, { url: "https://x.example/" });
    void trashed;
    expect((await get(env, `/api/v1/links/${link.id}`, { token: alice.token })).status).toBe(404);
    expect((await restore(env, alice, { links: [link.id] })).status).toBe(404);
    const other = await createLink(env, alice, { url: "https://other.example/", collectionIds: [inbox] });
    const holder = await createCollection(env, alice, { name: "Holder" });
    await put(env, `/api/v1/links/${other.id}`, { token: alice.token, body: { name: "Other", url: "https://other.example/", favorite: false, collectionIds: [holder.id] } });
    await del(env, `/api/v1/links/${other.id}`, { token: alice.token });
    await del(env, `/api/v1/collections/${holder.id}`, { token: alice.token });
    expect((await restore(env, alice, { links: [other.id] })).status).toBe(200);
    expect((await get(env, `/api/v1/links/${other.id}`, { token: alice.token })).body.link.collectionIds).toEqual([inbox]);
  });
});

describe("POST /api/v1/trash/restore", () => {
  it("restores nothing when one id is not in the trash (404), and nothing is restored twice", async () => {
    const { env, alice, lone, loose } = await shelf();
    await del(env, `/api/v1/links/${lone.id}`, { token: alice.token });
    await refused(env, () => restore(env, alice, { links: [lone.id, loose.id] }), 404, "NOT_FOUND");
    await refused(env, () => restore(env, alice, { collections: [lone.id] }), 404, "NOT_FOUND");
    expect((await restore(env, alice, { links: [lone.id] })).status).toBe(200);
    await refused(env, () => restore(env, alice, { links: [lone.id] }), 404, "NOT_FOUND");
  });

  it("refuses ids that are not whole numbers with 422, changing nothing", async () => {
    const { env, alice } = await shelf();
    for (const body of [{ links: ["1"] }, { links: 1 }, { collections: [1.5] }]) {
      await refused(env, () => post(env, "/api/v1/trash/restore", { token: alice.token, body }), 422, "VALIDATION_FAILED");
    }
  });
});

describe("GET /api/v1/trash", () => {
  it("lists newest first in pages, each with when it goes for good", async () => {
    const { env, alice } = await shelf();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const link = await createLink(env, alice, { url: `https://page${i}.example/` });
      await del(env, `/api/v1/links/${link.id}`, { token: alice.token });
      ids.push(link.id);
    }
    const first = (await get(env, "/api/v1/trash?limit=2", { token: alice.token })).body;
    expect(first.items.map((item: { id: number }) => item.id)).toEqual(ids.slice(3).reverse());
    const second = (await get(env, `/api/v1/trash?limit=2&cursor=${first.nextCursor}`, { token: alice.token })).body;
    const third = (await get(env, `/api/v1/trash?limit=2&cursor=${second.nextCursor}`, { token: alice.token })).body;
    expect([...second.items, ...third.items].map((item: { id: number }) => item.id)).toEqual(ids.slice(0, 3).reverse());
    expect(third.nextCursor).toBeNull();
    const item = first.items[0];
    expect(Date.parse(item.purgeAt) - Date.parse(item.deletedAt)).toBe(30 * DAY);
  });

  it("refuses a limit outside 1-200 and a cursor it did not write, with 422", async () => {
    const { env, alice } = await shelf();
    for (const query of ["limit=0", "limit=201", "cursor=abc", "cursor=1"]) {
      const response = await get(env, `/api/v1/trash?${query}`, { token: alice.token });
      expect(response.status).toBe(422);
    }
    expect((await get(env, "/api/v1/trash?limit=200", { token: alice.token })).status).toBe(200);
  });
});

describe("LINKSHELF_TRASH_DAYS", () => {
  it("0 deletes at once: nothing in the trash, nothing to restore", async () => {
    const { env, alice, lone, doomed } = await shelf(makeEnv({ LINKSHELF_TRASH_DAYS: "0", LINKSHELF_FETCH_CONTENT: "off" }));
    await del(env, `/api/v1/links/${lone.id}`, { token: alice.token });
    await del(env, `/api/v1/collections/${doomed.id}?contents=1`, { token: alice.token });
    expect(await trashOf(env, alice)).toEqual([]);
    expect(env.db.$client.query("SELECT count(*) AS n FROM trash").get()).toEqual({ n: 0 });
    await refused(env, () => restore(env, alice, { links: [lone.id] }), 404, "NOT_FOUND");
  });

  it("purges an item once it is older than the days, and keeps one at the boundary", async () => {
    const env = makeEnv({ LINKSHELF_TRASH_DAYS: "1" });
    const alice = await createUser(env);
    const old = await createLink(env, alice, { url: "https://old.example/" });
    const young = await createLink(env, alice, { url: "https://young.example/" });
    const start = env.clock.now;
    new Shelf(env.db, alice.user, undefined, 1).links.delete(old.id, start);
    new Shelf(env.db, alice.user, undefined, 1).links.delete(young.id, start + 1);
    // At start + 1 day + 1 ms the first is more than a day old; the second is exactly a day old.
    expect(await purgeTrash(env.db, start + DAY + 1, 1)).toBe(1);
    expect((await trashOf(env, alice)).map((item: { id: number }) => item.id)).toEqual([young.id]);
    expect(await purgeTrash(env.db, start + DAY + 2, 1)).toBe(1);
    expect(await trashOf(env, alice)).toEqual([]);
  });
});
