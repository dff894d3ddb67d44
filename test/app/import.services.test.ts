/**
 * Importing other services' exports (Pocket, Omnivore, Raindrop.io, Pinboard, Instapaper,
 * Karakeep), a browser file's tags as linkding writes them, and linkshelf's own JSON: each
 * recognised by its content, mapped under one private collection named after the service and
 * the day, tags and flags as collections, one link per URL; the round trip. The zip limits are
 * `import.zip.test.ts`'s.
 */
import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { strToU8, zipSync } from "fflate";
import * as lz4 from "lz4js";
import { exportBookmarks } from "../../src/bookmarks/export";
import { importBookmarks } from "../../src/bookmarks/plan";
import { MOZ_LZ4_LIMITS, MOZ_LZ4_MAGIC, readMozLz4 } from "../../src/bookmarks/mozlz4";
import { FORMATS, readImportFile } from "../../src/bookmarks/formats";
import { USAGE } from "../../src/cli";
import { exportJson } from "../../src/bookmarks/linkshelf-json";
import { Shelf } from "../../src/shelf/shelf";
import { createSession } from "../../src/auth/sessions";
import type { AfterWrite } from "../../src/shelf/types";
import { honestZip, lyingZip } from "../support/zips";
import { createCollection, createLink, createUser, get, makeEnv, put, shelfFor, snapshot, START, type TestEnv, type TestUser } from "../support/helpers";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "services");
const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, name)));

/**
 * mozLz4 writes bytes as Firefox writes a `.jsonlz4`: the magic, the size, one LZ4 block (lz4js's
 * encoder; where it finds nothing to gain it answers 0, and the block is then the bytes as one literal run).
 */
function mozLz4(bytes: Uint8Array): Uint8Array {
  let block = new Uint8Array(lz4.compressBound(bytes.length));
  let length = lz4.compressBlock(bytes, block, 0, bytes.length, new Uint32Array(1 << 16));
  if (length === 0) {
    const run = bytes.length >= 15 ? [0xf0, ...Array(Math.floor((bytes.length - 15) / 255)).fill(255), (bytes.length - 15) % 255] : [bytes.length << 4];
    block = new Uint8Array([...run, ...bytes]);
    length = block.length;
  }
  const file = new Uint8Array(12 + length);
  file.set(MOZ_LZ4_MAGIC);
  new DataView(file.buffer).setUint32(8, bytes.length, true);
  file.set(block.subarray(0, length), 12);
  return file;
}
/** The day of NOW, as the import's collection is named. */
const NOW = Date.parse("2026-11-27T12:00:00Z");
const DAY = "2026-11-27";

/** omnivoreZip is the Omnivore fixture folder as the export's zip. */
function omnivoreZip(): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else files[`${prefix}${entry.name}`] = new Uint8Array(readFileSync(join(dir, entry.name)));
    }
  };
  walk(join(FIXTURES, "omnivore"), "");
  return zipSync(files);
}

interface Stored {
  name: string;
  description: string;
  favorite: boolean;
  toRead: boolean;
  archived: boolean;
  createdAt: string;
  collections: string[];
}

/** stored reads a user's links (by URL, with the paths of their collections) and collections (path -> visibility) through the API. */
async function stored(env: TestEnv, as: TestUser) {
  const response = await get(env, "/api/v1/collections", { token: as.token });
  const paths = new Map<number, string>();
  const collections = new Map<string, string>();
  const icons = new Map<string, string>();
  const links = new Map<string, Stored>();
  for (const collection of response.body.collections) {
    const path = collection.parentId === null ? collection.name : `${paths.get(collection.parentId)} › ${collection.name}`;
    paths.set(collection.id, path);
    collections.set(path, collection.visibility);
    icons.set(path, collection.icon);
    for (const link of collection.links) {
      const known = links.get(link.url);
      if (known) known.collections = [...known.collections, path].sort();
      else links.set(link.url, { name: link.name, description: link.description, favorite: link.favorite, toRead: link.toRead, archived: link.archived, createdAt: link.createdAt, collections: [path] });
    }
  }
  return { collections, icons, links };
}

async function setup() {
  const env = makeEnv();
  return { env, alice: await createUser(env) };
}

