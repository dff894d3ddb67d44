/**
 * The folder sync end to end in Debian's Chromium: the built extension against the compiled
 * server on 127.0.0.1, started from the options page's Sync section (`#sync-folder`,
 * `#sync-collection`, `#sync-start`), synced with `#sync-now`, its outcome read from
 * `#sync-status`, the person's bookmark edits made through `chrome.bookmarks` in the service
 * worker (the same calls, and the same events, as the browser's bookmark manager), and the
 * server read and written through the API with a token of the same user. The links point at the
 * stack's loopback site, and the server fetches nothing (cleanEnv's NO_OUTBOUND). Skipped when
 * Chromium is absent, failing under CI (see programs.ts). Firefox, and both browsers on one
 * collection, are in extension.sync.firefox.e2e.test.ts.
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import type { Page, Worker } from "playwright-core";
import { cleanEnv, runBinary, startServer, type RunningServer } from "./binary";
import { grantLoopback, launchSignedIn, launchWithExtension } from "./extension.chromium";
import { EMAIL, PASSWORD, stackForFile, waitUntil } from "./extension.stack";
import { bookmarkCall, childId, expectStatus, SyncApi, treeOf } from "./extension.sync.server";
import { CHROMIUM, requireProgram } from "./programs";

const TIMEOUT_MS = 150_000;
const present = requireProgram(CHROMIUM);
const running = stackForFile(present, TIMEOUT_MS);

/** inWorker evaluates one of extension.sync.server's expressions in the service worker and parses its JSON. */
async function inWorker<T = unknown>(worker: Worker, expression: string): Promise<T> {
  return JSON.parse(String(await worker.evaluate(expression))) as T;
}

/** Chromium's "Other bookmarks". */
const OTHER = "2";

/** newFolder makes a folder in Other bookmarks with bookmarks and sub-folders (`Name/` opens one, `..` closes it), answering its id. */
async function newFolder(worker: Worker, title: string, items: [string, string?][]): Promise<string> {
  const folder = (await inWorker<{ id: string }>(worker, bookmarkCall("create", { parentId: OTHER, title }))).id;
  const parents = [folder];
  for (const [name, url] of items) {
    if (name === "..") parents.pop();
    else if (url === undefined) parents.push((await inWorker<{ id: string }>(worker, bookmarkCall("create", { parentId: parents.at(-1), title: name }))).id);
    else await inWorker(worker, bookmarkCall("create", { parentId: parents.at(-1), title: name, url }));
  }
  return folder;
}

/** startSyncing chooses the folder and the collection on the options page (reloaded to list them) and clicks Start syncing. */
async function startSyncing(options: Page, folder: string, collection: string): Promise<void> {
  await options.reload();
  await options.waitForSelector("#sync-setup:not([hidden])");
  await options.waitForSelector(`#sync-folder option[value="${folder}"]`, { state: "attached" });
  await options.waitForSelector(`#sync-collection option[value="${collection}"]`, { state: "attached" });
  await options.selectOption("#sync-folder", folder);
  await options.selectOption("#sync-collection", collection);
  await options.click("#sync-start");
  await options.waitForSelector("#sync-running:not([hidden])");
}

/** status is the options page's sync status line. */
async function status(page: Page): Promise<string> {
  return (await page.textContent("#sync-status")) ?? "";
}

/** syncUntil clicks Sync now until `done` holds of both sides (a bookmark event's own sync may be running or come after). */
async function syncUntil(options: Page, probe: () => Promise<{ browser: string[]; server: string[] }>, expected: string[], what: string): Promise<void> {
  await options.click("#sync-now");
  await waitUntil(probe, (sides) => JSON.stringify(sides.browser) === JSON.stringify(expected) && JSON.stringify(sides.server) === JSON.stringify(expected), what);
}

