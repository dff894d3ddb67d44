import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { Logger } from "drizzle-orm/logger";
import * as schema from "./schema";
import { applyMigrations } from "./migrate";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export interface OpenOptions {
  /** Sees every SQL statement drizzle runs (tests count queries with it). */
  logger?: Logger;
}

/**
 * openDatabase opens (creating if needed) the SQLite file, sets the pragmas the contract
 * relies on (WAL, foreign keys, a busy timeout so the CLI and the server can share the
 * file) and applies pending migrations. `path` ":memory:" gives a private database.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.run("PRAGMA busy_timeout = 5000");
  sqlite.run("PRAGMA journal_mode = WAL");
  // NORMAL in WAL mode: a commit survives a crash of the process (kill -9); only an OS
  // crash or power cut can lose the newest commits, and never corrupts the file.
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  applyMigrations(sqlite);
  return drizzle({ client: sqlite, schema, logger: options.logger });
}

/** closeDatabase checkpoints the WAL into the main file and closes it. */
export function closeDatabase(db: Db): void {
  db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.$client.close();
}
