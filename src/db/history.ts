/**
 * The database's history (drizzle/0014): one random generation, made with the database and made
 * anew in every copy linkshelf writes (each backup, each restore), so that a copy put in place
 * of the database, by `linkshelf restore` or by hand, is a new history. Change cursors name the
 * generation (src/shelf/changes.ts): one of another history is refused, never read against this one.
 */
import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";

/** newGeneration is a fresh random generation: 32 lowercase hex characters (128 bits), as the migration makes them. */
export function newGeneration(): string {
  return randomBytes(16).toString("hex");
}

/**
 * stampGeneration gives a database (a copy being written, never the one in use) a new
 * generation; returns it, or null when the database is from before generations (its migration
 * will make one at its first start).
 */
export function stampGeneration(sqlite: Database): string | null {
  const table = sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'history'").all();
  if (table.length === 0) return null;
  const generation = newGeneration();
  sqlite.run("INSERT INTO history (id, generation) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET generation = ?1", [generation]);
  return generation;
}
