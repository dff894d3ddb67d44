/**
 * The import / export pages through `app.handle`: behind the session, refused from another
 * site, a preview that stores nothing, a confirmation that imports once, keys that belong to
 * one user and expire, the upload and page-form size limits (413, nothing stored), an
 * export that holds the user's own links only, and undoing a recorded import.
 */
import { describe, expect, it, spyOn } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_FORM_BYTES } from "../../src/request/form-body";
import * as netscape from "../../src/bookmarks/netscape";
import { importBookmarks } from "../../src/bookmarks/plan";
import { IMPORT_CHUNK } from "../../src/shelf/limits";
import { MAX_IMPORT_FILE_BYTES, MAX_WAITING } from "../../src/web/imports";
import { Pending } from "../../src/web/pending";
import { createCollection, createLink, createUser, get, makeEnv, shelfFor, snapshot, START, type TestEnv, type TestUser } from "../support/helpers";
import { attributes } from "../support/html";
import { bigFile, cookieFor, send, texts, twoUsers, upload, type PageResponse } from "../support/import.fixtures";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "bookmarks");
const CHROMIUM = readFileSync(join(FIXTURES, "chromium.html"));
const FIREFOX = readFileSync(join(FIXTURES, "firefox.html"));

const open = (env: TestEnv, path: string, cookie?: string) => send(env, path, { cookie });

