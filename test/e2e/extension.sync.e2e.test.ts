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
import { cleanEnv, runBinary, startServer, type RunningServer } from "../support/binary";
import { grantLoopback, launchWithExtension, type ChromeApi } from "../support/extension.chromium";
import { EMAIL, PASSWORD, stackForFile, waitUntil } from "../support/extension.stack";
import { both, bothWays, browserTree, chromiumSignedIn, ChromiumSync, CHROMIUM_OTHER as OTHER, idsGivenAgain, keptAfterRestore, newFolder, OwnServer, statusWith, syncUntil } from "../support/extension.sync.scenario";
import { bookmarkCall, childId, expectStatus, SyncApi } from "../support/extension.sync.server";
import { CHROMIUM, requireProgram } from "../support/programs";

declare const chrome: ChromeApi;

const TIMEOUT_MS = 150_000;
const present = requireProgram(CHROMIUM);
const running = stackForFile(present, TIMEOUT_MS);

describe.skipIf(!present)("the folder sync in Chromium", () => {
  it("syncs a folder with a collection: a union first, then creates, renames, moves, reorders and deletes both ways", async () => {
    const { stack } = running;
    const { driver, token } = await chromiumSignedIn(running, "chromium-sync");
    await bothWays(driver, new SyncApi(stack.server.origin, token), (name) => `${stack.siteOrigin}/${name}`);
  }, TIMEOUT_MS);

  it("asks before deleting many, in the options page and the popup: nothing deleted until Apply; Put them back brings them back", async () => {
    const { stack } = running;
    const { driver, token } = await chromiumSignedIn(running, "chromium-failsafe");
    const { context, id, worker, options } = driver;
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
    const { folderId, collectionId } = await worker.evaluate(async () => (await chrome.storage.local.get(["syncConfig"])).syncConfig as { folderId: string; collectionId: number });
    expect(await driver.run<{ title: string; parentId: string }[]>(bookmarkCall("get", folderId))).toMatchObject([{ title: "linkshelf", parentId: OTHER }]);
    expect((await api.under(collectionId))[0]!.name).toBe("linkshelf");

    // Fifteen bookmarks, synced.
    for (let n = 0; n < 15; n++) await driver.run(bookmarkCall("create", { parentId: folderId, title: `M${n}`, url: site(`m${n}`) }));
    // What this test sent to the trash (the stack's user is shared with the file's other tests).
    const trashedMarks = async () => (await api.trash()).filter((item) => /^link M\d+$/.test(item)).sort();
    const fifteen = Array.from({ length: 15 }, (_, n) => `M${n} ${site(`m${n}`)}`);
    await syncUntil(driver, api, folderId, collectionId, fifteen, "fifteen bookmarks on the server");

    // Four of fifteen deleted on the server (more than a fifth): the sync asks instead of deleting them from the browser.
    const links = (await api.under(collectionId))[0]!.links.filter((link) => ["M0", "M1", "M2", "M3"].includes(link.name));
    await api.call("POST", "/api/v1/links/bulk", { action: "delete", ids: links.map((link) => link.id) });
    await options.click("#sync-now");
    await options.waitForSelector("#sync-prompt:not([hidden])");
    expect(await options.textContent("#sync-prompt-message")).toBe("Sync would delete 4 bookmarks from the browser:");
    // The question names what would go, once, in one box; the status line only says it waits.
    expect(await options.$$eval("#sync-prompt-names li", (items) => items.map((item) => item.textContent))).toEqual(["M0", "M1", "M2", "M3"]);
    expect(await options.isHidden("#sync-prompt-more")).toBe(true);
    expect(await driver.status()).toMatch(/^Last sync .+: 15 items\. Waiting for your answer: Apply or Put them back\.$/);
    expect(await options.$$eval("*", (all) => all.filter((element) => /Sync would delete/.test(element.textContent ?? "") && element.children.length === 0).length)).toBe(1);
    const popup = await context.newPage();
    await popup.setViewportSize({ width: 400, height: 1160 });
    await popup.goto(`chrome-extension://${id}/popup.html`);
    await popup.waitForSelector("#sync-prompt:not([hidden])");
    expect(await popup.textContent("#sync-prompt-message")).toBe("Sync would delete 4 bookmarks from the browser:");
    expect(await popup.$$eval("#sync-prompt-names li", (items) => items.map((item) => item.textContent))).toEqual(["M0", "M1", "M2", "M3"]);
    expect(await popup.textContent("#sync-status")).toMatch(/Waiting for your answer: Apply or Put them back\.$/);
    // At the top of the popup and of the options page, above the save form and the settings.
    const top = async (page: typeof popup, selector: string) => (await (await page.$(selector))!.boundingBox())?.y ?? Number.NaN;
    expect(await top(popup, "#sync-prompt")).toBeLessThan(100);
    expect(await top(options, "#sync-prompt")).toBeLessThan(await top(options, "#server-form"));
    // Asked again, it still deletes nothing.
    await options.click("#sync-now");
    await Bun.sleep(500);
    await waitUntil(() => driver.status(), (line) => line.endsWith("Waiting for your answer: Apply or Put them back."), "the question after another sync");
    expect(await browserTree(driver, folderId)).toEqual(fifteen);

    // Apply, from the popup: they go.
    await popup.click("#sync-apply");
    const eleven = fifteen.slice(4);
    await both(driver, api, folderId, collectionId, eleven, "the deletes applied");
    await popup.waitForSelector("#sync-prompt", { state: "hidden" });
    await options.waitForSelector("#sync-prompt", { state: "hidden" });
    expect(await trashedMarks()).toEqual(["link M0", "link M1", "link M2", "link M3"]);

    // Three of eleven deleted in the browser: asked again, the links stay on the server meanwhile.
    for (const title of ["M4", "M5", "M6"]) await driver.run(bookmarkCall("remove", await driver.run<string>(childId(folderId, title))));
    await options.click("#sync-now");
    await options.waitForSelector("#sync-prompt:not([hidden])");
    expect(await options.textContent("#sync-prompt-message")).toBe("Sync would delete 3 links from linkshelf (into its trash):");
    await popup.waitForSelector("#sync-prompt:not([hidden])");
    expect(await popup.textContent("#sync-prompt-message")).toBe("Sync would delete 3 links from linkshelf (into its trash):");
    expect(await api.tree(collectionId)).toEqual(eleven);
    expect(await trashedMarks()).toEqual(["link M0", "link M1", "link M2", "link M3"]);

    // Put them back, from the options page: the server gives them back to the browser.
    await options.click("#sync-put-back");
    await both(driver, api, folderId, collectionId, eleven, "the bookmarks put back");
    await options.waitForSelector("#sync-prompt", { state: "hidden" });
    await popup.waitForSelector("#sync-prompt", { state: "hidden" });
    expect(await trashedMarks()).toEqual(["link M0", "link M1", "link M2", "link M3"]);
  }, TIMEOUT_MS);

  it("after the server is restored from a backup (linkshelf backup, stop, linkshelf restore, start): bookmarks added since stay and are sent back, and ids given again overwrite nothing", async () => {
    const { stack } = running;
    const own = await OwnServer.start(stack, "restored");
    try {
      const { context, worker, id, options } = await launchWithExtension(stack, "chromium-restored");
      running.closeAfter(() => context.close());
      await grantLoopback(context, id, options);
      await worker.evaluate(([server, token]) => chrome.storage.local.set({ server, token }), [own.origin, own.token]);
      const driver = new ChromiumSync(context, worker, id, options);
      const site = (name: string) => `${stack.siteOrigin}/${name}`;
      await keptAfterRestore(driver, own, site);
      await options.click("#sync-stop");
      await idsGivenAgain(driver, own, site);
    } finally {
      await own.stop();
    }
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
      const driver = new ChromiumSync(context, worker, id, options);
      const api = new SyncApi(origin, token);
      const site = (name: string) => `${stack.siteOrigin}/${name}`;
      const folder = await newFolder(driver, OTHER, "Offline", [["A", site("a")]]);
      const collection = await api.createCollection("Offline");
      await driver.startSyncing(folder, collection);
      await both(driver, api, folder, collection, ["A " + site("a")], "the first sync");

      await server.stop();
      await driver.run(bookmarkCall("create", { parentId: folder, title: "B", url: site("b") }));
      const sub = (await driver.run<{ id: string }>(bookmarkCall("create", { parentId: folder, title: "Sub" }))).id;
      await driver.run(bookmarkCall("create", { parentId: sub, title: "C", url: site("c") }));
      await driver.run(bookmarkCall("update", await driver.run<string>(childId(folder, "A")), { title: "A offline" }));
      await driver.syncNow();
      const down = await waitUntil(() => driver.status(), (line) => line.includes("Changes made here are kept"), "the status while the server is down");
      // The last successful sync's time and items, then the problem with its own time.
      expectStatus(down, 1, new RegExp(`^Problem at .+: Cannot reach ${origin.replaceAll(".", "\\.")}\\. .*Changes made here are kept and sent when it answers\\.$`));
      const offline = ["A offline " + site("a"), "B " + site("b"), "Sub/", "  C " + site("c")];
      expect(await browserTree(driver, folder)).toEqual(offline);

      server = await startServer(stack.binary, { cwd: stack.root, dataDir, port });
      expect(server.origin).toBe(origin);
      await syncUntil(driver, api, folder, collection, offline, "the changes sent");
      await statusWith(driver, 4, /^(Synced: .*|Up to date\.)$/);
    } finally {
      await server.stop();
    }
  }, TIMEOUT_MS);
});
