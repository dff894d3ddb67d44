/**
 * The change feed through `app.handle`: without `since` every item once; after a cursor,
 * every kind of change (created, edited, moved, reordered, trashed, restored) exactly once, as
 * the item is now, in the order of the changes; clicks are not changes; pages and writes between
 * them never lose a change; a cursor older than what the feed remembers is 410 CURSOR_EXPIRED;
 * malformed queries are 422. Another user's feed is in permissions.api.test.ts.
 */
import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { importBookmarks } from "../src/bookmarks/service";
import { readImportFile } from "../src/bookmarks/services";
import { Shelf } from "../src/shelf/shelf";
import { createCollection, createLink, createUser, del, get, makeEnv, post, put, type TestEnv, type TestUser } from "./helpers";

type Change = { kind: "link" | "collection"; id: number; deleted: boolean; link?: { name: string; collectionIds: number[] }; collection?: { name: string; order: unknown[]; parentId: number | null } };

const feed = async (env: TestEnv, as: TestUser, query = "") => (await get(env, `/api/v1/changes${query}`, { token: as.token }));
/** after reads every change after `since`, following `more`. */
async function after(env: TestEnv, as: TestUser, since: string, limit = 100): Promise<{ changes: Change[]; cursor: string }> {
  const changes: Change[] = [];
  let cursor = since;
  for (;;) {
    const page = (await feed(env, as, `?since=${cursor}&limit=${limit}`)).body;
    changes.push(...page.changes);
    cursor = page.cursor;
    if (!page.more) return { changes, cursor };
  }
}
const named = (changes: Change[]) => changes.map((change) => `${change.kind} ${change.id}${change.deleted ? " deleted" : ""}`);

async function setup() {
  const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off" });
  const alice = await createUser(env);
  const reading = await createCollection(env, alice, { name: "Reading" });
  const link = await createLink(env, alice, { name: "First", url: "https://first.example/", collectionIds: [reading.id] });
  const start = (await feed(env, alice)).body.cursor as string;
  return { env, alice, reading, link, start };
}