/** confirm / cancel post the preview's buttons (empty forms). */
const confirm = (env: TestEnv, key: string, cookie?: string, origin?: string | null) =>
  send(env, `/import/${key}/confirm`, { method: "POST", cookie, origin, headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" });
const cancel = (env: TestEnv, key: string, cookie?: string) =>
  send(env, `/import/${key}/cancel`, { method: "POST", cookie, headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" });

/** keyOf reads the preview's key out of the upload's redirect. */
function keyOf(response: PageResponse): string {
  expect(response.status).toBe(303);
  const match = /^\/import\/([0-9a-f-]{36})$/.exec(response.headers.get("location") ?? "");
  expect(match).not.toBeNull();
  return match![1]!;
}

const linkCount = (env: TestEnv) => (env.db.$client.query("SELECT count(*) AS n FROM links").get() as { n: number }).n;

describe("the session guard", () => {
  it("sends the import, preview and export pages to the sign-in form", async () => {
    const { env, aliceCookie } = await twoUsers();
    const key = keyOf(await upload(env, CHROMIUM, aliceCookie));
    for (const path of ["/import", `/import/${key}`, "/export"]) {
      const response = await open(env, path);
      expect({ path, status: response.status, location: response.headers.get("location") })
        .toEqual({ path, status: 303, location: `/login?next=${encodeURIComponent(path)}` });
    }
  });

  it("refuses an upload, a confirmation and a cancel without a session and stores nothing", async () => {
    const { env, aliceCookie } = await twoUsers();
    const key = keyOf(await upload(env, CHROMIUM, aliceCookie));
    const before = snapshot(env);
    for (const response of [await upload(env, CHROMIUM), await confirm(env, key), await cancel(env, key)]) {
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/login?next=%2F");
    }
    expect(snapshot(env)).toBe(before);
    expect((await open(env, `/import/${key}`, aliceCookie)).status).toBe(200);
  });

  it("links the account page to the import / export page", async () => {
    const { env, aliceCookie } = await twoUsers();
    const page = await open(env, "/account", aliceCookie);
    expect(page.text).toContain('href="/import"');
    expect(page.text).toContain('href="/export"');
  });
});

describe("cross-site posts", () => {
  it("refuses an upload, a confirmation and a cancel sent from another site (403), changing nothing", async () => {
    const { env, aliceCookie } = await twoUsers();
    const key = keyOf(await upload(env, CHROMIUM, aliceCookie));
    const before = snapshot(env);
    const refused = [
      await upload(env, FIREFOX, aliceCookie, { origin: "http://evil.test" }),
      await confirm(env, key, aliceCookie, "http://evil.test"),
      await send(env, `/import/${key}/cancel`, { method: "POST", cookie: aliceCookie, origin: "http://localhost.evil.test" }),
    ];
    for (const response of refused) {
      expect(response.status).toBe(403);
      expect(texts(response.text, "h1")).toEqual(["Request refused"]);
    }
    expect(snapshot(env)).toBe(before);
    // The cross-site cancel did not drop the preview either.
    expect(texts((await open(env, `/import/${key}`, aliceCookie)).text, "h1")).toEqual(["Import preview"]);
  });
});

describe("importing through the page", () => {
  it("previews a file from a dry run and stores nothing", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    await createLink(env, alice, { name: "Mine already", url: "https://example.com/" });
    const before = snapshot(env);
    const key = keyOf(await upload(env, CHROMIUM, aliceCookie, { name: `Chromium export ${"long".repeat(60)}.html` }));
    expect(snapshot(env)).toBe(before);

    const preview = await open(env, `/import/${key}`, aliceCookie);
    expect(preview.status).toBe(200);
    expect(snapshot(env)).toBe(before);
    const expected = await importBookmarks(shelfFor(env, alice), CHROMIUM.toString("utf8"), env.clock.now, { dryRun: true });
    expect(expected.linksCreated).toBeGreaterThan(3);
    expect(expected.duplicates.map((d) => d.url)).toContain("https://example.com/");
    expect(expected.skipped.length).toBeGreaterThan(0);

    expect(texts(preview.text, "h1")).toEqual(["Import preview"]);
    expect(texts(preview.text, ".file strong")).toEqual([`Chromium export ${"long".repeat(60)}.html`]);
    expect(texts(preview.text, ".counts dt")).toEqual(["New links", "New collections", "Duplicates", "Skipped"]);
    expect(texts(preview.text, ".counts dd")).toEqual([expected.linksCreated, expected.collectionsCreated.length, expected.duplicates.length, expected.skipped.length].map(String));
    // Every destination, new or existing, by its place in the tree, with its visibility and how many links go there.
    expect(texts(preview.text, ".destinations li")).toContain("Bookmarks bar › Dev › JavaScript New collection · Private · 2 links");
    expect(texts(preview.text, ".destinations li")).toEqual(expected.destinations.map((d) => `${[...d.path, d.name].join(" › ")} ${d.isNew ? "New" : "Existing"} collection · Private · ${d.links} link${d.links === 1 ? "" : "s"}`));
    expect(expected.destinations.filter((d) => d.isNew).map((d) => d.name)).toEqual(expected.collectionsCreated);
    expect(expected.destinations.filter((d) => !d.isNew).map((d) => d.name)).toEqual(["Inbox"]);
    const listed = texts(preview.text, ".entries li");
    for (const entry of expected.duplicates) expect(listed).toContain(`${entry.name}${entry.url}`);
    for (const entry of expected.skipped) expect(listed).toContain(`${entry.name}${entry.url}${entry.reason}`);
    expect(texts(preview.text, `form[action="/import/${key}/confirm"] button`)).toEqual([`Import ${expected.linksCreated} links`]);
  });

  it("says a URL holds spaces in plain words, and shortens long URLs with the whole one on hover", async () => {
    const { env, aliceCookie } = await twoUsers();
    const long = `https://long.example/${"segment/".repeat(300)}end`;
    const spaced = `https://spaces.example/${"a ".repeat(60)}b`;
    const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="${long}">Long</A>\n<DT><A HREF="${spaced}">Spaced</A>\n</DL><p>\n`;
    const key = keyOf(await upload(env, file, aliceCookie));
    const preview = await open(env, `/import/${key}`, aliceCookie);
    expect(texts(preview.text, ".entries .reason")).toEqual(["The URL is longer than 2,048 characters.", "The URL contains spaces."]);
    const shown = texts(preview.text, ".entries .url");
    expect(shown.map((url) => [...url].length)).toEqual([80, 80]);
    expect(shown[0]).toBe(`${long.slice(0, 60)}…${long.slice(-19)}`);
    expect(preview.text).toContain(`title="${long}"`);
    expect(preview.text).toContain(`title="${spaced}"`);
  });

  it("imports on confirmation, shows the report, and imports once however often it is confirmed", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    const key = keyOf(await upload(env, FIREFOX, aliceCookie));
    const expected = await importBookmarks(shelfFor(env, alice), FIREFOX.toString("utf8"), env.clock.now, { dryRun: true });
    expect(linkCount(env)).toBe(0);

    const done = await confirm(env, key, aliceCookie);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`/import/${key}`);
    expect(linkCount(env)).toBe(expected.linksCreated);
    const names = (env.db.$client.query("SELECT name FROM collections WHERE user_id = ? AND is_default = 0 ORDER BY id").all(alice.user.id) as { name: string }[]).map((r) => r.name);
    expect(names).toEqual(expected.collectionsCreated);

    const report = await open(env, `/import/${key}`, aliceCookie);
    expect(texts(report.text, "h1")).toEqual(["Import done"]);
    expect(texts(report.text, "[role=status]")[0]).toContain(`Imported ${expected.linksCreated} links and created ${expected.collectionsCreated.length} collections`);
    expect(texts(report.text, ".counts dd")).toEqual([expected.linksCreated, expected.collectionsCreated.length, expected.duplicates.length, expected.skipped.length].map(String));
    // Each created collection links to its list.
    const ids = env.db.$client.query("SELECT id FROM collections WHERE user_id = ? AND is_default = 0 ORDER BY id").all(alice.user.id) as { id: number }[];
    for (const { id } of ids) expect(report.text).toContain(`href="/?collection=${id}"`);

    const after = snapshot(env);
    expect((await confirm(env, key, aliceCookie)).headers.get("location")).toBe(`/import/${key}`);
    expect(snapshot(env)).toBe(after);
  });

  it("imports once when confirmed twice while it is writing: the second confirm waits for the first, a cancel meanwhile changes nothing", async () => {
    const { env, aliceCookie } = await twoUsers();
    // More than one transaction holds, however fast they are written.
    const count = IMPORT_CHUNK.items + 1000;
    const links = Array.from({ length: count }, (_, i) => `<DT><A HREF="https://site${i}.example/">Page ${i}</A>`).join("\n");
    const key = keyOf(await upload(env, `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n${links}\n</DL><p>\n`, aliceCookie));

    const first = confirm(env, key, aliceCookie);
    while (linkCount(env) === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(linkCount(env)).toBeLessThan(count);
    // A cancel while it is written leaves the import and its report alone.
    expect((await cancel(env, key, aliceCookie)).status).toBe(303);
    const second = await confirm(env, key, aliceCookie);
    // Answered after the first import is written, not while it runs.
    expect(second.status).toBe(303);
    expect(linkCount(env)).toBe(count);
    expect((await first).status).toBe(303);
    expect(linkCount(env)).toBe(count);
    expect(texts((await open(env, `/import/${key}`, aliceCookie)).text, "h1")).toEqual(["Import done"]);
  });

  it("keeps the preview when the confirmed import fails, storing nothing, and imports it when confirmed again", async () => {
    const { env, aliceCookie } = await twoUsers();
    const key = keyOf(await upload(env, FIREFOX, aliceCookie));
    env.db.$client.run("CREATE TRIGGER fail_import BEFORE INSERT ON links BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    const before = snapshot(env);
    expect((await confirm(env, key, aliceCookie)).status).toBe(500);
    expect(snapshot(env)).toBe(before);
    expect(texts((await open(env, `/import/${key}`, aliceCookie)).text, `form[action="/import/${key}/confirm"] button`)).toHaveLength(1);

    env.db.$client.run("DROP TRIGGER fail_import");
    expect((await confirm(env, key, aliceCookie)).status).toBe(303);
    expect(linkCount(env)).toBeGreaterThan(0);
  });

  it("reports a file whose bookmarks are all there already, without an import button", async () => {
    const { env, aliceCookie } = await twoUsers();
    await confirm(env, keyOf(await upload(env, CHROMIUM, aliceCookie)), aliceCookie);
    const before = snapshot(env);
    const key = keyOf(await upload(env, CHROMIUM, aliceCookie));
    const preview = await open(env, `/import/${key}`, aliceCookie);
    expect(preview.text).toContain("There is nothing new in it to import.");
    expect(texts(preview.text, ".counts dd").slice(0, 2)).toEqual(["0", "0"]);
    expect(preview.text).not.toContain(`/import/${key}/confirm`);
    expect(snapshot(env)).toBe(before);
  });

  it("forgets a cancelled preview", async () => {
    const { env, aliceCookie } = await twoUsers();
    const key = keyOf(await upload(env, CHROMIUM, aliceCookie));
    const cancelled = await cancel(env, key, aliceCookie);
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get("location")).toBe("/import");
    expect((await open(env, `/import/${key}`, aliceCookie)).status).toBe(404);
    const before = snapshot(env);
    expect((await confirm(env, key, aliceCookie)).status).toBe(404);
    expect(snapshot(env)).toBe(before);
  });

  it("refuses another user's key as if it did not exist, and leaves it to its owner", async () => {
    const { env, aliceCookie, bobCookie } = await twoUsers();
    const key = keyOf(await upload(env, CHROMIUM, aliceCookie));
    const before = snapshot(env);
    const seen = await open(env, `/import/${key}`, bobCookie);
    expect(seen.status).toBe(404);
    expect(seen.text).not.toContain("Bookmarks bar");
    expect((await confirm(env, key, bobCookie)).status).toBe(404);
    expect((await cancel(env, key, bobCookie)).status).toBe(303);
    expect(snapshot(env)).toBe(before);
    expect((await confirm(env, key, aliceCookie)).status).toBe(303);
    expect(linkCount(env)).toBeGreaterThan(0);
  });

  it("answers 404 for an unknown key and for a preview older than ten minutes, storing nothing", async () => {
    const { env, aliceCookie } = await twoUsers();
    const key = keyOf(await upload(env, CHROMIUM, aliceCookie));
    const before = snapshot(env);
    for (const unknown of ["00000000-0000-4000-8000-000000000000", "not-a-key"]) {
      const response = await open(env, `/import/${unknown}`, aliceCookie);
      expect(response.status).toBe(404);
      expect(texts(response.text, "#file-error")[0]).toContain("Upload the file again");
    }
    env.clock.now += 10 * 60 * 1000;
    expect((await open(env, `/import/${key}`, aliceCookie)).status).toBe(404);
    expect((await confirm(env, key, aliceCookie)).status).toBe(404);
    expect(snapshot(env)).toBe(before);
  });

  it("says a file that is not a bookmarks file holds nothing to import, and keeps nothing", async () => {
    const { env, aliceCookie } = await twoUsers();
    const before = snapshot(env);
    const page = "<!doctype html><title>A page</title><p>Some <a href='https://example.com/'>link</a></p>";
    for (const [bytes, name] of [[page, "page.html"], ["just some text\n", "notes.txt"], [new Uint8Array([0, 159, 146, 150, 255]), "image.png"]] as const) {
      const response = await upload(env, bytes, aliceCookie, { name });
      expect(response.status).toBe(422);
      expect(response.headers.get("location")).toBeNull();
      expect(texts(response.text, "#file-error")[0]).toBe(`“${name}” holds no bookmarks, so there is nothing to import. Choose a bookmarks file exported by a browser (an HTML file that starts with <!DOCTYPE NETSCAPE-Bookmark-file-1>) or the export of one of the services listed.`);
    }
    expect(snapshot(env)).toBe(before);
  });

  it("asks for a file when none was chosen", async () => {
    const { env, aliceCookie } = await twoUsers();
    const before = snapshot(env);
    const empty = await upload(env, "", aliceCookie, { name: "" });
    const form = await send(env, "/import", { method: "POST", cookie: aliceCookie, headers: { "content-type": "application/x-www-form-urlencoded" }, body: "file=x" });
    for (const response of [empty, form]) {
      expect(response.status).toBe(422);
      expect(texts(response.text, "#file-error")).toEqual(["Choose a bookmarks file to import."]);
    }
    expect(snapshot(env)).toBe(before);
  });
});

describe("the tree in the preview and the report", () => {
  it("lists each destination by its place in the tree, and the report links each to its own collection, not a namesake elsewhere", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    const home = await createCollection(env, alice, { name: "Home" });
    const elsewhere = await createCollection(env, alice, { name: "Bikes" });
    const html = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Home</H3>\n<DL><p>\n<DT><H3>Bikes</H3>\n<DL><p>\n<DT><A HREF="https://bikes.example/">Bikes</A>\n</DL><p>\n</DL><p>\n</DL><p>\n`;
    const key = keyOf(await upload(env, html, aliceCookie));
    const preview = await open(env, `/import/${key}`, aliceCookie);
    expect(texts(preview.text, ".destinations .entry")).toEqual(["Home › Bikes"]);

    expect((await confirm(env, key, aliceCookie)).status).toBe(303);
    const report = await open(env, `/import/${key}`, aliceCookie);
    const made = env.db.$client.query("SELECT id FROM collections WHERE parent_id = ?").get(home.id) as { id: number };
    expect(made.id).not.toBe(elsewhere.id);
    expect(attributes(report.text, ".destinations .entry a")).toEqual([{ href: `/?collection=${made.id}` }]);
  });
});

describe("an import never publishes anything", () => {
  /** A file whose one folder, Reading, holds one bookmark. */
  const READING = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Reading</H3>\n<DL><p>\n<DT><A HREF="https://private.example/">Private read</A>\n</DL><p>\n</DL><p>\n`;
  const BROWSER = { accept: "text/html" };

  it("puts a folder named like a PUBLIC collection into a new private one, says where in the preview, and leaves every imported link unreachable anonymously", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    const reading = await createCollection(env, alice, { name: "Reading", visibility: "PUBLIC", icon: "📚" });
    const shared = await createLink(env, alice, { name: "Shared", url: "https://shared.example/", collectionIds: [reading.id] });
    const key = keyOf(await upload(env, READING, aliceCookie));

    const preview = await open(env, `/import/${key}`, aliceCookie);
    expect(texts(preview.text, ".counts dd").slice(0, 2)).toEqual(["1", "1"]);
    expect(texts(preview.text, "#destinations-heading")).toEqual(["Where the links go"]);
    expect(texts(preview.text, ".destinations li")).toEqual([
      "Reading (imported) New collection · Private · 1 link Your collection Reading is public: the import does not add to it.",
    ]);

    expect((await confirm(env, key, aliceCookie)).status).toBe(303);
    const report = await open(env, `/import/${key}`, aliceCookie);
    expect(texts(report.text, "#destinations-heading")).toEqual(["Where the links went"]);
    expect(texts(report.text, ".destinations .facts")).toEqual(["New collection · Private · 1 link"]);
    const rows = env.db.$client.query("SELECT id, name, visibility FROM collections WHERE user_id = ? AND is_default = 0 ORDER BY id").all(alice.user.id);
    const made = env.db.$client.query("SELECT id FROM links WHERE url = 'https://private.example/'").get() as { id: number };
    expect(rows).toEqual([{ id: reading.id, name: "Reading", visibility: "PUBLIC" }, { id: expect.any(Number), name: "Reading (imported)", visibility: "PRIVATE" }]);
    const importedInto = (rows as { id: number }[])[1]!.id;

    // Anonymous visitors: the imported link, its collection and that collection's feed answer like unknown ids.
    expect((await get(env, `/l/${made.id}`, { headers: BROWSER })).status).toBe(404);
    expect((await get(env, `/c/${importedInto}`, { headers: BROWSER })).status).toBe(404);
    expect((await get(env, `/c/${importedInto}/feed`)).status).toBe(404);
    // The public collection of the same name shows what it showed before, page and feed.
    const page = await get(env, `/c/${reading.id}`, { headers: BROWSER });
    const feed = await get(env, `/c/${reading.id}/feed`);
    expect([page.status, feed.status]).toEqual([200, 200]);
    for (const text of [page.text, feed.text]) {
      expect(text).toContain(`/l/${shared.id}`);
      expect(text).not.toContain(`/l/${made.id}`);
      expect(text).not.toContain("private.example");
      expect(text).not.toContain("Private read");
    }
    expect((await get(env, `/l/${shared.id}`, { headers: BROWSER })).status).toBe(302);
  });
});

describe("limits on what one file holds", () => {
  const nested = (depth: number) => `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n${"<DT><H3>f</H3><DL><p>".repeat(depth)}<DT><A HREF="https://deep.example/">Deep</A>`;

  it("previews a file of folders nested 64 deep and refuses one nested 65 deep with a clear message, storing nothing", async () => {
    const { env, aliceCookie } = await twoUsers();
    const before = snapshot(env);
    keyOf(await upload(env, nested(64), aliceCookie));
    const refused = await upload(env, nested(65), aliceCookie);
    expect(refused.status).toBe(422);
    expect(refused.headers.get("location")).toBeNull();
    expect(texts(refused.text, "#file-error")).toEqual(["The file nests folders more than 64 deep, deeper than linkshelf imports. Move the deepest folders up, or split the file. Nothing was stored."]);
    expect(snapshot(env)).toBe(before);
  });

  it("refuses 16 MiB of nested folders, storing nothing", async () => {
    const { env, aliceCookie } = await twoUsers();
    const before = snapshot(env);
    const unit = "<DT><H3>f</H3><DL><p>";
    const refused = await upload(env, nested(Math.floor((16 * 1024 * 1024) / unit.length)), aliceCookie);
    expect(refused.status).toBe(422);
    expect(texts(refused.text, "#file-error")[0]).toStartWith("The file nests folders more than 64 deep");
    expect(snapshot(env)).toBe(before);
  });

  it("refuses a file of more than 10,000 folders, storing nothing", async () => {
    const { env, aliceCookie } = await twoUsers();
    const before = snapshot(env);
    const refused = await upload(env, `<DL><p>${"<DT><H3>f</H3><DL><p></DL><p>".repeat(10_001)}</DL>`, aliceCookie);
    expect(refused.status).toBe(422);
    expect(texts(refused.text, "#file-error")).toEqual(["The file holds more than 10,000 folders, the most linkshelf imports from one file. Split it into smaller files. Nothing was stored."]);
    expect(snapshot(env)).toBe(before);
  });

  it("imports on confirmation what the preview read, without decoding or reading the file again", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    const decoded = spyOn(netscape, "decodeBookmarkFile");
    try {
      const key = keyOf(await upload(env, FIREFOX, aliceCookie));
      expect(decoded).toHaveBeenCalledTimes(1);
      const expected = await importBookmarks(shelfFor(env, alice), FIREFOX.toString("utf8"), env.clock.now, { dryRun: true });
      expect((await confirm(env, key, aliceCookie)).status).toBe(303);
      expect(decoded).toHaveBeenCalledTimes(1);
      expect(linkCount(env)).toBe(expected.linksCreated);
    } finally {
      decoded.mockRestore();
    }
  });
});

describe("size limits", () => {
  it("takes a file far larger than a page form may be", async () => {
    const { env, aliceCookie } = await twoUsers();
    const file = bigFile(5000);
    expect(file.length).toBeGreaterThan(4 * MAX_FORM_BYTES);
    const key = keyOf(await upload(env, file, aliceCookie));
    expect(texts((await open(env, `/import/${key}`, aliceCookie)).text, ".counts dd").slice(0, 2)).toEqual(["5,000", "10"]);
    await confirm(env, key, aliceCookie);
    // Again: 5,000 duplicates, of which the page lists 200 and counts the rest.
    const again = await open(env, `/import/${keyOf(await upload(env, file, aliceCookie))}`, aliceCookie);
    expect(texts(again.text, ".counts dd")).toEqual(["0", "0", "5,000", "0"]);
    expect(texts(again.text, ".entries li")).toHaveLength(200);
    expect(texts(again.text, "p.muted")).toContain("…and 4,800 more not listed here.");
  });

  it("keeps at most 20 uploads waiting, dropping the oldest", async () => {
    const { env, aliceCookie } = await twoUsers();
    const keys: string[] = [];
    for (let i = 0; i <= MAX_WAITING; i++) keys.push(keyOf(await upload(env, CHROMIUM, aliceCookie)));
    expect((await open(env, `/import/${keys[0]}`, aliceCookie)).status).toBe(404);
    for (const key of keys.slice(1)) expect((await open(env, `/import/${key}`, aliceCookie)).status).toBe(200);
  });

  it("keeps the waiting values within their byte bound, dropping the oldest (the store itself)", () => {
    const store = new Pending<string>({ ttlMs: 1000, maxEntries: 10, maxBytes: 10, sizeOf: (value) => value.length });
    const first = store.put(1, "aaaa", 0);
    const second = store.put(1, "bbbb", 0);
    const third = store.put(2, "cccc", 0);
    expect([store.get(first, 1, 1), store.get(second, 1, 1), store.get(third, 2, 1)]).toEqual([undefined, "bbbb", "cccc"]);
    expect(store.get(third, 1, 1)).toBeUndefined();
    expect(store.replace(second, 1, "bbbbbb", 2)).toBe(true);
    expect([store.get(second, 1, 3), store.get(third, 2, 3)]).toEqual(["bbbbbb", "cccc"]);
    expect(store.get(third, 2, 1000)).toBeUndefined();
  });

  it("refuses a file over 32 MiB with a 413 page and stores nothing", async () => {
    const { env, aliceCookie } = await twoUsers();
    const before = snapshot(env);
    const file = Buffer.alloc(MAX_IMPORT_FILE_BYTES + 1, " ");
    bigFile(10).split("").forEach((char, i) => void (file[i] = char.charCodeAt(0)));
    const response = await upload(env, file, aliceCookie);
    expect(response.status).toBe(413);
    expect(response.headers.get("location")).toBeNull();
    expect(texts(response.text, "#file-error")).toEqual(["The file is larger than 32.0 MiB, the most linkshelf imports from this page. Nothing was stored."]);
    expect(snapshot(env)).toBe(before);
  });

  it("stops reading an upload without a length once it passes the limit", async () => {
    const { env, aliceCookie } = await twoUsers();
    const before = snapshot(env);
    const chunk = new Uint8Array(1024 * 1024).fill(32);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('--b\r\nContent-Disposition: form-data; name="file"; filename="huge.html"\r\nContent-Type: text/html\r\n\r\n'));
      },
      pull(controller) {
        // Far more than the limit would ever be sent if the server kept reading.
        if (sent >= 200) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const response = await send(env, "/import", { method: "POST", cookie: aliceCookie, headers: { "content-type": "multipart/form-data; boundary=b" }, body });
    expect(response.status).toBe(413);
    expect(sent).toBeLessThan(40);
    expect(snapshot(env)).toBe(before);
  });

  it("refuses a page form over 64 KiB with a 413 page and changes nothing", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    const reading = await createCollection(env, alice);
    const before = snapshot(env);
    const fields = (pad: number) => new URLSearchParams({ name: "Big", url: "https://big.example/", collectionIds: String(reading.id), pad: "x".repeat(pad) }).toString();
    const tooBig = fields(MAX_FORM_BYTES);
    for (const [path, cookie] of [["/links", aliceCookie], ["/login", undefined], ["/collections", aliceCookie]] as const) {
      const response = await send(env, path, { method: "POST", cookie, headers: { "content-type": "application/x-www-form-urlencoded" }, body: tooBig });
      expect({ path, status: response.status }).toEqual({ path, status: 413 });
      expect(texts(response.text, "h1")).toEqual(["Too large"]);
      expect(response.text).toContain("The form sent more than 64 KiB");
    }
    expect(snapshot(env)).toBe(before);

    // Just under the limit is an ordinary form, URL-encoded or multipart.
    const fits = fields(MAX_FORM_BYTES - 200);
    expect(fits.length).toBeLessThanOrEqual(MAX_FORM_BYTES);
    const added = await send(env, "/links", { method: "POST", cookie: aliceCookie, headers: { "content-type": "application/x-www-form-urlencoded" }, body: fits });
    expect(added.status).toBe(303);
    const multipart = new FormData();
    for (const [name, value] of new URLSearchParams(fields(10))) multipart.append(name, value);
    multipart.set("url", "https://multipart.example/");
    expect((await send(env, "/links", { method: "POST", cookie: aliceCookie, body: multipart })).status).toBe(303);
    const urls = (env.db.$client.query("SELECT url FROM links ORDER BY id").all() as { url: string }[]).map((r) => r.url);
    expect(urls).toEqual(["https://big.example/", "https://multipart.example/"]);
  });
});

describe("exporting through the page", () => {
  it("downloads the user's own links as a dated bookmarks file", async () => {
    const { env, alice, bob, aliceCookie } = await twoUsers();
    const reading = await createCollection(env, alice, { name: "Alice reads" });
    await createLink(env, alice, { name: "Alice's page", url: "https://alice.example/", collectionIds: [reading.id] });
    await createLink(env, alice, { name: "In the inbox", url: "https://inbox.example/" });
    const bobs = await createCollection(env, bob, { name: "Bob's secret folder" });
    await createLink(env, bob, { name: "Bob's page", url: "https://bob.example/", collectionIds: [bobs.id] });
    const before = snapshot(env);

    const response = await open(env, "/export", aliceCookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="linkshelf-bookmarks-${new Date(START).toISOString().slice(0, 10)}.html"`);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.text.startsWith("<!DOCTYPE NETSCAPE-Bookmark-file-1>")).toBe(true);
    for (const mine of ["https://alice.example/", "https://inbox.example/", "Alice reads", "Alice&#39;s page"]) expect(response.text).toContain(mine);
    for (const theirs of ["bob.example", "Bob"]) expect(response.text).not.toContain(theirs);
    expect(snapshot(env)).toBe(before);

    // Bob's export, the other way round.
    const bobExport = await open(env, "/export", cookieFor(env, bob));
    expect(bobExport.text).toContain("https://bob.example/");
    expect(bobExport.text).not.toContain("alice.example");
  });
});

