/**
 * Bun macro: runs at bundle time (and when Bun transpiles from source), so the
 * migrations in drizzle/ are inlined into the executable as plain data.
 */
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createMigrationsTable, runMigrationSql } from "./migration-sql";

export interface EmbeddedMigration {
  tag: string;
  /** The journal's `when`: drizzle records it as the migration's created_at. */
  when: number;
  sql: string;
}

interface Journal {
  entries: { idx: number; when: number; tag: string }[];
}

/** readMigrations returns every journal entry of drizzle/ with its SQL, in journal order. */
export function readMigrations(): EmbeddedMigration[] {
  const folder = join(import.meta.dir, "..", "..", "drizzle");
  const journal = JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as Journal;
  return [...journal.entries]
    .sort((a, b) => a.idx - b.idx)
    .map((entry) => ({
      tag: entry.tag,
      when: entry.when,
      sql: readFileSync(join(folder, `${entry.tag}.sql`), "utf8"),
    }));
}

/** A row of `sqlite_master`, and whether SQLite counts it a shadow table (one a virtual table keeps its data in). */
export interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
  shadow: boolean;
}

/** The schema each number of migrations makes: `steps[n]` indexes into `objects` for the first n migrations (`steps[0]`: the record of migrations alone). */
export interface MigratedSchemas {
  objects: SchemaObject[];
  steps: number[][];
}

/**
 * readSchemas applies the migrations of drizzle/ one by one to a private in-memory database,
 * through the same statements as `applyMigrations` (migration-sql.ts; a test holds the two equal), and reads the schema after each: what the
 * schema check compares a database with, known at build time so that starting pays no migration.
 */
export function readSchemas(): MigratedSchemas {
  const sqlite = new Database(":memory:", { strict: true });
  const objects: SchemaObject[] = [];
  const keys = new Map<string, number>();
  const read = () =>
    sqlite
      .query<Omit<SchemaObject, "shadow"> & { shadow: number }, []>(
        "SELECT m.type, m.name, m.tbl_name, m.sql, coalesce(l.type = 'shadow', 0) AS shadow "
          + "FROM sqlite_master AS m LEFT JOIN pragma_table_list AS l ON l.schema = 'main' AND l.name = m.name ORDER BY m.rowid",
      )
      .all()
      .map((row) => {
        const object = { ...row, shadow: row.shadow === 1 };
        const key = JSON.stringify(object);
        if (!keys.has(key)) keys.set(key, objects.push(object) - 1);
        return keys.get(key)!;
      });
  try {
    createMigrationsTable(sqlite);
    const steps = [read()];
    for (const migration of readMigrations()) {
      runMigrationSql(sqlite, migration.sql);
      steps.push(read());
    }
    return { objects, steps };
  } finally {
    sqlite.close();
  }
}