/** importFile reads a fixture's bytes as the page and the CLI do, and imports it. */
async function importFile(env: TestEnv, as: TestUser, bytes: Uint8Array, options: Parameters<typeof importBookmarks>[3] = {}) {
  return importBookmarks(shelfFor(env, as), await readImportFile(bytes, NOW), NOW, options);
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describe("Pocket", () => {
  it("puts everything under `Pocket DAY`: tags as collections under Tags, unread items to read and archived ones archived (flags, no collections), one link per URL; lists rows that do not parse by line", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("pocket.csv"));
    expect(report.format).toBe("pocket");
    expect(report.linksCreated).toBe(3);
    expect(report.collectionsCreated).toEqual([`Pocket ${DAY}`, "Tags", "programming", "rust", "long reads"]);
    expect({ toRead: report.linksToRead, archived: report.linksArchived }).toEqual({ toRead: 2, archived: 1 });
    expect(report.skipped.map((entry) => [entry.name, entry.url])).toEqual([["Line 5", ""], ["Not a link", "javascript:alert(1)"]]);
    expect(report.skipped[0]!.reason).toContain("does not parse as CSV");
    const root = `Pocket ${DAY}`;
    const { links, collections } = await stored(env, alice);
    expect(links.get("https://doc.rust-lang.org/rust-by-example/")).toEqual({
      name: "Rust by Example", description: "", favorite: false, toRead: true, archived: false, createdAt: iso(1700000000),
      collections: [root, `${root} › Tags › programming`, `${root} › Tags › rust`],
    });
    expect(links.get("https://longreads.example/story")).toMatchObject({
      name: 'The "Long" Read, again', toRead: false, archived: true, collections: [root, `${root} › Tags › long reads`, `${root} › Tags › programming`],
    });
    // No title: the URL is its name.
    expect(links.get("https://untitled.example/")).toMatchObject({ name: "https://untitled.example/", toRead: true, archived: false });
    expect([...collections.values()].every((visibility) => visibility === "PRIVATE")).toBe(true);
  });

  it("reads the export's zip of CSV parts, and the older layout with `cursor`, listing columns it does not know", async () => {
    const { env, alice } = await setup();
    const zip = zipSync({ "part_000000.csv": fixture("pocket.csv"), "part_000001.csv": fixture("pocket-cursor.csv") });
    const report = await importFile(env, alice, zip);
    expect(report.format).toBe("pocket");
    expect(report.linksCreated).toBe(4);
    expect(report.unknownFields).toEqual(["word_count"]);
    const { links } = await stored(env, alice);
    expect(links.get("https://old.example/")).toMatchObject({ archived: true, toRead: false, collections: [`Pocket ${DAY}`, `Pocket ${DAY} › Tags › history`] });
  });

  it("gives a URL the user has already the file's collections instead of a second link, and counts it", async () => {
    const { env, alice } = await setup();
    await createLink(env, alice, { url: "https://doc.rust-lang.org/rust-by-example/", name: "Mine" });
    const report = await importFile(env, alice, fixture("pocket.csv"));
    expect({ created: report.linksCreated, added: report.linksAdded, duplicates: report.duplicates.length }).toEqual({ created: 2, added: 1, duplicates: 0 });
    const { links } = await stored(env, alice);
    expect(links.get("https://doc.rust-lang.org/rust-by-example/")).toMatchObject({
      name: "Mine", collections: ["Inbox", `Pocket ${DAY}`, `Pocket ${DAY} › Tags › programming`, `Pocket ${DAY} › Tags › rust`],
    });
    // The same file again: everything is where it goes already; each link counted once, however many collections it is in.
    const again = await importFile(env, alice, fixture("pocket.csv"));
    expect({ created: again.linksCreated, added: again.linksAdded, duplicates: again.duplicates.length }).toEqual({ created: 0, added: 0, duplicates: 3 });
  });

  it("never publishes: a PUBLIC collection of the import's name gets a private stand-in; the chosen parent must be private", async () => {
    const { env, alice } = await setup();
    const open = await createCollection(env, alice, { name: `Pocket ${DAY}`, visibility: "PUBLIC" });
    const report = await importFile(env, alice, fixture("pocket.csv"));
    expect(report.destinations[0]).toMatchObject({ name: `Pocket ${DAY} (imported)`, insteadOf: `Pocket ${DAY}`, visibility: "PRIVATE" });
    const before = snapshot(env);
    await expect(importFile(env, alice, fixture("pocket.csv"), { under: open.id })).rejects.toMatchObject({ status: 422 });
    expect(snapshot(env)).toBe(before);
  });

  it("puts the import's collection inside the private collection the person chose", async () => {
    const { env, alice } = await setup();
    const archive = await createCollection(env, alice, { name: "Old services" });
    const report = await importFile(env, alice, fixture("pocket.csv"), { under: archive.id });
    expect(report.destinations.find((destination) => destination.name === `Pocket ${DAY}`)?.path).toEqual(["Old services"]);
    const { links } = await stored(env, alice);
    expect(links.get("https://untitled.example/")?.collections).toEqual([`Old services › Pocket ${DAY}`]);
  });
});

