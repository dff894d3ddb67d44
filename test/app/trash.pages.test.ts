/**
 * The Trash page through `app.handle`: only the user's own items, with the counts and the date
 * each goes for good; the notices of a delete pointing at it; restoring one item or the ticked
 * ones (a link with its collections, a collection deleted with its links with all of it);
 * another user's item a 404 that restores nothing; emptying only after a confirmation and only
 * the user's own trash; cross-site forms refused; paging; the wording when the trash is off.
 */
import { describe, expect, it } from "bun:test";
import { importBookmarks } from "../../src/bookmarks/plan";
import { createCollection, createLink, createUser, del, get, inboxOf, makeEnv, shelfFor, snapshot, type TestEnv } from "../support/helpers";
import { attributes, cookieFor, open, submit, texts } from "../support/html";

/** trashRows is every user's trash, row by row: what a refused form must leave as it was. */
const trashRows = (env: TestEnv) => JSON.stringify(env.db.$client.query("SELECT * FROM trash ORDER BY id").all());

/** Alice with a link in two collections and a link in her Inbox; Bob with a link he deleted. */
async function shelves() {
  const env = makeEnv();
  const alice = await createUser(env, { name: "Alice" });
  const bob = await createUser(env, { name: "Bob" });
  const reading = await createCollection(env, alice, { name: "Reading", icon: "📚" });
  const music = await createCollection(env, alice, { name: "Music", icon: "🎵" });
  const bun = await createLink(env, alice, { name: "Bun", url: "https://bun.example/", collectionIds: [reading.id, music.id] });
  const deno = await createLink(env, alice, { name: "Deno", url: "https://deno.example/" });
  const bobLink = await createLink(env, bob, { name: "Bob's link", url: "https://bob.example/" });
  expect((await del(env, `/api/v1/links/${bobLink.id}`, { token: bob.token })).status).toBe(200);
  return { env, alice, bob, cookie: cookieFor(env, alice), reading, music, bun, deno, bobLink, inbox: await inboxOf(env, alice) };
}

const linkOf = async (env: TestEnv, token: string, id: number) => (await get(env, `/api/v1/links/${id}`, { token })).body.link;

