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
import { strToU8, zipSync } from "fflate";
import { importBookmarks } from "../src/bookmarks/service";
import { readImportFile } from "../src/bookmarks/services";
import { exportJson } from "../src/bookmarks/linkshelf-json";
import { Shelf } from "../src/shelf/shelf";
import { createSession } from "../src/auth/sessions";
import type { AfterWrite } from "../src/shelf/types";
import { honestZip, lyingZip } from "./zips";
import { createCollection, createLink, createUser, get, makeEnv, put, shelfFor, snapshot, START, type TestEnv, type TestUser } from "./helpers";

const FIXTURES = join(import.meta.dir, "fixtures", "services");
const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, name)));
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
      else links.set(link.url, { name: link.name, description: link.description, favorite: link.favorite, createdAt: link.createdAt, collections: [path] });
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
  it("puts everything under `Pocket DAY`: tags as collections under Tags, archived items in Archive too, one link per URL; lists rows that do not parse by line", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("pocket.csv"));
    expect(report.format).toBe("pocket");
    expect(report.linksCreated).toBe(3);
    expect(report.collectionsCreated).toEqual([`Pocket ${DAY}`, "Tags", "programming", "rust", "long reads", "Archive"]);
    expect(report.skipped.map((entry) => [entry.name, entry.url])).toEqual([["Line 5", ""], ["Not a link", "javascript:alert(1)"]]);
    expect(report.skipped[0]!.reason).toContain("does not parse as CSV");
    const root = `Pocket ${DAY}`;
    const { links, collections } = await stored(env, alice);
    expect(links.get("https://doc.rust-lang.org/rust-by-example/")).toEqual({
      name: "Rust by Example", description: "", favorite: false, createdAt: iso(1700000000),
      collections: [root, `${root} › Tags › programming`, `${root} › Tags › rust`],
    });
    expect(links.get("https://longreads.example/story")).toMatchObject({
      name: 'The "Long" Read, again', collections: [root, `${root} › Archive`, `${root} › Tags › long reads`, `${root} › Tags › programming`],
    });
    // No title: the URL is its name.
    expect(links.get("https://untitled.example/")?.name).toBe("https://untitled.example/");
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
    expect(links.get("https://old.example/")?.collections).toEqual([`Pocket ${DAY}`, `Pocket ${DAY} › Archive`, `Pocket ${DAY} › Tags › history`]);
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
    // The same file again: everything is where it goes already.
    const again = await importFile(env, alice, fixture("pocket.csv"));
    expect({ created: again.linksCreated, added: again.linksAdded, duplicates: again.duplicates.length }).toEqual({ created: 0, added: 0, duplicates: 8 });
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
      name: "Svelte tutorial", description: "My note\n\nLearn Svelte", favorite: true, createdAt: "2023-05-01T10:00:00.000Z",
      collections: [`${root} › Dev › Frontend`, `${root} › Tags › js`, `${root} › Tags › ui`],
    });
    expect(links.get("https://pasta.example/")?.collections).toEqual([`${root} › Recipes`]);
    const id = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections
      .flatMap((collection: { links: { id: number; url: string }[] }) => collection.links).find((link: { url: string }) => link.url === "https://svelte.dev/tutorial").id;
    expect(shelfFor(env, alice).links.content(id).text).toBe("Highlights\n\nHighlight: components are files");
  });

  it("Instapaper: Archive and Starred are flags, Unread the import's collection, other folders collections; Selection is the description", async () => {
    const { env, alice } = await setup();
    await importFile(env, alice, fixture("instapaper.csv"));
    const root = `Instapaper ${DAY}`;
    const { links } = await stored(env, alice);
    expect(links.get("https://essay.example/one")).toMatchObject({ description: "A fine quote", collections: [root], createdAt: iso(1650000000) });
    expect(links.get("https://essay.example/two")?.collections).toEqual([root, `${root} › Archive`]);
    expect(links.get("https://essay.example/three")).toMatchObject({ favorite: true, collections: [root] });
    expect(links.get("https://essay.example/four")?.collections).toEqual([`${root} › Philosophy`]);
  });

  it("Pinboard: description is the title, extended the notes, tags space-separated, toread a collection; unknown keys listed", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("pinboard.json"));
    expect(report.unknownFields).toEqual(["others"]);
    const root = `Pinboard ${DAY}`;
    const { links } = await stored(env, alice);
    expect(links.get("https://pinboard.in/howto/")).toEqual({
      name: "Pinboard howto", description: "How to use Pinboard well", favorite: false, createdAt: "2021-03-04T05:06:07.000Z",
      collections: [root, `${root} › Tags › help`, `${root} › Tags › pinboard`, `${root} › To read`],
    });
  });

  it("Karakeep: lists nested by parentId with their icons, archived items in Archive, text bookmarks skipped with the reason", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("karakeep.json"));
    expect(report.skipped).toEqual([{ name: "A thought", url: "", reason: "A text note of Karakeep's, not a link." }]);
    const root = `Karakeep ${DAY}`;
    const { links, icons } = await stored(env, alice);
    expect(links.get("https://docs.karakeep.app/")).toMatchObject({
      description: "Read the install guide", collections: [`${root} › Homelab › Apps`, `${root} › Tags › docs`, `${root} › Tags › selfhosted`],
    });
    expect(links.get("https://old-article.example/")?.collections).toEqual([root, `${root} › Archive`]);
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
    expect(links.get("https://deepwork.example/")).toMatchObject({ description: "On focus", collections: [root, `${root} › Archive`, `${root} › Tags › focus`] });
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
  it("puts TAGS under a top-level Tags, TOREAD in To read, and linkding's notes after the description", async () => {
    const { env, alice } = await setup();
    const report = await importFile(env, alice, fixture("linkding.html"));
    expect(report.format).toBe("netscape");
    const { links } = await stored(env, alice);
    expect(links.get("https://linkding.link/")).toEqual({
      name: "linkding", description: "A bookmark manager\n\nRuns in Docker", favorite: false, createdAt: iso(1700000000),
      collections: ["Inbox", "Tags › bookmarks", "Tags › selfhosted", "To read"],
    });
    expect(links.get("https://example.org/")?.collections).toEqual(["Inbox", "Tags › bookmarks"]);
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
