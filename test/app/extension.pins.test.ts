import { describe, expect, it } from "bun:test";
import { BROKEN_MARK, FOLDER_TITLE, findBookmarksBar, syncFavorites } from "../../extension/src/pins";
import { recordCheck } from "../../src/shelf/link-checks";
import { loadState, saveSignIn } from "../../extension/src/state";
import type { BookmarkNode } from "../../extension/src/webext";
import { APP_ORIGIN, FakeBookmarks, FakeStorage, appFetch } from "../support/extension.fakes";
import { createLink, createUser, get, makeEnv, put, shelfFor, type TestEnv, type TestUser } from "../support/helpers";

interface Setup {
  env: TestEnv;
  alice: TestUser;
  bookmarks: FakeBookmarks;
  storage: FakeStorage;
  sync: () => ReturnType<typeof syncFavorites>;
  /** The pinned folder's children as `title url` lines. */
  pinned: () => Promise<string[]>;
}

async function setUp(env = makeEnv()): Promise<Setup> {
  const alice = await createUser(env);
  const bookmarks = new FakeBookmarks();
  const storage = new FakeStorage();
  await saveSignIn(storage, APP_ORIGIN, alice.token);
  return {
    env,
    alice,
    bookmarks,
    storage,
    sync: () => syncFavorites({ bookmarks, storage, fetch: appFetch(env), now: () => env.clock.now }),
    pinned: async () => bookmarks.titles((await loadState(storage)).folderId!),
  };
}

/** without is the bookmarks tree with one node (and what it holds) left out. */
function without(nodes: BookmarkNode[], id: string): BookmarkNode[] {
  return nodes.filter((node) => node.id !== id).map((node) => (node.children ? { ...node, children: without(node.children, id) } : node));
}

const click = (s: Setup, id: number, times = 1) => Promise.all(Array.from({ length: times }, () => get(s.env, `/l/${id}`, { token: s.alice.token })));

