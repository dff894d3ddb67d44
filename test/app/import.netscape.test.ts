/**
 * Import and export of Netscape bookmark files (src/bookmarks/). The fixtures in
 * test/fixtures/bookmarks/ are written by hand the way Chromium and Firefox export (Chromium:
 * CRLF, PERSONAL_TOOLBAR_FOLDER="true", "Other bookmarks" at the top level, ICON data URLs,
 * raw `&` in HREFs; Firefox: <DD> descriptions, SHORTCUTURL, TAGS, place: queries, <HR>
 * glued to the next line, UNFILED_BOOKMARKS_FOLDER), plus odd encodings; chromium-tree.html and
 * firefox-tree.html follow each browser's writer (bookmark_html_writer.cc, BookmarkHTMLUtils)
 * with folders nested several levels, links and folders interleaved, separators and `place:`
 * entries, for the round trip. The import is called as the web pages and the CLI call it; what
 * it stored is read back through the API.
 */
import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BookmarkFileRefused, decodeBookmarkFile, escapeHtml, IMPORT_LIMITS, parseNetscape, parseNetscapeInSteps, STEP_CHARS, type NetscapeFolder } from "../../src/bookmarks/netscape";
import { exportBookmarks } from "../../src/bookmarks/export";
import { importBookmarks, type ImportDestination, type ImportReport } from "../../src/bookmarks/plan";
import { Shelf as UserShelf } from "../../src/shelf/shelf";
import { chars, createCollection, createLink, createUser, get, inboxOf, put, shelfFor, snapshot, type TestEnv, type TestUser } from "../support/helpers";
import { file, folder, link, links, newEnv, NOW } from "../support/import.fixtures";
import { COLLECTION_LIMITS, IMPORT_CHUNK, TREE_DEPTH } from "../../src/shelf/limits";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "bookmarks");
const fixture = (name: string) => decodeBookmarkFile(readFileSync(join(FIXTURES, name)));
/** The lines Chromium opens its bookmark file with, down to the outermost list's `<DL><p>`: an export must open with them too. */
const CHROMIUM_HEADER = (() => {
  const lines = fixture("chromium.html").split("\r\n");
  return lines.slice(0, lines.indexOf("<DL><p>") + 1);
})();
const seconds = (s: number) => s * 1000;
/** Links per folder of the files written in several transactions: a transaction's worth each. */
const PER = IMPORT_CHUNK.items;

interface StoredLink {
  name: string;
  url: string;
  description: string;
  favorite: boolean;
  createdAt: string;
  /** Paths of its collections, sorted. */
  collections: string[];
}

interface Shelf {
  /** Collection path (`Dev › Rust`: the names from the top level down) -> description (null when none); the Inbox included, in the tree's order. */
  collections: Map<string, string | null>;
  /** Collection path -> icon. */
  icons: Map<string, string>;
  /** By URL. */
  links: Map<string, StoredLink>;
}

/** shelfOf reads everything a user has through GET /api/v1/collections. */
async function shelfOf(env: TestEnv, as: TestUser): Promise<Shelf> {
  const response = await get(env, "/api/v1/collections", { token: as.token });
  expect(response.status).toBe(200);
  const collections = new Map<string, string | null>();
  const icons = new Map<string, string>();
  const links = new Map<string, StoredLink>();
  const paths = new Map<number, string>();
  for (const collection of response.body.collections) {
    const path = collection.parentId === null ? collection.name : `${paths.get(collection.parentId)} › ${collection.name}`;
    paths.set(collection.id, path);
    collections.set(path, collection.description);
    icons.set(path, collection.icon);
    for (const link of collection.links) {
      const known = links.get(link.url);
      if (known) known.collections = [...known.collections, path].sort();
      else links.set(link.url, { name: link.name, url: link.url, description: link.description, favorite: link.favorite, createdAt: link.createdAt, collections: [path] });
    }
  }
  return { collections, icons, links };
}

/** orderOf is a collection's items (by its path) as `link URL` and `collection NAME`, in its order. */
async function orderOf(env: TestEnv, as: TestUser, path: string): Promise<string[]> {
  const { collections } = (await get(env, "/api/v1/collections", { token: as.token })).body;
  const paths = new Map<number, string>();
  for (const collection of collections) paths.set(collection.id, collection.parentId === null ? collection.name : `${paths.get(collection.parentId)} › ${collection.name}`);
  const found = collections.find((collection: { id: number }) => paths.get(collection.id) === path);
  const urls = new Map<number, string>(found.links.map((link: { id: number; url: string }) => [link.id, link.url]));
  const names = new Map<number, string>(collections.map((collection: { id: number; name: string }) => [collection.id, collection.name]));
  return found.order.map((item: { kind: string; id: number }) => (item.kind === "link" ? `link ${urls.get(item.id)}` : `collection ${names.get(item.id)}`));
}

const emptyReport = (): ImportReport => ({ format: "netscape", linksAdded: 0, linksToRead: 0, linksArchived: 0, unknownFields: [], linksCreated: 0, collectionsCreated: [], duplicates: [], skipped: [], unreadDates: [], destinations: [] });
/** A destination of an import: a private collection, new unless said, and how many links go there. */
const into = (name: string, links: number, { isNew = true, insteadOf = null as string | null, path = [] as string[] } = {}): ImportDestination =>
  ({ name, path, isNew, visibility: "PRIVATE", links, insteadOf });
const INBOX = { isNew: false };
const NOT_HTTP = (scheme: string) => `linkshelf keeps only http and https links, not ${scheme} ones.`;

describe("importing a file exported by Chromium", () => {
  it("maps folders to nested collections in the file's order (the bookmarks bar too), top-level bookmarks to the Inbox, and skips what is not http(s)", async () => {
    const { env, alice } = await newEnv();
    const report = await importBookmarks(shelfFor(env, alice), fixture("chromium.html"), NOW);

    expect(report).toEqual({
      ...emptyReport(),
      linksCreated: 8,
      // The bookmarks bar is the browser's own folder: a top-level collection like any other.
      collectionsCreated: ["Bookmarks bar", "Dev", "JavaScript", "Empty ideas", "Recipes"],
      duplicates: [],
      skipped: [
        { name: "Say hi (bookmarklet)", url: 'javascript:(function(){alert("hi")})()', reason: NOT_HTTP("javascript:") },
        { name: "Settings", url: "chrome://settings/", reason: NOT_HTTP("chrome:") },
      ],
      destinations: [
        into("Inbox", 2, INBOX), into("Bookmarks bar", 2), into("Dev", 1, { path: ["Bookmarks bar"] }),
        into("JavaScript", 2, { path: ["Bookmarks bar", "Dev"] }), into("Empty ideas", 0, { path: ["Bookmarks bar", "Dev"] }), into("Recipes", 2),
      ],
    });
    const shelf = await shelfOf(env, alice);
    expect([...shelf.collections.keys()]).toEqual(["Inbox", "Bookmarks bar", "Bookmarks bar › Dev", "Bookmarks bar › Dev › JavaScript", "Bookmarks bar › Dev › Empty ideas", "Recipes"]);
    // Links and folders interleaved as in the file.
    expect(await orderOf(env, alice, "Bookmarks bar")).toEqual(["link https://bun.sh/", "link https://www.sqlite.org/lang_select.html?x=1&y=2", "collection Dev"]);
    expect(await orderOf(env, alice, "Bookmarks bar › Dev")).toEqual(["link https://developer.mozilla.org/en-US/docs/Web/HTML", "collection JavaScript", "collection Empty ideas"]);
    expect(await orderOf(env, alice, "Inbox")).toEqual(["link https://news.ycombinator.com/", "link https://example.com/"]);
    expect(shelf.links.get("https://bun.sh/")).toEqual({
      name: "Bun — A fast all-in-one JavaScript runtime", url: "https://bun.sh/", description: "", favorite: false,
      createdAt: new Date(seconds(1700000001)).toISOString(), collections: ["Bookmarks bar"],
    });
    // Entities decoded in names; a raw `&` in an HREF (Chromium does not escape it) kept.
    expect(shelf.links.get("https://www.sqlite.org/lang_select.html?x=1&y=2")?.name).toBe("SELECT & friends <SQLite>");
    expect(shelf.links.get("https://cooking.example/bread?lang=en&units=metric")?.name).toBe(`Bread "no-knead" 'easy'`);
    expect(shelf.links.get("https://tc39.es/ecma262/")?.collections).toEqual(["Bookmarks bar › Dev › JavaScript"]);
    expect(shelf.links.get("https://news.ycombinator.com/")?.collections).toEqual(["Inbox"]);
    // The same URL at the top level and in Recipes: one link in both, named after its first entry.
    expect(shelf.links.get("https://example.com/")).toMatchObject({ name: "Example Domain", collections: ["Inbox", "Recipes"] });
    expect(shelf.links.size).toBe(8);
  });

  it("finds nothing new when the same file is imported again", async () => {
    const { env, alice } = await newEnv();
    await importBookmarks(shelfFor(env, alice), fixture("chromium.html"), NOW);
    const before = snapshot(env);

    const again = await importBookmarks(shelfFor(env, alice), fixture("chromium.html"), NOW);
    expect(again.linksCreated).toBe(0);
    expect(again.collectionsCreated).toEqual([]);
    // Every http(s) entry is a duplicate now, "Example again" included.
    expect(again.duplicates.map((d) => d.name)).toEqual([
      "Bun — A fast all-in-one JavaScript runtime", "SELECT & friends <SQLite>", "HTML: HyperText Markup Language | MDN",
      "ECMAScript® 2026 Language Specification", "Node.js API", "Hacker News", "Example Domain", "Example again",
      `Bread "no-knead" 'easy'`,
    ]);
    expect(again.skipped).toHaveLength(2);
    expect(snapshot(env)).toBe(before);
  });
});

