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
import { grantLoopback, launchSignedIn, launchWithExtension, type ChromeApi } from "./extension.chromium";
import { EMAIL, PASSWORD, stackForFile, waitUntil } from "./extension.stack";
import { bookmarkCall, childId, expectStatus, SyncApi, treeOf } from "./extension.sync.server";
import { CHROMIUM, requireProgram } from "./programs";

declare const chrome: ChromeApi;

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

  it("asks before deleting many, in the options page and the popup: nothing deleted until Apply; Put them back brings them back", async () => {
    const { stack } = running;
    const { context, id, worker, options, token } = await launchSignedIn(running, "chromium-failsafe");
    const api = new SyncApi(stack.server.origin, token);
    const site = (name: string) => `${stack.siteOrigin}/${name}`;

    // A new folder "linkshelf" in Other bookmarks and a new collection named like it.
    const elsewhere = await api.createCollection("Elsewhere");
    await options.reload();
    await options.waitForSelector("#sync-setup:not([hidden])");
    await options.waitForSelector(`#sync-collection option[value="${elsewhere}"]`, { state: "attached" });
    expect(await options.$$eval("#sync-folder option", (all) => all[0]!.textContent)).toBe("A new folder “linkshelf” in Other bookmarks");
    // The collections, the Inbox left out (it holds no sub-collections).
    const collections = await options.$$eval("#sync-collection option", (all) => all.map((option) => option.textContent ?? ""));
    expect(collections[0]).toBe("A new collection named like the folder");
    expect(collections).toContain("📁 Elsewhere");
    expect(collections.filter((label) => label.includes("Inbox"))).toEqual([]);
    await options.selectOption("#sync-folder", "new");
    await options.selectOption("#sync-collection", "new");
    await options.click("#sync-start");
    await options.waitForSelector("#sync-running:not([hidden])");
    const config = await worker.evaluate(async () => (await chrome.storage.local.get(["syncConfig"])).syncConfig as { folderId: string; collectionId: number });
    expect(await inWorker<{ title: string; parentId: string }[]>(worker, bookmarkCall("get", config.folderId))).toMatchObject([{ title: "linkshelf", parentId: OTHER }]);
    expect((await api.under(config.collectionId))[0]!.name).toBe("linkshelf");
    const sides = async () => ({ browser: JSON.parse(String(await worker.evaluate(treeOf(config.folderId)))) as string[], server: await api.tree(config.collectionId) });

    // Fifteen bookmarks, synced.
    for (let n = 0; n < 15; n++) await inWorker(worker, bookmarkCall("create", { parentId: config.folderId, title: `M${n}`, url: site(`m${n}`) }));
    const fifteen = Array.from({ length: 15 }, (_, n) => `M${n} ${site(`m${n}`)}`);
    await syncUntil(options, sides, fifteen, "fifteen bookmarks on the server");

    // Four of fifteen deleted on the server (more than a fifth): the sync asks instead of deleting them from the browser.
    const links = (await api.under(config.collectionId))[0]!.links.filter((link) => ["M0", "M1", "M2", "M3"].includes(link.name));
    await api.call("POST", "/api/v1/links/bulk", { action: "delete", ids: links.map((link) => link.id) });
    await options.click("#sync-now");
    await options.waitForSelector("#sync-prompt:not([hidden])");
    expect(await options.textContent("#sync-prompt-message")).toBe("Sync would delete 4 bookmarks from the browser:");
    expect(await status(options)).toBe("Sync would delete 4 bookmarks from the browser.");
    const popup = await context.newPage();
    await popup.goto(`chrome-extension://${id}/popup.html`);
    await popup.waitForSelector("#sync-prompt:not([hidden])");
    expect(await popup.textContent("#sync-prompt-message")).toBe("Sync would delete 4 bookmarks from the browser:");
    expect(await popup.textContent("#sync-status")).toBe("Sync would delete 4 bookmarks from the browser.");
    // Asked again, it still deletes nothing.
    await options.click("#sync-now");
    await waitUntil(() => status(options), (line) => line === "Sync would delete 4 bookmarks from the browser.", "the question after another sync");
    expect((await sides()).browser).toEqual(fifteen);

    // Apply, from the popup: they go.
    await popup.click("#sync-apply");
    const eleven = fifteen.slice(4);
    await waitUntil(sides, (both) => JSON.stringify(both.browser) === JSON.stringify(eleven) && JSON.stringify(both.server) === JSON.stringify(eleven), "the deletes applied");
    await popup.waitForSelector("#sync-prompt", { state: "hidden" });
    await options.waitForSelector("#sync-prompt", { state: "hidden" });
    expect(await api.trash()).toHaveLength(4);

    // Three of eleven deleted in the browser: asked again, the links stay on the server meanwhile.
    for (const title of ["M4", "M5", "M6"]) await inWorker(worker, bookmarkCall("remove", await inWorker<string>(worker, childId(config.folderId, title))));
    await options.click("#sync-now");
    await options.waitForSelector("#sync-prompt:not([hidden])");
    expect(await options.textContent("#sync-prompt-message")).toBe("Sync would delete 3 links from linkshelf (into its trash):");
    await popup.waitForSelector("#sync-prompt:not([hidden])");
    expect(await popup.textContent("#sync-prompt-message")).toBe("Sync would delete 3 links from linkshelf (into its trash):");
    expect(await api.tree(config.collectionId)).toEqual(eleven);
    expect(await api.trash()).toHaveLength(4);

    // Put them back, from the options page: the server gives them back to the browser.
    await options.click("#sync-put-back");
    await waitUntil(sides, (both) => JSON.stringify(both.browser) === JSON.stringify(eleven) && JSON.stringify(both.server) === JSON.stringify(eleven), "the bookmarks put back");
    await options.waitForSelector("#sync-prompt", { state: "hidden" });
    await popup.waitForSelector("#sync-prompt", { state: "hidden" });
    expect(await api.trash()).toHaveLength(4);
  }, TIMEOUT_MS);

  it("keeps the changes made while the server is down, says so, and sends them once it answers at the same address", async () => {
    const { stack } = running;
    // A server of its own, stopped and started again midway.
    const dataDir = join(stack.root, "offline-data");
    const cli = { cwd: stack.root, env: cleanEnv() };
    await runBinary(stack.binary, ["user", "create", "--email", EMAIL, "--name", "Owner", "--data-dir", dataDir], { ...cli, stdin: `${PASSWORD}\n` });
    const token = (await runBinary(stack.binary, ["token", "create", "--email", EMAIL, "--data-dir", dataDir], cli)).stdout.trim();
    let server: RunningServer = await startServer(stack.binary, { cwd: stack.root, dataDir });
    const { port, origin } = server;
    try {
      const { context, worker, id, options } = await launchWithExtension(stack, "chromium-offline");
      running.closeAfter(() => context.close());
      await grantLoopback(context, id, options);
      await worker.evaluate(([server, token]) => chrome.storage.local.set({ server, token }), [origin, token]);
      const api = new SyncApi(origin, token);
      const site = (name: string) => `${stack.siteOrigin}/${name}`;
      const folder = await newFolder(worker, "Offline", [["A", site("a")]]);
      const collection = await api.createCollection("Offline");
      await startSyncing(options, folder, String(collection));
      const browserTree = async () => JSON.parse(String(await worker.evaluate(treeOf(folder)))) as string[];
      await waitUntil(() => api.tree(collection), (tree) => tree.length === 1, "the first sync");

      await server.stop();
      await inWorker(worker, bookmarkCall("create", { parentId: folder, title: "B", url: site("b") }));
      const sub = (await inWorker<{ id: string }>(worker, bookmarkCall("create", { parentId: folder, title: "Sub" }))).id;
      await inWorker(worker, bookmarkCall("create", { parentId: sub, title: "C", url: site("c") }));
      await inWorker(worker, bookmarkCall("update", await inWorker<string>(worker, childId(folder, "A")), { title: "A offline" }));
      await options.click("#sync-now");
      const down = await waitUntil(() => status(options), (line) => line.includes("Changes made here are kept"), "the status while the server is down");
      expectStatus(down, 1, new RegExp(`^Problem: Cannot reach ${origin.replaceAll(".", "\\.")}\\. .*Changes made here are kept and sent when it answers\\.$`));
      const offline = ["A offline " + site("a"), "B " + site("b"), "Sub/", "  C " + site("c")];
      expect(await browserTree()).toEqual(offline);

      server = await startServer(stack.binary, { cwd: stack.root, dataDir, port });
      expect(server.origin).toBe(origin);
      await options.click("#sync-now");
      await waitUntil(async () => ({ browser: await browserTree(), server: await api.tree(collection) }), (both) => JSON.stringify(both.browser) === JSON.stringify(offline) && JSON.stringify(both.server) === JSON.stringify(offline), "the changes sent");
      expectStatus(await waitUntil(() => status(options), (line) => /: 4 items\./.test(line), "the status after the server is back"), 4, /^(Synced: .*|Up to date\.)$/);
    } finally {
      await server.stop();
    }
  }, TIMEOUT_MS);
});