describe("the Trash page", () => {
  it("lists only the user's items, newest first, with the counts and the date each goes for good", async () => {
    const s = await shelves();
    const deleted = await submit(s.env, `/links/${s.deno.id}/delete`, { next: "/" }, s.cookie);
    expect(deleted.headers.get("location")).toBe("/?done=link-trashed");
    const home = await open(s.env, "/?done=link-trashed", s.cookie);
    expect(texts(home.text, ".notice")).toEqual(["Link moved to the Trash, where you can restore it."]);
    expect(attributes(home.text, ".notice a")).toEqual([{ href: "/trash" }]);
    const gone = await submit(s.env, `/collections/${s.reading.id}/delete`, { contents: "1" }, s.cookie);
    expect(gone.headers.get("location")).toBe("/?done=collection-trashed-all");

    const page = await open(s.env, "/trash", s.cookie);
    expect(page.status).toBe(200);
    expect(texts(page.text, "h1")).toEqual(["Trash 2 items"]);
    // Bun was in Music too: it stays on the shelf, and the collection holds no link of its own.
    expect(texts(page.text, "main p")).toContain("They hold 1 link and 1 collection.");
    expect(texts(page.text, ".links .title")).toEqual(["Reading", "Deno"]);
    expect(texts(page.text, ".links .badge")).toEqual(["collection", "link"]);
    expect(texts(page.text, ".links .meta")).toEqual([
      "Deleted Nov 22, 2026 · goes for good on Dec 22, 2026", "Deleted Nov 22, 2026 · goes for good on Dec 22, 2026",
    ]);
    expect(attributes(page.text, ".links .meta time").map((time) => time.datetime)).toEqual([
      expect.stringMatching(/^2026-11-22T/), expect.stringMatching(/^2026-12-22T/), expect.stringMatching(/^2026-11-22T/), expect.stringMatching(/^2026-12-22T/),
    ]);
    expect(texts(page.text, ".links .description")).toEqual(["Comes back by itself; its links and sub-collections still on the shelf go back into it."]);
    expect(texts(page.text, "main .hint")).toEqual(["Deleted links and collections stay here for 30 days, then go for good. Restoring one puts it back where it was."]);
    expect(page.text).not.toContain("Bob's link");
    expect(texts(page.text, '.top nav a[href="/trash"]')).toEqual(["Trash 2"]);
    expect(attributes(page.text, "button[aria-label]").map((button) => button["aria-label"])).toEqual(["Restore Reading", "Restore Deno"]);
    expect(attributes(page.text, "input.pick").map((box) => ({ form: box.form, value: box.value, label: box["aria-label"] }))).toEqual([
      { form: "restore-chosen", value: `collection:${s.reading.id}`, label: "Select Reading" },
      { form: "restore-chosen", value: `link:${s.deno.id}`, label: "Select Deno" },
    ]);

    const bobs = await open(s.env, "/trash", cookieFor(s.env, s.bob));
    expect(texts(bobs.text, ".links .title")).toEqual(["Bob's link"]);
  });

  it("restores a link with its collections, and says so", async () => {
    const s = await shelves();
    await submit(s.env, `/links/${s.bun.id}/delete`, {}, s.cookie);
    expect((await get(s.env, `/api/v1/links/${s.bun.id}`, { token: s.alice.token })).status).toBe(404);
    const restored = await submit(s.env, "/trash/restore", { item: `link:${s.bun.id}` }, s.cookie);
    expect(restored.status).toBe(303);
    expect(restored.headers.get("location")).toBe("/trash?done=trash-restored");
    expect(await linkOf(s.env, s.alice.token, s.bun.id)).toMatchObject({ name: "Bun", collectionIds: [s.reading.id, s.music.id] });
    const page = await open(s.env, "/trash?done=trash-restored", s.cookie);
    expect(texts(page.text, ".notice")[0]).toStartWith("Restored: each item is back where it was");
    expect(texts(page.text, ".empty")).toEqual(["The trash is empty."]);
    expect(texts(page.text, '.top nav a[href="/trash"]')).toEqual(["Trash"]);
  });

  it("takes a collection's subtree with 'Delete with its links', and brings all of it back with the ticked items", async () => {
    const s = await shelves();
    const home = await createCollection(s.env, s.alice, { name: "Home", parentId: s.reading.id });
    const lone = await createLink(s.env, s.alice, { name: "Lone", url: "https://lone.example/", collectionIds: [home.id] });
    const tapes = await createCollection(s.env, s.alice, { name: "Tapes" });
    await createCollection(s.env, s.alice, { name: "Records", parentId: tapes.id });
    await submit(s.env, `/collections/${tapes.id}/delete`, { contents: "1" }, s.cookie);
    const confirm = await open(s.env, `/collections/${s.reading.id}/delete`, s.cookie);
    expect(attributes(confirm.text, "button[name=contents]")).toEqual([{ type: "submit", class: "danger", name: "contents", value: "1" }]);
    await submit(s.env, `/collections/${s.reading.id}/delete`, { contents: "1" }, s.cookie);
    await submit(s.env, `/links/${s.deno.id}/delete`, {}, s.cookie);
    for (const path of [`/api/v1/collections/${s.reading.id}`, `/api/v1/collections/${home.id}`, `/api/v1/links/${lone.id}`]) {
      expect({ path, status: (await get(s.env, path, { token: s.alice.token })).status }).toEqual({ path, status: 404 });
    }
    expect((await linkOf(s.env, s.alice.token, s.bun.id)).collectionIds).toEqual([s.music.id]);

    const page = await open(s.env, "/trash", s.cookie);
    expect(texts(page.text, ".links .description")).toEqual(["Comes back with 1 sub-collection and 1 link.", "Comes back with 1 sub-collection."]);
    expect(texts(page.text, "main p")).toContain("They hold 2 links and 4 collections.");
    expect(attributes(page.text, "form#restore-chosen")).toEqual([{ id: "restore-chosen", method: "post", action: "/trash/restore", class: "form-actions" }]);

    const restored = await submit(s.env, "/trash/restore", { item: [`collection:${s.reading.id}`, `link:${s.deno.id}`] }, s.cookie);
    expect(restored.headers.get("location")).toBe("/trash?done=trash-restored");
    expect((await get(s.env, `/api/v1/collections/${home.id}`, { token: s.alice.token })).body.collection).toMatchObject({ name: "Home", parentId: s.reading.id });
    expect((await linkOf(s.env, s.alice.token, lone.id)).collectionIds).toEqual([home.id]);
    expect((await linkOf(s.env, s.alice.token, s.bun.id)).collectionIds).toEqual([s.reading.id, s.music.id]);
    expect((await linkOf(s.env, s.alice.token, s.deno.id)).collectionIds).toEqual([s.inbox]);
    expect(texts((await open(s.env, "/trash", s.cookie)).text, ".links .title")).toEqual(["Tapes"]);
  });

  it("answers 404 for another user's item, an unknown one or a malformed one, and restores nothing", async () => {
    const s = await shelves();
    await submit(s.env, `/links/${s.deno.id}/delete`, {}, s.cookie);
    for (const item of [`link:${s.bobLink.id}`, [`link:${s.deno.id}`, `link:${s.bobLink.id}`], "collection:999", "link:0", "note:1", `link:${s.deno.id}x`]) {
      const before = snapshot(s.env);
      const trash = trashRows(s.env);
      const response = await submit(s.env, "/trash/restore", { item }, s.cookie);
      expect({ item, status: response.status }).toEqual({ item, status: 404 });
      expect(snapshot(s.env)).toBe(before);
      expect(trashRows(s.env)).toBe(trash);
    }
    const none = await submit(s.env, "/trash/restore", {}, s.cookie);
    expect(none.headers.get("location")).toBe("/trash?done=trash-nothing-chosen");
    expect(texts((await open(s.env, "/trash", cookieFor(s.env, s.bob))).text, ".links .title")).toEqual(["Bob's link"]);
  });

  it("empties only after a confirmation, and only the user's own trash", async () => {
    const s = await shelves();
    await submit(s.env, `/links/${s.deno.id}/delete`, {}, s.cookie);
    await submit(s.env, `/collections/${s.reading.id}/delete`, {}, s.cookie);
    const page = await open(s.env, "/trash", s.cookie);
    expect(attributes(page.text, 'a[href="/trash/empty"]')).toEqual([{ class: "button secondary", href: "/trash/empty" }]);
    expect(attributes(page.text, 'form[action="/trash/empty"]')).toEqual([]);

    const trash = trashRows(s.env);
    const confirm = await open(s.env, "/trash/empty", s.cookie);
    expect(texts(confirm.text, "h1")).toEqual(["Empty the trash?"]);
    expect(texts(confirm.text, "main p")[0]).toBe("Everything in it is deleted for good: 2 items, holding 1 link and 1 collection. This cannot be undone.");
    expect(attributes(confirm.text, "main form")).toEqual([{ method: "post", action: "/trash/empty", class: "form-actions" }]);
    expect(trashRows(s.env)).toBe(trash);

    const emptied = await submit(s.env, "/trash/empty", {}, s.cookie);
    expect(emptied.headers.get("location")).toBe("/trash?done=trash-emptied");
    const after = await open(s.env, "/trash?done=trash-emptied", s.cookie);
    expect(texts(after.text, ".notice")).toEqual(["Trash emptied: what it held is deleted for good."]);
    expect(texts(after.text, "h1")).toEqual(["Trash 0 items"]);
    expect(attributes(after.text, 'a[href="/trash/empty"]')).toEqual([]);
    expect(texts((await open(s.env, "/trash/empty", s.cookie)).text, "main p")[0]).toBe("The trash is empty.");
    expect(texts((await open(s.env, "/trash", cookieFor(s.env, s.bob))).text, ".links .title")).toEqual(["Bob's link"]);
  });

  it("refuses its forms from another site, changing nothing", async () => {
    const s = await shelves();
    await submit(s.env, `/links/${s.deno.id}/delete`, {}, s.cookie);
    for (const [path, fields] of [["/trash/restore", { item: `link:${s.deno.id}` }], ["/trash/empty", {}]] as const) {
      const before = snapshot(s.env);
      const trash = trashRows(s.env);
      const response = await submit(s.env, path, fields, s.cookie, "https://evil.example");
      expect({ path, status: response.status }).toEqual({ path, status: 403 });
      expect(snapshot(s.env)).toBe(before);
      expect(trashRows(s.env)).toBe(trash);
    }
  });

  it("pages through a long trash", async () => {
    const s = await shelves();
    for (let i = 0; i < 52; i++) {
      const link = await createLink(s.env, s.alice, { name: `Link ${i}`, url: `https://${i}.example/` });
      await del(s.env, `/api/v1/links/${link.id}`, { token: s.alice.token });
    }
    const first = await open(s.env, "/trash", s.cookie);
    expect(texts(first.text, "h1")).toEqual(["Trash 52 items"]);
    expect(texts(first.text, ".links .title")).toHaveLength(50);
    expect(texts(first.text, ".links .title")[0]).toBe("Link 51");
    const [next] = attributes(first.text, ".pager a[rel=next]");
    expect(next!.href).toStartWith("/trash?cursor=");
    const second = await open(s.env, next!.href!, s.cookie);
    expect(texts(second.text, ".links .title")).toEqual(["Link 1", "Link 0"]);
    expect(attributes(second.text, ".pager a").map((link) => link.href)).toEqual(["/trash"]);
    expect((await open(s.env, "/trash?cursor=nonsense", s.cookie)).status).toBe(422);
  });
});

