import { Database } from "bun:sqlite";
import { beforeEach, describe, expect, it } from "bun:test";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/db/client";
import { applyMigrations, embeddedMigrations } from "../../src/db/migrate";
import { checkDatabase } from "../../src/db/schema-check";
import { Shelf } from "../../src/shelf/shelf";
import { findUserByEmail } from "../../src/users/service";
import { REPO_ROOT } from "../support/binary";
import { testDir } from "../support/dirs";
import { get, makeEnv, put } from "../support/helpers";

const FOLDER = join(REPO_ROOT, "drizzle");
const journal = JSON.parse(readFileSync(join(FOLDER, "meta", "_journal.json"), "utf8")) as {
  entries: { idx: number; when: number; tag: string }[];
};

const tableNames = (sqlite: Database) =>
  sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((t) => t.name);
const recorded = (sqlite: Database) =>
  sqlite.query<{ hash: string; created_at: number }, []>("SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at").all();
const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

/** seedRelease0 stores a user with an Inbox, a second collection and a link in both, using only the first release's schema. */
function seedRelease0(sqlite: Database): void {
  sqlite.run("INSERT INTO users (id, email, name, password_hash, created_at) VALUES (1, 'old@example.test', 'Old', 'hash', 1000)");
  sqlite.run(
    "INSERT INTO collections (id, user_id, name, visibility, icon, is_default, created_at, updated_at) VALUES " +
      "(1, 1, 'Inbox', 'PRIVATE', '📥', 1, 1000, 1000), (2, 1, 'Reading', 'PUBLIC', '📚', 0, 1001, 1001)",
  );
  sqlite.run(
    "INSERT INTO links (id, user_id, name, description, url, favorite, clicks, created_at, updated_at) " +
      "VALUES (1, 1, 'Example', 'kept', 'https://example.com/', 1, 7, 1002, 1002)",
  );
  sqlite.run("INSERT INTO link_collections (link_id, collection_id) VALUES (1, 1), (1, 2)");
  sqlite.run("INSERT INTO api_tokens (id, user_id, name, token_hash, created_at) VALUES (1, 1, 'CLI', 'abc', 1003)");
}

/** The first release's tables and their columns (later releases add columns, such as api_tokens.grant_id and import_id). */
const DATA_TABLES: Record<string, string> = {
  users: "*",
  collections: "id, user_id, name, description, visibility, icon, is_default, created_at, updated_at",
  links: "id, user_id, name, description, url, favorite, clicks, last_clicked_at, created_at, updated_at",
  link_collections: "link_id, collection_id",
  api_tokens: "id, user_id, name, token_hash, created_at, last_used_at",
};
const dump = (sqlite: Database) => Object.fromEntries(Object.entries(DATA_TABLES).map(([table, columns]) => [table, sqlite.query(`SELECT ${columns} FROM ${table} ORDER BY rowid`).all()]));

let dir: string;
beforeEach(() => {
  dir = testDir("migrate");
});

describe("embedded migrations", () => {
  it("embed every journal entry of drizzle/ with its SQL, in journal order", () => {
    const entries = [...journal.entries].sort((a, b) => a.idx - b.idx);
    expect(entries.length).toBeGreaterThan(0);
    expect(embeddedMigrations.map((m) => m.tag)).toEqual(entries.map((e) => e.tag));
    for (const [i, entry] of entries.entries()) {
      expect(embeddedMigrations[i]!.when).toBe(entry.when);
      expect(embeddedMigrations[i]!.sql).toBe(readFileSync(join(FOLDER, `${entry.tag}.sql`), "utf8"));
    }
  });

  it("are in increasing time order, so each one runs after the ones before it", () => {
    const whens = embeddedMigrations.map((m) => m.when);
    expect(whens).toEqual([...whens].sort((a, b) => a - b));
    expect(new Set(whens).size).toBe(whens.length);
  });
});

