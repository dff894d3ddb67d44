/**
 * Bun macro: runs at bundle time (and when Bun transpiles from source), so the
 * migrations in drizzle/ are inlined into the executable as plain data.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

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