describe("Raindrop.io, Instapaper, Pinboard, Karakeep", () => {
  it("Raindrop.io: folders as nested collections, tags, favorites, note and excerpt as description, highlights as the saved text", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("raindrop.csv"));
    expect(report.format).toBe("raindrop");
    const root = `Raindrop.io ${DAY}`;
    const { links } = await stored(env, alice);
    expect(links.get("https://svelte.dev/tutorial")).toEqual({
      name: "Svelte tutorial", description: "My note\n\nLearn Svelte", favorite: true, toRead: false, archived: false, createdAt: "2023-05-01T10:00:00.000Z",
      collections: [`${root} › Dev › Frontend`, `${root} › Tags › js`, `${root} › Tags › ui`],
    });
    expect(links.get("https://pasta.example/")?.collections).toEqual([`${root} › Recipes`]);
    const id = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections
      .flatMap((collection: { links: { id: number; url: string }[] }) => collection.links).find((link: { url: string }) => link.url === "https://svelte.dev/tutorial").id;
    expect(shelfFor(env, alice).links.content(id).text).toBe("Highlights\n\nHighlight: components are files");
  });

  it("Instapaper: Unread is to read and Archive archived (flags, in the import's collection), Starred a favorite, other folders collections; Selection is the description", async () => {
    const { env, alice } = await setup();
    await importFile(env, alice, fixture("instapaper.csv"));
    const root = `Instapaper ${DAY}`;
    const { links } = await stored(env, alice);
    expect(links.get("https://essay.example/one")).toMatchObject({ description: "A fine quote", toRead: true, archived: false, collections: [root], createdAt: iso(1650000000) });
    expect(links.get("https://essay.example/two")).toMatchObject({ toRead: false, archived: true, collections: [root] });
    expect(links.get("https://essay.example/three")).toMatchObject({ favorite: true, toRead: false, archived: false, collections: [root] });
    expect(links.get("https://essay.example/four")).toMatchObject({ toRead: false, archived: false, collections: [`${root} › Philosophy`] });
  });

  it("Pinboard: description is the title, extended the notes, tags space-separated, toread the to-read flag; unknown keys listed", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("pinboard.json"));
    expect(report.unknownFields).toEqual(["others"]);
    const root = `Pinboard ${DAY}`;
    const { links } = await stored(env, alice);
    expect(links.get("https://pinboard.in/howto/")).toEqual({
      name: "Pinboard howto", description: "How to use Pinboard well", favorite: false, toRead: true, archived: false, createdAt: "2021-03-04T05:06:07.000Z",
      collections: [root, `${root} › Tags › help`, `${root} › Tags › pinboard`],
    });
  });

  it("Karakeep: lists nested by parentId with their icons, archived items archived (the flag), text bookmarks skipped with the reason", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("karakeep.json"));
    expect(report.skipped).toEqual([{ name: "A thought", url: "", reason: "A text note of Karakeep's, not a link." }]);
    const root = `Karakeep ${DAY}`;
    const { links, icons } = await stored(env, alice);
    expect(links.get("https://docs.karakeep.app/")).toMatchObject({
      description: "Read the install guide", collections: [`${root} › Homelab › Apps`, `${root} › Tags › docs`, `${root} › Tags › selfhosted`],
    });
    expect(links.get("https://old-article.example/")).toMatchObject({ archived: true, toRead: false, collections: [root] });
    expect(links.get("https://docs.karakeep.app/")).toMatchObject({ archived: false, toRead: false });
    expect(icons.get(`${root} › Homelab`)).toBe("🏠");
  });
});

describe("Omnivore", () => {
  it("keeps the saved page and its highlights as the link's text (searchable at once, not fetched), skips newsletters without a URL", async () => {
    const { env, alice } = await setup();
    const told: string[] = [];
    const afterWrite: AfterWrite = { linkSaved: (_id, _user, url) => void told.push(url) };
    const report = await importBookmarks(new Shelf(env.db, alice.user, afterWrite), await readImportFile(omnivoreZip(), NOW), NOW);
    expect(report.format).toBe("omnivore");
    expect(report.skipped).toEqual([{ name: "Weekly letter", url: "https://omnivore.app/no_url?q=abc", reason: "A newsletter Omnivore received by email: it has no web address." }]);
    expect(report.unknownFields).toEqual(["readingProgressPercent"]);
    const root = `Omnivore ${DAY}`;
    const { links } = await stored(env, alice);
    expect(links.get("https://deepwork.example/")).toMatchObject({ description: "On focus", archived: true, toRead: false, collections: [root, `${root} › Tags › focus`] });
    // Only the page without saved text is left for the page capture.
    expect(told).toEqual(["https://plain.example/"]);
    const hits = shelfFor(env, alice).links.find({ q: "zanzibarfocus" } as never, NOW);
    expect(hits.hits.map((hit) => hit.link.url)).toEqual(["https://deepwork.example/"]);
    const id = hits.hits[0]!.link.id;
    const text = shelfFor(env, alice).links.content(id).text;
    expect(text).toContain("Highlights\n\n> Focus is a superpower");
  });
});

describe("a bookmark file as linkding and Pinboard write it", () => {
  it("puts TAGS under a top-level Tags, TOREAD=\"1\" as the to-read flag, and linkding's notes after the description", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("linkding.html"));
    expect(report.format).toBe("netscape");
    const { links } = await stored(env, alice);
    expect(links.get("https://linkding.link/")).toEqual({
      name: "linkding", description: "A bookmark manager\n\nRuns in Docker", favorite: false, toRead: true, archived: false, createdAt: iso(1700000000),
      collections: ["Inbox", "Tags › bookmarks", "Tags › selfhosted"],
    });
    expect(links.get("https://example.org/")).toMatchObject({ toRead: false, archived: false, collections: ["Inbox", "Tags › bookmarks"] });
  });
});

