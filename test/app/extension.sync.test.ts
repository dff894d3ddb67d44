/**
 * The folder sync through the real app (`app.handle`) and a fake browser: the first sync is a
 * union, changes go both ways afterwards, conflicts follow the rules (different fields merge,
 * the later change of a field wins, an edit beats a delete), a link in two synced collections is
 * two bookmarks with one name, deletes go to the trash, the failsafe asks before deleting many,
 * offline changes are sent later, a lost answer duplicates nothing, an idle sync is one request,
 * and two browsers on one collection converge. The model-based test is extension.sync-model.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { buildExtension } from "../../extension/build";
import { testDir } from "../support/dirs";
import { recordChange, loadSync } from "../../extension/src/sync/store";
import { approve, putBack } from "../../extension/src/sync/engine";
import { BookmarkEvents } from "../../extension/src/sync/events";
import { promptWords } from "../../extension/src/sync-status";
import { RestorableServer, SyncingBrowser, serverTree } from "../support/extension.sync.fakes";
import { createCollection, createLink, createUser, del, get, makeEnv, post, put, type TestEnv, type TestUser } from "../support/helpers";

const OFF = { LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" };

async function setup() {
  const env = makeEnv(OFF);
  const alice = await createUser(env);
  const reading = await createCollection(env, alice, { name: "Reading" });
  const browser = new SyncingBrowser(env, alice);
  const folder = browser.bookmarks.add("2", "Synced");
  await browser.start(folder, reading.id);
  return { env, alice, reading, browser, folder };
}

async function linkByUrl(env: TestEnv, as: TestUser, url: string) {
  const all = (await get(env, "/api/v1/collections", { token: as.token })).body.collections as { links: { id: number; url: string; name: string; collectionIds: number[] }[] }[];
  return all.flatMap((collection) => collection.links).find((link) => link.url === url);
}

async function trashed(env: TestEnv, as: TestUser) {
  return (await get(env, "/api/v1/trash", { token: as.token })).body.items as { kind: string; id: number; name: string }[];
}

async function restorableSetup(marks: number) {
  const server = new RestorableServer(OFF);
  const alice = await createUser(server.env);
  const reading = await createCollection(server.env, alice, { name: "Reading" });
  const browser = new SyncingBrowser(server.env, alice);
  const folder = browser.bookmarks.add("2", "Synced");
  await browser.start(folder, reading.id);
  for (let n = 1; n <= marks; n++) browser.bookmarks.add(folder, `M${n}`, `https://m${n}.example/`);
  expect(await browser.sync()).toMatchObject({ ok: true });
  return { server, alice, reading, browser, folder };
}

describe("folder sync", () => {
  it("first sync is a union: nothing deleted, the same URL at the same place matched, the same folder name at the same place one folder", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    browser.bookmarks.add(folder, "A", "https://a.example/");
    browser.bookmarks.add(folder, "B in the browser", "https://b.example/");
    browser.bookmarks.add(folder, "Script", "javascript:alert(1)");
    browser.bookmarks.add(folder, "Recent", "place:sort=8");
    const shared = browser.bookmarks.add(folder, "Shared");
    browser.bookmarks.add(shared, "C", "https://c.example/");
    await createLink(env, alice, { name: "B on the server", url: "https://b.example/", collectionIds: [reading.id] });
    await createLink(env, alice, { name: "D", url: "https://d.example/", collectionIds: [reading.id] });
    const sharedServer = await createCollection(env, alice, { name: "Shared", parentId: reading.id });
    await createLink(env, alice, { name: "E", url: "https://e.example/", collectionIds: [sharedServer.id] });

    const status = await browser.sync();
    expect(status).toMatchObject({ ok: true });
    // The server's order, with what only the browser had placed after the item before it there.
    const expected = ["A https://a.example/", "B on the server https://b.example/", "D https://d.example/", "Shared/", "  C https://c.example/", "  E https://e.example/"];
    expect(await browser.tree()).toEqual(expected);
    expect(await serverTree(env, alice, reading.id)).toEqual(expected);
    // What the sync leaves alone stays, and is never sent.
    expect(browser.bookmarks.titles(folder)).toContain("Script javascript:alert(1)");
    expect(browser.bookmarks.titles(folder)).toContain("Recent place:sort=8");
    expect(await linkByUrl(env, alice, "javascript:alert(1)")).toBeUndefined();
    // One link for B, one Shared collection.
    const all = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections as { name: string; links: { url: string }[] }[];
    expect(all.filter((collection) => collection.name === "Shared")).toHaveLength(1);
    expect(all.flatMap((collection) => collection.links).filter((link) => link.url === "https://b.example/")).toHaveLength(1);
    expect(await trashed(env, alice)).toEqual([]);
  });

  it("after the first sync, changes go both ways: create, rename, move, reorder and delete", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    const a = browser.bookmarks.add(folder, "A", "https://a.example/");
    const sub = browser.bookmarks.add(folder, "Sub");
    browser.bookmarks.add(folder, "B", "https://b.example/");
    await browser.sync();

    // Browser → server.
    await browser.bookmarks.update(a, { title: "A renamed" });
    await browser.bookmarks.move(a, { parentId: sub, index: 0 });
    browser.bookmarks.add(folder, "New", "https://new.example/");
    await browser.sync();
    expect(await serverTree(env, alice, reading.id)).toEqual(["Sub/", "  A renamed https://a.example/", "B https://b.example/", "New https://new.example/"]);

    // Server → browser.
    const b = (await linkByUrl(env, alice, "https://b.example/"))!;
    await put(env, `/api/v1/links/${b.id}`, { token: alice.token, body: { name: "B from the API", url: "https://b2.example/", favorite: false, collectionIds: b.collectionIds } });
    const subCollection = (await get(env, `/api/v1/collections?under=${reading.id}`, { token: alice.token })).body.collections[1];
    await createLink(env, alice, { name: "From the API", url: "https://api.example/", collectionIds: [subCollection.id] });
    const order = (await get(env, `/api/v1/collections/${reading.id}`, { token: alice.token })).body.collection.order;
    await put(env, `/api/v1/collections/${reading.id}/order`, { token: alice.token, body: { order: [...order].reverse() } });
    await browser.sync();
    expect(await browser.tree()).toEqual(["New https://new.example/", "B from the API https://b2.example/", "Sub/", "  A renamed https://a.example/", "  From the API https://api.example/"]);
    expect(await serverTree(env, alice, reading.id)).toEqual(await browser.tree());

    // A bookmark removed: the link leaves the collection, and being in no other, goes to the trash.
    const newMark = (await browser.bookmarks.getChildren(folder)).find((node) => node.title === "New")!;
    await browser.bookmarks.remove(newMark.id);
    await browser.sync();
    expect(await linkByUrl(env, alice, "https://new.example/")).toBeUndefined();
    expect((await trashed(env, alice)).map((item) => `${item.kind} ${item.name}`)).toEqual(["link New"]);

    // A folder removed: the collection goes to the trash with its contents, as one item.
    await browser.bookmarks.removeTree(sub);
    await browser.sync();
    expect(await serverTree(env, alice, reading.id)).toEqual(["B from the API https://b2.example/"]);
    expect((await trashed(env, alice)).map((item) => `${item.kind} ${item.name}`)).toEqual(["collection Sub", "link New"]);

    // Deleted through the API: the bookmark goes.
    const b2 = (await linkByUrl(env, alice, "https://b2.example/"))!;
    await del(env, `/api/v1/links/${b2.id}`, { token: alice.token });
    await browser.sync();
    expect(await browser.tree()).toEqual([]);
  });

  it("conflicts: different fields merge, the same field's later change wins, and an edit beats a delete", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    const a = browser.bookmarks.add(folder, "A", "https://a.example/");
    const b = browser.bookmarks.add(folder, "B", "https://b.example/");
    const c = browser.bookmarks.add(folder, "C", "https://c.example/");
    await browser.sync();
    const link = async (url: string) => (await linkByUrl(env, alice, url))!;
    const rename = async (url: string, fields: { name?: string; url?: string }) => {
      const current = await link(url);
      await put(env, `/api/v1/links/${current.id}`, { token: alice.token, body: { name: fields.name ?? current.name, url: fields.url ?? current.url, favorite: false, collectionIds: current.collectionIds } });
    };

    // A: the browser changes the title, the server the address: both kept.
    await browser.bookmarks.update(a, { title: "A title from the browser" });
    await recordChange(browser.storage, { [a]: { title: env.clock.now++ } });
    await rename("https://a.example/", { url: "https://a2.example/" });
    // B: both change the title; the server's change is later.
    await browser.bookmarks.update(b, { title: "B from the browser" });
    await recordChange(browser.storage, { [b]: { title: env.clock.now++ } });
    await rename("https://b.example/", { name: "B from the server" });
    // C: deleted in the browser, edited on the server: it comes back.
    await browser.bookmarks.remove(c);
    await rename("https://c.example/", { name: "C edited" });
    await browser.sync();
    const expected = ["A title from the browser https://a2.example/", "B from the server https://b.example/", "C edited https://c.example/"];
    expect(await browser.tree()).toEqual(expected);
    expect(await serverTree(env, alice, reading.id)).toEqual(expected);

    // The browser's change is later this time.
    await rename("https://b.example/", { name: "B on the server again" });
    const [bMark] = (await browser.bookmarks.getChildren(folder)).filter((node) => node.url === "https://b.example/");
    await browser.bookmarks.update(bMark!.id, { title: "B in the browser, later" });
    await recordChange(browser.storage, { [bMark!.id]: { title: env.clock.now++ } });
    await browser.sync();
    expect((await browser.tree())[1]).toBe("B in the browser, later https://b.example/");
    expect((await serverTree(env, alice, reading.id))[1]).toBe("B in the browser, later https://b.example/");

    // Deleted on the server, renamed in the browser: the link comes back from the trash (the same
    // link, at its place), renamed; nothing stays in the trash to make a duplicate later.
    const aLink = await link("https://a2.example/");
    await del(env, `/api/v1/links/${aLink.id}`, { token: alice.token });
    const [aMark] = (await browser.bookmarks.getChildren(folder)).filter((node) => node.url === "https://a2.example/");
    await browser.bookmarks.update(aMark!.id, { title: "A kept" });
    const status = await browser.sync();
    expect(status?.message).toBe("Synced: 1 restored from linkshelf's trash, 1 renamed on linkshelf.");
    expect(await serverTree(env, alice, reading.id)).toEqual(["A kept https://a2.example/", "B in the browser, later https://b.example/", "C edited https://c.example/"]);
    expect(await browser.tree()).toEqual(await serverTree(env, alice, reading.id));
    expect((await link("https://a2.example/")).id).toBe(aLink.id);
    expect(await trashed(env, alice)).toEqual([]);

    // A link that left the synced collections for another (not deleted) cannot be asked back: it is made again.
    const bLink = await link("https://b.example/");
    const elsewhere = await createCollection(env, alice, { name: "Elsewhere" });
    await put(env, `/api/v1/links/${bLink.id}`, { token: alice.token, body: { name: bLink.name, url: bLink.url, favorite: false, collectionIds: [elsewhere.id] } });
    const [bNow] = (await browser.bookmarks.getChildren(folder)).filter((node) => node.url === "https://b.example/");
    await browser.bookmarks.update(bNow!.id, { title: "B kept" });
    await browser.sync();
    expect(await serverTree(env, alice, reading.id)).toEqual(["A kept https://a2.example/", "B kept https://b.example/", "C edited https://c.example/"]);
    expect(await browser.tree()).toEqual(await serverTree(env, alice, reading.id));
  });

  it("the status counts every change written, per side: renamed, re-addressed, moved, reordered, added and removed", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    browser.bookmarks.add(folder, "A", "https://a.example/");
    browser.bookmarks.add(folder, "B", "https://b.example/");
    browser.bookmarks.add(folder, "C", "https://c.example/");
    const sub = browser.bookmarks.add(folder, "Sub");
    const d = browser.bookmarks.add(sub, "D", "https://d.example/");
    browser.bookmarks.add(sub, "E", "https://e.example/");
    await browser.sync();
    const link = async (url: string) => (await linkByUrl(env, alice, url))!;
    const subId = (await get(env, `/api/v1/collections?under=${reading.id}`, { token: alice.token })).body.collections[1].id as number;

    // Another client renames A, gives B another address and moves C into Sub: three changes written to existing bookmarks.
    const a = await link("https://a.example/");
    await put(env, `/api/v1/links/${a.id}`, { token: alice.token, body: { name: "A renamed", url: a.url, favorite: false, collectionIds: a.collectionIds } });
    const b = await link("https://b.example/");
    await put(env, `/api/v1/links/${b.id}`, { token: alice.token, body: { name: b.name, url: "https://b2.example/", favorite: false, collectionIds: b.collectionIds } });
    const c = await link("https://c.example/");
    await put(env, `/api/v1/links/${c.id}`, { token: alice.token, body: { name: c.name, url: c.url, favorite: false, collectionIds: [subId] } });
    expect(await browser.sync()).toMatchObject({ ok: true, message: "Synced: 1 renamed in the browser, 1 re-addressed in the browser, 1 moved in the browser." });
    expect(await browser.tree()).toEqual(await serverTree(env, alice, reading.id));

    // The browser renames D, puts E first in Sub, adds F and removes A.
    await browser.bookmarks.update(d, { title: "D renamed" });
    const e = (await browser.bookmarks.getChildren(sub)).find((node) => node.title === "E")!;
    await browser.bookmarks.move(e.id, { parentId: sub, index: 0 });
    browser.bookmarks.add(folder, "F", "https://f.example/");
    await browser.bookmarks.remove((await browser.bookmarks.getChildren(folder)).find((node) => node.title === "A renamed")!.id);
    expect(await browser.sync()).toMatchObject({ ok: true, message: "Synced: 1 added to linkshelf, 1 removed from linkshelf (into its trash), 1 renamed on linkshelf, 1 folder reordered on linkshelf." });
    expect(await serverTree(env, alice, reading.id)).toEqual(await browser.tree());
    expect(await browser.sync()).toMatchObject({ ok: true, message: "Up to date." });
  });

  it("a batch refused because another client changed an item (412) after the browser's side was written: the retry duplicates nothing", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    const a = browser.bookmarks.add(folder, "A", "https://a.example/");
    browser.bookmarks.add(folder, "B", "https://b.example/");
    await browser.sync();
    // On the server: a new link, a new sub-collection with a link, a link renamed. In the browser: A renamed, a new bookmark and a new folder with one.
    await createLink(env, alice, { name: "From the API", url: "https://api.example/", collectionIds: [reading.id] });
    const made = await createCollection(env, alice, { name: "Made on the server", parentId: reading.id });
    await createLink(env, alice, { name: "Inside", url: "https://inside.example/", collectionIds: [made.id] });
    const b = (await linkByUrl(env, alice, "https://b.example/"))!;
    await put(env, `/api/v1/links/${b.id}`, { token: alice.token, body: { name: "B from the API", url: b.url, favorite: false, collectionIds: b.collectionIds } });
    await browser.bookmarks.update(a, { title: "A from the browser" });
    browser.bookmarks.add(folder, "New here", "https://new.example/");
    const mine = browser.bookmarks.add(folder, "Made here");
    browser.bookmarks.add(mine, "Deep", "https://deep.example/");

    // Just before the first batch, another client renames A's link: the batch names it, so it is refused (412).
    const aLink = (await linkByUrl(env, alice, "https://a.example/"))!;
    let batches = 0;
    browser.before = async (sent) => {
      if (sent !== "POST /api/v1/batch" || batches++ > 0) return;
      // The browser's side is written by now: the server's new items are bookmarks already.
      expect(await browser.tree()).toContain("  Inside https://inside.example/");
      await put(env, `/api/v1/links/${aLink.id}`, { token: alice.token, body: { name: "A from elsewhere", url: aLink.url, favorite: false, collectionIds: aLink.collectionIds } });
    };
    const from = browser.answered.length;
    expect(await browser.sync()).toMatchObject({ ok: true });
    expect(browser.answered.slice(from).filter((answer) => answer.startsWith("POST /api/v1/batch"))).toEqual(["POST /api/v1/batch 412", "POST /api/v1/batch 200"]);
    const tree = await browser.tree();
    expect(await serverTree(env, alice, reading.id)).toEqual(tree);
    // Every item once, on both sides.
    const urls = tree.filter((line) => line.includes("https://")).map((line) => line.trim().split(" ").at(-1)).sort();
    expect(urls).toEqual(["https://a.example/", "https://api.example/", "https://b.example/", "https://deep.example/", "https://inside.example/", "https://new.example/"]);
    expect(tree.filter((line) => line.endsWith("/") && !line.includes("https://")).sort()).toEqual(["Made here/", "Made on the server/"]);
    const all = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections as { name: string; links: { url: string }[] }[];
    expect(all.flatMap((collection) => collection.links)).toHaveLength(6);
    expect(await trashed(env, alice)).toEqual([]);
  });

  it("folders moved into each other from both sides: the later move wins, the browser's or the server's", async () => {
    for (const later of ["browser", "server"] as const) {
      const { env, alice, reading, browser, folder } = await setup();
      const a = browser.bookmarks.add(folder, "A");
      browser.bookmarks.add(a, "In A", "https://in-a.example/");
      const b = browser.bookmarks.add(folder, "B");
      browser.bookmarks.add(b, "In B", "https://in-b.example/");
      await browser.sync();
      const collections = (await get(env, `/api/v1/collections?under=${reading.id}`, { token: alice.token })).body.collections as { id: number; name: string }[];
      const [aId, bId] = ["A", "B"].map((name) => collections.find((collection) => collection.name === name)!.id);
      // The browser moves A into B, the server B into A; the one that moved second wins.
      const moveInBrowser = async () => {
        await browser.bookmarks.move(a, { parentId: b, index: 0 });
        await recordChange(browser.storage, { [a]: { parent: env.clock.now++ } });
      };
      const moveOnServer = () => put(env, `/api/v1/collections/${bId}`, { token: alice.token, body: { name: "B", visibility: "PRIVATE", parentId: aId } });
      if (later === "browser") {
        await moveOnServer();
        await moveInBrowser();
      } else {
        await moveInBrowser();
        await moveOnServer();
      }
      await browser.sync();
      const expected = later === "browser"
        ? ["B/", "  A/", "    In A https://in-a.example/", "  In B https://in-b.example/"]
        : ["A/", "  In A https://in-a.example/", "  B/", "    In B https://in-b.example/"];
      expect(await browser.tree()).toEqual(expected);
      expect(await serverTree(env, alice, reading.id)).toEqual(expected);
    }
  });

  it("a bookmark moved while a sync reads the server is not moved back by that sync's writes", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    browser.bookmarks.add(folder, "A", "https://a.example/");
    browser.bookmarks.add(folder, "B", "https://b.example/");
    const c = browser.bookmarks.add(folder, "C", "https://c.example/");
    await browser.sync();
    const a = (await linkByUrl(env, alice, "https://a.example/"))!;
    await put(env, `/api/v1/links/${a.id}`, { token: alice.token, body: { name: "A renamed", url: a.url, favorite: false, collectionIds: a.collectionIds } });
    // While the sync reads the collection, the person moves C to the top.
    let moved = false;
    browser.before = async (sent) => {
      if (sent !== "GET /api/v1/collections" || moved) return;
      moved = true;
      await browser.bookmarks.move(c, { parentId: folder, index: 0 });
    };
    expect(await browser.sync()).toMatchObject({ ok: true });
    expect(moved).toBe(true);
    const expected = ["C https://c.example/", "A renamed https://a.example/", "B https://b.example/"];
    expect(await browser.tree()).toEqual(expected);
    expect(await serverTree(env, alice, reading.id)).toEqual(expected);
  });

  it("a bookmark that comes back because an edit beat its delete keeps its place, not following a neighbour moved away", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    for (const name of ["A", "B", "C", "D"]) browser.bookmarks.add(folder, name, `https://${name.toLowerCase()}.example/`);
    await browser.sync();
    // The browser moves C to the top and deletes D; the server renames D, which so comes back.
    const [, , c, d] = await browser.bookmarks.getChildren(folder);
    await browser.bookmarks.move(c!.id, { parentId: folder, index: 0 });
    await recordChange(browser.storage, { [folder]: { order: env.clock.now++ } });
    await browser.bookmarks.remove(d!.id);
    const dLink = (await linkByUrl(env, alice, "https://d.example/"))!;
    await put(env, `/api/v1/links/${dLink.id}`, { token: alice.token, body: { name: "D renamed", url: dLink.url, favorite: false, collectionIds: dLink.collectionIds } });
    await browser.sync();
    const expected = ["C https://c.example/", "A https://a.example/", "B https://b.example/", "D renamed https://d.example/"];
    expect(await browser.tree()).toEqual(expected);
    expect(await serverTree(env, alice, reading.id)).toEqual(expected);
  });

  it("a link in two synced collections is two bookmarks; editing one edits the link and so both", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    const one = await createCollection(env, alice, { name: "One", parentId: reading.id });
    const two = await createCollection(env, alice, { name: "Two", parentId: reading.id });
    const elsewhere = await createCollection(env, alice, { name: "Elsewhere" });
    const link = await createLink(env, alice, { name: "Both", url: "https://both.example/", collectionIds: [one.id, two.id, elsewhere.id] });
    await browser.sync();
    expect(await browser.tree()).toEqual(["One/", "  Both https://both.example/", "Two/", "  Both https://both.example/"]);
    const marks = (await browser.bookmarks.getSubTree(folder))[0]!.children!.map((child) => child.children![0]!);
    await browser.bookmarks.update(marks[0]!.id, { title: "Both renamed" });
    await browser.sync();
    expect(await browser.tree()).toEqual(["One/", "  Both renamed https://both.example/", "Two/", "  Both renamed https://both.example/"]);
    const stored = (await get(env, `/api/v1/links/${link.id}`, { token: alice.token })).body.link;
    expect(stored.name).toBe("Both renamed");

    // Removing one bookmark takes the link out of that collection only; the link stays in the others.
    await browser.bookmarks.remove(marks[1]!.id);
    await browser.sync();
    expect((await get(env, `/api/v1/links/${link.id}`, { token: alice.token })).body.link.collectionIds).toEqual([one.id, elsewhere.id].sort((x, y) => x - y));
    expect(await trashed(env, alice)).toEqual([]);
  });

  it("the failsafe stops a sync that would delete many, asks, and either applies or puts them back", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    for (let n = 0; n < 20; n++) browser.bookmarks.add(folder, `Mark ${n}`, `https://m${n}.example/`);
    await browser.sync();
    // Five of twenty (25 %) deleted on the server: the sync stops before deleting them from the browser.
    const links = (await get(env, `/api/v1/collections/${reading.id}`, { token: alice.token })).body.collection.links as { id: number }[];
    await post(env, "/api/v1/links/bulk", { token: alice.token, body: { action: "delete", ids: links.slice(0, 5).map((link) => link.id) } });
    const before = await browser.tree();
    const stopped = await browser.sync();
    expect(stopped).toMatchObject({ ok: false, message: "Sync would delete 5 bookmarks from the browser: Apply or Put them back." });
    expect(await browser.tree()).toEqual(before);
    expect((await loadSync(browser.storage)).prompt?.message).toBe("Sync would delete 5 bookmarks from the browser");

    // Put them back: the server gets them again.
    await putBack(browser.storage);
    await browser.sync();
    expect(await browser.tree()).toEqual(before);
    expect(await serverTree(env, alice, reading.id)).toEqual(before);

    // Four of twenty (20 %) is not more than a fifth: no question.
    for (const mark of (await browser.bookmarks.getChildren(folder)).slice(0, 4)) await browser.bookmarks.remove(mark.id);
    expect(await browser.sync()).toMatchObject({ ok: true });
    expect(await serverTree(env, alice, reading.id)).toHaveLength(16);

    // Five of sixteen from the browser: asked; Apply deletes them.
    for (const mark of (await browser.bookmarks.getChildren(folder)).slice(0, 5)) await browser.bookmarks.remove(mark.id);
    expect(await browser.sync()).toMatchObject({ ok: false, message: "Sync would delete 5 links from linkshelf (into its trash): Apply or Put them back." });
    expect(await serverTree(env, alice, reading.id)).toHaveLength(16);
    await approve(browser.storage);
    expect(await browser.sync()).toMatchObject({ ok: true });
    expect(await serverTree(env, alice, reading.id)).toEqual(await browser.tree());
    expect(await browser.tree()).toHaveLength(11);
  });

  it("Put them back after bookmarks were deleted in the browser: the next sync, not forced, reads the server and gives them back", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    for (let n = 0; n < 12; n++) browser.bookmarks.add(folder, `Mark ${n}`, `https://m${n}.example/`);
    await browser.sync();
    // A second sync: the feed's cursor passes the first one's own writes, so the server reads as unchanged since.
    expect(await browser.sync()).toMatchObject({ ok: true, message: "Up to date." });
    const before = await browser.tree();
    // Three of twelve deleted in the browser: asked.
    for (const mark of (await browser.bookmarks.getChildren(folder)).slice(0, 3)) await browser.bookmarks.remove(mark.id);
    expect(await browser.sync()).toMatchObject({ ok: false, message: "Sync would delete 3 links from linkshelf (into its trash): Apply or Put them back." });
    // Put them back: the browser now matches what the sync remembers, and the server changed nothing
    // since, so only the server's read can bring them back (the background's sync after the answer is not forced).
    await putBack(browser.storage);
    expect(await browser.sync()).toMatchObject({ ok: true });
    expect(await browser.tree()).toEqual(before);
    expect(await serverTree(env, alice, reading.id)).toEqual(before);
    expect(await trashed(env, alice)).toEqual([]);
  });

  it("keeps changes made while the server cannot be reached and sends them when it answers", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    browser.bookmarks.add(folder, "A", "https://a.example/");
    await browser.sync();
    browser.offline = true;
    browser.bookmarks.add(folder, "Offline 1", "https://o1.example/");
    const sub = browser.bookmarks.add(folder, "Offline folder");
    browser.bookmarks.add(sub, "Offline 2", "https://o2.example/");
    const status = await browser.sync();
    expect(status?.ok).toBe(false);
    expect(status?.message).toContain("Changes made here are kept and sent when it answers.");
    browser.offline = false;
    await browser.sync();
    expect(await serverTree(env, alice, reading.id)).toEqual(["A https://a.example/", "Offline 1 https://o1.example/", "Offline folder/", "  Offline 2 https://o2.example/"]);
  });

  it("a lost answer duplicates nothing: the retry is answered from its key, and a sync cut midway finishes at the next", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    for (let n = 0; n < 5; n++) browser.bookmarks.add(folder, `Mark ${n}`, `https://m${n}.example/`);
    // The batch's answer is lost once: the retry with the same key hears it, and writes nothing again.
    browser.lose("POST /api/v1/batch", 1);
    expect(await browser.sync()).toMatchObject({ ok: true });
    expect(browser.sent.filter((line) => line === "POST /api/v1/batch")).toHaveLength(2);
    expect(browser.replayed).toBe(1);
    expect(await serverTree(env, alice, reading.id)).toEqual(await browser.tree());

    // Lost twice: the sync fails with the links on the server; the next sync matches them, duplicating nothing.
    for (let n = 5; n < 8; n++) browser.bookmarks.add(folder, `Mark ${n}`, `https://m${n}.example/`);
    browser.lose("POST /api/v1/batch", 2);
    expect((await browser.sync())?.ok).toBe(false);
    expect(await serverTree(env, alice, reading.id)).toEqual(await browser.tree());
    expect(await browser.sync()).toMatchObject({ ok: true });
    expect(await browser.tree()).toHaveLength(8);
    expect(await serverTree(env, alice, reading.id)).toEqual(await browser.tree());
    expect(await trashed(env, alice)).toEqual([]);
  });

  it("a burst of bookmark events (300 removals one by one) reads the sync's state once, not per event, and starts one sync", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    for (let n = 0; n < 1200; n++) browser.bookmarks.add(folder, `Mark ${n}`, `https://m${n}.example/`);
    await browser.sync();
    const timers: (() => void)[] = [];
    let syncs = 0;
    const events = new BookmarkEvents({
      storage: browser.storage,
      sync: () => (syncs++, browser.sync()),
      now: () => env.clock.now,
      setTimer: (run) => timers.push(run),
      clearTimer: () => timers.pop(),
    });
    const reads = browser.storage.reads.length;
    const marks = await browser.bookmarks.getChildren(folder);
    for (const mark of marks.slice(0, 300)) {
      await browser.bookmarks.remove(mark.id);
      events.removed({ parentId: folder });
    }
    // Nothing read while the events arrive; one timer pending for the burst.
    expect(browser.storage.reads.length).toBe(reads);
    expect(timers).toHaveLength(1);
    await events.flush();
    expect(syncs).toBe(1);
    const burst = browser.storage.reads.slice(reads);
    // The change times once (without the last synced state), then the sync reads the whole state once.
    expect(burst[0]).toEqual(["syncConfig", "syncTimes"]);
    expect(burst.filter((keys) => keys.includes("syncBase"))).toHaveLength(1);
    expect(burst.length).toBeLessThanOrEqual(3);
    // 300 of 1,200 is past a fifth: the failsafe asks, naming ten of them, in one box.
    const { prompt } = await loadSync(browser.storage);
    expect(prompt?.message).toBe("Sync would delete 300 links from linkshelf (into its trash)");
    expect(promptWords(prompt!)).toEqual({ message: "Sync would delete 300 links from linkshelf (into its trash):", names: Array.from({ length: 10 }, (_, n) => `Mark ${n}`), more: "and 290 more" });
    expect(await serverTree(env, alice, reading.id)).toHaveLength(1200);
  });

  it("a sync started before a burst ends (Sync now) weighs its changes by their own times; an idle sync forgets times of changes already synced", async () => {
    const { browser, folder } = await setup();
    const a = browser.bookmarks.add(folder, "A", "https://a.example/");
    await browser.sync();
    const timers: (() => void)[] = [];
    const events = new BookmarkEvents({ storage: browser.storage, sync: async () => undefined, now: () => 5000, setTimer: (run) => timers.push(run), clearTimer: () => timers.pop() });
    events.changed(a, { title: "A renamed" });
    // What the background's syncNow does first: the burst's times are written, its timer dropped.
    expect(await events.write()).toBe(true);
    expect(timers).toHaveLength(0);
    expect((await loadSync(browser.storage)).times).toEqual({ [a]: { title: 5000 } });
    // Nothing changed in the folder after all: an idle sync drops the times.
    expect(await browser.sync()).toMatchObject({ ok: true, message: "Up to date." });
    expect((await loadSync(browser.storage)).times).toEqual({});
  });

  it("the sync's own bookmark writes, and the events just after them, are not the person's changes", async () => {
    const { browser } = await setup();
    let now = 1000;
    let syncs = 0;
    const timers: (() => void)[] = [];
    const events = new BookmarkEvents({ storage: browser.storage, sync: async () => void syncs++, now: () => now, setTimer: (run) => timers.push(run), clearTimer: () => timers.pop() });
    events.syncWriting(true);
    events.created("500", { id: "500", title: "Made by the sync", parentId: browser.folderId });
    events.syncWriting(false);
    now += 1000;
    events.changed("500", { title: "still its echo" });
    expect(timers).toHaveLength(0);
    now += 1000;
    events.changed("500", { title: "the person's" });
    expect(timers).toHaveLength(1);
    await events.flush();
    expect(syncs).toBe(1);
    expect((await loadSync(browser.storage)).times).toEqual({ "500": { title: now } });
  });

  describe("when the server was restored from a backup", () => {
    it("ids given again to other links after a restore never overwrite bookmarks: a union keeps New1 and New2 and adds Phone A and B", async () => {
      const { server, alice, reading, browser, folder } = await restorableSetup(12);
      const backup = server.backup();
      browser.bookmarks.add(folder, "New1", "https://new1.example/");
      browser.bookmarks.add(folder, "New2", "https://new2.example/");
      await browser.sync();
      const before = await serverTree(server.env, alice, reading.id);
      expect(before).toHaveLength(14);
      const newIds = [(await linkByUrl(server.env, alice, "https://new1.example/"))!.id, (await linkByUrl(server.env, alice, "https://new2.example/"))!.id];

      // The disk died: the backup is all that is left, and the server gives the same ids again.
      browser.env = server.restore(backup, true);
      const phones = [
        await createLink(server.env, alice, { name: "Phone A", url: "https://phone-a.example/", collectionIds: [reading.id] }),
        await createLink(server.env, alice, { name: "Phone B", url: "https://phone-b.example/", collectionIds: [reading.id] }),
      ];
      expect(phones.map((link) => link.id)).toEqual(newIds);

      const status = await browser.sync();
      expect(status).toMatchObject({ ok: true, items: 16 });
      expect(status!.message).toBe("The server was restored from a backup: both sides were joined, nothing deleted. Synced: 2 added to the browser, 2 added to linkshelf.");
      const tree = await browser.tree();
      // What only the browser had goes after the item before it there (the union's rule).
      expect(tree).toEqual([...before.slice(0, 12), "New1 https://new1.example/", "New2 https://new2.example/", "Phone A https://phone-a.example/", "Phone B https://phone-b.example/"]);
      expect(await serverTree(server.env, alice, reading.id)).toEqual(tree);
      expect(await trashed(server.env, alice)).toEqual([]);
      // Settled: the next sync has nothing to do, and a change still goes through.
      expect(await browser.sync()).toMatchObject({ ok: true, message: "Up to date." });
      await browser.bookmarks.update((await browser.bookmarks.getChildren(folder)).find((node) => node.title === "New1")!.id, { title: "New1 renamed" });
      await browser.sync();
      expect(await serverTree(server.env, alice, reading.id)).toContain("New1 renamed https://new1.example/");
      expect(await serverTree(server.env, alice, reading.id)).toContain("Phone A https://phone-a.example/");
    });

    it("bookmarks added since the backup are not deleted from the browser: they are sent back to the restored server", async () => {
      const { server, alice, reading, browser, folder } = await restorableSetup(3);
      const backup = server.backup();
      for (let n = 1; n <= 4; n++) browser.bookmarks.add(folder, `New${n}`, `https://new${n}.example/`);
      await browser.sync();
      const all = await browser.tree();
      expect(all).toHaveLength(7);

      browser.env = server.restore(backup);
      expect(await serverTree(server.env, alice, reading.id)).toHaveLength(3);
      const status = await browser.sync();
      expect(status).toMatchObject({ ok: true, items: 7, message: "The server was restored from a backup: both sides were joined, nothing deleted. Synced: 4 added to linkshelf." });
      expect(await browser.tree()).toEqual(all);
      expect(await serverTree(server.env, alice, reading.id)).toEqual(all);
      expect(await browser.sync()).toMatchObject({ ok: true, message: "Up to date." });
    });

    it("a restore between the feed's read and the batch: the batch is refused (410) and the retry is a union", async () => {
      const { server, alice, reading, browser, folder } = await restorableSetup(3);
      const backup = server.backup();
      browser.bookmarks.add(folder, "New1", "https://new1.example/");
      await browser.sync();
      browser.bookmarks.add(folder, "New2", "https://new2.example/");
      let restored = false;
      browser.before = async (sent) => {
        if (sent !== "POST /api/v1/batch" || restored) return;
        restored = true;
        browser.env = server.restore(backup);
      };
      const from = browser.answered.length;
      const status = await browser.sync();
      expect(restored).toBe(true);
      // The batch refused (its since is of the replaced history), the feed too, then the union's batch.
      expect(browser.answered.slice(from).filter((answer) => answer.startsWith("POST /api/v1/batch") || answer.startsWith("GET /api/v1/changes "))).toEqual([
        "GET /api/v1/changes 200", "POST /api/v1/batch 410", "GET /api/v1/changes 410", "POST /api/v1/batch 200",
      ]);
      expect(status).toMatchObject({ ok: true, items: 5 });
      const expected = ["M1 https://m1.example/", "M2 https://m2.example/", "M3 https://m3.example/", "New1 https://new1.example/", "New2 https://new2.example/"];
      expect(await browser.tree()).toEqual(expected);
      expect(await serverTree(server.env, alice, reading.id)).toEqual(expected);
    });

    it("a failsafe question pending from before the restore is answered by the union, which deletes nothing", async () => {
      const { server, alice, reading, browser, folder } = await restorableSetup(12);
      const backup = server.backup();
      for (const mark of (await browser.bookmarks.getChildren(folder)).slice(0, 6)) await browser.bookmarks.remove(mark.id);
      expect(await browser.sync()).toMatchObject({ ok: false, message: "Sync would delete 6 links from linkshelf (into its trash): Apply or Put them back." });
      browser.env = server.restore(backup);
      expect(await browser.sync()).toMatchObject({ ok: true, items: 12 });
      expect((await loadSync(browser.storage)).prompt).toBeNull();
      expect(await browser.tree()).toHaveLength(12);
      expect(await serverTree(server.env, alice, reading.id)).toEqual(await browser.tree());
    });
  });

  it("an idle sync is one request; the favorites folder is never synced", async () => {
    const { env, alice, reading, browser, folder } = await setup();
    browser.bookmarks.add(folder, "A", "https://a.example/");
    const pins = browser.bookmarks.add(folder, "linkshelf");
    browser.bookmarks.add(pins, "Pinned", "http://localhost/l/1");
    await browser.storage.set({ folderId: pins });
    await browser.sync();
    await browser.sync();
    const before = browser.sent.length;
    expect(await browser.sync()).toMatchObject({ ok: true, message: "Up to date." });
    expect(browser.sent.slice(before)).toEqual(["GET /api/v1/changes"]);
    expect(await serverTree(env, alice, reading.id)).toEqual(["A https://a.example/"]);
  });

  it("the background script starts in Firefox, which has no bookmarks.onChildrenReordered event", async () => {
    const out = testDir("sync-background");
    await buildExtension(out);
    const code = readFileSync(join(out, "firefox", "background.js"), "utf8");
    // A browser object answering every name with a stub, except the event Firefox lacks; listeners are noted by path.
    const listeners: string[] = [];
    const missing = new Set(["browser.bookmarks.onChildrenReordered"]);
    const api = (path: string[]): unknown => new Proxy(function stub() {}, {
      get(_target, property) {
        if (typeof property === "symbol" || property === "then") return undefined;
        if (property === "addListener") return () => void listeners.push(path.join("."));
        const next = [...path, property];
        if (next.join(".") === "browser.runtime.getURL") return (file: string) => `moz-extension://test/${file}`;
        return missing.has(next.join(".")) ? undefined : api(next);
      },
      apply: () => Promise.resolve(api([...path, "()"])),
    });
    runInNewContext(code, { browser: api(["browser"]), console, setTimeout, clearTimeout, URL, URLSearchParams, crypto, fetch, TextEncoder, TextDecoder });
    // Every listener registered at the top level, so an install opens the options page and the bookmark events start syncs.
    expect(listeners).toEqual(expect.arrayContaining(["browser.runtime.onInstalled", "browser.runtime.onMessage", "browser.alarms.onAlarm", "browser.bookmarks.onCreated", "browser.bookmarks.onMoved", "browser.bookmarks.onRemoved"]));
  });
});
