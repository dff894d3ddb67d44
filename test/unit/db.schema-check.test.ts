/**
 * The database linkshelf refuses to use: one from a newer linkshelf, and one whose schema objects
 * differ from what its recorded migrations (and the declared run-time objects) make. Refused
 * before anything is written: the file and its WAL keep their bytes. The CLI's side (serve and
 * every command print the one line and exit 1) is in startup.binary.test.ts.
 */
import { Database } from "bun:sqlite";
import { beforeEach, describe, expect, it } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { closeDatabase, openDatabase } from "../../src/db/client";
import { applyMigrations, embeddedMigrations, releaseOf } from "../../src/db/migrate";
import { checkDatabase, DatabaseRefused, migratedSchemas, type RuntimeObject } from "../../src/db/schema-check";
import { userSearchTableSql } from "../../src/db/schema";
import { testDir } from "../support/dirs";

let dir: string;
let path: string;
beforeEach(() => {
  dir = testDir("schema-check");
  path = join(dir, "linkshelf.db");
});

/** A database file as `openDatabase` leaves it after a clean stop: every migration, a user and a token. */
function madeByLinkshelf(file = path): void {
  const db = openDatabase(file);
  db.$client.run("INSERT INTO users (id, email, name, password_hash, created_at) VALUES (1, 'a@example.test', 'A', 'hash', 1)");
  db.$client.run("INSERT INTO api_tokens (id, user_id, name, token_hash, created_at) VALUES (1, 1, 'CLI', 'token-hash', 1)");
  closeDatabase(db);
}

/** change runs statements on the file with a connection of its own (as another program would). */
function change(...statements: string[]): void {
  const other = new Database(path, { strict: true });
  for (const statement of statements) other.run(statement);
  other.close();
}

/** The bytes of the database and of its WAL (none: empty), to prove a refusal wrote nothing. */
const bytesOf = (file: string) => [readFileSync(file), existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`) : Buffer.alloc(0)];

/** refusal is the message openDatabase refuses the file with (having checked the file stayed as it was), or "" when it opens. */
function refusal(file = path): string {
  const before = bytesOf(file);
  try {
    closeDatabase(openDatabase(file));
    return "";
  } catch (error) {
    expect(error).toBeInstanceOf(DatabaseRefused);
    const after = bytesOf(file);
    expect(after[0]!.equals(before[0]!)).toBe(true);
    expect(after[1]!.equals(before[1]!)).toBe(true);
    return (error as Error).message;
  }
}

describe("a database from a newer linkshelf", () => {
  const later = embeddedMigrations.at(-1)!.when + 1;
  const ours = `linkshelf ${pkg.version}, schema version ${embeddedMigrations.length}`;

  it("is refused, naming its schema version and the release that recorded it, and this one's", () => {
    madeByLinkshelf();
    change(`INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-later-release', ${later})`, "PRAGMA user_version = 3001");
    expect(refusal()).toBe(
      `${path} comes from a newer linkshelf (schema version ${embeddedMigrations.length + 1}, recorded by linkshelf 0.3.1) than this one (${ours}); use that version or a later one`,
    );
  });

  it("is refused by its schema version alone when no release was recorded", () => {
    madeByLinkshelf();
    change(`INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-later-release', ${later})`, "PRAGMA user_version = 0");
    expect(refusal()).toBe(`${path} comes from a newer linkshelf (schema version ${embeddedMigrations.length + 1}) than this one (${ours}); use that version or a later one`);
  });

  it("is refused with its WAL left as it was while another connection holds it", () => {
    madeByLinkshelf();
    const holder = new Database(path, { strict: true });
    holder.run(`INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-later-release', ${later})`);
    expect(readFileSync(`${path}-wal`).length).toBeGreaterThan(0);
    expect(refusal()).toContain("comes from a newer linkshelf");
    holder.close();
  });

  it("is the newest migration's: a database at this linkshelf's newest opens", () => {
    madeByLinkshelf();
    expect(refusal()).toBe("");
  });
});

describe("applyMigrations", () => {
  it("records the release that applied migrations in user_version, and leaves it when nothing was applied", () => {
    const sqlite = new Database(":memory:", { strict: true });
    applyMigrations(sqlite, embeddedMigrations.slice(0, 1));
    const release = sqlite.query<{ user_version: number }, []>("PRAGMA user_version").all()[0]!.user_version;
    expect(releaseOf(release)).toBe(pkg.version);
    sqlite.run("PRAGMA user_version = 1002003");
    applyMigrations(sqlite, embeddedMigrations.slice(0, 1));
    expect(sqlite.query("PRAGMA user_version").get()).toEqual({ user_version: 1002003 });
    expect(releaseOf(1002003)).toBe("1.2.3");
    expect(releaseOf(0)).toBeNull();
  });
});