describe("with the trash off", () => {
  it("says deletes are immediate, and the delete notices do not mention the trash", async () => {
    const env = makeEnv({ LINKSHELF_TRASH_DAYS: "0" });
    const alice = await createUser(env);
    const cookie = cookieFor(env, alice);
    const link = await createLink(env, alice, { name: "Gone" });
    const collection = await createCollection(env, alice, { name: "Gone too" });
    expect(texts((await open(env, `/links/${link.id}/delete`, cookie)).text, "main p")).toContain("It leaves every collection, with its 0 clicks. This cannot be undone.");
    expect((await submit(env, `/links/${link.id}/delete`, { next: "/" }, cookie)).headers.get("location")).toBe("/?done=link-deleted");
    expect((await submit(env, `/collections/${collection.id}/delete`, { contents: "1" }, cookie)).headers.get("location")).toBe("/?done=collection-deleted-all");
    const page = await open(env, "/trash", cookie);
    expect(texts(page.text, "main .hint")).toEqual(["The trash is off (LINKSHELF_TRASH_DAYS=0): deleting a link or a collection deletes it at once."]);
    expect(texts(page.text, ".empty")).toEqual(["The trash is empty."]);
    expect(trashRows(env)).toBe("[]");
  });
});

describe("an undone import in the trash", () => {
  it("shows an undone import as one item, and its Restore brings all of it back with the import standing again", async () => {
    const s = await shelves();
    const lines = Array.from({ length: 60 }, (_, n) => `<DT><A HREF="https://imported.example/${n}">Imported ${n}</A>`).join("\n");
    const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Folder</H3>\n<DL><p>\n${lines}\n</DL><p>\n</DL><p>\n`;
    const { importId } = await importBookmarks(shelfFor(s.env, s.alice), file, s.env.clock.now++, { record: { source: "page", fileName: "bookmarks.html" } });
    const undone = await submit(s.env, `/imports/${importId}/undo`, {}, s.cookie);
    expect(undone.status).toBe(303);
    const page = await open(s.env, "/trash", s.cookie);
    expect(texts(page.text, ".links .title")).toEqual(["Import of bookmarks.html (60 links, 1 collection)"]);
    expect(texts(page.text, ".links .description")).toEqual(["An undone import: restoring it brings back 60 links and 1 collection, and the import stands again."]);
    expect(attributes(page.text, "input.pick").map((box) => box.value)).toEqual([`import:${importId}`]);
    const restored = await submit(s.env, "/trash/restore", { item: `import:${importId}` }, s.cookie);
    expect(restored.headers.get("location")).toBe("/trash?done=trash-restored");
    expect(shelfFor(s.env, s.alice).links.urls().filter((url) => url.startsWith("https://imported.example/"))).toHaveLength(60);
    expect(shelfFor(s.env, s.alice).imports.get(importId!)).toMatchObject({ undoneAt: null });
    expect(texts((await open(s.env, "/trash", s.cookie)).text, ".empty")).toEqual(["The trash is empty."]);
  });
});
