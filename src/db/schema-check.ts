import type { Database } from "bun:sqlite";
import pkg from "../../package.json" with { type: "json" };
import { USER_SEARCH_INDEX } from "./schema";
import { embeddedMigrations, MIGRATIONS_TABLE, releaseOf } from "./migrate";
import { readSchemas, type MigratedSchemas, type SchemaObject } from "./migrations.macro" with { type: "macro" };

/** The schema after each number of the embedded migrations, worked out at build time. */
export const migratedSchemas: MigratedSchemas = readSchemas();

/** A database linkshelf will not use; the message is the one line the CLI prints. */
export class DatabaseRefused extends Error {}

/**
 * A schema object the app creates while it runs rather than through a migration (such as a
 * table per user). The schema check accepts an object whose whole name `name` matches when its
 * statement is `sql(name)`, and, for a virtual table, the shadow tables SQLite keeps for it.
 */
export interface RuntimeObject {
  /** Matches the whole name of the object itself (never its shadow tables). */
  name: RegExp;
  /** The statement the app runs to create the object of that name. */
  sql(name: string): string;
}

/** Every schema object the app creates at run time; the one place to declare them. */
const RUNTIME_OBJECTS: RuntimeObject[] = [USER_SEARCH_INDEX];

/** One of SQLite's own statistics tables (`ANALYZE`, `PRAGMA optimize`): neither linkshelf's nor anyone's code. */
const STATISTICS = /^sqlite_stat\d$/;

/**
 * normalize compares statements as SQLite keeps them whatever their line breaks and indentation,
 * and whether they said IF NOT EXISTS (which SQLite drops from what it keeps).
 */
function normalize(sql: string | null): string | null {
  if (sql === null) return null;
  return sql.replace(/\s+/g, " ").trim().replace(/^CREATE ((?:UNIQUE |VIRTUAL )?(?:TABLE|INDEX|TRIGGER|VIEW) )(?:IF NOT EXISTS )?/i, (_, kind: string) => `CREATE ${kind.toUpperCase()}`);
}

const schemaVersion = (count: number, release: string | null) => `schema version ${count}${release ? `, recorded by linkshelf ${release}` : ""}`;

/**
 * checkDatabase refuses (DatabaseRefused) a database that this linkshelf must not use, and only
 * reads it: one whose recorded migrations are newer than the newest this program carries (it
 * would write rows the newer schema does not expect), and one whose schema objects (tables,
 * indexes, triggers, views) differ from those its recorded migrations make, together with the
 * run-time objects of RUNTIME_OBJECTS: an added trigger could put back a revoked token or an
 * old password. `file` names the database in the message.
 */
export function checkDatabase(
  sqlite: Database,
  file: string,
  runtime: RuntimeObject[] = RUNTIME_OBJECTS,
): void {
  const actual = sqlite
    .query<Omit<SchemaObject, "shadow">, []>("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
    .all()
    .filter((object) => !STATISTICS.test(object.name));
  if (actual.length === 0) return;
  const recorded = actual.some((object) => object.type === "table" && object.name === MIGRATIONS_TABLE)
    ? sqlite.query<{ count: number; newest: number | null }, []>(`SELECT count(*) AS count, max(created_at) AS newest FROM ${MIGRATIONS_TABLE}`).all()[0]!
    : { count: 0, newest: null };
  const newest = recorded.newest === null ? null : Number(recorded.newest);
  if (newest !== null && newest > (embeddedMigrations.at(-1)?.when ?? 0)) {
    const theirs = schemaVersion(recorded.count, releaseOf(sqlite.query<{ user_version: number }, []>("PRAGMA user_version").all()[0]!.user_version));
    throw new DatabaseRefused(
      `${file} comes from a newer linkshelf (${theirs}) than this one (linkshelf ${pkg.version}, ${schemaVersion(embeddedMigrations.length, null)}); use that version or a later one`,
    );
  }
  const applied = newest === null ? 0 : embeddedMigrations.filter((migration) => migration.when <= newest).length;
  const expected = migratedSchemas.steps[applied]!.map((index) => migratedSchemas.objects[index]!);
  const problem = firstDifference(sqlite, actual, expected, runtime);
  if (problem) throw new DatabaseRefused(`${file} is not as linkshelf's migrations made it: ${problem}`);
}

/**
 * firstDifference names the first object of `actual` that is unexpected or altered, else the
 * first expected one that is missing. A shadow table is compared by name: its statement is the
 * virtual table module's (and may change with SQLite), and it has no behaviour of its own.
 */
function firstDifference(sqlite: Database, actual: Omit<SchemaObject, "shadow">[], expected: SchemaObject[], runtime: RuntimeObject[]): string | null {
  const byName = new Map(expected.map((object) => [object.name, object]));
  const declaredOf = (name: string) => runtime.find((candidate) => candidate.name.exec(name)?.[0] === name);
  // Known before the loop: a copy (VACUUM INTO, a backup) may list shadow tables before their virtual table.
  const runtimeTables = actual.filter((object) => object.type === "table" && !byName.has(object.name) && declaredOf(object.name)).map((object) => object.name);
  // SQLite's own word on which tables are a virtual table's shadow tables, read once.
  const shadows = runtimeTables.length === 0 ? new Set<string>()
    : new Set(sqlite.query<{ name: string }, []>("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'").all().map((row) => row.name));
  /** A shadow table of a declared run-time table (its module names the suffix, without another `_`). */
  const isRuntimeShadow = (name: string) =>
    shadows.has(name) && runtimeTables.some((table) => name.startsWith(`${table}_`) && !name.slice(table.length + 1).includes("_"));
  for (const object of actual) {
    const wanted = byName.get(object.name);
    if (wanted) {
      byName.delete(object.name);
      const same = wanted.type === object.type && wanted.tbl_name === object.tbl_name && (wanted.shadow || normalize(wanted.sql) === normalize(object.sql));
      if (!same) return `altered ${object.type} "${object.name}"`;
      continue;
    }
    const declared = declaredOf(object.name);
    if (declared) {
      // The statement says the object's kind and, for an index, its table.
      if (normalize(declared.sql(object.name)) !== normalize(object.sql)) return `altered ${object.type} "${object.name}"`;
      continue;
    }
    if (object.type === "table" && isRuntimeShadow(object.name)) continue;
    return `unexpected ${object.type} "${object.name}"`;
  }
  const missing = byName.values().next().value;
  return missing ? `missing ${missing.type} "${missing.name}"` : null;
}