describe("the collection tree's migration", () => {
  /** A database one migration short of the tree, holding collections an import named `A / B`, and links in them. */
  function beforeTree() {
    const sqlite = new Database(":memory:", { strict: true });
    sqlite.run("PRAGMA foreign_keys = ON");
    const at = embeddedMigrations.findIndex((m) => m.tag.endsWith("_collection_tree"));
    applyMigrations(sqlite, embeddedMigrations.slice(0, at));
    sqlite.run("INSERT INTO users (id, email, name, password_hash, created_at) VALUES (1, 'a@example.test', 'A', 'hash', 1), (2, 'b@example.test', 'B', 'hash', 1)");
    const add = (user: number, name: string, isDefault = 0) =>
      sqlite.query<{ id: number }, [number, string, number]>("INSERT INTO collections (user_id, name, visibility, icon, is_default, created_at, updated_at) VALUES (?, ?, 'PRIVATE', '📁', ?, 1, 1) RETURNING id").get(user, name, isDefault)!.id;
    const ids = new Map<string, number>();
    for (const name of ["Inbox", "zeta", "Bikes", "Bikes / Home", "Bikes / Home / Tools", "Orphan / X", "Dup", "Dup", "Dup / Y", "Inbox / Z", "Work / ", "A", "A / B / C", "Alpha"]) {
      ids.set(name, add(1, name, name === "Inbox" ? 1 : 0));
    }
    // Another user's `Bikes` makes no path of user 1's.
    add(2, "Inbox", 1);
    ids.set("B's Bikes / Home", add(2, "Bikes / Home"));
    sqlite.run("INSERT INTO links (id, user_id, name, url, created_at, updated_at) VALUES (1, 1, 'new', 'https://a.example/', 5, 5), (2, 1, 'old', 'https://b.example/', 3, 3)");
    sqlite.run("INSERT INTO link_collections (link_id, collection_id) VALUES (1, ?), (2, ?), (1, ?)", [ids.get("Bikes")!, ids.get("Bikes")!, ids.get("Bikes / Home")!]);
    return { sqlite, ids };
  }

  it("nests collections named like nested folders only when every part of the path is exactly one collection of the owner's", () => {
    const { sqlite, ids } = beforeTree();
    applyMigrations(sqlite);
    const row = (id: number) => sqlite.query<{ name: string; parent_id: number | null }, [number]>("SELECT name, parent_id FROM collections WHERE id = ?").get(id)!;
    expect(row(ids.get("Bikes / Home")!)).toEqual({ name: "Home", parent_id: ids.get("Bikes")! });
    expect(row(ids.get("Bikes / Home / Tools")!)).toEqual({ name: "Tools", parent_id: ids.get("Bikes / Home")! });
    // No `Orphan`, two `Dup`s, the Inbox, an empty last part, a missing `A / B`, another user's: unchanged.
    for (const name of ["Orphan / X", "Dup / Y", "Inbox / Z", "Work / ", "A / B / C"]) expect(row(ids.get(name)!)).toEqual({ name, parent_id: null });
    expect(row(ids.get("B's Bikes / Home")!)).toEqual({ name: "Bikes / Home", parent_id: null });
  });

  it("starts each order as the lists showed it: the Inbox first, then by name; sub-collections before links, links oldest first", () => {
    const { sqlite, ids } = beforeTree();
    applyMigrations(sqlite);
    const top = sqlite.query<{ name: string }, []>("SELECT name FROM collections WHERE user_id = 1 AND parent_id IS NULL ORDER BY position").all().map((r) => r.name);
    expect(top).toEqual(["Inbox", "A", "A / B / C", "Alpha", "Bikes", "Dup", "Dup", "Dup / Y", "Inbox / Z", "Orphan / X", "Work / ", "zeta"]);
    const items = (parent: number) => [
      ...sqlite.query<{ position: number; item: string }, [number]>("SELECT position, 'collection ' || name AS item FROM collections WHERE parent_id = ?").all(parent),
      ...sqlite.query<{ position: number; item: string }, [number]>("SELECT lc.position, 'link ' || l.name AS item FROM link_collections lc JOIN links l ON l.id = lc.link_id WHERE lc.collection_id = ?").all(parent),
    ].sort((a, b) => a.position - b.position).map((entry) => `${entry.position} ${entry.item}`);
    expect(items(ids.get("Bikes")!)).toEqual(["0 collection Home", "1 link old", "2 link new"]);
    expect(items(ids.get("Bikes / Home")!)).toEqual(["0 collection Tools", "1 link new"]);
  });
});

describe("the membership marks' migration", () => {
  it("drops the two insert triggers and keeps the marks they wrote; taking a link out of a collection is still marked", () => {
    const sqlite = new Database(":memory:", { strict: true });
    sqlite.run("PRAGMA foreign_keys = ON");
    const at = embeddedMigrations.findIndex((m) => m.tag.endsWith("_membership_marks"));
    applyMigrations(sqlite, embeddedMigrations.slice(0, at));
    const triggers = () => sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'changes_%insert' ORDER BY name").all().map((t) => t.name);
    expect(triggers()).toEqual(["changes_collection_insert", "changes_link_insert", "changes_membership_insert"]);
    seedRelease0(sqlite);
    const marks = () => sqlite.query<{ kind: string; item_id: number }, []>("SELECT kind, item_id FROM pending_changes ORDER BY rowid").all();
    const before = marks();
    expect(before).toContainEqual({ kind: "link", item_id: 1 });

    expect(applyMigrations(sqlite)).toEqual(embeddedMigrations.slice(at).map((m) => m.tag));
    expect(triggers()).toEqual(["changes_collection_insert"]);
    expect(marks()).toEqual(before);
    sqlite.run("DELETE FROM pending_changes");
    sqlite.run("DELETE FROM link_collections WHERE link_id = 1 AND collection_id = 2");
    expect(marks()).toEqual([{ kind: "link", item_id: 1 }, { kind: "collection", item_id: 2 }]);
  });
});

