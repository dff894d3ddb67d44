/**
 * The change feed through `app.handle`: without `since` every item once; after a cursor,
 * every kind of change (created, edited, moved, reordered, trashed, restored) exactly once, as
 * the item is now, in the order of the changes; clicks are not changes; pages and writes between
 * them never lose a change; a cursor older than what the feed remembers is 410 CURSOR_EXPIRED;
 * one of another history of the database (a restore), beyond the feed's end or from before
 * cursors named their history is 410 HISTORY_REPLACED; each user's cursor counts only their own
 * changes; malformed queries are 422. Another user's feed is in permissions.api.test.ts.
 */
import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { importBookmarks } from "../../src/bookmarks/plan";
import { readImportFile } from "../../src/bookmarks/formats";
import { Shelf } from "../../src/shelf/shelf";
import { createCollection, createLink, createUser, del, get, makeEnv, post, put, type TestEnv, type TestUser } from "../support/helpers";
import { cookieFor, submit } from "../support/html";

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
    expect(moved).not.toBe(all.cursor);
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

    // The same ways through the pages' forms, which call the same shelf.
    const cookie = cookieFor(env, alice);
    const form = async (path: string, fields: Record<string, string | string[]>) => expect((await submit(env, path, fields, cookie)).status).toBe(303);
    const fourth = await createCollection(env, alice, { name: "Fourth" });
    await marked();
    await form("/links", { name: "Paged", url: "https://paged.example/", collectionIds: String(fourth.id) });
    const paged = (await get(env, `/api/v1/collections/${fourth.id}`, token)).body.collection.order.at(-1).id as number;
    expect(await marked()).toEqual(both(paged, fourth.id));
    await form(`/links/${paged}`, { name: "Paged", url: "https://paged.example/", collectionIds: [String(fourth.id), String(other.id)] });
    expect(await marked()).toEqual(both(paged, other.id));
    await form("/links/bulk", { action: "add", ids: String(paged), collectionId: String(third.id) });
    expect(await marked()).toEqual(both(paged, third.id));
    const alone = await createLink(env, alice, { name: "Alone", url: "https://alone.example/", collectionIds: [fourth.id] });
    await marked();
    // A collection deleted by its page: its lone link goes to the Inbox (the other one only leaves it).
    await form(`/collections/${fourth.id}/delete`, {});
    expect(await marked()).toEqual([...both(alone.id, inbox), `link ${paged}`, `collection ${fourth.id} deleted`].sort());
    // Restored by the trash page: both links back in it (the lone one out of the Inbox again).
    await form("/trash/restore", { item: `collection:${fourth.id}` });
    expect(await marked()).toEqual([...both(alone.id, inbox, fourth.id), `link ${paged}`].sort());
    await del(env, `/api/v1/links/${alone.id}`, token);
    await marked();
    await form("/trash/restore", { item: `link:${alone.id}` });
    expect(await marked()).toEqual(both(alone.id, fourth.id));
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

  it("answers 410 HISTORY_REPLACED, never \"no changes\", for a cursor of another history, beyond the feed's end, or from before cursors named their history", async () => {
    const { env, alice, reading, link, start } = await setup();
    const generation = start.split(".")[0]!;
    expect(generation).toMatch(/^[0-9a-f]{32}$/);
    const end = (await after(env, alice, start)).cursor;
    const place = Number(end.split(".")[1]);
    const replaced = async (since: string) => {
      const response = await feed(env, alice, `?since=${since}`);
      expect({ since, status: response.status, body: response.body }).toEqual({
        since, status: 410, body: { code: "HISTORY_REPLACED", message: expect.stringContaining("without since") },
      });
    };
    // Another history's cursor, even at a place this feed has: the database was replaced by a copy.
    await replaced(`${"0".repeat(32)}.${place}`);
    await replaced(`${"0".repeat(32)}.0`);
    // Beyond the feed's end: a place this feed never handed out (a restored copy's feed is shorter).
    await replaced(`${generation}.${place + 1}`);
    await replaced(`${generation}.999999999999999`);
    // Plain digits, as cursors were written before they named their history.
    for (const old of ["0", "1", String(place)]) await replaced(old);
    // The feed's end itself, and the places before it, are fine.
    expect((await feed(env, alice, `?since=${end}`)).body).toEqual({ changes: [], cursor: end, more: false });
    expect((await feed(env, alice, `?since=${generation}.0`)).status).toBe(200);

    // The database gets a new history (as a restored copy does): every cursor of the old one is refused, the feed's cursor names the new one.
    env.db.$client.run("UPDATE history SET generation = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'");
    await replaced(end);
    await replaced(start);
    const latest = (await get(env, "/api/v1/changes/cursor", { token: alice.token })).body.cursor as string;
    expect(latest).toBe(`aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.${place}`);
    await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: { name: "Again", url: link.url, favorite: false, collectionIds: [reading.id] } });
    expect(named((await after(env, alice, latest)).changes)).toEqual([`link ${link.id}`]);
  });

  it("counts each user's places alone: a user's cursor says nothing of how much others change", async () => {
    const { env, alice, reading, link } = await setup();
    const place = (cursor: string) => Number(cursor.split(".")[1]);
    const cursorOf = async (as: TestUser) => (await get(env, "/api/v1/changes/cursor", { token: as.token })).body.cursor as string;
    const bob = await createUser(env, { email: "bob@example.test" });
    // Bob has one item, his Inbox: his feed's end is his first place, however much Alice changed before.
    expect(place(await cursorOf(bob))).toBe(1);
    const alices = await cursorOf(alice);
    for (let i = 0; i < 5; i++) {
      await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: { name: `Renamed ${i}`, url: link.url, favorite: false, collectionIds: [reading.id] } });
      await cursorOf(alice);
    }
    expect(place(await cursorOf(alice))).toBe(place(alices) + 5);
    await createLink(env, bob, { name: "Bob's", url: "https://bob.example/" });
    expect(place(await cursorOf(bob))).toBe(3);
    expect(place(await cursorOf(alice))).toBe(place(alices) + 5);
    // A place is never handed out twice, even when the newest rows are forgotten (the trash emptied).
    const before = place(await cursorOf(alice));
    await del(env, `/api/v1/links/${link.id}`, { token: alice.token });
    expect((await del(env, "/api/v1/trash", { token: alice.token })).status).toBe(200);
    const forgotten = await cursorOf(alice);
    expect(place(forgotten)).toBe(before + 2);
    const next = await createLink(env, alice, { name: "Next", url: "https://next.example/" });
    const seen = await after(env, alice, forgotten);
    expect(named(seen.changes).sort()).toEqual([`collection ${(await get(env, "/api/v1/collections", { token: alice.token })).body.collections[0].id}`, `link ${next.id}`].sort());
    expect(place(seen.cursor)).toBe(before + 4);
  });

  it("settles the marks and reads the feed through indexes only: no statement scans a table", async () => {
    const { env, alice, reading, link, start } = await setup();
    await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: { name: "Renamed", url: link.url, favorite: false, collectionIds: [reading.id] } });
    const client = env.db.$client;
    const statements: string[] = [];
    const { prepare, query } = client;
    client.prepare = ((sql: string, ...rest: unknown[]) => (statements.push(sql), (prepare as (...args: unknown[]) => unknown).call(client, sql, ...rest))) as typeof client.prepare;
    client.query = ((sql: string) => (statements.push(sql), query.call(client, sql))) as typeof client.query;
    try {
      expect(named(new Shelf(env.db, alice.user).changes.page(start).changes)).toEqual([`link ${link.id}`]);
    } finally {
      client.prepare = prepare;
      client.query = query;
    }
    const feedTables = /\b(changes|pending_changes|change_floors|history)\b/;
    const plans = statements.filter((sql) => feedTables.test(sql)).map((sql) => ({
      sql, scans: client.query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`).all().map((row) => row.detail)
        // Not a table: json_each's list, a window's rows; the history is one row.
        .filter((detail) => /^SCAN (?!json_each|\(subquery|history\b)/.test(detail)),
    }));
    expect(plans.length).toBeGreaterThanOrEqual(5);
    expect(plans.filter((plan) => plan.scans.length > 0)).toEqual([]);
  });

  it("refuses a since it did not write and a limit outside 1-1000 with 422", async () => {
    const { env, alice, start } = await setup();
    const generation = start.split(".")[0]!;
    for (const query of ["?since=abc", "?since=-1", "?since=1.5", `?since=${generation}.`, `?since=${generation}.x`, `?since=${generation}`, "?since=short.1", `?since=${generation}.1.2`, "?limit=0", "?limit=1001"]) {
      const response = await feed(env, alice, query);
      expect({ query, status: response.status }).toEqual({ query, status: 422 });
    }
    expect((await feed(env, alice, "?limit=1000")).status).toBe(200);
  });
});
