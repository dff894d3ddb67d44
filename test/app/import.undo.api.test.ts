/**
 * The record of imports and undoing one, through `app.handle` (`GET /api/v1/imports`,
 * `DELETE /api/v1/imports/:id`): what an undo removes and what it never touches.
 */
import { describe, expect, it } from "bun:test";
import { escapeHtml } from "../../src/bookmarks/netscape";
import { importBookmarks } from "../../src/bookmarks/plan";
import { IMPORT_CHUNK } from "../../src/shelf/limits";
import { createCollection, createLink, createUser, del, get, inboxOf, makeEnv, put, shelfFor, snapshot, type TestEnv, type TestUser } from "../support/helpers";

const file = (body: string) => `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<TITLE>Bookmarks</TITLE>\n<H1>Bookmarks</H1>\n<DL><p>\n${body}\n</DL><p>\n`;
const link = (url: string, name: string) => `<DT><A HREF="${escapeHtml(url)}">${escapeHtml(name)}</A>`;
const folder = (name: string, body: string) => `<DT><H3>${escapeHtml(name)}</H3>\n<DL><p>\n${body}\n</DL><p>`;

/** A file of two folders (Reading, Tools) and a loose link, with one URL the user already has and one entry that cannot be stored. */
const FILE = file([
  folder("Reading", [link("https://a.example/", "A"), link("https://before.example/", "Mine already")].join("\n")),
  folder("Tools", link("https://b.example/", "B")),
  link("https://c.example/", "C"),
  link("javascript:void(0)", "Script"),
].join("\n"));

/** importAs runs a recorded import from the import page's side. */
async function importAs(env: TestEnv, as: TestUser, html = FILE, fileName = "bookmarks.html") {
  return importBookmarks(shelfFor(env, as), html, env.clock.now++, { record: { source: "page", fileName } });
}

async function setup() {
  const env = makeEnv();
  const alice = await createUser(env);
  const bob = await createUser(env);
  const before = await createLink(env, alice, { name: "Mine already", url: "https://before.example/" });
  return { env, alice, bob, before: before.id };
}

const urls = async (env: TestEnv, as: TestUser) =>
  (await get(env, "/api/v1/links?limit=100", { token: as.token })).body.links.map((l: { url: string }) => l.url).sort();
const collectionNames = async (env: TestEnv, as: TestUser) =>
  (await get(env, "/api/v1/collections", { token: as.token })).body.collections.map((c: { name: string }) => c.name);

