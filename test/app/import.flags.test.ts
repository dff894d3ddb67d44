/**
 * The reading flags an import carries, through `app.handle` and the importer: a link the shelf
 * has already gains the file's flags and never loses one (the flags are OR-ed in: a link
 * archived stays archived when a file lists it as unread, and gains "to read"); the preview
 * page and the CLI report say how many links are marked to read and archived; linkshelf JSON and
 * the bookmark file export carry `toRead` and `archived` and read them back (a file written
 * before the flags reads as false).
 */
import { describe, expect, it } from "bun:test";
import { exportBookmarks } from "../../src/bookmarks/export";
import { readImportFile } from "../../src/bookmarks/formats";
import { importBookmarks } from "../../src/bookmarks/plan";
import { describeImport } from "../../src/cli";
import { aliceWithInbox, createLink, createUser, get, put, shelfFor, type TestEnv, type TestUser } from "../support/helpers";
import { cookieFor, open, texts } from "../support/html";

const NOW = Date.parse("2026-11-27T12:00:00Z");
const pocket = (rows: string[]) => new TextEncoder().encode(["title,url,time_added,tags,status", ...rows].join("\n") + "\n");

/** flagsOf is every link of a user as `url: toRead/archived`, through the API. */
async function flagsOf(env: TestEnv, as: TestUser): Promise<Record<string, string>> {
  const response = await get(env, "/api/v1/links?limit=100", { token: as.token });
  expect(response.status).toBe(200);
  return Object.fromEntries(response.body.links.map((link: { url: string; toRead: boolean; archived: boolean }) =>
    [link.url, `${link.toRead ? "to read" : "-"}/${link.archived ? "archived" : "-"}`]));
}

const importBytes = async (env: TestEnv, as: TestUser, bytes: Uint8Array, dryRun = false) =>
  importBookmarks(shelfFor(env, as), await readImportFile(bytes, NOW), NOW, { dryRun });

describe("a link the shelf has already: the file's flags are added, never cleared", () => {
  it("ORs Pocket's states into the links the person had, and counts only the flags it adds", async () => {
    const { env, alice } = await aliceWithInbox();
    const archived = await createLink(env, alice, { url: "https://had.example/archived", archived: true });
    const toRead = await createLink(env, alice, { url: "https://had.example/to-read", toRead: true });
    await createLink(env, alice, { url: "https://had.example/plain" });
    const file = pocket([
      "Was archived,https://had.example/archived,1700000000,,unread",
      "Was to read,https://had.example/to-read,1700000000,,archive",
      "Plain,https://had.example/plain,1700000000,,archive",
      "New,https://new.example/,1700000000,,unread",
    ]);
    const report = await importBytes(env, alice, file);
    // To read: the archived one and the new one; archived: the two that were not.
    expect({ toRead: report.linksToRead, archived: report.linksArchived }).toEqual({ toRead: 2, archived: 2 });
    expect(await flagsOf(env, alice)).toEqual({
      "https://had.example/archived": "to read/archived", "https://had.example/to-read": "to read/archived",
      "https://had.example/plain": "-/archived", "https://new.example/": "to read/-",
    });
    expect((await get(env, `/api/v1/links/${archived.id}`, { token: alice.token })).body.link.archived).toBe(true);

    // The person marks one read; a file that lists it without a state never clears a flag, and one that says unread marks it again.
    expect((await put(env, `/api/v1/links/${toRead.id}`, { token: alice.token, body: { name: "Was to read", url: "https://had.example/to-read", favorite: false, toRead: false, collectionIds: [] } })).status).toBe(200);
    const neither = await importBytes(env, alice, pocket(["Was to read,https://had.example/to-read,1700000000,,", "Plain,https://had.example/plain,1700000000,,"]));
    expect({ toRead: neither.linksToRead, archived: neither.linksArchived }).toEqual({ toRead: 0, archived: 0 });
    expect((await flagsOf(env, alice))["https://had.example/to-read"]).toBe("-/archived");
    expect((await flagsOf(env, alice))["https://had.example/plain"]).toBe("-/archived");
    const again = await importBytes(env, alice, pocket(["Was to read,https://had.example/to-read,1700000000,,unread"]));
    expect(again.linksToRead).toBe(1);
    expect((await flagsOf(env, alice))["https://had.example/to-read"]).toBe("to read/archived");
  });

  it("a browser file's bookmark the person has already keeps its place but gains TOREAD; a dry run marks nothing", async () => {
    const { env, alice } = await aliceWithInbox();
    await createLink(env, alice, { url: "https://linkding.link/" });
    const file = new TextEncoder().encode(`<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="https://linkding.link/" TOREAD="1" TAGS="linkding:bookmarks.archived">linkding</A>\n</DL><p>\n`);
    const dry = await importBytes(env, alice, file, true);
    expect({ toRead: dry.linksToRead, archived: dry.linksArchived, duplicates: dry.duplicates.length }).toEqual({ toRead: 1, archived: 1, duplicates: 1 });
    expect(await flagsOf(env, alice)).toEqual({ "https://linkding.link/": "-/-" });
    await importBytes(env, alice, file);
    expect(await flagsOf(env, alice)).toEqual({ "https://linkding.link/": "to read/archived" });
  });

  it("never touches another user's link of the same URL", async () => {
    const { env, alice } = await aliceWithInbox();
    const bob = await createUser(env, { email: "bob@example.test" });
    await createLink(env, bob, { url: "https://shared.example/" });
    await importBytes(env, alice, pocket(["Shared,https://shared.example/,1700000000,,unread"]));
    expect(await flagsOf(env, bob)).toEqual({ "https://shared.example/": "-/-" });
    expect(await flagsOf(env, alice)).toEqual({ "https://shared.example/": "to read/-" });
  });
});