describe("the change history's migration", () => {
  /** A database one migration short of the change history: two users whose changes interleave in the shared sequence, Alice's floor raised. */
  function beforeHistory() {
    const sqlite = new Database(":memory:", { strict: true });
    sqlite.run("PRAGMA foreign_keys = ON");
    const at = embeddedMigrations.findIndex((m) => m.tag.endsWith("_change_history"));
    expect(embeddedMigrations[at - 1]!.tag).toBe("0013_membership_marks");
    applyMigrations(sqlite, embeddedMigrations.slice(0, at));
    sqlite.run("INSERT INTO users (id, email, name, password_hash, created_at) VALUES (1, 'a@example.test', 'A', 'hash', 1), (2, 'b@example.test', 'B', 'hash', 1)");
    sqlite.run("DELETE FROM changes");
    // Shared places 1-7; Alice's 2 and 4 forgotten (purged), her floor at 4.
    sqlite.run(`INSERT INTO changes (seq, user_id, kind, item_id) VALUES
      (1, 1, 'collection', 10), (3, 2, 'collection', 20), (5, 1, 'link', 11), (6, 2, 'link', 21), (7, 1, 'link', 12), (8, 2, 'link', 22)`);
    sqlite.run("INSERT INTO change_floors (user_id, seq) VALUES (1, 4)");
    return { sqlite, at };
  }
  const rows = (sqlite: Database) => sqlite.query("SELECT user_id, seq, kind, item_id FROM changes ORDER BY user_id, seq").all();

  it("numbers each user's changes in their own sequence, in the order they had, with the user's head and floor; the database gets a random generation", () => {
    const { sqlite, at } = beforeHistory();
    expect(applyMigrations(sqlite)).toEqual(embeddedMigrations.slice(at).map((m) => m.tag));
    expect(rows(sqlite)).toEqual([
      { user_id: 1, seq: 1, kind: "collection", item_id: 10 }, { user_id: 1, seq: 2, kind: "link", item_id: 11 }, { user_id: 1, seq: 3, kind: "link", item_id: 12 },
      { user_id: 2, seq: 1, kind: "collection", item_id: 20 }, { user_id: 2, seq: 2, kind: "link", item_id: 21 }, { user_id: 2, seq: 3, kind: "link", item_id: 22 },
    ]);
    // Alice's floor: below it only her change at old place 1; the head is each user's last place.
    expect(sqlite.query("SELECT user_id, seq, head FROM change_floors ORDER BY user_id").all()).toEqual([{ user_id: 1, seq: 1, head: 3 }, { user_id: 2, seq: 0, head: 3 }]);
    const generation = sqlite.query<{ id: number; generation: string }, []>("SELECT id, generation FROM history").all();
    expect(generation).toEqual([{ id: 1, generation: expect.stringMatching(/^[0-9a-f]{32}$/) }]);
    expect(() => sqlite.run("INSERT INTO history (id, generation) VALUES (2, 'x')")).toThrow(/CHECK/);
    // Another database upgraded is another history.
    const other = beforeHistory().sqlite;
    applyMigrations(other);
    expect(other.query<{ generation: string }, []>("SELECT generation FROM history").get()!.generation).not.toBe(generation[0]!.generation);
  });

  it("upgrades a file the server then serves: every item once from the beginning, an old cursor refused as HISTORY_REPLACED, new changes after the head", async () => {
    const path = join(dir, "linkshelf.db");
    const old = new Database(path, { create: true, strict: true });
    const at = embeddedMigrations.findIndex((m) => m.tag.endsWith("_change_history"));
    applyMigrations(old, embeddedMigrations.slice(0, at));
    seedRelease0(old);
    // Read by a feed before the upgrade, at places of the shared sequence (another user's in between).
    old.run("DELETE FROM pending_changes");
    old.run("INSERT INTO changes (seq, user_id, kind, item_id) VALUES (5, 1, 'collection', 1), (6, 1, 'collection', 2), (8, 1, 'link', 1)");
    const oldCursor = "8";
    old.close();
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off" }, { path });
    try {
      const user = findUserByEmail(env.db, "old@example.test")!;
      const token = (await new Shelf(env.db, user).tokens.create("test", env.clock.now)).token;
      const all = await get(env, "/api/v1/changes", { token });
      expect(all.body.changes.map((c: { kind: string; id: number }) => `${c.kind} ${c.id}`)).toEqual(["collection 1", "collection 2", "link 1"]);
      expect(all.body.cursor).toMatch(/^[0-9a-f]{32}\.3$/);
      const refused = await get(env, `/api/v1/changes?since=${oldCursor}`, { token });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 410, code: "HISTORY_REPLACED" });
      await put(env, "/api/v1/links/1", { token, body: { name: "Renamed", url: "https://example.com/", favorite: true, collectionIds: [1, 2] } });
      const next = await get(env, `/api/v1/changes?since=${all.body.cursor}`, { token });
      expect(next.body.changes.map((c: { kind: string; id: number }) => `${c.kind} ${c.id}`)).toEqual(["link 1"]);
      expect(next.body.cursor).toBe(all.body.cursor.replace(/\.3$/, ".4"));
    } finally {
      closeDatabase(env.db);
    }
  });
});