describe("GET /api/v1/changes", () => {
  it("without since, gives every link and collection once, as they are, then a cursor with nothing after it", async () => {
    const { env, alice, reading, link } = await setup();
    const all = (await feed(env, alice)).body;
    const inbox = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections[0].id;
    expect(named(all.changes).sort()).toEqual([`collection ${inbox}`, `collection ${reading.id}`, `link ${link.id}`].sort());
    expect(all.changes.find((c: Change) => c.kind === "link").link).toEqual((await get(env, `/api/v1/links/${link.id}`, { token: alice.token })).body.link);
    const state = all.changes.find((c: Change) => c.kind === "collection" && c.id === reading.id).collection;
    expect(state).toMatchObject({ id: reading.id, name: "Reading", parentId: null, order: [{ kind: "link", id: link.id }] });
    expect(state.links).toBeUndefined();
    expect(all.more).toBe(false);
    expect((await feed(env, alice, `?since=${all.cursor}`)).body).toEqual({ changes: [], cursor: all.cursor, more: false });
  });

  it("GET /api/v1/changes/cursor is the feed's end: nothing after it until the next change, which comes after it", async () => {
    const { env, alice, reading, link } = await setup();
    const all = (await feed(env, alice)).body;
    const latest = await get(env, "/api/v1/changes/cursor", { token: alice.token });
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual({ cursor: all.cursor });
    await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: { name: "Renamed", url: link.url, favorite: false, collectionIds: [reading.id] } });
    // The change is settled into the sequence by the cursor's read too.
    const moved = (await get(env, "/api/v1/changes/cursor", { token: alice.token })).body.cursor as string;
    expect(Number(moved)).toBeGreaterThan(Number(all.cursor));
    expect(named((await after(env, alice, all.cursor)).changes)).toEqual([`link ${link.id}`]);
    expect((await after(env, alice, moved)).changes).toEqual([]);
    // Another user's cursor says nothing of Alice's changes.
    const bob = await createUser(env, { email: "bob@example.test" });
    const bobs = (await get(env, "/api/v1/changes/cursor", { token: bob.token })).body.cursor as string;
    await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: { name: "Again", url: link.url, favorite: false, collectionIds: [reading.id] } });
    expect((await get(env, "/api/v1/changes/cursor", { token: bob.token })).body.cursor).toBe(bobs);
    expect((await get(env, "/api/v1/changes/cursor")).status).toBe(401);
  });

  it("reports each kind of change once, as the item is now, in the order of the changes", async () => {
    const { env, alice, reading, link, start } = await setup();
    const token = { token: alice.token };
    // Edited twice: reported once, as it is after the second edit.
    await put(env, `/api/v1/links/${link.id}`, { ...token, body: { name: "Renamed", url: link.url, favorite: false, collectionIds: [reading.id] } });
    await put(env, `/api/v1/links/${link.id}`, { ...token, body: { name: "Renamed twice", url: link.url, favorite: true, collectionIds: [reading.id] } });
    let seen = await after(env, alice, start);
    expect(named(seen.changes)).toEqual([`link ${link.id}`]);
    expect(seen.changes[0]!.link).toMatchObject({ name: "Renamed twice" });

    // A new sub-collection: itself, and its parent whose order changed.
    const inner = await createCollection(env, alice, { name: "Inner", parentId: reading.id });
    seen = await after(env, alice, seen.cursor);
    expect(named(seen.changes)).toEqual([`collection ${inner.id}`, `collection ${reading.id}`]);
    expect(seen.changes[1]!.collection!.order).toEqual([{ kind: "link", id: link.id }, { kind: "collection", id: inner.id }]);

    // A reorder: the collection.
    await put(env, `/api/v1/collections/${reading.id}/order`, { ...token, body: { order: [{ kind: "collection", id: inner.id }, { kind: "link", id: link.id }] } });
    seen = await after(env, alice, seen.cursor);
    expect(named(seen.changes)).toEqual([`collection ${reading.id}`]);

    // A move of a link: the link and both collections.
    await post(env, "/api/v1/links/bulk", { ...token, body: { action: "move", ids: [link.id], collectionId: inner.id } });
    seen = await after(env, alice, seen.cursor);
    expect(named(seen.changes).sort()).toEqual([`collection ${inner.id}`, `collection ${reading.id}`, `link ${link.id}`].sort());

    // Clicks are not changes.
    await get(env, `/l/${link.id}`, token);
    expect((await after(env, alice, seen.cursor)).changes).toEqual([]);

    // Trashed: a tombstone; restored: the item again.
    await del(env, `/api/v1/links/${link.id}`, token);
    seen = await after(env, alice, seen.cursor);
    expect(seen.changes.filter((c) => c.kind === "link")).toEqual([{ kind: "link", id: link.id, deleted: true }]);
    await post(env, "/api/v1/trash/restore", { ...token, body: { links: [link.id] } });
    seen = await after(env, alice, seen.cursor);
    expect(seen.changes.find((c) => c.kind === "link")).toMatchObject({ kind: "link", id: link.id, deleted: false, link: { name: "Renamed twice" } });

    // A collection deleted: a tombstone, and its parent.
    await del(env, `/api/v1/collections/${inner.id}`, token);
    seen = await after(env, alice, seen.cursor);
    expect(seen.changes).toContainEqual({ kind: "collection", id: inner.id, deleted: true });
  });

  it("never loses a change across pages, while writes go on between them (property)", async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.tuple(fc.nat({ max: 9 }), fc.constantFrom("rename", "favorite", "delete")), { minLength: 1, maxLength: 25 }),
      fc.integer({ min: 1, max: 4 }),
      async (writes, limit) => {
        const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off" });
        const alice = await createUser(env);
        const ids: number[] = [];
        for (let i = 0; i < 10; i++) ids.push((await createLink(env, alice, { url: `https://p${i}.example/` })).id);
        const shelf = new Shelf(env.db, alice.user);
        let cursor = (await feed(env, alice)).body.cursor as string;
        // What each item last became, by the writes; checked against what the feed says once it is read to the end.
        const last = new Map<number, string>();
        const pending = [...writes];
        for (;;) {
          // One write between each page read.
          const write = pending.shift();
          if (write) {
            const [at, action] = write;
            const id = ids[at]!;
            const exists = (await get(env, `/api/v1/links/${id}`, { token: alice.token })).status === 200;
            if (exists) {
              if (action === "delete") shelf.links.delete(id, env.clock.now++);
              else shelf.links.update(id, { name: `${action} ${env.clock.now}`, url: `https://p${at}.example/`, favorite: action === "favorite", collectionIds: [] }, env.clock.now++);
              last.set(id, action === "delete" ? "deleted" : "present");
            }
          }
          const page = (await feed(env, alice, `?since=${cursor}&limit=${limit}`)).body;
          for (const change of page.changes as Change[]) {
            if (change.kind !== "link") continue;
            const seen = change.deleted ? "deleted" : "present";
            // A change reported before a later write to the item is superseded: only the final state counts.
            if (last.get(change.id) === seen) last.delete(change.id);
          }
          cursor = page.cursor;
          if (!page.more && pending.length === 0) break;
        }
        expect([...last.keys()]).toEqual([]);
      },
    ), { seed: 20261127, numRuns: 40 });
  }, 60_000);

  it("marks the link and the collection whenever a link is put in a collection, by every way of putting it there", async () => {
    const { env, alice, reading, link, start } = await setup();
    const token = { token: alice.token };
    const inbox = (await get(env, "/api/v1/collections", token)).body.collections[0].id as number;
    let cursor = start;
    /** marked: what changed since the last call, sorted. */
    const marked = async () => {
      const seen = await after(env, alice, cursor);
      cursor = seen.cursor;
      return named(seen.changes).sort();
    };
    const both = (linkId: number, ...collectionIds: number[]) => [`link ${linkId}`, ...collectionIds.map((id) => `collection ${id}`)].sort();

    // A new link in a collection.
    const other = await createCollection(env, alice, { name: "Other" });
    await marked();
    const second = await createLink(env, alice, { name: "Second", url: "https://second.example/", collectionIds: [other.id] });
    expect(await marked()).toEqual(both(second.id, other.id));

    // A link given one more collection by its edit: the one it joined, not the one it stays in.
    await put(env, `/api/v1/links/${link.id}`, { ...token, body: { name: "First", url: link.url, favorite: false, collectionIds: [reading.id, other.id] } });
    expect(await marked()).toEqual(both(link.id, other.id));

    // Added by the bulk action, and by the batch.
    const third = await createCollection(env, alice, { name: "Third" });
    await marked();
    await post(env, "/api/v1/links/bulk", { ...token, body: { action: "add", ids: [second.id], collectionId: third.id } });
    expect(await marked()).toEqual(both(second.id, third.id));
    const batch = await post(env, "/api/v1/batch", { ...token, body: { operations: [{ op: "updateLink", id: second.id, add: [{ id: reading.id }] }] } });
    expect(batch.status).toBe(200);
    expect(await marked()).toEqual(both(second.id, reading.id));

    // An import: a URL already on the shelf gains the import's collection.
    const pinboard = JSON.stringify([{ href: "https://second.example/", description: "Second", extended: "", tags: "", time: "2020-01-02T03:04:05Z", shared: "no", toread: "no" }]);
    await importBookmarks(new Shelf(env.db, alice.user), await readImportFile(new TextEncoder().encode(pinboard), env.clock.now), env.clock.now++);
    const imported = (await get(env, `/api/v1/links/${second.id}`, token)).body.link.collectionIds as number[];
    const made = imported.find((id) => ![other.id, third.id, reading.id].includes(id))!;
    expect(await marked()).toEqual(both(second.id, made));

    // An import merging into a folder imported before: the folder gains a new link.
    const netscape = (url: string) => `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Imported</H3>\n<DL><p>\n<DT><A HREF="${url}">Page</A>\n</DL><p>\n</DL><p>\n`;
    await importBookmarks(new Shelf(env.db, alice.user), netscape("https://one.example/"), env.clock.now++);
    const folder = (await get(env, "/api/v1/collections", token)).body.collections.find((c: { name: string }) => c.name === "Imported").id as number;
    await marked();
    await importBookmarks(new Shelf(env.db, alice.user), netscape("https://two.example/"), env.clock.now++);
    const two = (await get(env, `/api/v1/collections/${folder}`, token)).body.collection.order.at(-1).id as number;
    expect(await marked()).toEqual(both(two, folder));

    // A collection deleted without its contents: its links found nowhere else go to the Inbox.
    const solo = await createCollection(env, alice, { name: "Solo" });
    const homeless = await createLink(env, alice, { name: "Homeless", url: "https://homeless.example/", collectionIds: [solo.id] });
    await marked();
    await del(env, `/api/v1/collections/${solo.id}`, token);
    expect(await marked()).toEqual([...both(homeless.id, inbox), `collection ${solo.id} deleted`].sort());

    // Restored from the trash: a link into its collections, a collection with the links it held.
    await del(env, `/api/v1/links/${homeless.id}`, token);
    await marked();
    await post(env, "/api/v1/trash/restore", { ...token, body: { links: [homeless.id] } });
    expect(await marked()).toEqual(both(homeless.id, inbox));
    await del(env, `/api/v1/collections/${third.id}`, token);
    await marked();
    await post(env, "/api/v1/trash/restore", { ...token, body: { collections: [third.id] } });
    expect(await marked()).toEqual(both(second.id, third.id));
  });

  it("answers 410 CURSOR_EXPIRED for a cursor older than a tombstone the trash let go, and reads everything again without since", async () => {
    const { env, alice, link, start } = await setup();
    await del(env, `/api/v1/links/${link.id}`, { token: alice.token });
    const middle = (await after(env, alice, start)).cursor;
    expect((await feed(env, alice, `?since=${start}`)).status).toBe(200);
    expect((await del(env, "/api/v1/trash", { token: alice.token })).status).toBe(200);
    const expired = await feed(env, alice, `?since=${start}`);
    expect(expired.status).toBe(410);
    expect(expired.body).toEqual({ code: "CURSOR_EXPIRED", message: expect.stringContaining("without since") });
    expect((await feed(env, alice, `?since=${middle}`)).status).toBe(200);
    expect(named((await feed(env, alice)).body.changes)).not.toContain(`link ${link.id} deleted`);
  });

  it("refuses a since it did not write and a limit outside 1-1000 with 422", async () => {
    const { env, alice } = await setup();
    for (const query of ["?since=abc", "?since=-1", "?since=1.5", "?limit=0", "?limit=1001"]) {
      const response = await feed(env, alice, query);
      expect({ query, status: response.status }).toEqual({ query, status: 422 });
    }
    expect((await feed(env, alice, "?limit=1000")).status).toBe(200);
  });
});