describe("linkshelf JSON", () => {
  /** normal is an export without what differs between two shelves of the same content. */
  const normal = (shelf: Shelf) => ({ ...exportJson(shelf, NOW, { withText: true }), exportedAt: "" });

  async function filled() {
    const { env, alice } = await setup();
    const reading = await createCollection(env, alice, { name: "Reading", icon: "📚", description: "To read", visibility: "PUBLIC" });
    const deep = await createCollection(env, alice, { name: "Deep", icon: "🌊", parentId: reading.id });
    const first = await createLink(env, alice, { url: "https://one.example/", name: "One", description: "First", favorite: true, collectionIds: [reading.id, deep.id] });
    await createLink(env, alice, { url: "https://two.example/", name: "Two" });
    await createLink(env, alice, { url: "https://three.example/", name: "Three", collectionIds: [deep.id] });
    expect((await put(env, `/api/v1/links/${first.id}/content`, { token: alice.token, body: { text: "Saved words of one", title: "One" } })).status).toBe(200);
    env.db.$client.run(`UPDATE links SET clicks = 7, last_clicked_at = ${START} WHERE id = ${first.id}`);
    return { env, alice };
  }

  it("gives the same shelf back in an empty linkshelf: tree, order, icons, visibility (when asked), clicks, dates and saved text", async () => {
    const { env, alice } = await filled();
    const file = new TextEncoder().encode(JSON.stringify(exportJson(shelfFor(env, alice), NOW, { withText: true })));
    const bob = await createUser(env);
    const report = await importFile(env, bob, file, { keepPublic: true });
    expect(report.format).toBe("linkshelf");
    expect(normal(shelfFor(env, bob))).toEqual(normal(shelfFor(env, alice)));
    const { collections } = await stored(env, bob);
    expect(collections.get("Reading")).toBe("PUBLIC");
  });

  it("brings public collections back PRIVATE unless asked", async () => {
    const { env, alice } = await filled();
    const file = new TextEncoder().encode(JSON.stringify(exportJson(shelfFor(env, alice), NOW)));
    const bob = await createUser(env);
    const report = await importFile(env, bob, file);
    expect(report.destinations.every((destination) => destination.visibility === "PRIVATE")).toBe(true);
    const { collections } = await stored(env, bob);
    expect([...collections.values()]).toEqual(["PRIVATE", "PRIVATE", "PRIVATE"]);
  });

  it("refuses a JSON file of no known shape, storing nothing", async () => {
    const { env, alice } = await setup();
    const before = snapshot(env);
    await expect(readImportFile(strToU8('{"hello": 1}'), NOW)).rejects.toMatchObject({ status: 422, code: "IMPORT_REFUSED" });
    expect(snapshot(env)).toBe(before);
    expect(alice.user.id).toBeGreaterThan(0);
  });
});