describe("pinning favorites to the bookmarks bar", () => {
  it("creates a linkshelf folder on the bar holding the favorites, most clicked first, each through /l/:id", async () => {
    const s = await setUp();
    const a = await createLink(s.env, s.alice, { name: "A", url: "https://a.example/", favorite: true });
    const b = await createLink(s.env, s.alice, { name: "B", url: "https://b.example/", favorite: true });
    await createLink(s.env, s.alice, { name: "Not a favorite", url: "https://c.example/", favorite: false });
    await click(s, b.id, 2);

    const outcome = await s.sync();
    expect(outcome.lastSync).toEqual({ at: s.env.clock.now, ok: true, message: "2 favorites pinned to the bookmarks bar." });
    expect(s.bookmarks.titles("1")).toEqual([`${FOLDER_TITLE}/`]);
    expect(await s.pinned()).toEqual([`B ${APP_ORIGIN}/l/${b.id}`, `A ${APP_ORIGIN}/l/${a.id}`]);
    expect((await s.storage.get(["lastSync"])).lastSync).toEqual(outcome.lastSync);
  });

  it("follows the clicks with the fewest changes, and changes nothing when nothing changed", async () => {
    const s = await setUp();
    const links = [];
    for (const name of ["A", "B", "C", "D"]) links.push(await createLink(s.env, s.alice, { name, url: `https://${name}.example/`, favorite: true }));
    await s.sync();
    expect((await s.pinned()).map((line) => line[0])).toEqual(["A", "B", "C", "D"]);

    s.bookmarks.calls.length = 0;
    expect((await s.sync()).ops).toEqual([]);
    expect(s.bookmarks.calls).toEqual([]);

    await click(s, links[3]!.id, 3);
    await click(s, links[2]!.id, 1);
    const outcome = await s.sync();
    expect(outcome.ops.map((op) => op.type)).toEqual(["move", "move"]);
    expect((await s.pinned()).map((line) => line[0])).toEqual(["D", "C", "A", "B"]);
  });

  it("pins only the configured count and follows renames and unfavorites", async () => {
    const s = await setUp();
    const links = [];
    for (const name of ["A", "B", "C"]) links.push(await createLink(s.env, s.alice, { name, url: `https://${name}.example/`, favorite: true }));
    await s.storage.set({ pinCount: 2 });
    await s.sync();
    expect((await s.pinned()).map((line) => line[0])).toEqual(["A", "B"]);

    await put(s.env, `/api/v1/links/${links[0]!.id}`, { token: s.alice.token, body: { name: "A renamed", url: "https://A.example/", favorite: true, collectionIds: [] } });
    await put(s.env, `/api/v1/links/${links[1]!.id}`, { token: s.alice.token, body: { name: "B", url: "https://B.example/", favorite: false, collectionIds: [] } });
    const outcome = await s.sync();
    expect(outcome.ops.map((op) => op.type).sort()).toEqual(["create", "remove", "rename"]);
    expect(await s.pinned()).toEqual([`A renamed ${APP_ORIGIN}/l/${links[0]!.id}`, `C ${APP_ORIGIN}/l/${links[2]!.id}`]);
  });

  it("never touches the user's other bookmarks, and keeps using its folder after the user renames it", async () => {
    const s = await setUp();
    s.bookmarks.add("1", "News", "https://news.example/");
    const mine = s.bookmarks.add("1", "My folder");
    s.bookmarks.add(mine, "Inside", `${APP_ORIGIN}/l/1`);
    s.bookmarks.add("2", "Elsewhere", `${APP_ORIGIN}/l/1`);
    const before = JSON.stringify(await s.bookmarks.getTree());
    await s.sync();
    const folderId = (await loadState(s.storage)).folderId!;
    expect(JSON.stringify(without(await s.bookmarks.getTree(), folderId))).toBe(before);

    const link = await createLink(s.env, s.alice, { name: "A", url: "https://a.example/", favorite: true });
    await s.bookmarks.update(folderId, { title: "Pinned" });
    await s.sync();
    expect(s.bookmarks.titles("1")).toEqual(["News https://news.example/", "My folder/", "Pinned/"]);
    expect(s.bookmarks.titles(folderId)).toEqual([`A ${APP_ORIGIN}/l/${link.id}`]);
    expect(s.bookmarks.titles(mine)).toEqual([`Inside ${APP_ORIGIN}/l/1`]);
    expect(s.bookmarks.titles("2")).toEqual([`Elsewhere ${APP_ORIGIN}/l/1`]);
  });

  it("adopts a linkshelf folder already on the bar, and makes a new one when its folder was deleted", async () => {
    const s = await setUp();
    const existing = s.bookmarks.add("1", FOLDER_TITLE);
    await s.sync();
    expect((await loadState(s.storage)).folderId).toBe(existing);

    await s.bookmarks.removeTree(existing);
    await createLink(s.env, s.alice, { name: "A", url: "https://a.example/", favorite: true });
    await s.sync();
    const folderId = (await loadState(s.storage)).folderId!;
    expect(folderId).not.toBe(existing);
    expect(s.bookmarks.titles("1")).toEqual([`${FOLDER_TITLE}/`]);
    expect((await s.pinned()).length).toBe(1);
  });

  it("signs out when the token was revoked, keeping the reason for the options page", async () => {
    const s = await setUp();
    await createLink(s.env, s.alice, { name: "A", url: "https://a.example/", favorite: true });
    await s.sync();
    s.env.db.$client.run("DELETE FROM api_tokens");
    const outcome = await s.sync();
    expect(outcome.lastSync.ok).toBe(false);
    const state = await loadState(s.storage);
    expect(state.token).toBeNull();
    expect(state.server).toBe(APP_ORIGIN);
    expect(state.signedOutReason).toContain("Sign in again");
    // The folder is left as it was: its bookmarks still open the links.
    expect((await s.pinned()).length).toBe(1);
  });

  it("hands back the server's Retry-After when rate limited, and changes no bookmark", async () => {
    const s = await setUp(makeEnv({ LINKSHELF_RATE_LIMIT: "1/60" }));
    await s.sync();
    s.bookmarks.calls.length = 0;
    const outcome = await s.sync();
    expect(outcome.retryAfterSeconds).toBeGreaterThan(0);
    expect(outcome.lastSync.message).toBe(`Too many requests for now. Try again in ${outcome.retryAfterSeconds} s.`);
    expect(s.bookmarks.calls).toEqual([]);
  });

  it("does nothing to the bookmarks before sign-in", async () => {
    const bookmarks = new FakeBookmarks();
    const storage = new FakeStorage();
    const outcome = await syncFavorites({ bookmarks, storage, fetch: (() => Promise.reject(new Error("no request expected"))) as unknown as typeof fetch });
    expect(outcome.lastSync.message).toBe("Not signed in.");
    expect(bookmarks.calls).toEqual([]);
    expect(bookmarks.titles("1")).toEqual([]);
  });
});

