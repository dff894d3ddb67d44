import { Database } from "bun:sqlite";
import pkg from "../../package.json" with { type: "json" };
import { applyMigrations, embeddedMigrations, MIGRATIONS_TABLE, releaseOf } from "./migrate";
import type { EmbeddedMigration } from "./migrations.macro";

/** A database linkshelf will not use; the message is the one line the CLI prints. */
export class DatabaseRefused extends Error {}

/**
 * A schema object the app creates while it runs rather than through a migration (such as a
 * table per user). The schema check accepts an object whose name `name` matches in full when it
 * is exactly what `create(name)` makes; a virtual table's shadow tables come with it.
 */
export interface RuntimeObject {
  /** Matches the whole name of the object itself (never its shadow tables). */
  name: RegExp;
  /** The statements the app runs to create the object of that name. */
  create(name: string): string[];
}

/** Every schema object the app creates at run time; the one place to declare them. */
export const RUNTIME_OBJECTS: RuntimeObject[] = [];

interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** One of SQLite's own statistics tables (`ANALYZE`, `PRAGMA optimize`): neither linkshelf's nor anyone's code. */
const STATISTICS = /^sqlite_stat\d$/;

function readObjects(sqlite: Database): SchemaObject[] {
  return sqlite
    .query<SchemaObject, []>("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
    .all()
    .filter((object) => !STATISTICS.test(object.name));
}

/** normalize compares statements as SQLite keeps them, whatever the line breaks and indentation. */
const normalize = (sql: string | null) => sql?.replace(/\s+/g, " ").trim() ?? null;

const schemaVersion = (count: number, release: string | null) => `schema version ${count}${release ? `, recorded by linkshelf ${release}` : ""}`;

/**
 * checkDatabase refuses (DatabaseRefused) a database that this linkshelf must not use, before
 * anything is written to it: one whose recorded migrations are newer than the newest this
 * program carries (it would write rows the newer schema does not expect), and one whose schema
 * objects (tables, indexes, triggers, views) differ from those its recorded migrations create,
 * plus the declared run-time objects (RUNTIME_OBJECTS): an added trigger could undo a revoked
 * token or a changed password. Only reads; `file` names the database in the message.
 */
export function checkDatabase(
  sqlite: Database,
  file: string,
  { migrations = embeddedMigrations, runtime = RUNTIME_OBJECTS }: { migrations?: EmbeddedMigration[]; runtime?: RuntimeObject[] } = {},
): void {
  const actual = readObjects(sqlite);
  const recorded = actual.some((object) => object.type === "table" && object.name === MIGRATIONS_TABLE)
    ? sqlite.query<{ count: number; newest: number | null }, []>(`SELECT count(*) AS count, max(created_at) AS newest FROM ${MIGRATIONS_TABLE}`).all()[0]!
    : { count: 0, newest: null };
  const newest = recorded.newest === null ? null : Number(recorded.newest);
  if (newest !== null && newest > (migrations.at(-1)?.when ?? 0)) {
    const theirs = schemaVersion(recorded.count, releaseOf(sqlite.query<{ user_version: number }, []>("PRAGMA user_version").all()[0]!.user_version));
    throw new DatabaseRefused(
      `${file} comes from a newer linkshelf (${theirs}) than this one (linkshelf ${pkg.version}, ${schemaVersion(migrations.length, null)}); use that version or a later one`,
    );
  }
  if (actual.length === 0) return;

  const problem = firstDifference(actual, expectedObjects(newest === null ? [] : migrations.filter((m) => m.when <= newest), actual, runtime));
  if (problem) throw new DatabaseRefused(`${file} is not as linkshelf's migrations made it: ${problem}`);
}

/**
 * expectedObjects is the schema that `migrations` and the run-time objects named in `actual`
 * make, read from a private in-memory database they are applied to, with the names of the
 * shadow tables among it (whose statements belong to SQLite's virtual table module).
 */
function expectedObjects(migrations: EmbeddedMigration[], actual: SchemaObject[], runtime: RuntimeObject[]): { objects: SchemaObject[]; shadows: Set<string> } {
  const scratch = new Database(":memory:", { strict: true });
  try {
    if (migrations.length > 0) applyMigrations(scratch, migrations);
    for (const { name } of actual) {
      const declared = runtime.find((object) => object.name.exec(name)?.[0] === name);
      if (declared) for (const statement of declared.create(name)) scratch.run(statement);
    }
    const shadows = new Set(scratch.query<{ name: string }, []>("SELECT name FROM pragma_table_list WHERE type = 'shadow'").all().map((row) => row.name));
    return { objects: readObjects(scratch), shadows };
  } finally {
    scratch.close();
  }
}

/** firstDifference names the first object of `actual` that is unexpected or altered, else the first expected one that is missing. */
function firstDifference(actual: SchemaObject[], expected: { objects: SchemaObject[]; shadows: Set<string> }): string | null {
  const byName = new Map(expected.objects.map((object) => [object.name, object]));
  for (const object of actual) {
    const wanted = byName.get(object.name);
    if (!wanted) return `unexpected ${object.type} "${object.name}"`;
    byName.delete(object.name);
    const same = wanted.type === object.type && wanted.tbl_name === object.tbl_name
      && (expected.shadows.has(object.name) || normalize(wanted.sql) === normalize(object.sql));
    if (!same) return `altered ${object.type} "${object.name}"`;
  }
  const missing = byName.values().next().value;
  return missing ? `missing ${missing.type} "${missing.name}"` : null;
}