describe("the import page", () => {
  const cookieFor = (env: TestEnv, as: TestUser) => `linkshelf_session=${createSession(env.db, as.user.id, env.clock.now).id}`;
  const send = (env: TestEnv, path: string, cookie: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("accept", "text/html");
    headers.set("cookie", cookie);
    if (init.method === "POST") headers.set("origin", "http://localhost");
    return env.app.handle(new Request(`http://localhost${path}`, { ...init, headers }));
  };
  const upload = (env: TestEnv, cookie: string, bytes: Uint8Array, name: string) => {
    const form = new FormData();
    form.append("file", new File([bytes], name));
    return send(env, "/import", cookie, { method: "POST", body: form });
  };

  it("lists the entries whose date cannot be read in the preview, saying the import's time is kept", async () => {
    const { env, alice } = await setup();
    const cookie = cookieFor(env, alice);
    const uploaded = await upload(env, cookie, fixture("dates.html"), "dates.html");
    const preview = await (await send(env, uploaded.headers.get("location")!, cookie)).text();
    expect(preview).toContain('<h2 id="dates-heading">Dates not read</h2>');
    expect(preview).toContain("ADD_DATE &quot;invaliddate&quot;: not a date linkshelf reads; kept the import time");
  });

  it("recognises a Pocket zip by its content, previews it with the parents to choose, and imports it where chosen", async () => {
    const { env, alice } = await setup();
    const cookie = cookieFor(env, alice);
    const parent = await createCollection(env, alice, { name: "Services" });
    const before = snapshot(env);
    const uploaded = await upload(env, cookie, zipSync({ "part_000000.csv": fixture("pocket.csv") }), "whatever.bin");
    expect(uploaded.status).toBe(303);
    const key = uploaded.headers.get("location")!;
    const preview = await (await send(env, key, cookie)).text();
    expect(preview).toContain("Recognised as: <strong>Pocket</strong>");
    expect(preview).toContain(`<option value="${parent.id}">inside Services</option>`);
    expect(snapshot(env)).toBe(before);
    const confirmed = await send(env, `${key}/confirm`, cookie, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `under=${parent.id}`,
    });
    expect(confirmed.status).toBe(303);
    const { links } = await stored(env, alice);
    expect(links.get("https://untitled.example/")?.collections[0]).toStartWith("Services › Pocket ");
  });

  it("refuses a zip whose entry gives more than it declares with 422 and the reason beside the field, storing nothing", async () => {
    const { env, alice } = await setup();
    const cookie = cookieFor(env, alice);
    const before = snapshot(env);
    const response = await upload(env, cookie, lyingZip(1, 64), "pocket.zip");
    expect(response.status).toBe(422);
    expect(await response.text()).toContain("“part_000000.csv” in the zip file unpacks to more than the 200 bytes the zip states for it: the zip file is damaged or made to overload the server. Nothing was stored.");
    expect(snapshot(env)).toBe(before);
  });

  it("refuses a zip beyond the caps by its directory with 422 and the reason, storing nothing", async () => {
    const { env, alice } = await setup();
    const cookie = cookieFor(env, alice);
    const before = snapshot(env);
    const response = await upload(env, cookie, honestZip(40), "pocket.zip");
    expect(response.status).toBe(422);
    expect(await response.text()).toContain("“part_000000.csv” in the zip file unpacks to 40 MiB, more than the 16 MiB linkshelf reads from one file of a zip.");
    expect(snapshot(env)).toBe(before);
  });

  it("keeps a linkshelf JSON file's public collections public only when the preview's box is ticked", async () => {
    const file = strToU8(JSON.stringify({
      format: "linkshelf", version: 1, exportedAt: "2026-11-20T10:00:00.000Z",
      links: [{ name: "One", url: "https://one.example/", description: "", favorite: false, clicks: 0, lastClickedAt: null, createdAt: "2026-01-02T03:04:05.000Z", updatedAt: "2026-01-02T03:04:05.000Z" }],
      inbox: [],
      collections: [{ name: "Shared", description: null, icon: "📚", visibility: "PUBLIC", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", items: [{ link: 0 }] }],
    }));
    const visibilityOf = (env: TestEnv, as: TestUser) =>
      (env.db.$client.query("SELECT visibility FROM collections WHERE user_id = ? AND name = 'Shared'").get(as.user.id) as { visibility: string } | null)?.visibility;
    for (const [ticked, visibility] of [[false, "PRIVATE"], [true, "PUBLIC"]] as const) {
      const { env, alice } = await setup();
      const cookie = cookieFor(env, alice);
      const uploaded = await upload(env, cookie, file, "shelf.json");
      expect(uploaded.status).toBe(303);
      const key = uploaded.headers.get("location")!;
      const preview = await (await send(env, key, cookie)).text();
      expect(preview).toContain('<input type="checkbox" name="keepPublic" value="on"> Keep public collections public');
      expect(visibilityOf(env, alice)).toBeUndefined();
      const confirmed = await send(env, `${key}/confirm`, cookie, {
        method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: ticked ? "keepPublic=on" : "",
      });
      expect(confirmed.status).toBe(303);
      expect(visibilityOf(env, alice)).toBe(visibility);
    }
  });

  it("offers the box only for linkshelf JSON", async () => {
    const { env, alice } = await setup();
    const cookie = cookieFor(env, alice);
    const uploaded = await upload(env, cookie, fixture("pocket.csv"), "pocket.csv");
    const preview = await (await send(env, uploaded.headers.get("location")!, cookie)).text();
    expect(preview).not.toContain("keepPublic");
  });

  it("offers the linkshelf JSON download on the account page, with the saved texts", async () => {
    const { env, alice } = await setup();
    const account = await (await send(env, "/account", cookieFor(env, alice))).text();
    expect(account).toContain('<a class="button secondary" href="/export?format=json">Export everything (linkshelf JSON)</a>');
    await createLink(env, alice, { url: "https://one.example/", name: "One" });
    const response = await send(env, "/export?format=json", cookieFor(env, alice));
    expect(response.headers.get("content-disposition")).toMatch(/linkshelf-export-\d{4}-\d{2}-\d{2}\.json/);
    const body = await response.json();
    expect(body).toMatchObject({ format: "linkshelf", version: 1, links: [{ url: "https://one.example/", name: "One" }], inbox: [0] });
  });
});

describe("what real exports hold is kept", () => {
  it("Pocket's older HTML export: each link with time_added as created and its tags, the Unread section to read, the Read Archive section archived", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("pocket.html"));
    expect(report.format).toBe("pocket");
    expect(report.linksCreated).toBe(3);
    const root = `Pocket ${DAY}`;
    const { links } = await stored(env, alice);
    expect(links.get("https://unread.example/first")).toEqual({
      name: "First unread", description: "", favorite: false, toRead: true, archived: false, createdAt: iso(1600000000),
      collections: [root, `${root} › Tags › cooking`, `${root} › Tags › weekend`],
    });
    expect(links.get("https://unread.example/second")).toMatchObject({ name: "Second unread & more", toRead: true, collections: [root] });
    expect(links.get("https://archive.example/done")).toMatchObject({ createdAt: iso(1500000000), toRead: false, archived: true, collections: [root, `${root} › Tags › cooking`] });
  });

  it("Instapaper's Tags column (a JSON list) becomes tag collections, not an unknown field", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("instapaper-tags.csv"));
    expect(report.unknownFields).toEqual([]);
    const root = `Instapaper ${DAY}`;
    const { links } = await stored(env, alice);
    expect(links.get("https://code.example/one")).toMatchObject({ toRead: true, collections: [root, `${root} › Tags › coding`] });
    expect(links.get("https://code.example/two")).toMatchObject({ archived: true, toRead: false, collections: [root, `${root} › Tags › coding`, `${root} › Tags › rust`] });
    expect(links.get("https://code.example/three")?.collections).toEqual([root]);
  });

  it("Omnivore's state in either case: `archived` (its exporter) and `Archived` (its app) are both archived, another state neither; the unzipped metadata file imports as Omnivore", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("metadata_0_to_2.json"));
    expect(report.format).toBe("omnivore");
    const root = `Omnivore ${DAY}`;
    const { links } = await stored(env, alice);
    expect(links.get("https://lower.example/archived")).toMatchObject({ createdAt: "2024-02-01T10:00:00.000Z", archived: true, toRead: false, collections: [root, `${root} › Tags › essays`] });
    expect(links.get("https://lower.example/active")).toMatchObject({ archived: false, toRead: false, collections: [root] });
    expect(links.get("https://lower.example/app")).toMatchObject({ archived: true, toRead: false, collections: [root] });
    // The same file in Omnivore's zip reads the same.
    const zipped = await readImportFile(zipSync({ "metadata_0_to_2.json": fixture("metadata_0_to_2.json") }), NOW);
    expect(zipped.bookmarks.filter((entry) => entry.archived && entry.first === undefined).map((entry) => entry.href)).toEqual(["https://lower.example/archived", "https://lower.example/app"]);
  });

  it("linkding's archived tag (current and older spelling) archives the link (the flag), not a tag collection", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("linkding-archived.html"));
    expect(report.collectionsCreated).not.toContain("linkding:bookmarks.archived");
    expect(report.collectionsCreated).not.toContain("linkding:archived");
    const { links, collections } = await stored(env, alice);
    expect(links.get("https://archived.example/new")).toMatchObject({ archived: true, toRead: false, collections: ["Inbox", "Tags › reading"] });
    expect(links.get("https://archived.example/old")).toMatchObject({ archived: true, toRead: false, collections: ["Inbox"] });
    expect(links.get("https://kept.example/")).toMatchObject({ archived: false, toRead: true, collections: ["Inbox", "Tags › reading"] });
    expect(collections.has("Archive")).toBe(false);
    expect(collections.has("To read")).toBe(false);
    expect([...collections.keys()].filter((path) => path.includes("linkding:"))).toEqual([]);
  });

  it("Karakeep's lists of the same name under the same parent stay apart, each with its own links and icon", async () => {
    const { env, alice } = await setup();
    await importFile(env, alice, fixture("karakeep-same-names.json"));
    const root = `Karakeep ${DAY}`;
    const tree = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections as { id: number; name: string; parentId: number | null; icon: string; links: { url: string }[] }[];
    const under = (name: string, parent: number | null | undefined) => tree.filter((collection) => collection.name === name && collection.parentId === parent);
    const top = under(root, null)[0]!;
    const readings = under("Reading", top.id);
    expect(readings.map((collection) => [collection.icon, collection.links.map((link) => link.url)])).toEqual([
      ["📚", ["https://first.example/"]], ["📖", ["https://second.example/"]],
    ]);
    const work = under("Work", top.id)[0]!;
    expect(under("Later", work.id).map((collection) => [collection.icon, collection.links.map((link) => link.url)])).toEqual([
      ["⏳", []], ["⌛", ["https://nested.example/"]],
    ]);
  });
});