describe.skipIf(!present)("the folder sync in Chromium", () => {
  it("syncs a folder with a collection: a union first, then creates, renames, moves, reorders and deletes both ways", async () => {
    const { stack } = running;
    const { worker, options, token } = await launchSignedIn(running, "chromium-sync");
    const api = new SyncApi(stack.server.origin, token);
    const site = (name: string) => `${stack.siteOrigin}/${name}`;

    // The browser's folder and the server's collection, each with what the other lacks, and B in both.
    const folder = await newFolder(worker, "Reading", [["A", site("a")], ["B in the browser", site("b")], ["Shared"], ["C", site("c")], [".."]]);
    const reading = await api.createCollection("Reading");
    await api.createLink("B on the server", site("b"), [reading]);
    await api.createLink("D", site("d"), [reading]);
    const shared = await api.createCollection("Shared", reading);
    await api.createLink("E", site("e"), [shared]);

    const sides = async () => ({ browser: JSON.parse(String(await worker.evaluate(treeOf(folder)))) as string[], server: await api.tree(reading) });
    await startSyncing(options, folder, String(reading));
    // A union: nothing deleted, B one item under the server's name, Shared one folder.
    const union = ["A " + site("a"), "B on the server " + site("b"), "D " + site("d"), "Shared/", "  C " + site("c"), "  E " + site("e")];
    await waitUntil(sides, (both) => JSON.stringify(both.browser) === JSON.stringify(union) && JSON.stringify(both.server) === JSON.stringify(union), "the first sync");
    expect(await api.trash()).toEqual([]);
    expect((await api.under(reading)).flatMap((collection) => collection.links).filter((link) => link.url === site("b"))).toHaveLength(1);
    expectStatus(await waitUntil(() => status(options), (line) => line.startsWith("Last sync"), "the status line"), 6, /^(Synced: 2 items added to the browser, 0 items removed from it, \d+ changes sent to linkshelf\.|Up to date\.)$/);

    // The browser: create, rename, move into a sub-folder, reorder.
    const a = await inWorker<string>(worker, childId(folder, "A"));
    const sharedFolder = await inWorker<string>(worker, childId(folder, "Shared"));
    const d = await inWorker<string>(worker, childId(folder, "D"));
    await inWorker(worker, bookmarkCall("create", { parentId: folder, title: "New", url: site("new") }));
    await inWorker(worker, bookmarkCall("update", a, { title: "A renamed" }));
    await inWorker(worker, bookmarkCall("move", a, { parentId: sharedFolder, index: 0 }));
    await inWorker(worker, bookmarkCall("move", d, { parentId: folder, index: 0 }));
    const edited = ["D " + site("d"), "B on the server " + site("b"), "Shared/", "  A renamed " + site("a"), "  C " + site("c"), "  E " + site("e"), "New " + site("new")];
    await syncUntil(options, sides, edited, "the browser's edits on the server");
    // A rename and a move of the same link: one link, renamed, now in Shared only.
    const aLink = await api.find(reading, "link", "A renamed");
    expect((await api.call<{ link: { collectionIds: number[] } }>("GET", `/api/v1/links/${aLink}`)).link.collectionIds).toEqual([shared]);
    expect(await api.trash()).toEqual([]);
    expectStatus(await waitUntil(() => status(options), (line) => /: 7 items\./.test(line), "the status line"), 7, /^(Synced: .*|Up to date\.)$/);

    // The browser: delete a bookmark, then a folder with what it holds.
    await inWorker(worker, bookmarkCall("remove", await inWorker<string>(worker, childId(folder, "B on the server"))));
    await inWorker(worker, bookmarkCall("removeTree", sharedFolder));
    await syncUntil(options, sides, ["D " + site("d"), "New " + site("new")], "the browser's deletes on the server");
    // The link goes to the trash, being in no other collection; the collection goes as one item with its links.
    expect(await api.trash()).toEqual(["collection Shared", "link B on the server"]);

    // The API: create a sub-collection and links, rename and readdress a link, move one into the sub-collection, reorder.
    const fromApi = await api.createCollection("From the API", reading);
    const x = await api.createLink("X", site("x"), [reading]);
    await api.createLink("Y", site("y"), [fromApi]);
    const newMark = await inWorker<string>(worker, childId(folder, "New"));
    await api.updateLink(await api.find(reading, "link", "D"), { name: "D from the API", url: site("d2") });
    await api.updateLink(await api.find(reading, "link", "New"), { collectionIds: [fromApi] });
    await api.order(reading, ["X", "From the API", "D from the API"]);
    const fromServer = ["X " + site("x"), "From the API/", "  Y " + site("y"), "  New " + site("new"), "D from the API " + site("d2")];
    await syncUntil(options, sides, fromServer, "the API's edits in the browser");
    // Moved, not deleted and made again: the bookmark is the same.
    const fromApiFolder = await inWorker<string>(worker, childId(folder, "From the API"));
    expect(await inWorker<string>(worker, childId(fromApiFolder, "New"))).toBe(newMark);

    // The API: rename the sub-collection, then delete a link and the sub-collection with its links.
    await api.renameCollection(fromApi, "Renamed on the server");
    await syncUntil(options, sides, ["X " + site("x"), "Renamed on the server/", "  Y " + site("y"), "  New " + site("new"), "D from the API " + site("d2")], "the collection's new name in the browser");
    expect(await inWorker<string>(worker, childId(folder, "Renamed on the server"))).toBe(fromApiFolder);
    await api.deleteLink(x);
    await api.deleteCollection(fromApi);
    await syncUntil(options, sides, ["D from the API " + site("d2")], "the API's deletes in the browser");
    expectStatus(await waitUntil(() => status(options), (line) => /: 1 item\./.test(line), "the status line"), 1, /^(Synced: .*|Up to date\.)$/);
    // Nothing the sync did on the server is gone for good.
    expect(await api.trash()).toEqual(["collection Renamed on the server", "link X", "collection Shared", "link B on the server"]);
  }, TIMEOUT_MS);
});
