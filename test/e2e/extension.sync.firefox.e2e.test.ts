/**
 * The folder sync end to end in Debian's firefox-esr, over WebDriver BiDi (test/support/firefox.ts): the
 * same story as in Chromium (extension.sync.scenario's bothWays), and Chromium and Firefox
 * syncing one collection, each seeing the other's changes. The person's bookmark edits are
 * `browser.bookmarks` calls on the extension's options page. Skipped when Firefox ESR (or, for
 * the second test, Chromium) is absent, failing under CI (see programs.ts).
 */
import { describe, expect, it } from "bun:test";
import { stackForFile, waitUntil } from "../support/extension.stack";
import { both, bothWays, browserTree, chromiumSignedIn, firefoxSignedIn, keptAfterRestore, newFolder, OwnServer, serverUntil, syncUntil } from "../support/extension.sync.scenario";
import { bookmarkCall, childId, SyncApi } from "../support/extension.sync.server";
import { CHROMIUM, FIREFOX, requireProgram } from "../support/programs";

const TIMEOUT_MS = 150_000;
const present = requireProgram(FIREFOX);
const chromiumPresent = requireProgram(CHROMIUM);
const running = stackForFile(present, TIMEOUT_MS);

describe.skipIf(!present)("the folder sync in Firefox", () => {
  it("syncs a folder with a collection: a union first, then creates, renames, moves, reorders and deletes both ways", async () => {
    const { stack } = running;
    const { driver, token } = await firefoxSignedIn(running, "firefox-sync");
    await bothWays(driver, new SyncApi(stack.server.origin, token), (name) => `${stack.siteOrigin}/${name}`);
  }, TIMEOUT_MS);

  it("after the server is restored from a backup (linkshelf backup, stop, linkshelf restore, start): bookmarks added since stay and are sent back", async () => {
    const { stack } = running;
    const own = await OwnServer.start(stack, "firefox-restored");
    try {
      const { driver } = await firefoxSignedIn(running, "firefox-restored");
      // The same browser, signed in to the test's own server (the loopback host is granted already).
      await driver.bidi.evaluate(driver.options, `browser.storage.local.set({ server: ${JSON.stringify(own.origin)}, token: ${JSON.stringify(own.token)} })`);
      await keptAfterRestore(driver, own, (name) => `${stack.siteOrigin}/${name}`);
    } finally {
      await own.stop();
    }
  }, TIMEOUT_MS);

  it.skipIf(!chromiumPresent)("Chromium and Firefox syncing one collection converge: each one's changes reach the other", async () => {
    const { stack } = running;
    const site = (name: string) => `${stack.siteOrigin}/${name}`;
    const chromium = (await chromiumSignedIn(running, "chromium-together")).driver;
    const { driver: firefox, token } = await firefoxSignedIn(running, "firefox-together");
    const api = new SyncApi(stack.server.origin, token);
    const together = await api.createCollection("Together");
    await api.createLink("From the server", site("server"), [together]);

    // Each browser starts syncing a folder of its own with the collection: two unions.
    const inChromium = await newFolder(chromium, chromium.other, "Together", [["From Chromium", site("chromium")]]);
    const inFirefox = await newFolder(firefox, firefox.other, "Together", [["From Firefox", site("firefox")]]);
    await chromium.startSyncing(inChromium, together);
    await serverUntil(api, together, (tree) => tree.length === 2, "Chromium's union");
    await firefox.startSyncing(inFirefox, together);
    const three = await serverUntil(api, together, (tree) => tree.length === 3, "Firefox's union");
    await both(firefox, api, inFirefox, together, three, "Firefox after its union");
    await syncUntil(chromium, api, inChromium, together, three, "Chromium after Firefox's union");
    expect([...three].sort()).toEqual(["From Chromium " + site("chromium"), "From Firefox " + site("firefox"), "From the server " + site("server")]);

    // Chromium renames Firefox's bookmark and makes a folder; Firefox deletes the server's and moves Chromium's to the front.
    await chromium.run(bookmarkCall("update", await chromium.run<string>(childId(inChromium, "From Firefox")), { title: "Renamed in Chromium" }));
    const sub = (await chromium.run<{ id: string }>(bookmarkCall("create", { parentId: inChromium, title: "Sub" }))).id;
    await chromium.run(bookmarkCall("create", { parentId: sub, title: "Deep", url: site("deep") }));
    await firefox.run(bookmarkCall("remove", await firefox.run<string>(childId(inFirefox, "From the server"))));
    await firefox.run(bookmarkCall("move", await firefox.run<string>(childId(inFirefox, "From Chromium")), { parentId: inFirefox, index: 0 }));
    // Chromium sends first, then Firefox merges its own with Chromium's, then Chromium hears Firefox's.
    await chromium.syncNow();
    await serverUntil(api, together, (tree) => tree.includes("  Deep " + site("deep")), "Chromium's changes on the server");
    // Which of Chromium's additions and Firefox's reorder places where is the merge's rule (extension.sync.test.ts);
    // here every side must end up the same, with everything both did.
    const everything = ["From Chromium " + site("chromium"), "Renamed in Chromium " + site("firefox"), "Sub/", "  Deep " + site("deep")];
    const sameItems = (tree: string[]) => JSON.stringify([...tree].sort()) === JSON.stringify([...everything].sort());
    await firefox.syncNow();
    const settled = await waitUntil(async () => {
      await Bun.sleep(400);
      return { firefox: await browserTree(firefox, inFirefox), server: await api.tree(together) };
    }, (sides) => sameItems(sides.firefox) && JSON.stringify(sides.firefox) === JSON.stringify(sides.server), "Firefox after both changed");
    // Firefox's move, the later reorder, holds: Chromium's bookmark first.
    expect(settled.server[0]).toBe("From Chromium " + site("chromium"));
    await syncUntil(chromium, api, inChromium, together, settled.server, "Chromium after Firefox's changes");
    expect(await browserTree(firefox, inFirefox)).toEqual(settled.server);
    expect(await api.trash()).toContain("link From the server");
  }, TIMEOUT_MS);
});
