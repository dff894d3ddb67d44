/**
 * The slow tier's part of test/app/import.netscape.test.ts: reading a file at the 100,000
 * bookmarks it may hold, and importing and exporting 20,000. Run by `npm run test:e2e` and
 * `npm run test:all`, not by `npm test`.
 */
import { describe, expect, it } from "bun:test";
import { BookmarkFileRefused, IMPORT_LIMITS, parseNetscape } from "../../src/bookmarks/netscape";
import { exportBookmarks } from "../../src/bookmarks/export";
import { importBookmarks } from "../../src/bookmarks/plan";
import { shelfFor } from "../support/helpers";
import { file, folder, link, links, newEnv, NOW } from "../support/import.fixtures";

describe("hostile files", () => {
  it("reads 100,000 bookmarks and refuses 100,001, counting those it would skip", () => {
    expect(parseNetscape(file(links(IMPORT_LIMITS.bookmarks))).bookmarks).toHaveLength(100_000);
    const over = file(`${links(IMPORT_LIMITS.bookmarks)}\n${link("javascript:void(0)", "Not a web page")}`);
    expect(() => parseNetscape(over)).toThrow(
      new BookmarkFileRefused("The file holds more than 100,000 bookmarks, the most linkshelf imports from one file. Split it into smaller files."),
    );
  }, 30_000);
});

describe("a file of 20,000 bookmarks", () => {
  it("imports in one go, and its export imported for another user exports the same bytes", async () => {
    const { env, alice, bob } = await newEnv();
    const folders = Array.from({ length: 200 }, (_, f) =>
      folder(`Folder ${f}`, Array.from({ length: 100 }, (_, i) => {
        const n = f * 100 + i;
        return `${link(`https://site${n % 997}.example/page/${n}?q=${n}&r=é`, `Bookmark ${n} — ${"lorem ipsum ".repeat(3)}`, ` ADD_DATE="${1600000000 + n}" ICON="data:image/png;base64,${"A".repeat(200)}"`)}\n<DD>Description ${n}`;
      }).join("\n")));
    const html = file(folders.join("\n"));

    let started = performance.now();
    const report = await importBookmarks(shelfFor(env, alice), html, NOW);
    const importMillis = performance.now() - started;
    expect(report.linksCreated).toBe(20_000);
    expect(report.collectionsCreated).toHaveLength(200);
    expect(env.db.$client.query("SELECT count(*) AS n FROM links WHERE user_id = ?").get(alice.user.id)).toEqual({ n: 20_000 });

    started = performance.now();
    const exported = exportBookmarks(shelfFor(env, alice));
    const exportMillis = performance.now() - started;
    started = performance.now();
    const preview = await importBookmarks(shelfFor(env, bob), exported, NOW, { dryRun: true });
    const dryRunMillis = performance.now() - started;
    started = performance.now();
    expect(await importBookmarks(shelfFor(env, bob), exported, NOW)).toEqual(preview);
    const confirmMillis = performance.now() - started;
    expect(exportBookmarks(shelfFor(env, bob))).toBe(exported);
    // Reported, never asserted: timing depends on the machine.
    console.log(`20,000 bookmarks (${(html.length / 1e6).toFixed(1)} MB): import ${importMillis.toFixed(0)} ms, export ${exportMillis.toFixed(0)} ms, dry run ${dryRunMillis.toFixed(0)} ms, import of the export ${confirmMillis.toFixed(0)} ms`);
  }, 120_000);
});