describe("importing a file exported by Firefox", () => {
  it("keeps <DD> descriptions of links and folders, puts tagged links in a collection per tag under a top-level Tags, ignores keywords, and reports place:, file:, data: and HREF-less entries", async () => {
    const { env, alice } = await newEnv();
    const report = await importBookmarks(shelfFor(env, alice), fixture("firefox.html"), NOW);

    expect(report.linksCreated).toBe(8);
    expect(report.collectionsCreated).toEqual(["Mozilla Firefox", "Add-ons", "Bookmarks Toolbar", "Daily", "Other Bookmarks", "Tags", "reference", "search", "about"]);
    expect(report.duplicates).toEqual([]);
    expect(report.skipped).toEqual([
      { name: "Recent Tags", url: "place:parent=menu________&sort=12&maxResults=10", reason: NOT_HTTP("place:") },
      { name: "My notes", url: "file:///home/me/notes.txt", reason: NOT_HTTP("file:") },
      { name: "A data page", url: "data:text/html,<h1>hi</h1>", reason: NOT_HTTP("data:") },
      { name: "Broken entry without HREF", url: "", reason: "The bookmark has no URL." },
      { name: "Most Visited", url: "place:sort=8&maxResults=10", reason: NOT_HTTP("place:") },
    ]);

    const shelf = await shelfOf(env, alice);
    expect(shelf.links.get("https://www.mozilla.org/en-US/firefox/central/")).toMatchObject({
      name: "Getting Started", description: "Firefox's welcome page & tour", collections: ["Inbox"],
    });
    expect(shelf.links.get("https://www.mozilla.org/en-US/about/")?.description).toBe("Who makes Firefox");
    expect(shelf.links.get("https://www.wikipedia.org/w/index.php?search=%s")).toMatchObject({ name: "Wikipedia search", collections: ["Inbox", "Tags › reference", "Tags › search"] });
    expect(shelf.collections.get("Mozilla Firefox")).toBe("Links that came with the browser");
    expect(shelf.collections.get("Bookmarks Toolbar")).toBe("Add bookmarks to this folder to see them displayed on the Bookmarks Toolbar");
    // One link per page: the same URL in three folders, and a second spelling of the same URL.
    expect(shelf.links.get("https://addons.mozilla.org/")).toMatchObject({
      name: "Firefox Add-ons", collections: ["Bookmarks Toolbar", "Mozilla Firefox › Add-ons"],
    });
    expect(shelf.links.get("https://github.com/")?.collections).toEqual(["Bookmarks Toolbar", "Bookmarks Toolbar › Daily"]);
    expect(shelf.links.has("HTTPS://GitHub.com")).toBe(false);
    expect(shelf.links.get("https://lwn.net/")?.collections).toEqual(["Bookmarks Toolbar › Daily", "Other Bookmarks"]);
    expect(shelf.links.get("https://www.rfc-editor.org/rfc/rfc9110")?.collections).toEqual(["Other Bookmarks"]);
  });
});

describe("encodings and odd markup", () => {
  it("decodes a windows-1252 file by its META charset", async () => {
    const bytes = readFileSync(join(FIXTURES, "windows-1252.html"));
    // The file really is windows-1252: as UTF-8 it would not even be valid.
    expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes)).toThrow();
    const { env, alice } = await newEnv();
    const report = await importBookmarks(shelfFor(env, alice), decodeBookmarkFile(bytes), NOW);
    expect(report.collectionsCreated).toEqual(["Café & Crème"]);
    expect((await shelfOf(env, alice)).links.get("https://example.org/caf%C3%A9")).toMatchObject({
      name: "Le “meilleur” café – Paris", description: "Prix : 5 € ; Straße, Ærø, naïve", collections: ["Café & Crème"],
    });
  });

  it("reads an undeclared file as UTF-8 when it is valid UTF-8, else as windows-1252", () => {
    expect(parseNetscape(fixture("undeclared-latin1.html")).bookmarks.map((b) => b.name)).toEqual(["Déjà vu"]);
    const utf8 = new TextEncoder().encode(file(link("https://x.example/", "Ærø ✓")).replace(/<META[^>]*>\n/, ""));
    expect(parseNetscape(decodeBookmarkFile(utf8)).bookmarks[0]!.name).toBe("Ærø ✓");
  });

  it("lets a byte order mark win over the META, and ignores a META that claims UTF-16", () => {
    const text = file(link("https://x.example/", "naïve ✓"));
    const withBom = (bom: number[], body: Uint8Array) => new Uint8Array([...bom, ...body]);
    const utf16le = new Uint8Array(new Uint16Array([...text].flatMap((c) => {
      const code = c.codePointAt(0)!;
      return code > 0xffff ? [0xd800 + ((code - 0x10000) >> 10), 0xdc00 + ((code - 0x10000) & 0x3ff)] : [code];
    })).buffer);
    const latin1Meta = new TextEncoder().encode(text.replace("charset=UTF-8", "charset=ISO-8859-1"));
    const utf16Meta = new TextEncoder().encode(text.replace("charset=UTF-8", "charset=UTF-16"));
    for (const bytes of [withBom([0xef, 0xbb, 0xbf], latin1Meta), withBom([0xff, 0xfe], utf16le), utf16Meta]) {
      expect(parseNetscape(decodeBookmarkFile(bytes)).bookmarks[0]?.name).toBe("naïve ✓");
    }
    // Without the BOM, the declared ISO-8859-1 (windows-1252 in WHATWG) is believed.
    expect(parseNetscape(decodeBookmarkFile(latin1Meta)).bookmarks[0]?.name).toBe("naÃ¯ve âœ“");
  });

  it("handles RTL text, emoji, named and numeric entities, unquoted and padded attributes, inline markup and malformed folders", async () => {
    const { env, alice } = await newEnv();
    const report = await importBookmarks(shelfFor(env, alice), fixture("odd.html"), NOW);
    // A folder without a name is named for it; a heading without a list is an empty folder.
    expect(report).toEqual({
      ...emptyReport(), linksCreated: 10, collectionsCreated: ["عربي", "Emoji 🎉 & friends", "Unnamed folder", "Heading without a list", "Next folder"],
      destinations: [into("عربي", 2), into("Emoji 🎉 & friends", 6), into("Unnamed folder", 1), into("Heading without a list", 0), into("Next folder", 1)],
    });

    const shelf = await shelfOf(env, alice);
    expect(shelf.links.has("https://navigation.example/")).toBe(false);
    expect(shelf.links.get("https://ar.wikipedia.org/wiki/%D8%A7%D9%84%D8%B9%D8%B1%D8%A8%D9%8A%D8%A9")).toMatchObject({
      name: "اللغة العربية – ويكيبيديا", collections: ["عربي"], createdAt: new Date(seconds(1600000000)).toISOString(),
    });
    expect(shelf.links.get("https://he.wikipedia.org/")).toMatchObject({ name: "עברית: ויקיפדיה", createdAt: new Date(NOW).toISOString() });
    expect(shelf.links.get("https://emojipedia.org/party-popper")).toMatchObject({
      name: "Party popper 🎉 🎉 🎉 👨‍👩‍👧‍👦", description: "Entities: é\u00a0© … — <b>not bold</b>",
    });
    // HTML's rule: a legacy entity name followed by "=" inside an attribute is not a reference.
    expect(shelf.links.has("https://example.com/?a=1&copy=2&not=3")).toBe(true);
    expect(shelf.links.has("https://unquoted.example/path")).toBe(true);
    expect(shelf.links.get("https://padded.example/")?.name).toBe("Padded   name");
    expect(shelf.links.get("https://empty-name.example/")?.name).toBe("https://empty-name.example/");
    expect(shelf.links.get("https://markup.example/")?.name).toBe("Name with bold and italic parts");
    expect(shelf.links.get("https://unnamed-folder.example/")?.collections).toEqual(["Unnamed folder"]);
    expect(shelf.links.get("https://next.example/")?.collections).toEqual(["Next folder"]);
    expect(shelf.collections.has("Heading without a list")).toBe(true);
  });
});