describe("counts, dates and what the file holds beyond linkshelf", () => {
  it("counts a skipped entry once however many collections it was to go in, and a duplicate once per link", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("skips.csv"));
    expect(report.skipped).toEqual([{ name: "An ftp file", url: "ftp://files.example/pub/readme.txt", reason: "linkshelf keeps only http and https links, not ftp: ones." }]);
    await importFile(env, alice, fixture("raindrop-dates.csv"));
    const again = await importFile(env, alice, fixture("raindrop-dates.csv"));
    expect(again.duplicates.map((entry) => entry.url)).toEqual(["https://rd.example/bad", "https://rd.example/good", "https://rd.example/third", "https://rd.example/fourth"]);
  });

  it("lists each entry whose date cannot be read (kept the import time), and never makes a link changed before it was created", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("dates.html"));
    expect(report.unreadDates).toEqual([
      { name: "Invalid date", url: "https://dates.example/invalid", dates: ['ADD_DATE "invaliddate"'] },
      { name: "Log-style date", url: "https://dates.example/apache", dates: ['ADD_DATE "10/Oct/2000:13:55:36 +0300"'] },
    ]);
    const shelf = shelfFor(env, alice);
    const byUrl = new Map(shelf.collections.memberships().map((row) => [row.url, shelf.links.get(row.id)]));
    for (const link of byUrl.values()) expect(Date.parse(link!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(link!.createdAt));
    expect(byUrl.get("https://dates.example/invalid")).toMatchObject({ createdAt: new Date(NOW).toISOString() });
    // Only LAST_MODIFIED: it was there by then.
    expect(byUrl.get("https://dates.example/modified-only")).toMatchObject({ createdAt: iso(1600000500), updatedAt: iso(1600000500) });
    expect(byUrl.get("https://dates.example/apache")).toMatchObject({ createdAt: iso(1600000000) });
    const services = await importFile(env, alice, fixture("raindrop-dates.csv"));
    expect(services.unreadDates).toEqual([{ name: "Bad date", url: "https://rd.example/bad", dates: ['created "10/Oct/2000:13:55:36 +0300"'] }]);
  });

  it("lists the attributes of a bookmark file it does not import (Firefox's SHORTCUTURL keywords)", async () => {
    const { env, alice } = await setup();
    const report = await importBookmarks(shelfFor(env, alice), await readImportFile(new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "bookmarks", "firefox.html"))), NOW), NOW);
    expect(report.unknownFields).toContain("SHORTCUTURL");
  });
});