describe("findBookmarksBar", () => {
  it("marks a pinned favorite the server calls broken with ⚠ in its title, and unmarks it when the link recovers", async () => {
    const s = await setUp();
    const a = await createLink(s.env, s.alice, { name: "A", url: "https://a.example/", favorite: true });
    const b = await createLink(s.env, s.alice, { name: "B", url: "https://b.example/", favorite: true });
    await click(s, a.id, 2);
    const rule = s.env.config.linkCheck;
    for (const day of [9, 5, 1]) recordCheck(s.env.db, b.id, { outcome: "gone", status: 404, detail: "HTTP 404" }, s.env.clock.now - day * 86_400_000, rule);
    await s.sync();
    expect(await s.pinned()).toEqual([`A ${APP_ORIGIN}/l/${a.id}`, `${BROKEN_MARK}B ${APP_ORIGIN}/l/${b.id}`]);
    expect(BROKEN_MARK).toBe("⚠ ");

    recordCheck(s.env.db, b.id, { outcome: "ok", status: 200, detail: "HTTP 200" }, s.env.clock.now, rule);
    const outcome = await s.sync();
    expect(outcome.ops.map((op) => op.type)).toEqual(["rename"]);
    expect(await s.pinned()).toEqual([`A ${APP_ORIGIN}/l/${a.id}`, `B ${APP_ORIGIN}/l/${b.id}`]);
  });

  it("a broken favorite with a page copy opens the copy, its title saying of which day; recovered, the link again", async () => {
    const s = await setUp();
    const a = await createLink(s.env, s.alice, { name: "A", url: "https://a.example/", favorite: true });
    const rule = s.env.config.linkCheck;
    shelfFor(s.env, s.alice).copies.save(a.id, new TextEncoder().encode("<p>kept</p>"), Date.parse("2026-05-03T10:00:00Z"));
    await s.sync();
    expect(await s.pinned()).toEqual([`A ${APP_ORIGIN}/l/${a.id}`]);
    for (const day of [9, 5, 1]) recordCheck(s.env.db, a.id, { outcome: "gone", status: 404, detail: "HTTP 404" }, s.env.clock.now - day * 86_400_000, rule);
    await s.sync();
    expect(await s.pinned()).toEqual([`${BROKEN_MARK}A (the copy of 3 May 2026) ${APP_ORIGIN}/links/${a.id}/copy`]);
    recordCheck(s.env.db, a.id, { outcome: "ok", status: 200, detail: "HTTP 200" }, s.env.clock.now, rule);
    await s.sync();
    expect(await s.pinned()).toEqual([`A ${APP_ORIGIN}/l/${a.id}`]);
  });

  it("marks nothing, and still pins, when the server is older than the link checker (its health list is a 404)", async () => {
    const s = await setUp();
    const a = await createLink(s.env, s.alice, { name: "A", url: "https://a.example/", favorite: true });
    recordCheck(s.env.db, a.id, { outcome: "gone", status: 404, detail: "HTTP 404" }, s.env.clock.now, { ...s.env.config.linkCheck, confirmFailures: 1, confirmSpanMs: 0 });
    const server = appFetch(s.env);
    const older = ((input: string | Request | URL, init?: RequestInit) => new URL(String(input instanceof Request ? input.url : input)).pathname === "/api/v1/links/health"
      ? Promise.resolve(Response.json({ message: "There is nothing here.", code: "NOT_FOUND" }, { status: 404 }))
      : server(input, init)) as typeof fetch;
    const outcome = await syncFavorites({ bookmarks: s.bookmarks, storage: s.storage, fetch: older, now: () => s.env.clock.now });
    expect(outcome.lastSync.ok).toBe(true);
    expect(await s.pinned()).toEqual([`A ${APP_ORIGIN}/l/${a.id}`]);
    await s.sync();
    expect(await s.pinned()).toEqual([`${BROKEN_MARK}A ${APP_ORIGIN}/l/${a.id}`]);
  });

  it("finds Chromium's and Firefox's bookmarks bar", () => {
    expect(findBookmarksBar([{ id: "0", title: "", children: [{ id: "2", title: "Other", folderType: "other" }, { id: "1", title: "Bar", folderType: "bookmarks-bar" }] }]).id).toBe("1");
    const firefox = [{ id: "root________", title: "", children: [{ id: "menu________", title: "Menu" }, { id: "toolbar_____", title: "Toolbar" }] }];
    expect(findBookmarksBar(firefox).id).toBe("toolbar_____");
  });
});