describe("the read later and copies migration", () => {
  it("upgrades a database of the change history (0014): every link is neither to read nor archived, no collection shows copies, and a flag alone marks the feed", () => {
    const sqlite = new Database(":memory:", { strict: true });
    sqlite.run("PRAGMA foreign_keys = ON");
    const at = embeddedMigrations.findIndex((m) => m.tag.startsWith("0015_"));
    expect(embeddedMigrations[at - 1]!.tag).toBe("0014_change_history");
    applyMigrations(sqlite, embeddedMigrations.slice(0, at));
    seedRelease0(sqlite);
    const before = dump(sqlite);
    expect(applyMigrations(sqlite)).toEqual(embeddedMigrations.slice(at).map((m) => m.tag));
    expect(dump(sqlite)).toEqual(before);
    expect(sqlite.query("SELECT to_read, archived FROM links").all()).toEqual([{ to_read: 0, archived: 0 }]);
    expect(sqlite.query("SELECT DISTINCT copies_public FROM collections").all()).toEqual([{ copies_public: 0 }]);
    expect(sqlite.query("SELECT count(*) AS n FROM link_copies").get()).toEqual({ n: 0 });
    checkDatabase(sqlite, "upgraded.db");
    sqlite.run("DELETE FROM pending_changes");
    sqlite.run("UPDATE links SET to_read = 1 WHERE id = 1");
    expect(sqlite.query("SELECT kind, item_id FROM pending_changes").all()).toEqual([{ kind: "link", item_id: 1 }]);
  });
});