describe("browsers' own bookmark files", () => {
  it("Chromium's Bookmarks file: each root with bookmarks a top-level collection, folders and order kept, date_added (µs since 1601) as created", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("Bookmarks"));
    expect(report.format).toBe("chromium");
    expect(report.collectionsCreated).toEqual(["Bookmarks bar", "Work", "Other bookmarks"]);
    expect(report.unreadDates).toEqual([{ name: "Wiki", url: "https://wiki.example/", dates: ['date_added "not a date"'] }]);
    expect(report.unknownFields).toEqual([]);
    const { links } = await stored(env, alice);
    expect(links.get("https://news.example/")).toMatchObject({ createdAt: iso(1700000000), collections: ["Bookmarks bar"] });
    expect(links.get("https://board.example/")).toMatchObject({ createdAt: iso(1700000100), collections: ["Bookmarks bar › Work"] });
    expect(links.get("https://recipes.example/")?.collections).toEqual(["Other bookmarks"]);
    const exported = exportBookmarks(shelfFor(env, alice));
    expect(exported).toContain('PERSONAL_TOOLBAR_FOLDER="true" LINKSHELF_ICON="📁">Bookmarks bar</H3>');
    expect(exported.indexOf("https://news.example/")).toBeLessThan(exported.indexOf(">Work</H3>"));
  });

  it("Firefox's bookmark backup (.json): roots named as Firefox's HTML export names them, order by index, dates, tags; keywords listed; separators and the tags folder left out", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("firefox-backup.json"));
    expect(report.format).toBe("firefox");
    expect(report.collectionsCreated).toEqual(["Bookmarks Menu", "Bookmarks Toolbar", "Dev", "Other Bookmarks", "Tags", "reference", "search"]);
    expect(report.unknownFields).toEqual(["keyword"]);
    expect(report.skipped).toEqual([]);
    const { links } = await stored(env, alice);
    expect(links.get("https://www.wikipedia.org/w/index.php?search=%s")).toMatchObject({
      createdAt: iso(1700000200), collections: ["Bookmarks Menu", "Tags › reference", "Tags › search"],
    });
    expect(links.get("https://developer.mozilla.org/")?.collections).toEqual(["Bookmarks Toolbar › Dev"]);
    const shelf = shelfFor(env, alice);
    const menu = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections.find((collection: { name: string }) => collection.name === "Bookmarks Menu");
    const urls = new Map<number, string>(menu.links.map((link: { id: number; url: string }) => [link.id, link.url]));
    expect(menu.order.map((item: { id: number }) => urls.get(item.id))).toEqual(["https://www.mozilla.org/", "https://www.wikipedia.org/w/index.php?search=%s"]);
    expect(exportBookmarks(shelf)).toContain('PERSONAL_TOOLBAR_FOLDER="true" LINKSHELF_ICON="📁">Bookmarks Toolbar</H3>');
  });

  it("reads Firefox's compressed backup (.jsonlz4) as the backup it holds", async () => {
    const { env, alice } = await setup();
    const plain = await importFile(env, alice, fixture("firefox-backup.json"), { dryRun: true });
    const compressed = await importFile(env, alice, mozLz4(fixture("firefox-backup.json")));
    expect(compressed.format).toBe("firefox");
    expect(compressed.collectionsCreated).toEqual(plain.collectionsCreated);
    expect(compressed.unknownFields).toEqual(["keyword"]);
    const { links } = await stored(env, alice);
    expect(links.get("https://developer.mozilla.org/")?.collections).toEqual(["Bookmarks Toolbar › Dev"]);
  });

  it("refuses a damaged or hostile .jsonlz4 in one sentence before decoding past its bounds, and one holding no backup, storing nothing", async () => {
    const { env, alice } = await setup();
    const before = snapshot(env);
    const good = mozLz4(fixture("firefox-backup.json"));
    const withSize = (bytes: Uint8Array, size: number) => {
      const copy = bytes.slice();
      new DataView(copy.buffer).setUint32(8, size, true);
      return copy;
    };
    const header = (size: number, block: number[]) => new Uint8Array([...MOZ_LZ4_MAGIC, size & 255, (size >> 8) & 255, (size >> 16) & 255, size >>> 24, ...block]);
    const refusals: [string, Uint8Array, string][] = [
      ["a size beyond the bound", withSize(good, MOZ_LZ4_LIMITS.bytes + 1), "more than the 32 MiB"],
      ["a size its bytes cannot hold", withSize(good, good.length * 256), "declares more than its bytes can hold"],
      // A literal run claimed as 15 + 255 × 4,000 bytes, in a file of 4 KB: stopped at the claim.
      ["a literal run past the input", header(1_000_000, [0xf0, ...Array(4000).fill(255), 0]), "damaged"],
      ["a match before the start", header(8, [0x40, 0x61, 0x62, 0x63, 0x64, 0x09, 0x00]), "damaged"],
      ["a size larger than the data", withSize(good, new DataView(good.buffer).getUint32(8, true) + 1), "damaged"],
      ["a header cut short", good.slice(0, 10), "ends before its header"],
      ["no backup inside", mozLz4(new TextEncoder().encode('{"type": "something else"}')), "holds no bookmark backup"],
    ];
    for (const [name, bytes, message] of refusals) {
      await expect(importFile(env, alice, bytes), name).rejects.toThrow(message);
    }
    await expect(importFile(env, alice, new TextEncoder().encode('{"something": "else"}'))).rejects.toThrow("(Chromium bookmarks (JSON), Firefox bookmark backup (JSON), Omnivore, Pinboard, Karakeep, linkshelf JSON)");
    expect(snapshot(env)).toBe(before);
  });

  it("decodes what an independent LZ4 encoder (lz4js) writes, whatever the bytes", () => {
    fc.assert(fc.property(fc.oneof(fc.uint8Array({ maxLength: 3000 }), fc.string({ maxLength: 3000 }).map((text) => new TextEncoder().encode(text.repeat(3)))), (bytes) => {
      expect(readMozLz4(mozLz4(bytes))).toEqual(bytes);
    }), { numRuns: 300 });
  });

  it("refuses a file with nothing to import (empty, plain text, a CSV of no known header, an ordinary page), storing nothing", async () => {
    const { env, alice } = await setup();
    const before = snapshot(env);
    for (const text of ["", "just some words\n", "name,address\nx,y\n", "<!DOCTYPE html><html><body><p>Hello</p><a href='https://x.example/'>x</a></body></html>"]) {
      await expect(importFile(env, alice, new TextEncoder().encode(text), { record: { source: "cli", fileName: "f.txt" } })).rejects.toMatchObject({ status: 422 });
    }
    expect(snapshot(env)).toBe(before);
  });
});