describe("undoing an import from the pages", () => {
  const undo = (env: TestEnv, id: number, cookie?: string, origin?: string | null) =>
    send(env, `/imports/${id}/undo`, { method: "POST", cookie, origin, headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" });

  it("records the confirmed import as the page's, offers to undo it on the report and the account page, asks first, and undoes it", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const cookie = cookieFor(env, alice);
    const key = keyOf(await upload(env, CHROMIUM, cookie, { name: "chromium.html" }));
    expect(shelfFor(env, alice).imports.list()).toEqual([]);
    expect((await confirm(env, key, cookie)).status).toBe(303);
    const [record] = shelfFor(env, alice).imports.list();
    expect(record).toMatchObject({ source: "page", fileName: "chromium.html", links: 8, collections: 5, undoneAt: null });

    expect((await open(env, `/import/${key}`, cookie)).text).toContain(`href="/imports/${record!.id}/undo"`);
    expect((await open(env, "/account", cookie)).text).toContain(`href="/imports/${record!.id}/undo"`);
    const ask = await open(env, `/imports/${record!.id}/undo`, cookie);
    expect(ask.status).toBe(200);
    expect(ask.text).toContain("Undo this import?");
    expect(ask.text).toMatch(/Links it created<\/dt><dd>8</);
    expect(ask.text).toContain(`action="/imports/${record!.id}/undo"`);
    // It says where the links go, and does not claim that this cannot be undone.
    expect(ask.text).toContain('The links this import created go to the <a href="/trash">Trash</a>');
    expect(ask.text).toContain("one item there, “Import of chromium.html”, whose Restore brings all of it back");
    expect(ask.text).not.toContain("cannot be undone");

    const done = await undo(env, record!.id, cookie);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/account?done=import-undone");
    expect((await open(env, "/account?done=import-undone", cookie)).text).toContain("Import undone");
    expect(shelfFor(env, alice).links.urls()).toEqual([]);
    expect(shelfFor(env, alice).collections.rows().map((c) => c.name)).toEqual(["Inbox"]);
    expect((await open(env, `/imports/${record!.id}/undo`, cookie)).status).toBe(404);
    expect((await undo(env, record!.id, cookie)).status).toBe(404);
  });

  it("refuses an undo from another site, without a session, or of another user's import, changing nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const { importId } = await importBookmarks(shelfFor(env, alice), CHROMIUM.toString(), env.clock.now++, { record: { source: "cli", fileName: "chromium.html" } });
    const aliceCookie = cookieFor(env, alice);
    const bobCookie = cookieFor(env, bob);
    const before = snapshot(env);
    expect((await undo(env, importId!, aliceCookie, "https://evil.example")).status).toBe(403);
    const signedOut = await undo(env, importId!);
    expect({ status: signedOut.status, location: signedOut.headers.get("location") }).toEqual({ status: 303, location: "/login?next=%2F" });
    expect((await undo(env, importId!, bobCookie)).status).toBe(404);
    expect((await open(env, `/imports/${importId}/undo`, bobCookie)).status).toBe(404);
    expect(snapshot(env)).toBe(before);
  });
});