describe("the preview and the reports say how many links are marked", () => {
  it("the import page's preview and report list Marked to read and Marked archived", async () => {
    const { env, alice } = await aliceWithInbox();
    const cookie = cookieFor(env, alice);
    const form = new FormData();
    form.append("file", new File([pocket(["A,https://a.example/,1700000000,,unread", "B,https://b.example/,1700000000,,unread", "C,https://c.example/,1700000000,,archive"])], "pocket.csv", { type: "text/csv" }));
    const uploaded = await env.app.handle(new Request("http://localhost/import", { method: "POST", body: form, headers: { cookie, origin: "http://localhost", accept: "text/html" } }));
    expect(uploaded.status).toBe(303);
    const preview = await open(env, uploaded.headers.get("location")!, cookie);
    const terms = texts(preview.text, ".counts dt");
    const values = texts(preview.text, ".counts dd");
    expect(Object.fromEntries(terms.map((term, at) => [term, values[at]]))).toMatchObject({ "Marked to read": "2", "Marked archived": "1" });
  });

  it("the CLI's summary line names them, only when there are some", () => {
    const report = { format: "pocket" as const, linksCreated: 3, linksAdded: 0, linksToRead: 2, linksArchived: 1, unknownFields: [], collectionsCreated: [], duplicates: [], skipped: [], unreadDates: [], destinations: [] };
    expect(describeImport(report, false)[0]).toBe("imported 3 links; 2 links marked to read; 1 link marked archived; 0 new collections; 0 duplicates; 0 skipped");
    expect(describeImport({ ...report, linksToRead: 0, linksArchived: 0 }, true)[0]).toBe("dry run, nothing stored: would import 3 links; 0 new collections; 0 duplicates; 0 skipped");
  });
});

describe("exports carry the flags", () => {
  async function flaggedShelf() {
    const { env, alice } = await aliceWithInbox();
    await createLink(env, alice, { url: "https://both.example/", name: "Both", toRead: true, archived: true });
    await createLink(env, alice, { url: "https://later.example/", name: "Later", toRead: true });
    await createLink(env, alice, { url: "https://done.example/", name: "Done", archived: true });
    await createLink(env, alice, { url: "https://plain.example/", name: "Plain" });
    return { env, alice };
  }
  const WANT = { "https://both.example/": "to read/archived", "https://later.example/": "to read/-", "https://done.example/": "-/archived", "https://plain.example/": "-/-" };

  it("linkshelf JSON: toRead and archived per link, read back; a file without them reads as false", async () => {
    const { env, alice } = await flaggedShelf();
    const exported = await open(env, "/export?format=json", cookieFor(env, alice));
    const body = JSON.parse(exported.text);
    expect(body.links.map((link: { url: string; toRead: boolean; archived: boolean }) => [link.url, link.toRead, link.archived]).sort()).toEqual([
      ["https://both.example/", true, true], ["https://done.example/", false, true], ["https://later.example/", true, false], ["https://plain.example/", false, false],
    ]);
    const carol = await createUser(env, { email: "carol@example.test" });
    await importBytes(env, carol, new TextEncoder().encode(exported.text));
    expect(await flagsOf(env, carol)).toEqual(WANT);
    // An older file, without the fields: nothing is marked.
    for (const link of body.links) {
      delete link.toRead;
      delete link.archived;
    }
    const dave = await createUser(env, { email: "dave@example.test" });
    const report = await importBytes(env, dave, new TextEncoder().encode(JSON.stringify(body)));
    expect({ toRead: report.linksToRead, archived: report.linksArchived }).toEqual({ toRead: 0, archived: 0 });
    expect(Object.values(await flagsOf(env, dave))).toEqual(["-/-", "-/-", "-/-", "-/-"]);
  });

  it("the bookmark file: TOREAD=\"1\" and LINKSHELF_ARCHIVED=\"true\", read back into the flags, and the same bytes again", async () => {
    const { env, alice } = await flaggedShelf();
    const file = exportBookmarks(shelfFor(env, alice));
    expect(file).toContain('HREF="https://both.example/" ');
    const lineOf = (url: string) => file.split("\n").find((line) => line.includes(`HREF="${url}"`))!;
    expect(lineOf("https://both.example/")).toMatch(/ TOREAD="1" LINKSHELF_ARCHIVED="true">Both<\/A>$/);
    expect(lineOf("https://later.example/")).toMatch(/ TOREAD="1">Later<\/A>$/);
    expect(lineOf("https://done.example/")).toMatch(/" LINKSHELF_ARCHIVED="true">Done<\/A>$/);
    expect(lineOf("https://plain.example/")).not.toContain("TOREAD");
    const carol = await createUser(env, { email: "carol@example.test" });
    const report = await importBytes(env, carol, new TextEncoder().encode(file));
    expect(report.unknownFields).toEqual([]);
    expect(await flagsOf(env, carol)).toEqual(WANT);
    expect(exportBookmarks(shelfFor(env, carol))).toBe(file);
  });
});