describe("the schema check", () => {
  it("compares with the schema applyMigrations makes after each migration, worked out at build time", () => {
    expect(migratedSchemas.steps).toHaveLength(embeddedMigrations.length + 1);
    for (let step = 0; step <= embeddedMigrations.length; step++) {
      const sqlite = new Database(":memory:", { strict: true });
      applyMigrations(sqlite, embeddedMigrations.slice(0, step));
      const made = sqlite
        .query<{ type: string; name: string; tbl_name: string; sql: string | null; shadow: number }, []>(
          "SELECT m.type, m.name, m.tbl_name, m.sql, coalesce(l.type = 'shadow', 0) AS shadow FROM sqlite_master AS m LEFT JOIN pragma_table_list AS l ON l.schema = 'main' AND l.name = m.name ORDER BY m.rowid",
        )
        .all()
        .map((row) => ({ ...row, shadow: row.shadow === 1 }));
      expect({ step, objects: migratedSchemas.steps[step]!.map((index) => migratedSchemas.objects[index]) }).toEqual({ step, objects: made });
      sqlite.close();
    }
    expect(migratedSchemas.objects.filter((object) => object.shadow).map((object) => object.name).sort())
      .toEqual(["link_search_config", "link_search_data", "link_search_docsize", "link_search_idx"]);
  });

  it("opens a database whose first start failed before any migration was recorded", () => {
    change("CREATE TABLE IF NOT EXISTS __drizzle_migrations (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, created_at NUMERIC)");
    expect(refusal()).toBe("");
    expect(new Database(path).query("SELECT count(*) AS n FROM __drizzle_migrations").get()).toEqual({ n: embeddedMigrations.length });
  });

  it("opens a database at every migration step, and its upgrade to the newest", () => {
    for (let step = 1; step <= embeddedMigrations.length; step++) {
      const file = join(dir, `step-${step}.db`);
      const old = new Database(file, { create: true, strict: true });
      old.run("PRAGMA journal_mode = WAL");
      applyMigrations(old, embeddedMigrations.slice(0, step));
      old.close();
      expect({ step, refused: refusal(file) }).toEqual({ step, refused: "" });
      expect({ step, again: refusal(file) }).toEqual({ step, again: "" });
    }
  });

  it("opens a file with no schema yet, and ignores SQLite's own statistics tables", () => {
    new Database(path, { create: true }).close();
    expect(refusal()).toBe("");
    change("ANALYZE", "PRAGMA optimize");
    expect(new Database(path).query("SELECT count(*) AS n FROM sqlite_master WHERE name = 'sqlite_stat1'").get()).toEqual({ n: 1 });
    expect(refusal()).toBe("");
  });

  it("refuses a trigger that puts a revoked token back, and the token stays revoked", () => {
    madeByLinkshelf();
    change(
      "DELETE FROM api_tokens",
      "CREATE TRIGGER keep_token AFTER DELETE ON api_tokens BEGIN INSERT INTO api_tokens (id, user_id, name, token_hash, created_at) VALUES (old.id, old.user_id, old.name, old.token_hash, old.created_at); END",
    );
    expect(refusal()).toBe(`${path} is not as linkshelf's migrations made it: unexpected trigger "keep_token"`);
    expect(new Database(path).query("SELECT count(*) AS n FROM api_tokens").get()).toEqual({ n: 0 });
  });

  const planted: [string, string[], string][] = [
    ["a trigger that reverts a password change", ["CREATE TRIGGER old_password AFTER UPDATE OF password_hash ON users BEGIN UPDATE users SET password_hash = old.password_hash WHERE id = old.id; END"], 'unexpected trigger "old_password"'],
    ["a trigger that keeps the database's generation when a copy is given a new one", ["CREATE TRIGGER same_history BEFORE UPDATE ON history BEGIN SELECT RAISE(IGNORE); END"], 'unexpected trigger "same_history"'],
    ["a history table made anew without its one-row rule", ["DROP TABLE history", "CREATE TABLE history (id integer PRIMARY KEY NOT NULL, generation text NOT NULL)"], 'altered table "history"'],
    ["a view", ["CREATE VIEW every_token AS SELECT * FROM api_tokens"], 'unexpected view "every_token"'],
    ["a table", ["CREATE TABLE notes (id integer)"], 'unexpected table "notes"'],
    ["an index", ["CREATE INDEX links_url_idx ON links (url)"], 'unexpected index "links_url_idx"'],
    ["an added column", ["ALTER TABLE users ADD is_admin integer"], 'altered table "users"'],
    ["an index made anew differently", ["DROP INDEX links_user_created_idx", "CREATE INDEX links_user_created_idx ON links (user_id)"], 'altered index "links_user_created_idx"'],
    ["a table made anew as a view", ["DROP TABLE link_search_pending", "CREATE VIEW link_search_pending AS SELECT id AS link_id FROM links"], 'altered view "link_search_pending"'],
    ["a missing index", ["DROP INDEX sessions_user_idx"], 'missing index "sessions_user_idx"'],
    ["a missing table", ["DROP TABLE favicon_cache"], 'missing table "favicon_cache"'],
    ["an unexpected virtual table", ["CREATE VIRTUAL TABLE notes USING fts5(text)"], 'unexpected table "notes"'],
  ];
  for (const [what, statements, problem] of planted) {
    it(`refuses ${what}, naming it, and leaves the file as it was`, () => {
      madeByLinkshelf();
      change(...statements);
      expect(refusal()).toBe(`${path} is not as linkshelf's migrations made it: ${problem}`);
    });
  }

  it("compares what the recorded migrations make: a table of a later migration in an older database is unexpected", () => {
    const old = new Database(path, { create: true, strict: true });
    applyMigrations(old, embeddedMigrations.slice(0, 1));
    old.run(embeddedMigrations[1]!.sql.split("--> statement-breakpoint")[0]!);
    old.close();
    expect(refusal()).toBe(`${path} is not as linkshelf's migrations made it: unexpected table "sessions"`);
  });

  it("refuses tables of another program that has no migration records", () => {
    change("CREATE TABLE things (id integer PRIMARY KEY, name text)");
    expect(refusal()).toBe(`${path} is not as linkshelf's migrations made it: unexpected table "things"`);
  });

  describe("objects the app creates at run time", () => {
    const perUser: RuntimeObject = {
      name: /link_search_u[1-9][0-9]*/,
      sql: (name) => `CREATE VIRTUAL TABLE IF NOT EXISTS \`${name}\` USING fts5(name, content = '', contentless_delete = 1)`,
    };
    const check = () => {
      const reader = new Database(path, { readonly: true, strict: true });
      try {
        checkDatabase(reader, path, [perUser]);
        return "";
      } catch (error) {
        return (error as Error).message;
      } finally {
        reader.close();
      }
    };

    it("accepts a declared one exactly as declared, with its shadow tables", () => {
      madeByLinkshelf();
      change(perUser.sql("link_search_u1"), perUser.sql("link_search_u12"));
      expect(check()).toBe("");
      // Undeclared, the same tables are refused.
      expect(refusal()).toBe(`${path} is not as linkshelf's migrations made it: unexpected table "link_search_u1"`);
    });

    it("refuses a declared name made differently, a name the pattern only partly matches, and a trigger on it", () => {
      const cases: [string[], string][] = [
        [["CREATE VIRTUAL TABLE link_search_u2 USING fts5(name, url)"], 'altered table "link_search_u2"'],
        [["CREATE TABLE link_search_u2x (id integer)"], 'unexpected table "link_search_u2x"'],
        [["CREATE TABLE link_search_u4_data (id INTEGER PRIMARY KEY, block BLOB)"], 'unexpected table "link_search_u4_data"'],
        [[perUser.sql("link_search_u3"), "CREATE TRIGGER u3 AFTER INSERT ON links BEGIN INSERT INTO link_search_u3 (rowid, name) VALUES (new.id, new.name); END"], 'unexpected trigger "u3"'],
      ];
      for (const [statements, problem] of cases) {
        madeByLinkshelf(path);
        change(...statements);
        expect(check()).toBe(`${path} is not as linkshelf's migrations made it: ${problem}`);
        for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
      }
    });
  });

  it("accepts each user's search index as linkshelf makes it, and refuses one made otherwise", () => {
    madeByLinkshelf();
    change(userSearchTableSql(1), userSearchTableSql(27));
    const reader = new Database(path, { readonly: true, strict: true });
    try {
      expect(() => checkDatabase(reader, path)).not.toThrow();
    } finally {
      reader.close();
    }
    // A copy (as `linkshelf backup` makes) may list the shadow tables before their table: accepted as well.
    const copy = `${path}.copy`;
    rmSync(copy, { force: true });
    change(`VACUUM INTO '${copy}'`);
    const copied = new Database(copy, { readonly: true, strict: true });
    try {
      expect(() => checkDatabase(copied, copy)).not.toThrow();
    } finally {
      copied.close();
      rmSync(copy, { force: true });
    }
    for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
    madeByLinkshelf();
    change("CREATE VIRTUAL TABLE link_search_5 USING fts5(name, description, url, content)");
    expect(refusal()).toBe(`${path} is not as linkshelf's migrations made it: altered table "link_search_5"`);
  });
});
