import { Database, type SQLQueryBindings, type Statement } from "bun:sqlite";
import { chmodSync, existsSync, statSync } from "node:fs";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { Logger } from "drizzle-orm/logger";
import { applyMigrations } from "./migrate";
import { checkDatabase } from "./schema-check";

/** drizzle without the relational query API (unused; building its schema map cost start-up time and memory). */
export type Db = BunSQLiteDatabase & { $client: Database };

export interface OpenOptions {
  /** Sees every SQL statement drizzle runs (tests count queries with it). */
  logger?: Logger;
}

/** How many distinct SQL texts keep their compiled statement; the app runs a few dozen. */
export const STATEMENT_CACHE_SIZE = 256;

type AnyStatement = Statement<unknown, SQLQueryBindings[]>;

/**
 * StatementCache is a Database whose `prepare` keeps each compiled statement by its SQL text
 * (least recently used dropped first). drizzle calls `prepare` for every query it runs, and
 * compiling the same SQL again each time cost about a quarter of a `POST /api/v1/links`.
 * Sharing a statement is safe here: every use binds, steps to the end and resets it before
 * the next one (nothing iterates a statement lazily).
 */
class StatementCache extends Database {
  readonly #statements = new Map<string, AnyStatement>();

  override prepare<Row, Params extends SQLQueryBindings | SQLQueryBindings[]>(sql: string, params?: Params) {
    type Prepared = ReturnType<typeof Database.prototype.prepare<Row, Params>>;
    if (params !== undefined) return super.prepare<Row, Params>(sql, params);
    let statement = this.#statements.get(sql);
    if (statement) {
      this.#statements.delete(sql);
    } else {
      statement = super.prepare<unknown, SQLQueryBindings[]>(sql);
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.delete(this.#statements.keys().next().value!);
    }
    this.#statements.set(sql, statement);
    return statement as unknown as Prepared;
  }

  override close(throwOnError?: boolean): void {
    for (const statement of this.#statements.values()) statement.finalize();
    this.#statements.clear();
    super.close(throwOnError);
  }
}

/**
 * openDatabase opens (creating if needed) the SQLite file, sets the pragmas the contract
 * relies on (WAL, foreign keys, a busy timeout so the CLI and the server can share the
 * file) and applies pending migrations. `path` ":memory:" gives a private database. An
 * existing file is checked first (checkDatabase) through a read-only connection, so that a
 * database it refuses (DatabaseRefused) is left exactly as it was: no WAL folded in, no pragma.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const isNew = path === ":memory:" || !existsSync(path) || statSync(path).size === 0;
  if (path !== ":memory:") makePrivate(path);
  if (!isNew) checkFile(path);
  const sqlite = new StatementCache(path, { create: true, strict: true });
  sqlite.run("PRAGMA busy_timeout = 5000");
  // A new file is switched to WAL and migrated unsynced, then synced as usual from then on.
  // The switch is a rollback-journal transaction and the first WAL write syncs its header and
  // directory: ~30 ms of fsyncs at a first start here, for a file with nothing to lose. What a
  // power cut could undo is made again at the next open (WAL frames are checksummed: a torn
  // write is ignored, never half-applied). Existing files always sync.
  if (isNew) sqlite.run("PRAGMA synchronous = OFF");
  sqlite.run("PRAGMA journal_mode = WAL");
  // SQLite gives a new -wal and -shm the main file's mode; ones left by an older version keep theirs.
  if (path !== ":memory:") for (const suffix of ["-wal", "-shm"]) makePrivate(path + suffix);
  sqlite.run("PRAGMA foreign_keys = ON");
  // Up to 32 MiB of pages kept (SQLite's default: 2 MiB): a search reads the index and the rows of
  // thousands of links, which otherwise come back through a system call per page. Grows only with use.
  sqlite.run("PRAGMA cache_size = -32768");
  applyMigrations(sqlite);
  const db = drizzle({ client: sqlite, logger: options.logger });
  // NORMAL in WAL mode: a commit survives a crash of the process (kill -9); only an OS
  // crash or power cut can lose the newest commits, and never corrupts the file.
  sqlite.run("PRAGMA synchronous = NORMAL");
  return db;
}

/** checkFile runs checkDatabase on an existing file through a read-only connection of its own. */
function checkFile(path: string): void {
  const reader = new Database(path, { readonly: true, strict: true });
  try {
    reader.run("PRAGMA busy_timeout = 5000");
    checkDatabase(reader, path);
  } finally {
    reader.close();
  }
}

/**
 * openReadOnly opens an existing database for reading only (the search worker's connection,
 * beside the server's): no migration, no change to the file or its modes.
 */
export function openReadOnly(path: string): Db {
  const sqlite = new StatementCache(path, { readonly: true, strict: true });
  sqlite.run("PRAGMA busy_timeout = 5000");
  sqlite.run("PRAGMA cache_size = -32768");
  return drizzle({ client: sqlite });
}

/**
 * openWriter opens an existing, migrated database for writing beside the server's connection
 * (the restore worker's, src/shelf/restore-worker.ts): the same busy timeout, foreign keys and
 * sync as openDatabase, no migration (the server applied them), the file in WAL mode already.
 */
export function openWriter(path: string): Db {
  const sqlite = new StatementCache(path, { strict: true });
  sqlite.run("PRAGMA busy_timeout = 5000");
  sqlite.run("PRAGMA foreign_keys = ON");
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA cache_size = -32768");
  return drizzle({ client: sqlite });
}

/**
 * makePrivate sets a database file that group or others may read (or that is executable) to
 * 0600: links, password hashes and token hashes are the owner's alone. A missing file is left
 * to be created, under the process umask (0077). Another user's file that this one may still
 * write (a shared group) keeps its mode: only its owner can change it, and that is no reason
 * not to start.
 */
export function makePrivate(path: string): void {
  if (!existsSync(path) || (statSync(path).mode & 0o177) === 0) return;
  try {
    chmodSync(path, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error;
  }
}

/** closeDatabase checkpoints the WAL into the main file and closes it. */
export function closeDatabase(db: Db): void {
  db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
  db.$client.close();
}

/**
 * preparedQueries builds a set of drizzle queries once per database (`.prepare()`, with the
 * values as `sql.placeholder`s) and returns the same set afterwards: building a query's SQL
 * costs more than running it (~40 µs against ~5 µs for a token lookup here), so the paths
 * every request takes only bind and run. A prepared query also runs inside a transaction
 * opened on the same database: bun:sqlite has one connection, and the query joins what is open on it.
 */
export function preparedQueries<Queries>(build: (db: Db) => Queries): (db: Db) => Queries {
  const built = new WeakMap<Db, Queries>();
  return (db) => {
    let queries = built.get(db);
    if (queries === undefined) built.set(db, (queries = build(db)));
    return queries;
  };
}