describe("hostile files", () => {
  const nested = (depth: number, inside: string) => `${"<DT><H3>ab</H3><DL><p>".repeat(depth)}${inside}${"</DL><p>".repeat(depth)}`;
  const folders = (count: number) => Array.from({ length: count }, (_, i) => folder(`F${i}`, "")).join("\n");

  it("imports folders nested 64 deep as collections nested 64 deep", async () => {
    const { env, alice } = await newEnv();
    const report = await importBookmarks(shelfFor(env, alice), file(nested(IMPORT_LIMITS.depth, link("https://deep.example/", "Deep"))), NOW);
    expect(report.linksCreated).toBe(1);
    expect(report.collectionsCreated).toEqual(Array(TREE_DEPTH).fill("ab"));
    expect(report.destinations.at(-1)).toEqual(into("ab", 1, { path: Array(TREE_DEPTH - 1).fill("ab") }));
    expect((await shelfOf(env, alice)).links.get("https://deep.example/")?.collections).toEqual([Array(TREE_DEPTH).fill("ab").join(" › ")]);
  });

  it("refuses folders nested 65 deep, storing nothing", async () => {
    const { env, alice } = await newEnv();
    const before = snapshot(env);
    const html = file(nested(IMPORT_LIMITS.depth + 1, link("https://deep.example/", "Deep")));
    await expect(importBookmarks(shelfFor(env, alice), html, NOW)).rejects.toThrow(new BookmarkFileRefused("The file nests folders more than 64 deep, deeper than linkshelf imports. Move the deepest folders up, or split the file."));
    expect(snapshot(env)).toBe(before);
  });

  it("refuses lists nested deeper than 64 folders hold, even without folder headings", () => {
    const lists = (depth: number) => `<!DOCTYPE NETSCAPE-Bookmark-file-1>${"<DL><p>".repeat(depth)}${link("https://deep.example/", "Deep")}`;
    // The top list and one per folder.
    expect(parseNetscape(lists(IMPORT_LIMITS.depth + 1)).bookmarks).toHaveLength(1);
    expect(() => parseNetscape(lists(IMPORT_LIMITS.depth + 2))).toThrow(BookmarkFileRefused);
  });

  it("stops reading a file of a million nested folders at the 65th", () => {
    const html = file("<DT><H3>f</H3><DL><p>".repeat(1_000_000));
    const error = (() => {
      try {
        parseNetscape(html);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(BookmarkFileRefused);
    expect((error as BookmarkFileRefused).status).toBe(422);
  });

  it("reads 10,000 folders and refuses 10,001", () => {
    expect(parseNetscape(file(folders(IMPORT_LIMITS.folders))).folders).toHaveLength(10_000);
    expect(() => parseNetscape(file(folders(IMPORT_LIMITS.folders + 1)))).toThrow(
      new BookmarkFileRefused("The file holds more than 10,000 folders, the most linkshelf imports from one file. Split it into smaller files."),
    );
  });

  it("reads a file in slices, letting timers run in between, to the same result as in one piece", async () => {
    const html = file(folder("Many", links(20_000)));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const document = await parseNetscapeInSteps(html);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    expect(document).toEqual(parseNetscape(html));
  });

  it("reads a character, an entity and a tag cut by the edge of a slice as in one piece", async () => {
    const start = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="https://cut.example/">`;
    // The first edge falls inside 😀 (two UTF-16 units), the second inside &amp;, the third inside </A>.
    const first = "a".repeat(STEP_CHARS - start.length - 1) + "😀";
    const second = "b".repeat(STEP_CHARS - 3) + "&amp;";
    const third = "c".repeat(STEP_CHARS - 5) + "</A>";
    const html = `${start}${first}${second}${third}\n<DT><A HREF="https://next.example/">Next</A>\n</DL>`;
    expect([html.charCodeAt(STEP_CHARS - 1), html.slice(2 * STEP_CHARS - 2, 2 * STEP_CHARS + 3), html.slice(3 * STEP_CHARS - 2, 3 * STEP_CHARS + 2)])
      .toEqual([0xd83d, "&amp;", "</A>"]);
    const document = await parseNetscapeInSteps(html);
    expect(document.bookmarks.map((b) => [b.href, b.name])).toEqual([
      ["https://cut.example/", `${"a".repeat(first.length - 2)}😀${"b".repeat(second.length - 5)}&${"c".repeat(third.length - 4)}`],
      ["https://next.example/", "Next"],
    ]);
  });
});

describe("the rules of the API apply to every entry", () => {
  it("cuts names, descriptions and folder names to their limits, ending with an ellipsis", async () => {
    const { env, alice } = await newEnv();
    const longName = chars(300, "n");
    const longFolder = chars(300, "f");
    const html = file(folder(longFolder, `${link("https://long.example/", longName)}\n<DD>${chars(400, "😀")}`));
    await importBookmarks(shelfFor(env, alice), html, NOW);

    const stored = (await shelfOf(env, alice)).links.get("https://long.example/")!;
    expect(stored.name).toBe(chars(253, "n") + "…");
    expect(stored.description).toBe(chars(299, "😀") + "…");
    expect(stored.collections).toEqual([chars(253, "f") + "…"]);
  });

  it("cleans names the name rule refuses instead of failing the import: controls become spaces, bidirectional controls go", async () => {
    const { env, alice } = await newEnv();
    const html = file([
      folder("Work\u2028Stuff", link("https://a.example/", "Line\u0085break\ttab")),
      folder("\u200B", link("https://b.example/", "invoice\u202Efdp.exe")),
      link("https://c.example/?q=\u202E", "\u2066\u2069"),
      // A folder whose name shows nothing is an unnamed one, named for it.
      folder("Parent", folder("\u200B\u2067", "")),
    ].join("\n"));
    const report = await importBookmarks(shelfFor(env, alice), html, NOW);
    expect(report.linksCreated).toBe(3);
    expect(report.collectionsCreated).toEqual(["Work Stuff", "Unnamed folder", "Parent", "Unnamed folder"]);
    const links = (await shelfOf(env, alice)).links;
    expect(links.get("https://a.example/")).toMatchObject({ name: "Line break tab", collections: ["Work Stuff"] });
    expect(links.get("https://b.example/")).toMatchObject({ name: "invoicefdp.exe", collections: ["Unnamed folder"] });
    // Nothing visible left: the URL stands in, as for a bookmark without a name, cleaned the same way.
    expect(links.get("https://c.example/?q=\u202E")?.name).toBe("https://c.example/?q=");
  });

  it("skips URLs the API refuses, saying why in plain words, and keeps the rest of the file", async () => {
    const { env, alice } = await newEnv();
    const tooLong = `https://x.example/${chars(2040)}`;
    const html = file([
      link(tooLong, "Too long"),
      link("https://x.example/a b", "Space inside"),
      link("http:no-slashes.example", "No slashes"),
      link("/relative/path", "Relative"),
      link("https://fine.example/", "Fine"),
    ].join("\n"));
    const report = await importBookmarks(shelfFor(env, alice), html, NOW);

    const rule = "Expected an absolute http or https URL of at most 2048 characters.";
    expect(report.skipped).toEqual([
      { name: "Too long", url: tooLong, reason: "The URL is longer than 2,048 characters." },
      { name: "Space inside", url: "https://x.example/a b", reason: "The URL contains spaces." },
      { name: "No slashes", url: "http:no-slashes.example", reason: rule },
      { name: "Relative", url: "/relative/path", reason: "The URL is not an absolute URL." },
    ]);
    expect(report.linksCreated).toBe(1);
    // The same URL through the API: refused alike.
    const refused = await createLink(env, alice, { url: tooLong }).catch((error: Error) => error.message);
    expect(refused).toContain("422");
    expect([...(await shelfOf(env, alice)).links.keys()]).toEqual(["https://fine.example/"]);
  });

  it("takes ADD_DATE as the creation time (seconds, or milliseconds and microseconds by size), never in the future", async () => {
    const { env, alice } = await newEnv();
    const html = file([
      link("https://s.example/", "seconds", ` ADD_DATE="1500000000"`),
      link("https://ms.example/", "millis", ` ADD_DATE="1500000000123"`),
      link("https://us.example/", "micros", ` ADD_DATE="1500000000123456"`),
      link("https://future.example/", "future", ` ADD_DATE="${Math.floor(NOW / 1000) + 3600}"`),
      link("https://garbage.example/", "garbage", ` ADD_DATE="soon"`),
    ].join("\n"));
    await importBookmarks(shelfFor(env, alice), html, NOW);
    const links = (await shelfOf(env, alice)).links;
    expect(links.get("https://s.example/")?.createdAt).toBe("2017-07-14T02:40:00.000Z");
    expect(links.get("https://ms.example/")?.createdAt).toBe("2017-07-14T02:40:00.123Z");
    expect(links.get("https://us.example/")?.createdAt).toBe("2017-07-14T02:40:00.123Z");
    expect(links.get("https://future.example/")?.createdAt).toBe(new Date(NOW).toISOString());
    expect(links.get("https://garbage.example/")?.createdAt).toBe(new Date(NOW).toISOString());
  });
});

describe("duplicates", () => {
  it("skips and reports URLs the user has already, leaving the stored link as it was", async () => {
    const { env, alice } = await newEnv();
    const reading = await createCollection(env, alice, { name: "Reading" });
    const existing = await createLink(env, alice, { name: "Mine", url: "https://dup.example/path", collectionIds: [reading.id] });
    const html = file(folder("Elsewhere", [
      link("https://DUP.example:443/path", "Theirs"),
      link("https://new.example/", "New"),
    ].join("\n")));
    const report = await importBookmarks(shelfFor(env, alice), html, NOW);

    expect(report).toEqual({
      ...emptyReport(), linksCreated: 1, collectionsCreated: ["Elsewhere"], duplicates: [{ name: "Theirs", url: "https://DUP.example:443/path" }], destinations: [into("Elsewhere", 1)],
    });
    expect((await shelfOf(env, alice)).links.get("https://dup.example/path")).toMatchObject({ name: "Mine", collections: ["Reading"] });
    expect(existing.collectionIds).toEqual([reading.id]);
  });

  it("makes a URL repeated in other folders one link in all of them, and reports a repeat in the same folder", async () => {
    const { env, alice } = await newEnv();
    const html = file([
      folder("A", [link("https://same.example/", "First"), link("https://same.example/", "Again in A")].join("\n")),
      folder("B", link("https://same.example", "In B")),
      link("https://same.example/", "At the top"),
    ].join("\n"));
    const report = await importBookmarks(shelfFor(env, alice), html, NOW);

    // One link, counted in each of its three destinations.
    expect(report).toEqual({
      ...emptyReport(), linksCreated: 1, collectionsCreated: ["A", "B"], duplicates: [{ name: "Again in A", url: "https://same.example/" }],
      destinations: [into("Inbox", 1, INBOX), into("A", 1), into("B", 1)],
    });
    const links = (await shelfOf(env, alice)).links;
    expect(links.size).toBe(1);
    expect(links.get("https://same.example/")).toMatchObject({ name: "First", collections: ["A", "B", "Inbox"] });
  });

  it("reuses the user's collections by exact name at the same place in the tree, and creates none for folders with nothing new", async () => {
    const { env, alice } = await newEnv();
    const reading = await createCollection(env, alice, { name: "Reading" });
    const later = await createCollection(env, alice, { name: "Later", parentId: reading.id });
    await createCollection(env, alice, { name: "Elsewhere" });
    await createLink(env, alice, { url: "https://old.example/" });
    const html = file([
      folder("Reading", [link("https://r.example/", "R"), folder("Later", link("https://l.example/", "L")), folder("Elsewhere", link("https://e.example/", "E"))].join("\n")),
      folder("reading", link("https://r2.example/", "R2")),
      folder("Only old", link("https://old.example/", "Old")),
      folder("Only skipped", link("javascript:void(0)", "Nothing")),
    ].join("\n"));
    const report = await importBookmarks(shelfFor(env, alice), html, NOW);

    expect(report.collectionsCreated).toEqual(["Elsewhere", "reading"]);
    expect(report.destinations).toEqual([
      into("Reading", 1, { isNew: false }), into("Later", 1, { isNew: false, path: ["Reading"] }), into("Elsewhere", 1, { path: ["Reading"] }), into("reading", 1),
    ]);
    const shelf = await shelfOf(env, alice);
    expect([...shelf.collections.keys()]).toEqual(["Inbox", "Reading", "Reading › Later", "Reading › Elsewhere", "Elsewhere", "reading"]);
    expect(shelf.links.get("https://r.example/")?.collections).toEqual(["Reading"]);
    expect(shelf.links.get("https://l.example/")?.collections).toEqual(["Reading › Later"]);
    expect(await orderOf(env, alice, "Reading")).toEqual(["collection Later", "link https://r.example/", "collection Elsewhere"]);
    expect(later.parentId).toBe(reading.id);
  });

  it("never puts a folder into the Inbox, which holds no sub-collections: a folder named like it is a collection of its own", async () => {
    const { env, alice } = await newEnv();
    const report = await importBookmarks(shelfFor(env, alice), file([link("https://loose.example/", "Loose"), folder("Inbox", link("https://i.example/", "I"))].join("\n")), NOW);
    expect(report.destinations).toEqual([into("Inbox", 1, INBOX), into("Inbox", 1)]);
    const rows = shelfFor(env, alice).collections.rows().map((row) => [row.name, row.isDefault]);
    expect(rows).toEqual([["Inbox", true], ["Inbox", false]]);
  });
});

describe("an import never publishes anything", () => {
  /** visibilityOf reads a user's collections as `name: VISIBILITY`, oldest first. */
  const visibilityOf = (env: TestEnv, as: TestUser) =>
    (env.db.$client.query("SELECT name, visibility FROM collections WHERE user_id = ? ORDER BY id").all(as.user.id) as { name: string; visibility: string }[])
      .map((row) => `${row.name}: ${row.visibility}`);

  it("puts a folder named like a PUBLIC collection into a new private `Name (imported)`, and the same folder again merges there", async () => {
    const { env, alice } = await newEnv();
    const reading = await createCollection(env, alice, { name: "Reading", visibility: "PUBLIC", icon: "📚" });
    await createLink(env, alice, { url: "https://shared.example/", collectionIds: [reading.id] });
    const report = await importBookmarks(shelfFor(env, alice), file(folder("Reading", link("https://private.example/", "Private"))), NOW);

    expect(report).toEqual({ ...emptyReport(), linksCreated: 1, collectionsCreated: ["Reading (imported)"], destinations: [into("Reading (imported)", 1, { insteadOf: "Reading" })] });
    expect(visibilityOf(env, alice)).toEqual(["Inbox: PRIVATE", "Reading: PUBLIC", "Reading (imported): PRIVATE"]);
    const shelf = await shelfOf(env, alice);
    expect(shelf.links.get("https://private.example/")?.collections).toEqual(["Reading (imported)"]);
    expect(shelf.links.get("https://shared.example/")?.collections).toEqual(["Reading"]);

    const again = file(folder("Reading", [link("https://private.example/", "Private"), link("https://later.example/", "Later")].join("\n")));
    const preview = await importBookmarks(shelfFor(env, alice), again, NOW, { dryRun: true });
    expect(preview.destinations).toEqual([into("Reading (imported)", 1, { isNew: false, insteadOf: "Reading" })]);
    expect(await importBookmarks(shelfFor(env, alice), again, NOW)).toEqual(preview);
    expect(visibilityOf(env, alice)).toEqual(["Inbox: PRIVATE", "Reading: PUBLIC", "Reading (imported): PRIVATE"]);
    expect((await shelfOf(env, alice)).links.get("https://later.example/")?.collections).toEqual(["Reading (imported)"]);
  });

  it("adds to a PRIVATE collection of the folder's name when the user has one besides a PUBLIC one", async () => {
    const { env, alice } = await newEnv();
    await createCollection(env, alice, { name: "Reading", visibility: "PUBLIC" });
    const mine = await createCollection(env, alice, { name: "Reading", visibility: "PRIVATE" });
    const report = await importBookmarks(shelfFor(env, alice), file(folder("Reading", link("https://private.example/", "Private"))), NOW);

    expect(report.destinations).toEqual([into("Reading", 1, { isNew: false })]);
    expect(report.collectionsCreated).toEqual([]);
    const stored = env.db.$client.query("SELECT lc.collection_id AS id FROM link_collections lc JOIN links l ON l.id = lc.link_id WHERE l.url = 'https://private.example/'").all();
    expect(stored).toEqual([{ id: mine.id }]);
  });

  it("keeps the bookmarks outside any folder, and a folder named like it, out of a PUBLIC Inbox", async () => {
    const { env, alice } = await newEnv();
    const inbox = await inboxOf(env, alice);
    expect((await put(env, `/api/v1/collections/${inbox}`, { token: alice.token, body: { name: "Inbox", visibility: "PUBLIC" } })).status).toBe(200);
    const report = await importBookmarks(shelfFor(env, alice), file([link("https://loose.example/", "Loose"), folder("Inbox", link("https://boxed.example/", "Boxed"))].join("\n")), NOW);

    // Each takes a stand-in of its own: the folder is a collection, never the Inbox.
    expect(report.destinations).toEqual([into("Inbox (imported)", 1, { insteadOf: "Inbox" }), into("Inbox (imported 2)", 1, { insteadOf: "Inbox" })]);
    expect(visibilityOf(env, alice)).toEqual(["Inbox: PUBLIC", "Inbox (imported): PRIVATE", "Inbox (imported 2): PRIVATE"]);
    const shelf = await shelfOf(env, alice);
    expect(shelf.links.get("https://loose.example/")?.collections).toEqual(["Inbox (imported)"]);
    expect(shelf.links.get("https://boxed.example/")?.collections).toEqual(["Inbox (imported 2)"]);
  });

  it("looks for a folder's PUBLIC namesake and its stand-in at the folder's place in the tree only", async () => {
    const { env, alice } = await newEnv();
    const home = await createCollection(env, alice, { name: "Home" });
    await createCollection(env, alice, { name: "Bikes", visibility: "PUBLIC", parentId: home.id });
    await createCollection(env, alice, { name: "Bikes (imported)", visibility: "PUBLIC" });
    const html = file([folder("Home", folder("Bikes", folder("Parts", link("https://parts.example/", "Parts")))), folder("Bikes", link("https://top.example/", "Top"))].join("\n"));
    const report = await importBookmarks(shelfFor(env, alice), html, NOW);

    expect(report.destinations).toEqual([
      into("Bikes (imported)", 0, { insteadOf: "Bikes", path: ["Home"] }), into("Parts", 1, { path: ["Home", "Bikes (imported)"] }), into("Bikes", 1),
    ]);
    const again = await importBookmarks(shelfFor(env, alice), html.replace("https://parts.example/", "https://parts2.example/"), NOW, { dryRun: true });
    expect(again.destinations).toEqual([into("Parts", 1, { isNew: false, path: ["Home", "Bikes (imported)"] })]);
  });

  it("numbers a stand-in past names that only public collections or the file's own folders have", async () => {
    const { env, alice } = await newEnv();
    await createCollection(env, alice, { name: "Reading", visibility: "PUBLIC" });
    await createCollection(env, alice, { name: "Reading (imported)", visibility: "PUBLIC" });
    const html = file([
      folder("Reading", link("https://one.example/", "One")),
      folder("Reading (imported)", link("https://two.example/", "Two")),
      folder("Reading (imported 2)", link("https://three.example/", "Three")),
    ].join("\n"));
    const report = await importBookmarks(shelfFor(env, alice), html, NOW);

    expect(report.destinations).toEqual([
      into("Reading (imported 3)", 1, { insteadOf: "Reading" }),
      into("Reading (imported) (imported)", 1, { insteadOf: "Reading (imported)" }),
      into("Reading (imported 2)", 1),
    ]);
    expect(visibilityOf(env, alice)).toEqual([
      "Inbox: PRIVATE", "Reading: PUBLIC", "Reading (imported): PUBLIC", "Reading (imported 3): PRIVATE", "Reading (imported) (imported): PRIVATE", "Reading (imported 2): PRIVATE",
    ]);
  });

  it("cuts a long name to leave room for its ending, within the name limit, and never gives two cut names one stand-in", async () => {
    const { env, alice } = await newEnv();
    const long = (end: string) => `${"📚".repeat(COLLECTION_LIMITS.name - 1)}${end}`;
    await createCollection(env, alice, { name: long("A"), visibility: "PUBLIC" });
    await createCollection(env, alice, { name: long("B"), visibility: "PUBLIC" });
    const report = await importBookmarks(shelfFor(env, alice), file([folder(long("A"), link("https://a.example/", "A")), folder(long("B"), link("https://b.example/", "B"))].join("\n")), NOW);

    // Cut to leave room for the ending: the first 📚s, an ellipsis, then the ending.
    const standIn = (ending: string) => `${"📚".repeat(COLLECTION_LIMITS.name - ending.length - 1)}…${ending}`;
    expect(report.destinations).toEqual([
      into(standIn(" (imported)"), 1, { insteadOf: long("A") }),
      into(standIn(" (imported 2)"), 1, { insteadOf: long("B") }),
    ]);
    for (const { name } of report.destinations) expect([...name].length).toBe(COLLECTION_LIMITS.name);
    const shelf = await shelfOf(env, alice);
    expect(shelf.links.get("https://a.example/")?.collections).toEqual([standIn(" (imported)")]);
    expect(shelf.links.get("https://b.example/")?.collections).toEqual([standIn(" (imported 2)")]);
  });
});

describe("all or nothing", () => {
  it("stores nothing when an entry fails half-way through the file", async () => {
    const { env, alice } = await newEnv();
    await createLink(env, alice, { url: "https://before.example/" });
    // A failure the rules cannot foresee (a full disk, a broken database): here a trigger.
    env.db.$client.run(`CREATE TRIGGER fail_mid_import BEFORE INSERT ON links WHEN NEW.url = 'https://fails.example/'
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    const entries = Array.from({ length: 50 }, (_, i) => link(`https://ok${i}.example/`, `ok ${i}`));
    entries.splice(25, 0, link("https://fails.example/", "fails"));
    const html = file([folder("Half", entries.slice(0, 30).join("\n")), ...entries.slice(30)].join("\n"));
    const before = snapshot(env);

    await expect(importBookmarks(shelfFor(env, alice), html, NOW)).rejects.toThrow("disk full");
    expect(snapshot(env)).toBe(before);
    expect(env.db.$client.inTransaction).toBe(false);
  });

  it("writes a large file in several transactions, and when a later one fails removes what the earlier ones stored", async () => {
    const { env, alice, bob } = await newEnv();
    await createLink(env, alice, { url: "https://before.example/" });
    await createCollection(env, alice, { name: "Folder 0" });
    // The link at five sixths of three transactions' worth fails, after earlier transactions of this import have committed.
    const failing = Math.floor(2.5 * PER) - 1;
    env.db.$client.run(`CREATE TRIGGER fail_late_import BEFORE INSERT ON links WHEN NEW.url = 'https://site${failing}.example/'
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    const html = file(Array.from({ length: 3 }, (_, f) =>
      folder(`Folder ${f}`, Array.from({ length: PER }, (_, i) => link(`https://site${f * PER + i}.example/`, `Page ${f * PER + i}`)).join("\n"))).join("\n"));
    const linksOf = (userId: number) => (env.db.$client.query("SELECT count(*) AS n FROM links WHERE user_id = ?").get(userId) as { n: number }).n;
    const before = snapshot(env);

    const running = importBookmarks(shelfFor(env, alice), html, NOW, { record: { source: "page", fileName: "big.html" } });
    const failure = running.then(() => undefined, (error: Error) => error);
    let settled = false;
    void failure.then(() => (settled = true));
    // Between two of its transactions the import has stored some links, and the database is free for others.
    while (!settled && linksOf(alice.user.id) === 1) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    // Its record was written with its first links, and goes with them (the snapshot below holds the imports table).
    expect(shelfFor(env, alice).imports.list()).toHaveLength(1);
    const midway = linksOf(alice.user.id);
    expect(midway).toBeGreaterThan(1);
    expect(midway).toBeLessThan(1 + failing);
    expect(env.db.$client.inTransaction).toBe(false);
    expect(linksOf(bob.user.id)).toBe(0);

    expect((await failure)?.message).toBe("disk full");
    expect(snapshot(env)).toBe(before);
    expect(env.db.$client.inTransaction).toBe(false);
  });

  it("finds a collection's next place again after another writer added to it between two of its transactions: no two items share a place", async () => {
    const { env, alice } = await newEnv();
    const target = await createCollection(env, alice, { name: "Folder 0" });
    const html = file(folder("Folder 0", Array.from({ length: 3 * PER }, (_, i) => link(`https://site${i}.example/`, `Page ${i}`)).join("\n")));
    const placed = () => env.db.$client.query("SELECT position FROM link_collections WHERE collection_id = ? ORDER BY position").all(target.id) as { position: number }[];
    const running = importBookmarks(shelfFor(env, alice), html, NOW);
    let settled = false;
    void running.finally(() => (settled = true));
    while (!settled && placed().length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    const midway = placed().length;
    // Between two of the import's transactions, a link of the user's own goes to the end of the same collection.
    const mine = await createLink(env, alice, { url: "https://mine.example/", collectionIds: [target.id] });
    await running;

    const positions = placed().map((row) => row.position);
    expect(positions).toHaveLength(3 * PER + 1);
    expect(new Set(positions).size).toBe(positions.length);
    const order = (await get(env, `/api/v1/collections/${target.id}`, { token: alice.token })).body.collection.order as { kind: string; id: number }[];
    const at = order.findIndex((item) => item.id === mine.id);
    expect(at).toBeGreaterThanOrEqual(midway);
    expect(at).toBeLessThan(3 * PER);
  });

  it("stops when its record is undone while it is written, removes what it wrote, and stays undone", async () => {
    const { env, alice } = await newEnv();
    await createLink(env, alice, { url: "https://before.example/" });
    const html = file(Array.from({ length: 3 }, (_, f) =>
      folder(`Folder ${f}`, Array.from({ length: PER }, (_, i) => link(`https://site${f * PER + i}.example/`, `Page ${f * PER + i}`)).join("\n"))).join("\n"));
    const linksOf = () => (env.db.$client.query("SELECT count(*) AS n FROM links WHERE user_id = ?").get(alice.user.id) as { n: number }).n;
    const running = importBookmarks(shelfFor(env, alice), html, NOW, { record: { source: "page", fileName: "big.html" } });
    const failure = running.then(() => undefined, (error: Error) => error);
    let settled = false;
    void failure.then(() => (settled = true));
    while (!settled && linksOf() === 1) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    const [record] = shelfFor(env, alice).imports.list();
    shelfFor(env, alice).imports.undo(record!.id, NOW + 1);

    expect((await failure)?.message).toBe("The import was undone while it was being written: it stopped, and nothing it wrote was kept.");
    expect(shelfFor(env, alice).links.urls()).toEqual(["https://before.example/"]);
    expect(shelfFor(env, alice).collections.rows().map((c) => c.name)).toEqual(["Inbox"]);
    expect(shelfFor(env, alice).imports.list()).toEqual([{ ...record!, undoneAt: new Date(NOW + 1).toISOString() }]);
    expect(env.db.$client.inTransaction).toBe(false);
  });

  it("takes back a collection it created although a link was put in it during the import, leaving that link in the Inbox", async () => {
    const { env, alice } = await newEnv();
    env.db.$client.run(`CREATE TRIGGER fail_late_import BEFORE INSERT ON links WHEN NEW.url = 'https://site9999.example/'
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    const html = file([folder("Imported", link("https://first.example/", "First")), ...Array.from({ length: 10_000 }, (_, i) => link(`https://site${i}.example/`, `Page ${i}`))].join("\n"));
    const running = importBookmarks(shelfFor(env, alice), html, NOW);
    const failure = running.then(() => undefined, (error: Error) => error);
    let settled = false;
    void failure.then(() => (settled = true));
    const importedCollection = () => env.db.$client.query("SELECT id FROM collections WHERE user_id = ? AND name = 'Imported'").get(alice.user.id) as { id: number } | null;
    while (!settled && !importedCollection()) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    const imported = importedCollection()!;
    await createLink(env, alice, { url: "https://mine.example/", collectionIds: [imported.id] });

    expect((await failure)?.message).toBe("disk full");
    const shelf = await shelfOf(env, alice);
    expect([...shelf.collections.keys()]).toEqual(["Inbox"]);
    expect([...shelf.links.keys()]).toEqual(["https://mine.example/"]);
    expect(shelf.links.get("https://mine.example/")?.collections).toEqual(["Inbox"]);
  });

  it("stores nothing for a user deleted before the import wrote", async () => {
    const { env, alice } = await newEnv();
    const gone = new UserShelf(env.db, alice.user);
    env.db.$client.run("DELETE FROM users WHERE id = ?", [alice.user.id]);
    const before = snapshot(env);
    await expect(importBookmarks(gone, fixture("chromium.html"), NOW)).rejects.toThrow();
    expect(snapshot(env)).toBe(before);
  });

  it("gives in a dry run the report of the real import, and writes nothing", async () => {
    const { env, alice } = await newEnv();
    await createCollection(env, alice, { name: "Recipes" });
    await createLink(env, alice, { url: "https://bun.sh/" });
    for (const name of ["chromium.html", "firefox.html", "odd.html"]) {
      const before = snapshot(env);
      const preview = await importBookmarks(shelfFor(env, alice), fixture(name), NOW, { dryRun: true });
      expect(snapshot(env)).toBe(before);
      expect(preview.linksCreated).toBeGreaterThan(0);
      expect(await importBookmarks(shelfFor(env, alice), fixture(name), NOW)).toEqual(preview);
      expect(snapshot(env)).not.toBe(before);
    }
  });
});

describe("users are kept apart", () => {
  it("neither sees the other's URLs as duplicates, reuses the other's collections, nor exports the other's links", async () => {
    const { env, alice, bob } = await newEnv();
    await createCollection(env, bob, { name: "Recipes" });
    await createLink(env, bob, { name: "Bob's", url: "https://example.com/" });
    const bobBefore = await shelfOf(env, bob);

    const report = await importBookmarks(shelfFor(env, alice), fixture("chromium.html"), NOW);
    expect(report.duplicates).toEqual([]);
    expect(report.collectionsCreated).toContain("Recipes");
    expect((await shelfOf(env, alice)).links.get("https://example.com/")?.name).toBe("Example Domain");
    expect(await shelfOf(env, bob)).toEqual(bobBefore);

    const bobsExport = parseNetscape(exportBookmarks(shelfFor(env, bob)));
    expect(bobsExport.bookmarks.map((b) => [b.name, b.href])).toEqual([["Bob's", "https://example.com/"]]);
    expect(bobsExport.folders.map((f) => f.name)).toEqual(["Recipes"]);
  });
});

describe("exporting", () => {
  it("writes the Inbox's links outside any folder and each collection as a folder, one <A> per membership, in the collection's order", async () => {
    const { env, alice } = await newEnv();
    const reading = await createCollection(env, alice, { name: "Reading", description: "Long reads & <essays>", icon: "📚", visibility: "PUBLIC" });
    const empty = await createCollection(env, alice, { name: "Zeta (empty)" });
    const inbox = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections[0].id;
    await createLink(env, alice, { name: "Old", url: "https://old.example/", favorite: true, collectionIds: [reading.id] });
    await createLink(env, alice, { name: "Both <b>&</b> \"quoted\" 'single'", url: "https://both.example/?a=1&b=2", description: "line one\nline two", collectionIds: [inbox, reading.id] });
    const html = exportBookmarks(shelfFor(env, alice));

    expect(html.split("\n")).toEqual([
      ...CHROMIUM_HEADER,
      expect.stringMatching(/^ {4}<DT><A HREF="https:\/\/both\.example\/\?a=1&amp;b=2" ADD_DATE="\d+" LAST_MODIFIED="\d+">Both &lt;b&gt;&amp;&lt;\/b&gt; &quot;quoted&quot; &#39;single&#39;<\/A>$/),
      "    <DD>line one&#10;line two",
      expect.stringMatching(/^ {4}<DT><H3 ADD_DATE="\d+" LAST_MODIFIED="\d+" LINKSHELF_ICON="📚">Reading<\/H3>$/),
      "    <DD>Long reads &amp; &lt;essays&gt;",
      "    <DL><p>",
      expect.stringMatching(/^ {8}<DT><A HREF="https:\/\/old\.example\/" ADD_DATE="\d+" LAST_MODIFIED="\d+" LINKSHELF_FAVORITE="true">Old<\/A>$/),
      expect.stringMatching(/^ {8}<DT><A HREF="https:\/\/both\.example\/\?a=1&amp;b=2" .*<\/A>$/),
      "        <DD>line one&#10;line two",
      "    </DL><p>",
      expect.stringMatching(/^ {4}<DT><H3 .* LINKSHELF_ICON="📁">Zeta \(empty\)<\/H3>$/),
      "    <DL><p>",
      "    </DL><p>",
      "</DL><p>",
      "",
    ]);
    expect(empty.name).toBe("Zeta (empty)");

    // Read back, every value is exactly what was stored.
    const bob = await createUser(env);
    expect(await importBookmarks(shelfFor(env, bob), html, NOW)).toEqual({
      ...emptyReport(), linksCreated: 2, collectionsCreated: ["Reading", "Zeta (empty)"], destinations: [into("Inbox", 1, INBOX), into("Reading", 2), into("Zeta (empty)", 0)],
    });
    const copy = await shelfOf(env, bob);
    expect(copy.links.get("https://both.example/?a=1&b=2")).toMatchObject({
      name: "Both <b>&</b> \"quoted\" 'single'", description: "line one\nline two", collections: ["Inbox", "Reading"],
    });
    expect(copy.collections.get("Reading")).toBe("Long reads & <essays>");
    // Favorites and icons travel; visibility does not: an imported collection is always private.
    expect(copy.links.get("https://old.example/")?.favorite).toBe(true);
    expect(copy.links.get("https://both.example/?a=1&b=2")?.favorite).toBe(false);
    expect(copy.icons.get("Reading")).toBe("📚");
    const copied = (await get(env, "/api/v1/collections", { token: bob.token })).body.collections;
    expect(copied.map((c: { visibility: string }) => c.visibility)).toEqual(["PRIVATE", "PRIVATE", "PRIVATE"]);
  });

  it("ignores a LINKSHELF_ICON the API would refuse, and LINKSHELF_FAVORITE other than \"true\"", async () => {
    const { env, alice } = await newEnv();
    const html = file([
      `<DT><H3 LINKSHELF_ICON="not an emoji">Words</H3>\n<DL><p>\n${link("https://w.example/", "W", ' LINKSHELF_FAVORITE="yes"')}\n</DL><p>`,
      `<DT><H3 LINKSHELF_ICON="🇫🇷">Flag</H3>\n<DL><p>\n${link("https://f.example/", "F", ' LINKSHELF_FAVORITE="true"')}\n</DL><p>`,
    ].join("\n"));
    expect((await importBookmarks(shelfFor(env, alice), html, NOW)).collectionsCreated).toEqual(["Words", "Flag"]);
    const shelf = await shelfOf(env, alice);
    expect([shelf.icons.get("Words"), shelf.icons.get("Flag")]).toEqual(["📁", "🇫🇷"]);
    expect([shelf.links.get("https://w.example/")?.favorite, shelf.links.get("https://f.example/")?.favorite]).toEqual([false, true]);
  });

  it("is read right by a port of Chromium's line-based importer (bookmark_html_reader.cc)", async () => {
    const { env, alice } = await newEnv();
    const tricky = await createCollection(env, alice, { name: `Q&A <"quotes"> 'n' > done`, icon: "📚" });
    await createLink(env, alice, { name: "a </A> b > c & d \"e\" 'f'", url: "https://x.example/?a=1&b=\"2\"&c=<3>", favorite: true, collectionIds: [tricky.id] });
    await createLink(env, alice, { name: "In the Inbox", url: "https://inbox.example/" });

    expect(readLikeChromium(exportBookmarks(shelfFor(env, alice)))).toEqual([
      { path: [], title: "In the Inbox", url: "https://inbox.example/" },
      { path: [`Q&A <"quotes"> 'n' > done`], title: "a </A> b > c & d \"e\" 'f'", url: "https://x.example/?a=1&b=\"2\"&c=<3>" },
    ]);
  });

  it("writes the tree: each collection's links and sub-collections interleaved in its order, names with ' / ' as they are", async () => {
    const { env, alice } = await newEnv();
    const dev = await createCollection(env, alice, { name: "Dev", icon: "💻" });
    await createLink(env, alice, { name: "Dev home", url: "https://dev.example/", collectionIds: [dev.id] });
    const rust = await createCollection(env, alice, { name: "Rust", parentId: dev.id });
    await createLink(env, alice, { name: "Rust", url: "https://rust-lang.example/", collectionIds: [rust.id] });
    await createLink(env, alice, { name: "Dev later", url: "https://later.example/", collectionIds: [dev.id] });
    const odd = await createCollection(env, alice, { name: "Odd / name" });
    await createLink(env, alice, { name: "Odd", url: "https://odd.example/", collectionIds: [odd.id] });
    const html = exportBookmarks(shelfFor(env, alice));

    expect(readLikeChromium(html)).toEqual([
      { path: ["Dev"], title: "Dev home", url: "https://dev.example/" },
      { path: ["Dev", "Rust"], title: "Rust", url: "https://rust-lang.example/" },
      { path: ["Dev"], title: "Dev later", url: "https://later.example/" },
      { path: ["Odd / name"], title: "Odd", url: "https://odd.example/" },
    ]);
    expect(parseNetscape(html).folders.map((f) => [f.name, f.parent?.name ?? null, f.icon])).toEqual([["Dev", null, "💻"], ["Rust", "Dev", "📁"], ["Odd / name", null, "📁"]]);

    // Reordered, the export follows: the top level's order and each collection's.
    const shelf = shelfFor(env, alice);
    shelf.collections.setOrder(dev.id, [...shelf.collections.order(dev.id)].reverse(), NOW);
    shelf.collections.shift(null, { kind: "collection", id: odd.id }, -1, NOW);
    expect(readLikeChromium(exportBookmarks(shelf)).map((entry) => entry.title)).toEqual(["Odd", "Dev later", "Rust", "Dev home"]);
  });

  it("gives a file's nested folders back nested and in order, and its own export imports again without a change", async () => {
    const { env, alice, bob } = await newEnv();
    const html = file([
      folder("Dev", [link("https://dev.example/", "Dev home"), folder("Rust", link("https://rust-lang.example/", "Rust")), link("https://later.example/", "Later"), folder("Empty", "")].join("\n")),
      folder("Lang", folder("Go", link("https://go.example/", "Go"))),
    ].join("\n"));
    await importBookmarks(shelfFor(env, alice), html, NOW);
    const exported = exportBookmarks(shelfFor(env, alice));
    expect(readLikeChromium(exported)).toEqual(readLikeChromium(html));
    const shape = (text: string) => parseNetscape(text).folders.map((f) => `${f.parent?.name ?? ""} > ${f.name}`);
    expect(shape(exported)).toEqual(shape(html));

    const before = snapshot(env);
    expect(await importBookmarks(shelfFor(env, alice), exported, NOW)).toEqual({ ...emptyReport(), duplicates: expect.any(Array) });
    expect(snapshot(env)).toBe(before);
    expect((await importBookmarks(shelfFor(env, bob), exported, NOW)).collectionsCreated).toEqual(["Dev", "Rust", "Empty", "Lang", "Go"]);
    expect(exportBookmarks(shelfFor(env, bob))).toBe(exported);
  });

  it("keeps an empty collection that holds only nested ones when its export is imported", async () => {
    const { env, alice, bob } = await newEnv();
    const dev = await createCollection(env, alice, { name: "Dev" });
    const rust = await createCollection(env, alice, { name: "Rust", parentId: dev.id });
    await createLink(env, alice, { name: "Rust", url: "https://rust-lang.example/", collectionIds: [rust.id] });
    expect((await importBookmarks(shelfFor(env, bob), exportBookmarks(shelfFor(env, alice)), NOW)).collectionsCreated).toEqual(["Dev", "Rust"]);
  });

  it("exports an empty shelf as a valid file without entries", async () => {
    const { env, alice } = await newEnv();
    const html = exportBookmarks(shelfFor(env, alice));
    expect(parseNetscape(html)).toEqual({ folders: [], bookmarks: [] });
    expect(html.endsWith("<DL><p>\n</DL><p>\n")).toBe(true);
  });
});

/** outline writes a shape as indented lines: `📁 name` for a folder, `name <page>` for a link. */
function outline(shape: Shape, indent = ""): string[] {
  return shape.flatMap((item) => ("folder" in item ? [`${indent}📁 ${item.folder}`, ...outline(item.items, `${indent}  `)] : [`${indent}${item.name} <${item.page}>`]));
}

describe("the round trip of a browser's export", () => {
  /** roundTrip imports a file into an empty shelf and exports it; the export, imported into another empty shelf, exports the same bytes. */
  async function roundTrip(name: string): Promise<string> {
    const { env, alice, bob } = await newEnv();
    await importBookmarks(shelfFor(env, alice), fixture(name), NOW);
    const exported = exportBookmarks(shelfFor(env, alice));
    await importBookmarks(shelfFor(env, bob), exported, NOW);
    expect(exportBookmarks(shelfFor(env, bob))).toBe(exported);
    return exported;
  }

  it("gives Chromium's folders back with their nesting and order: the bookmarks bar a folder that goes back as the toolbar folder, the loose bookmarks first", async () => {
    const exported = await roundTrip("chromium-tree.html");
    const { inbox, folders } = readBack(exported);
    expect(outline(inbox)).toEqual(["Loose in Other bookmarks <https://loose.example/>", "Second loose <https://loose.example/second>"]);
    // The bookmarklet, chrome:// and the repeat in the same folder are not importable; the rest keeps its place.
    expect(outline(folders)).toEqual([
      "📁 Bookmarks bar",
      "  News <https://news.example/>",
      "  📁 Work",
      "    Board & backlog <https://tracker.example/board?team=a&view=b>",
      "    📁 Projects",
      "      Alpha <https://alpha.example/>",
      "      📁 Archive",
      "        Alpha <v1> <https://alpha.example/v1>",
      "        📁 2023",
      "          Alpha \"2023\" <https://alpha.example/2023>",
      "      Beta <https://beta.example/>",
      "    Wiki <https://wiki.example/>",
      "    📁 Empty",
      "  Mail <https://mail.example/>",
      "📁 Recipes",
      "  Wiki <https://wiki.example/>",
      "  📁 Bread",
      "    No-knead 'easy' <https://bread.example/no-knead>",
      "  Cake <https://cake.example/>",
    ]);
    // Dates travel: ADD_DATE, and LAST_MODIFIED where the file has one (else the ADD_DATE).
    // The bookmarks bar goes back to a browser as its toolbar folder.
    expect(exported).toContain('<DT><H3 ADD_DATE="1700000000" LAST_MODIFIED="1700009000" PERSONAL_TOOLBAR_FOLDER="true" LINKSHELF_ICON="📁">Bookmarks bar</H3>');
    expect(exported).toContain('<DT><H3 ADD_DATE="1700000030" LAST_MODIFIED="1700000030" LINKSHELF_ICON="📁">Archive</H3>');
    expect(exported).toContain('<DT><A HREF="https://news.example/" ADD_DATE="1700000001" LAST_MODIFIED="1700000001">News</A>');
  });

  it("gives Firefox's folders back with their nesting and order: the menu's items loose, the toolbar and Other Bookmarks folders like any other", async () => {
    const exported = await roundTrip("firefox-tree.html");
    const { inbox, folders } = readBack(exported);
    expect(outline(inbox)).toEqual([
      "Getting Started <https://www.mozilla.org/en-US/firefox/central/>",
      "Wikipedia <https://www.wikipedia.org/w/index.php?search=%s&title=Special:Search>",
    ]);
    // Separators, place: queries and file: links are not importable; the rest keeps its place.
    expect(outline(folders)).toEqual([
      "📁 Mozilla Firefox",
      "  Get Help <https://support.mozilla.org/en-US/products/firefox>",
      "  📁 Add-ons",
      "    Firefox Add-ons <https://addons.mozilla.org/>",
      "    📁 Themes",
      "      Dark themes <https://addons.mozilla.org/themes/dark>",
      "  About Us & \"Mozilla\" <https://www.mozilla.org/en-US/about/>",
      "📁 Bookmarks Toolbar",
      "  📁 Daily",
      "    LWN.net <https://lwn.net/>",
      "    Hacker News <https://news.ycombinator.com/>",
      "  GitHub <https://github.com/>",
      "  📁 Later",
      "📁 Other Bookmarks",
      "  📁 Reading",
      "    RFC 9110: HTTP Semantics <https://www.rfc-editor.org/rfc/rfc9110>",
      "  LWN.net <https://lwn.net/>",
      // Firefox's tags: a collection each, under a top-level Tags.
      "📁 Tags",
      "  📁 dark",
      "    Dark themes <https://addons.mozilla.org/themes/dark>",
      "  📁 themes",
      "    Dark themes <https://addons.mozilla.org/themes/dark>",
      "  📁 about",
      "    About Us & \"Mozilla\" <https://www.mozilla.org/en-US/about/>",
      "  📁 mozilla",
      "    About Us & \"Mozilla\" <https://www.mozilla.org/en-US/about/>",
    ]);
    expect(exported).toContain('<DT><A HREF="https://www.mozilla.org/en-US/about/" ADD_DATE="1690000302" LAST_MODIFIED="1690000350">About Us &amp; &quot;Mozilla&quot;</A>');
    expect(exported).toContain('<DT><H3 ADD_DATE="1690000910" LAST_MODIFIED="1690000920" LINKSHELF_ICON="📁">Daily</H3>');
  });
});

/**
 * readLikeChromium follows Chromium's bookmark_html_reader.cc: the file is split into lines,
 * each trimmed; "<DT>" is stripped; a line starting "<H3" names the next folder, one starting
 * "<A" is a bookmark (title between the last ">" before the first "</A>" and that "</A>",
 * attributes found by searching for `NAME="` and reading to the next unescaped quote), "<DL>"
 * enters the named folder, "</DL>" leaves it. Text goes through base::UnescapeForHTML, which
 * knows &amp; &lt; &gt; &quot; &#39; only.
 */
function readLikeChromium(html: string): { path: string[]; title: string; url: string }[] {
  const unescape = (s: string) => s.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&");
  const attribute = (list: string, name: string) => {
    const begin = list.indexOf(`${name}="`);
    if (begin === -1) return null;
    const start = begin + name.length + 2;
    let end = start + 1;
    while (end < list.length && !(list[end] === '"' && list[end - 1] !== "\\")) end++;
    return end === list.length ? null : list.slice(start, end);
  };
  const entries: { path: string[]; title: string; url: string }[] = [];
  const path: string[] = [];
  let lastFolder: string | null = null;
  for (const raw of html.split("\n")) {
    let line = raw.trim();
    if (line.toUpperCase().startsWith("<DT>")) line = line.slice(4).trim();
    for (const [open, close] of [["<H3", "</H3>"], ["<A", "</A>"]] as const) {
      if (!line.startsWith(open)) continue;
      const end = line.indexOf(close);
      const tagEnd = line.lastIndexOf(">", end) + 1;
      const text = unescape(line.slice(tagEnd, end));
      if (open === "<H3") lastFolder = text;
      else entries.push({ path: [...path], title: text, url: unescape(attribute(line.slice(2, tagEnd - 1), "HREF") ?? "") });
    }
    if (line.toUpperCase().startsWith("<DL>") && lastFolder !== null) {
      path.push(lastFolder);
      lastFolder = null;
    } else if (line.toUpperCase().startsWith("</DL>")) {
      path.pop();
    }
  }
  return entries;
}

// ---------------------------------------------------------------------------------------------
// Round trip, property-based (fast-check). Seeded like test/app/fuzz.test.ts: `npm test` runs a
// bounded number of cases from a fixed seed; FUZZ_RUNS / FUZZ_SEED lengthen or replay a run.

const LONG_RUNS = Number(process.env.FUZZ_RUNS ?? 0) || 0;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : LONG_RUNS > 0 ? Date.now() % 2 ** 31 : 20261123;
const RUNS = LONG_RUNS > 0 ? LONG_RUNS : 120;

type Entry = { kind: "link"; url: string; name: string; description: string } | { kind: "folder"; name: string; children: Entry[] };

/** Any text but NUL, which HTML cannot carry (a parser reads it as U+FFFD). */
const text = (maxLength: number) => fc.string({ unit: "binary", maxLength }).map((s) => s.replaceAll("\0", ""));
const nameArb = fc.oneof(
  { weight: 6, arbitrary: text(30) },
  { weight: 2, arbitrary: fc.constantFrom("", "   ", "Inbox", "a & b <c> \"d\" 'e'", "שלום עולם", "🎉👨‍👩‍👧", "line\nbreak\r\n", "&amp; literally", "x / y") },
  { weight: 1, arbitrary: fc.string({ minLength: 250, maxLength: 320 }) },
);
const urlArb = fc.oneof(
  { weight: 6, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  // Repeats, also spelled differently, so that merging and duplicates are exercised.
  { weight: 3, arbitrary: fc.constantFrom("https://pool.example/a", "https://pool.example/b?x=1&y=2", "HTTPS://POOL.example:443/a", "http://pool.example/a") },
  { weight: 1, arbitrary: fc.constantFrom("javascript:void(0)", "place:sort=8", "file:///etc/hosts", "ftp://ftp.example/", "", "not a url") },
);
const { tree } = fc.letrec<{ tree: Entry[]; entry: Entry }>((tie) => ({
  tree: fc.array(tie("entry"), { maxLength: 6 }),
  entry: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ kind: fc.constant("link" as const), url: urlArb, name: nameArb, description: fc.oneof(fc.constant(""), text(40), fc.string({ minLength: 290, maxLength: 320 })) }),
    fc.record({ kind: fc.constant("folder" as const), name: nameArb, children: tie("tree") as fc.Arbitrary<Entry[]> }),
  ),
}));
/** Two ways files are written: Chromium's (uppercase, escaped, CRLF) and a hand-made one (lowercase, raw characters, LF). */
const styleArb = fc.constantFrom("chromium", "handmade");

/** renderInput writes a generated tree as a bookmark file, independently of src/bookmarks' writer. */
function renderInput(entries: Entry[], style: string): string {
  const chromium = style === "chromium";
  // The hand-made style escapes only what HTML requires, so raw control characters and quotes reach the parser.
  const content = (s: string) => (chromium ? escapeHtml(s) : s.replaceAll("&", "&amp;").replaceAll("<", "&lt;"));
  const attribute = (s: string) => (chromium ? escapeHtml(s) : s.replaceAll("&", "&amp;").replaceAll('"', "&quot;"));
  const lines: string[] = [];
  const walk = (list: Entry[], indent: string) => {
    for (const entry of list) {
      if (entry.kind === "link") {
        lines.push(chromium
          ? `${indent}<DT><A HREF="${attribute(entry.url)}" ADD_DATE="1700000000">${content(entry.name)}</A>`
          : `${indent}<dt><a add_date=1700000000 href="${attribute(entry.url)}">${content(entry.name)}</a>`);
        if (entry.description !== "") lines.push(`${indent}${chromium ? "<DD>" : "<dd>"}${content(entry.description)}`);
      } else {
        lines.push(chromium ? `${indent}<DT><H3 ADD_DATE="1700000000">${content(entry.name)}</H3>` : `${indent}<dt><h3>${content(entry.name)}</h3>`);
        lines.push(`${indent}${chromium ? "<DL><p>" : "<dl><p>"}`);
        walk(entry.children, indent + "    ");
        lines.push(`${indent}${chromium ? "</DL><p>" : "</dl><p>"}`);
      }
    }
  };
  walk(entries, "    ");
  const head = chromium ? file("") : "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<meta charset=utf-8>\n<title>Bookmarks</title>\n<h1>Bookmarks</h1>\n<dl><p>\n\n</dl>\n";
  const [start, end] = head.split("\n\n");
  return `${start}\n${lines.join("\n")}\n${end}`.replaceAll("\n", chromium ? "\r\n" : "\n");
}

/** The documented rules, written out again: fit to a limit, same page, a folder's collection name. */
const fitTo = (s: string, max: number) => {
  const trimmed = s.trim();
  return [...trimmed].length <= max ? trimmed : [...trimmed].slice(0, max - 1).join("").trimEnd() + "…";
};
const pageOf = (url: string) => URL.parse(url)?.href ?? url;
/** A name from the file, made to pass the name rule: controls and line separators a space, bidirectional controls gone, "" if nothing shows. */
const cleanOf = (name: string) => {
  const cleaned = name.replace(/[\p{Cc}\u2028\u2029]+/gu, " ").replace(/[\u202A-\u202E\u2066-\u2069\p{Cs}]/gu, "").trim();
  return /[^\p{White_Space}\p{Cc}\p{Cf}\p{Mn}\p{Me}\p{Default_Ignorable_Code_Point}\u2800]/u.test(cleaned) ? cleaned : "";
};
const folderNameOf = (name: string) => fitTo(cleanOf(name), 254) || "Unnamed folder";

/** A tree of bookmarks and folders, in order: a link by its page and name. */
type Shape = ({ page: string; name: string } | { folder: string; items: Shape })[];

/**
 * expectedOf is what an import of the entries into an empty shelf keeps, as its export shows it:
 * the loose links (the Inbox) and the folders, each with its links (a page once per folder, named
 * after its first entry in the file) and folders in the file's order; a folder is kept when it
 * gets a link, holds a kept folder, or is empty in the file.
 */
function expectedOf(entries: Entry[]): { inbox: Shape; folders: Shape } {
  const names = new Map<string, string>();
  const walk = (list: Entry[], inbox: Shape | null): Shape => {
    const items: Shape = [];
    const pages = new Set<string>();
    for (const entry of list) {
      if (entry.kind === "folder") {
        const inner = walk(entry.children, null);
        if (inner.length > 0 || entry.children.length === 0) items.push({ folder: folderNameOf(entry.name), items: inner });
        continue;
      }
      const url = entry.url.trim();
      if (!/^https?:\/\//i.test(url) || !URL.parse(url) || [...url].length > 2048 || /[\s\p{Cc}]/u.test(url)) continue;
      const page = pageOf(url);
      if (pages.has(page)) continue;
      pages.add(page);
      if (!names.has(page)) names.set(page, fitTo(cleanOf(entry.name) || cleanOf(url), 254));
      (inbox ?? items).push({ page, name: names.get(page)! });
    }
    return items;
  };
  const inbox: Shape = [];
  return { folders: walk(entries, inbox), inbox };
}

/** readBack is the shape of a file (its loose bookmarks and its folders), as its own parse reads it back. */
function readBack(html: string): { inbox: Shape; folders: Shape } {
  const document = parseNetscape(html);
  const inbox: Shape = [];
  const folders: Shape = [];
  const itemsOf = new Map<NetscapeFolder, Shape>();
  let opened = 0;
  const open = (upTo: number) => {
    for (; opened < upTo; opened++) {
      const folder = document.folders[opened]!;
      const items: Shape = [];
      itemsOf.set(folder, items);
      (folder.parent ? itemsOf.get(folder.parent)! : folders).push({ folder: folder.name, items });
    }
  };
  for (const bookmark of document.bookmarks) {
    open(bookmark.foldersBefore);
    (bookmark.folder ? itemsOf.get(bookmark.folder)! : inbox).push({ page: pageOf(bookmark.href), name: bookmark.name });
  }
  open(document.folders.length);
  return { inbox, folders };
}

describe("round trip (property)", () => {
  it("export(import(x)) keeps every page, name, folder and order of x, and export(import(export(db))) for a fresh user is export(db), byte for byte", async () => {
    // Many reads through the API: the rate limit would stop a long run.
    const { env, alice, bob } = await newEnv({ LINKSHELF_RATE_LIMIT: "off" });
    const reset = () => {
      for (const user of [alice, bob]) {
        env.db.$client.run("DELETE FROM links WHERE user_id = ?", [user.user.id]);
        env.db.$client.run("DELETE FROM collections WHERE user_id = ? AND is_default = 0", [user.user.id]);
      }
    };
    await fc.assert(fc.asyncProperty(tree, styleArb, async (entries, style) => {
      reset();
      const expected = expectedOf(entries);
      if (expected.inbox.length === 0 && expected.folders.length === 0) {
        // A file with nothing in it is refused, as the import page refuses it.
        await expect(importBookmarks(shelfFor(env, alice), renderInput(entries, style), NOW)).rejects.toMatchObject({ status: 422 });
        return;
      }
      await importBookmarks(shelfFor(env, alice), renderInput(entries, style), NOW);
      const exported = exportBookmarks(shelfFor(env, alice));
      expect(readBack(exported)).toEqual(expected);

      const report = await importBookmarks(shelfFor(env, bob), exported, NOW);
      const pages = new Set([...exported.matchAll(/ HREF="([^"]*)"/g)].map((match) => match[1]));
      expect(report).toEqual({ ...emptyReport(), linksCreated: pages.size, collectionsCreated: report.collectionsCreated, destinations: report.destinations });
      expect(report.destinations.filter((d) => d.isNew).map((d) => d.name)).toEqual(report.collectionsCreated);
      expect(exportBookmarks(shelfFor(env, bob))).toBe(exported);
    }), { seed: SEED, numRuns: RUNS });
  }, LONG_RUNS > 0 ? 6 * 60 * 60 * 1000 : 60_000);
});