describe("the table of formats", () => {
  /** One fixture of each format, in its real shape (a format without one fails here). */
  const FIXTURE_OF: Record<string, () => Uint8Array> = {
    netscape: () => fixture("linkding.html"), chromium: () => fixture("Bookmarks"), firefox: () => fixture("firefox-backup.json"),
    pocket: () => fixture("pocket.html"), omnivore: () => omnivoreZip(), raindrop: () => fixture("raindrop.csv"), pinboard: () => fixture("pinboard.json"),
    instapaper: () => fixture("instapaper.csv"), karakeep: () => fixture("karakeep.json"),
    linkshelf: () => strToU8(JSON.stringify({ format: "linkshelf", version: 1, exportedAt: "2026-11-27T12:00:00.000Z", links: [], inbox: [], collections: [] })),
  };

  it("each row's module exports its sniff and reader, and its fixture is read as that format", async () => {
    expect(Object.keys(FIXTURE_OF).sort()).toEqual(FORMATS.map((row) => row.format).sort());
    for (const row of FORMATS) {
      const module = await row.load();
      expect({ format: row.format, sniff: typeof module.sniff, read: typeof module.read }).toEqual({ format: row.format, sniff: "function", read: "function" });
      expect({ format: row.format, read: (await readImportFile(FIXTURE_OF[row.format]!(), NOW)).format }).toEqual({ format: row.format, read: row.format });
    }
  });

  it("names every format, in the table's order, in --help, on the import page and in docs/import.md", async () => {
    const names = FORMATS.map((row) => row.name);
    expect(USAGE.replace(/\s+/g, " ")).toContain(`recognised by its content (see docs/import.md): ${names.join(", ")};`);
    const docs = readFileSync(join(import.meta.dir, "..", "..", "docs", "import.md"), "utf8");
    const section = docs.slice(docs.indexOf("## The formats"), docs.indexOf("\n## ", docs.indexOf("## The formats") + 1));
    expect([...section.matchAll(/^### (.+)$/gm)].map((match) => match[1])).toEqual(names);
    const { env, alice } = await setup();
    const cookie = `linkshelf_session=${createSession(env.db, alice.user.id, env.clock.now).id}`;
    const page = await (await env.app.handle(new Request("http://localhost/import", { headers: { accept: "text/html", cookie } }))).text();
    expect(page).toContain(`(CSV, JSON or zip): ${names.slice(1).join(", ")}.`);
  });
});