describe("applyMigrations", () => {
  it("upgrades a database of the first release to the latest and keeps its data", () => {
    const sqlite = new Database(":memory:", { strict: true });
    sqlite.run("PRAGMA foreign_keys = ON");
    expect(applyMigrations(sqlite, embeddedMigrations.slice(0, 1))).toEqual([embeddedMigrations[0]!.tag]);
    expect(tableNames(sqlite)).not.toContain("sessions");
    seedRelease0(sqlite);
    const before = dump(sqlite);

    expect(applyMigrations(sqlite)).toEqual(embeddedMigrations.slice(1).map((m) => m.tag));
    expect(dump(sqlite)).toEqual(before);
    // A token from before extension approvals existed belongs to none.
    expect(sqlite.query("SELECT grant_id FROM api_tokens").all()).toEqual([{ grant_id: null }]);
    // Links and collections from before imports were recorded came from no recorded import; removing an import's record forgets it on them.
    expect(sqlite.query("SELECT import_id FROM links UNION ALL SELECT import_id FROM collections").all()).toEqual([{ import_id: null }, { import_id: null }, { import_id: null }]);
    for (const table of ["links", "collections"]) {
      expect(sqlite.query(`SELECT "table", on_delete FROM pragma_foreign_key_list('${table}') WHERE "from" = 'import_id'`).all()).toEqual([{ table: "imports", on_delete: "SET NULL" }]);
    }
    expect(tableNames(sqlite)).toContain("sessions");
    sqlite.run("INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES ('s', 1, 1, 2)");
    expect(recorded(sqlite)).toEqual(embeddedMigrations.map((m) => ({ hash: sha256(m.sql), created_at: m.when })));
  });

  it("applies nothing the second time", () => {
    const sqlite = new Database(":memory:", { strict: true });
    expect(applyMigrations(sqlite)).toEqual(embeddedMigrations.map((m) => m.tag));
    const schema = sqlite.query("SELECT sql FROM sqlite_master ORDER BY name").all();
    expect(applyMigrations(sqlite)).toEqual([]);
    expect(recorded(sqlite)).toHaveLength(embeddedMigrations.length);
    expect(sqlite.query("SELECT sql FROM sqlite_master ORDER BY name").all()).toEqual(schema);
  });

  it("rolls a failing migration back entirely and records nothing", () => {
    const sqlite = new Database(":memory:", { strict: true });
    const broken = [{ tag: "0000_broken", when: 1, sql: "CREATE TABLE first_table (x integer);\n--> statement-breakpoint\nTHIS IS NOT SQL;" }];
    expect(() => applyMigrations(sqlite, broken)).toThrow();
    expect(tableNames(sqlite)).not.toContain("first_table");
    expect(recorded(sqlite)).toEqual([]);
  });

  it("rolls back the earlier migrations of the same run when a later one fails", () => {
    const sqlite = new Database(":memory:", { strict: true });
    const broken = [
      { tag: "0000_fine", when: 1, sql: "CREATE TABLE fine_table (x integer);" },
      { tag: "0001_broken", when: 2, sql: "CREATE TABLE second_table (x integer);\n--> statement-breakpoint\nNOT SQL AT ALL;" },
    ];
    expect(() => applyMigrations(sqlite, broken)).toThrow();
    expect(tableNames(sqlite)).not.toContain("fine_table");
    expect(tableNames(sqlite)).not.toContain("second_table");
    expect(recorded(sqlite)).toEqual([]);
    expect(applyMigrations(sqlite)).toEqual(embeddedMigrations.map((m) => m.tag));
  });

  it("agrees with drizzle's own migrator on what has run, in both directions", () => {
    const byDrizzle = new Database(":memory:", { strict: true });
    migrate(drizzle({ client: byDrizzle }), { migrationsFolder: FOLDER });
    expect(applyMigrations(byDrizzle)).toEqual([]);
    expect(recorded(byDrizzle)).toEqual(embeddedMigrations.map((m) => ({ hash: sha256(m.sql), created_at: m.when })));

    const byLinkshelf = new Database(":memory:", { strict: true });
    applyMigrations(byLinkshelf);
    // drizzle would fail with "table already exists" if it thought anything was pending.
    migrate(drizzle({ client: byLinkshelf }), { migrationsFolder: FOLDER });
    expect(recorded(byLinkshelf)).toEqual(recorded(byDrizzle));
  });
});

describe("openDatabase", () => {
  it("syncs commits as NORMAL once open, on a new file (set up unsynced) and on an existing one", () => {
    const path = join(dir, "sync.db");
    for (const state of ["new", "existing"]) {
      const db = openDatabase(path);
      try {
        expect(db.$client.query("PRAGMA synchronous").get(), state).toEqual({ synchronous: 1 });
        expect(db.$client.query("PRAGMA journal_mode").get(), state).toEqual({ journal_mode: "wal" });
        expect(db.$client.query("SELECT count(*) AS n FROM __drizzle_migrations").get(), state).toEqual({ n: embeddedMigrations.length });
      } finally {
        closeDatabase(db);
      }
    }
  });

  it("sets WAL mode, foreign keys and a busy timeout on a file database", () => {
    const db = openDatabase(join(dir, "linkshelf.db"));
    try {
      expect(db.$client.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
      expect(db.$client.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
      expect(db.$client.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
      expect(() =>
        db.$client.run("INSERT INTO collections (user_id, name, visibility, icon, created_at, updated_at) VALUES (999, 'x', 'PRIVATE', '📁', 1, 1)"),
      ).toThrow(/FOREIGN KEY/);
    } finally {
      db.$client.close();
    }
  });

  it("reports journal_mode memory for :memory: and still enforces foreign keys", () => {
    const db = openDatabase(":memory:");
    expect(db.$client.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "memory" });
    expect(db.$client.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
    db.$client.close();
  });

  it("opens a file of the first release and upgrades it in place", () => {
    const path = join(dir, "linkshelf.db");
    const old = new Database(path, { create: true, strict: true });
    applyMigrations(old, embeddedMigrations.slice(0, 1));
    seedRelease0(old);
    const before = dump(old);
    old.close();

    const db = openDatabase(path);
    try {
      expect(dump(db.$client)).toEqual(before);
      expect(tableNames(db.$client)).toContain("sessions");
      expect(recorded(db.$client)).toHaveLength(embeddedMigrations.length);
      expect(findUserByEmail(db, "OLD@example.test")?.id).toBe(1);
    } finally {
      db.$client.close();
    }
  });
});
