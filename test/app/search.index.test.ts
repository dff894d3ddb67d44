/**
 * The full-text index itself: links stored before search existed are indexed by the first server
 * started on the upgraded database; imported bookmarks are found; a backup carries page
 * text and index; the snippets' stemmer agrees with the index's.
 */
import { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { applyMigrations, embeddedMigrations } from "../../src/db/migrate";
import { closeDatabase } from "../../src/db/client";
import { porterStem } from "../../src/fulltext/porter";
import { hasUserIndex, indexPendingLinks } from "../../src/fulltext/index-text";
import { INDEXER_TIMING, SearchIndexer } from "../../src/search/indexer";
import { testDir } from "../support/dirs";
import { get, makeEnv, request } from "../support/helpers";
import { importBookmarks } from "../../src/bookmarks/plan";
import { writeBackup } from "../../src/db/backup";
import { createUser } from "../support/helpers";
import { Shelf } from "../../src/shelf/shelf";
import { findUserById } from "../../src/users/service";
import { packText } from "../../src/fulltext/text-store";
import { users } from "../../src/db/schema";
import { eq } from "drizzle-orm";

describe("upgrading a database made before search existed", () => {
  it("indexes every existing link once, CJK names included, when the first server starts on it", async () => {
    const path = join(testDir("search-upgrade"), "linkshelf.db");
    const old = new Database(path, { create: true, strict: true });
    old.run("PRAGMA foreign_keys = ON");
    const before = embeddedMigrations.findIndex((migration) => migration.tag === "0004_link_contents");
    expect(before).toBeGreaterThan(0);
    applyMigrations(old, embeddedMigrations.slice(0, before));
    old.run("INSERT INTO users (id, email, name, password_hash, created_at) VALUES (1, 'old@example.test', 'Old', 'x', 1)");
    old.run("INSERT INTO collections (id, user_id, name, visibility, icon, is_default, created_at, updated_at) VALUES (1, 1, 'Inbox', 'PRIVATE', '📥', 1, 1, 1)");
    const addLink = old.prepare("INSERT INTO links (id, user_id, name, description, url, created_at, updated_at) VALUES (?, 1, ?, ?, ?, 1, 1)");
    addLink.run(1, "Old favourite recipes", "soups", "https://old.example/recipes");
    addLink.run(2, "東京の地図", "", "https://maps.example/");
    old.transaction(() => {
      for (let id = 3; id <= 2500; id++) addLink.run(id, `Filler ${id}`, "", "https://filler.example/");
      old.run("INSERT INTO link_collections (link_id, collection_id) SELECT id, 1 FROM links");
    })();
    old.close();

    const env = makeEnv({}, { path });
    const counts = () => ({
      pending: env.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM link_search_pending").get()!.n,
      indexed: hasUserIndex(env.db, 1) ? env.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM link_search_1").get()!.n : 0,
    });
    // Opening indexes nothing (the command line opens it too): the server's indexer takes the marks at start.
    expect(counts()).toEqual({ pending: 2500, indexed: 0 });
    const indexer = new SearchIndexer(env.db, () => {}, { ...INDEXER_TIMING, delayMillis: 1 });
    await indexer.settled();
    await indexer.stop();
    expect(counts()).toEqual({ pending: 0, indexed: 2500 });
    const user = await createUser(env);
    // The old user had no token: one made now.
    const token = new Shelf(env.db, findUserById(env.db, 1)!).tokens.create("t", 2).token;
    const find = async (q: string) => (await get(env, `/api/v1/search?q=${encodeURIComponent(q)}`, { token })).body.hits.map((hit: { link: { id: number } }) => hit.link.id);
    expect(await find("recipe")).toEqual([1]);
    expect(await find("soup")).toEqual([1]);
    expect(await find("地図")).toEqual([2]);
    expect(await find("東京")).toEqual([2]);
    // Nobody else finds them.
    expect((await get(env, "/api/v1/search?q=recipe", { token: user.token })).body.hits).toEqual([]);
    // Later opens have nothing left to index.
    expect(indexPendingLinks(env.db)).toBe(0);
    closeDatabase(env.db);
  });
});

describe("upgrading a database with one index shared by every user", () => {
  it("drops the shared index and indexes each user's links into an index of their own at the first start", async () => {
    const path = join(testDir("search-user-upgrade"), "linkshelf.db");
    const old = new Database(path, { create: true, strict: true });
    old.run("PRAGMA foreign_keys = ON");
    const before = embeddedMigrations.findIndex((migration) => migration.tag === "0009_user_search");
    expect(before).toBeGreaterThan(0);
    applyMigrations(old, embeddedMigrations.slice(0, before));
    for (const id of [1, 2]) {
      old.run(`INSERT INTO users (id, email, name, password_hash, created_at) VALUES (${id}, 'u${id}@example.test', 'U${id}', 'x', 1)`);
      old.run(`INSERT INTO collections (id, user_id, name, visibility, icon, is_default, created_at, updated_at) VALUES (${id}, ${id}, 'Inbox', 'PRIVATE', '📥', 1, 1, 1)`);
    }
    const addLink = old.prepare("INSERT INTO links (id, user_id, name, description, url, created_at, updated_at) VALUES (?, ?, ?, '', ?, 1, 1)");
    addLink.run(1, 1, "Heron field notes", "https://birds.example/heron");
    addLink.run(2, 2, "Heron private diary", "https://diary.example/heron");
    old.run("INSERT INTO link_search (rowid, name, description, url, content) VALUES (1, 'Heron field notes', '', 'https://birds.example/heron', ''), (2, 'Heron private diary', '', 'https://diary.example/heron', '')");
    old.close();

    const env = makeEnv({}, { path });
    const tables = env.db.$client.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE name LIKE 'link_search%' AND name NOT LIKE '%pending%'").all();
    expect(tables).toEqual([]);
    expect(env.db.$client.query("SELECT link_id FROM link_search_pending ORDER BY link_id").all()).toEqual([{ link_id: 1 }, { link_id: 2 }]);
    const indexer = new SearchIndexer(env.db, () => {}, { ...INDEXER_TIMING, delayMillis: 1 });
    await indexer.settled();
    await indexer.stop();
    for (const [user, id] of [[1, 1], [2, 2]] as const) {
      expect(env.db.$client.query(`SELECT rowid AS id FROM link_search_${user} WHERE link_search_${user} MATCH 'heron'`).all()).toEqual([{ id }]);
      const token = new Shelf(env.db, findUserById(env.db, user)!).tokens.create("t", 2).token;
      const hits = (await get(env, "/api/v1/search?q=heron", { token })).body.hits.map((hit: { link: { id: number } }) => hit.link.id);
      expect(hits).toEqual([id]);
    }
    closeDatabase(env.db);
  });
});

describe("upgrading a database with clicks made before the use bound's index", () => {
  it("indexes the clicked links, bounds use from the index, and ranks a much-opened page-text match first", async () => {
    const path = join(testDir("search-clicks-upgrade"), "linkshelf.db");
    const old = new Database(path, { create: true, strict: true });
    old.run("PRAGMA foreign_keys = ON");
    const before = embeddedMigrations.findIndex((migration) => migration.tag === "0008_link_clicks_index");
    expect(before).toBeGreaterThan(0);
    applyMigrations(old, embeddedMigrations.slice(0, before));
    old.run("INSERT INTO users (id, email, name, password_hash, created_at) VALUES (1, 'old@example.test', 'Old', 'x', 1)");
    old.run("INSERT INTO collections (id, user_id, name, visibility, icon, is_default, created_at, updated_at) VALUES (1, 1, 'Inbox', 'PRIVATE', '📥', 1, 1, 1)");
    const addLink = old.prepare("INSERT INTO links (id, user_id, name, description, url, clicks, last_clicked_at, created_at, updated_at) VALUES (?, 1, ?, '', ?, ?, ?, 1, 1)");
    old.transaction(() => {
      // 40 links named for beavers, never opened; one that only says it in its page text, opened 3,000 times.
      for (let id = 1; id <= 40; id++) addLink.run(id, `Beaver dams ${id}`, "https://dams.example/", 0, null);
      addLink.run(41, "Rivers", "https://rivers.example/", 3000, 2);
      old.run("INSERT INTO link_contents (link_id, text_zstd, source, captured_at) VALUES (41, ?, 'browser', 1)", [packText("Mostly about rivers, and a beaver.")]);
      old.run("INSERT INTO link_search_pending (link_id) SELECT id FROM links");
      old.run("INSERT INTO link_collections (link_id, collection_id) SELECT id, 1 FROM links");
    })();
    old.close();

    const env = makeEnv({}, { path });
    // Asked on a connection of its own: an EXPLAIN statement is left open by bun:sqlite's all().
    const planner = new Database(path, { readonly: true });
    const plan = planner.query<{ detail: string }, []>("EXPLAIN QUERY PLAN SELECT max(clicks) FROM links WHERE user_id = 1 AND clicks > 0").all();
    planner.close(false);
    expect(plan.map((row) => row.detail).join(" ")).toContain("links_user_clicks_idx");
    const token = new Shelf(env.db, env.db.select().from(users).where(eq(users.id, 1)).all()[0]!).tokens.create("t", 2).token;
    const ids = (await get(env, "/api/v1/search?q=beaver&limit=5", { token })).body.hits.map((hit: { link: { id: number } }) => hit.link.id);
    expect(ids).toEqual([41, 40, 39, 38, 37]);
    closeDatabase(env.db);
  });
});

describe("porterStem", () => {
  it("stems every word as the index's porter tokenizer does", () => {
    const words = [
      "caresses", "ponies", "ties", "caress", "cats", "feed", "agreed", "plastered", "bled", "motoring", "sing", "conflated", "troubled",
      "sized", "hopping", "tanned", "falling", "hissing", "fizzed", "failing", "filing", "happy", "sky", "relational", "conditional",
      "rational", "valenci", "hesitanci", "digitizer", "conformabli", "radicalli", "differentli", "vileli", "analogousli", "vietnamization",
      "predication", "operator", "feudalism", "decisiveness", "hopefulness", "callousness", "formaliti", "sensitiviti", "sensibiliti",
      "triplicate", "formative", "formalize", "electriciti", "electrical", "hopeful", "goodness", "revival", "allowance", "inference",
      "airliner", "gyroscopic", "adjustable", "defensible", "irritant", "replacement", "adjustment", "dependent", "adoption", "homologou",
      "communism", "activate", "angulariti", "homologous", "effective", "bowdlerize", "probate", "rate", "cease", "controll", "roll",
      "connections", "connecting", "running", "runs", "generalizations", "oscillators", "abilities", "archaeology", "knightly", "by", "is",
      "generously", "y", "yy", "syzygy", "queueing", "succeeded", "proceed", "exceed", "skies", "dying", "lying", "news", "abc123",
    ];
    const db = new Database(":memory:");
    db.run("CREATE VIRTUAL TABLE t USING fts5(w, tokenize = 'porter unicode61 remove_diacritics 2')");
    db.run("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')");
    const insert = db.prepare("INSERT INTO t (w) VALUES (?)");
    const terms = db.prepare("SELECT term FROM v");
    for (const word of words) {
      db.run("DELETE FROM t");
      insert.run(word);
      const sqlite = (terms.all() as { term: string }[]).map((row) => row.term);
      expect({ word, stem: porterStem(word) }).toEqual({ word, stem: sqlite[0]! });
    }
  });
});

describe("imports and backups", () => {
  it("finds imported bookmarks by name, description and URL", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Kitchen</H3>\n<DL><p>\n<DT><A HREF="https://soup.example/minestrone">Minestrone recipes</A>\n<DD>Hearty vegetable soups\n</DL><p>\n</DL><p>\n`;
    const report = await importBookmarks(new Shelf(env.db, alice.user), file, Date.now());
    expect(report.linksCreated).toBe(1);
    for (const q of ["minestrone", "vegetable soup", "soup.example"]) {
      const hits = (await get(env, `/api/v1/search?q=${encodeURIComponent(q)}`, { token: alice.token })).body.hits;
      expect({ q, names: hits.map((hit: { link: { name: string } }) => hit.link.name) }).toEqual({ q, names: ["Minestrone recipes"] });
    }
  });

  it("carries saved page text and its index in a backup", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = (await request(env, "POST", "/api/v1/links", { token: alice.token, body: { name: "Page", url: "https://a.example/", favorite: false } })).body.link;
    expect((await request(env, "PUT", `/api/v1/links/${link.id}/content`, { token: alice.token, body: { text: "Axolotls regrow their limbs." } })).status).toBe(200);
    const file = join(testDir("search-backup"), "backup.db");
    writeBackup(env.db.$client, file);
    const restored = makeEnv({}, { path: file });
    const hits = (await get(restored, "/api/v1/search?q=axolotl%20limb", { token: alice.token })).body.hits;
    expect(hits.map((hit: { link: { id: number } }) => hit.link.id)).toEqual([link.id]);
    expect((await get(restored, `/api/v1/links/${link.id}/content`, { token: alice.token })).body.content.text).toBe("Axolotls regrow their limbs.");
    closeDatabase(restored.db);
  });
});