describe("GET /api/v1/imports", () => {
  it("lists the requester's recorded imports, newest first, with their counts; dry runs are not recorded", async () => {
    const { env, alice, bob } = await setup();
    await importBookmarks(shelfFor(env, alice), FILE, env.clock.now++, { dryRun: true, record: { source: "page", fileName: "dry.html" } });
    const firstAt = env.clock.now;
    const first = await importAs(env, alice);
    const secondAt = env.clock.now;
    const second = await importAs(env, alice, file(link("https://d.example/", "D")), "more.html");
    await importAs(env, bob, file(link("https://e.example/", "E")), "bobs.html");
    expect(first.importId).toBeNumber();

    const response = await get(env, "/api/v1/imports", { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-limit")).not.toBeNull();
    expect(response.body.imports).toEqual([
      { id: second.importId, createdAt: new Date(secondAt).toISOString(), source: "page", fileName: "more.html", links: 1, collections: 0, duplicates: 0, skipped: 0, undoneAt: null },
      { id: first.importId, createdAt: new Date(firstAt).toISOString(), source: "page", fileName: "bookmarks.html", links: 3, collections: 2, duplicates: 1, skipped: 1, undoneAt: null },
    ]);
  });

  it("counts in its record only what is committed, at every moment of a long import (a server killed midway says what it wrote)", async () => {
    const { env, alice } = await setup();
    // Three transactions' worth at least, in two folders.
    const MANY = Math.ceil(2.5 * IMPORT_CHUNK.items);
    const MORE = Math.ceil(1.2 * IMPORT_CHUNK.items);
    const big = file([
      folder("Many", Array.from({ length: MANY }, (_, i) => link(`https://many.example/${i}`, `Many ${i}`)).join("\n")),
      folder("More", Array.from({ length: MORE }, (_, i) => link(`https://more.example/${i}`, `More ${i}`)).join("\n")),
    ].join("\n"));
    const seen: string[] = [];
    let running = true;
    const sample = () => {
      const record = env.db.$client.query("SELECT id, links, collections FROM imports").get() as { id: number; links: number; collections: number } | null;
      if (record) {
        const written = env.db.$client.query("SELECT (SELECT count(*) FROM links WHERE import_id = ?1) AS links, (SELECT count(*) FROM collections WHERE import_id = ?1) AS collections").get(record.id) as { links: number; collections: number };
        seen.push(`${record.links}/${record.collections} ${written.links}/${written.collections}`);
      }
      if (running) setImmediate(sample);
    };
    setImmediate(sample);
    const report = await importAs(env, alice, big);
    running = false;
    expect(report.linksCreated).toBe(MANY + MORE);
    // Sampled between the import's transactions: each time, the record's counts are what was written.
    expect(seen.length).toBeGreaterThan(2);
    for (const line of seen) {
      const [recorded, written] = line.split(" ");
      expect(recorded).toBe(written!);
    }
    expect(new Set(seen).size).toBeGreaterThan(2);
    const [record] = (await get(env, "/api/v1/imports", { token: alice.token })).body.imports;
    expect(record).toMatchObject({ links: MANY + MORE, collections: 2 });
  });

  it("records an import that created nothing (every entry a duplicate), which undoes to nothing", async () => {
    const { env, alice } = await setup();
    const report = await importAs(env, alice, file(link("https://before.example/", "Again")));
    expect(report.linksCreated).toBe(0);
    const undone = await del(env, `/api/v1/imports/${report.importId}`, { token: alice.token });
    expect(undone.body).toEqual({ message: "Import undone.", links: 0, collections: 0 });
  });
});

describe("DELETE /api/v1/imports/:id", () => {
  it("removes the links the import created and its collections left empty, never a link that was there before", async () => {
    const { env, alice, before } = await setup();
    const beforeImport = await urls(env, alice);
    const { importId } = await importAs(env, alice);
    expect(await collectionNames(env, alice)).toEqual(["Inbox", "Reading", "Tools"]);

    const response = await del(env, `/api/v1/imports/${importId}`, { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: "Import undone.", links: 3, collections: 2 });
    expect(await urls(env, alice)).toEqual(beforeImport);
    expect(await collectionNames(env, alice)).toEqual(["Inbox"]);
    expect((await get(env, `/api/v1/links/${before}`, { token: alice.token })).body.link.collectionIds).toEqual([await inboxOf(env, alice)]);
    const [record] = (await get(env, "/api/v1/imports", { token: alice.token })).body.imports;
    expect(record.undoneAt).not.toBeNull();
  });

  it("keeps a collection the import created that now holds another link, and removes the import's links however they were moved or edited", async () => {
    const { env, alice } = await setup();
    const { importId } = await importAs(env, alice);
    const collections = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections;
    const reading = collections.find((c: { name: string }) => c.name === "Reading");
    const tools = collections.find((c: { name: string }) => c.name === "Tools");
    const mine = await createLink(env, alice, { name: "Put in Reading", url: "https://mine.example/", collectionIds: [reading.id] });
    // B, created by the import, is renamed and moved into a collection of the user's own.
    const own = await createCollection(env, alice, { name: "Own" });
    const b = tools.links.find((l: { url: string }) => l.url === "https://b.example/");
    expect((await put(env, `/api/v1/links/${b.id}`, { token: alice.token, body: { name: "B, renamed", url: "https://b.example/", favorite: true, collectionIds: [own.id] } })).status).toBe(200);

    const response = await del(env, `/api/v1/imports/${importId}`, { token: alice.token });
    expect(response.body).toEqual({ message: "Import undone.", links: 3, collections: 1 });
    expect(await urls(env, alice)).toEqual(["https://before.example/", "https://mine.example/"]);
    expect(await collectionNames(env, alice)).toEqual(["Inbox", "Reading", "Own"]);
    expect((await get(env, `/api/v1/links/${mine.id}`, { token: alice.token })).body.link.collectionIds).toEqual([reading.id]);
    expect((await get(env, `/api/v1/collections/${tools.id}`, { token: alice.token })).status).toBe(404);
  });

  it("undoes an import into the private stand-in of a PUBLIC collection, and a second one that merged there, leaving the public collection as it was", async () => {
    const { env, alice } = await setup();
    const reading = await createCollection(env, alice, { name: "Reading", visibility: "PUBLIC" });
    await createLink(env, alice, { name: "Shared", url: "https://shared.example/", collectionIds: [reading.id] });
    const publicBefore = (await get(env, `/api/v1/collections/${reading.id}`, { token: alice.token })).body;
    const first = await importAs(env, alice);
    const second = await importAs(env, alice, file(folder("Reading", link("https://later.example/", "Later"))), "later.html");
    expect(first.destinations.map((d) => [d.name, d.isNew])).toEqual([["Inbox", false], ["Reading (imported)", true], ["Tools", true]]);
    expect(second.destinations.map((d) => [d.name, d.isNew])).toEqual([["Reading (imported)", false]]);

    // The second import's link goes; the stand-in stays, holding the first import's link.
    expect((await del(env, `/api/v1/imports/${second.importId}`, { token: alice.token })).body).toEqual({ message: "Import undone.", links: 1, collections: 0 });
    expect(await collectionNames(env, alice)).toEqual(["Inbox", "Reading", "Reading (imported)", "Tools"]);
    expect((await del(env, `/api/v1/imports/${first.importId}`, { token: alice.token })).body).toEqual({ message: "Import undone.", links: 3, collections: 2 });
    expect(await collectionNames(env, alice)).toEqual(["Inbox", "Reading"]);
    expect(await urls(env, alice)).toEqual(["https://before.example/", "https://shared.example/"]);
    expect((await get(env, `/api/v1/collections/${reading.id}`, { token: alice.token })).body).toEqual(publicBefore);
  });

  it("answers 404 and changes nothing for an import undone already, another user's, or an unknown id", async () => {
    const { env, alice, bob } = await setup();
    const { importId } = await importAs(env, alice);
    const bobs = await importAs(env, bob, file(link("https://e.example/", "E")));
    expect((await del(env, `/api/v1/imports/${importId}`, { token: alice.token })).status).toBe(200);
    const unknown = await del(env, "/api/v1/imports/999999", { token: alice.token });
    expect(unknown.status).toBe(404);
    for (const id of [importId, bobs.importId]) {
      const before = snapshot(env);
      const response = await del(env, `/api/v1/imports/${id}`, { token: alice.token });
      expect({ status: response.status, body: response.body }).toEqual({ status: 404, body: unknown.body });
      expect(snapshot(env)).toBe(before);
    }
    expect(await urls(env, bob)).toEqual(["https://e.example/"]);
  });
});
