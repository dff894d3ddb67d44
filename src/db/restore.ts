import { Database } from "bun:sqlite";
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { fileTime, writeBackup } from "./backup";
import { MIGRATIONS_TABLE } from "./migrate";
import { checkDatabase } from "./schema-check";

/** A file restore will not put in place; the message is the one line the CLI prints. */
export class RestoreRefused extends Error {}

/** The tables every linkshelf database has had since its first migration. */
const CORE_TABLES = [MIGRATIONS_TABLE, "users", "collections", "links"];

/**
 * checkRestorable opens `file` read-only and refuses it unless it is a SQLite database that
 * passes `PRAGMA integrity_check`, has linkshelf's tables and migration records, and passes
 * checkDatabase (nothing from a newer release, no schema object its migrations do not make).
 * Returns the open connection for the copy.
 */
function checkRestorable(file: string): Database {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) throw new RestoreRefused(`${file} does not exist`);
  if (!stat.isFile()) throw new RestoreRefused(`${file} is not a file`);
  let source: Database;
  try {
    source = new Database(file, { readonly: true, strict: true });
  } catch (error) {
    throw new RestoreRefused(`cannot open ${file}: ${(error as Error).message}`);
  }
  try {
    let problems: string[];
    try {
      problems = source.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all().map((row) => row.integrity_check);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "SQLITE_NOTADB") throw new RestoreRefused(`${file} is not a SQLite database`);
      throw new RestoreRefused(`${file} is damaged: ${(error as Error).message}`);
    }
    if (problems.join() !== "ok") throw new RestoreRefused(`${file} is damaged: the integrity check reports ${problems[0]}`);

    const tables = new Set(source.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((row) => row.name));
    if (!CORE_TABLES.every((table) => tables.has(table))) throw new RestoreRefused(`${file} is a SQLite database but not a linkshelf one`);
    const newest = source.query<{ newest: number | null }, []>(`SELECT max(created_at) AS newest FROM ${MIGRATIONS_TABLE}`).all()[0]?.newest;
    if (newest === null || newest === undefined) throw new RestoreRefused(`${file} is a SQLite database but not a linkshelf one`);
    checkDatabase(source, file);
    return source;
  } catch (error) {
    source.close();
    throw error;
  }
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** syncFile flushes a file's writes to disk. */
function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * foldAndReadIds folds the WAL of the database being replaced into its main file, so the file
 * stands alone, and reads the highest id each of its tables ever handed out (its
 * `sqlite_sequence`, which AUTOINCREMENT keeps even when the row with that id is gone). Best
 * effort: null when the file cannot be read (a damaged database, which restoring replaces); its
 * -wal and -shm are then moved with it, so SQLite still finds them beside it.
 */
function foldAndReadIds(path: string): Map<string, number> | null {
  try {
    const old = new Database(path, { strict: true });
    try {
      old.run("PRAGMA busy_timeout = 5000");
      old.run("PRAGMA wal_checkpoint(TRUNCATE)");
      const exists = old.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").all().length > 0;
      if (!exists) return new Map();
      return new Map(old.query<{ name: string; seq: number }, []>("SELECT name, seq FROM sqlite_sequence WHERE typeof(seq) = 'integer'").all().map((row) => [row.name, row.seq]));
    } finally {
      old.close();
    }
  } catch {
    return null;
  }
}

/**
 * raiseSequences makes the copy at `path` hand out, for every table, ids above `issued` (what
 * the database it replaces handed out): a link made after the restore never takes the id of one
 * made after the backup, which a client may still hold. A table the copy does not have yet (a
 * later migration makes it) gets its count too: SQLite takes it up when the table is created.
 */
function raiseSequences(path: string, issued: Map<string, number>): void {
  if (issued.size === 0) return;
  const copy = new Database(path, { strict: true });
  try {
    copy.transaction(() => {
      for (const [name, seq] of issued) {
        const raised = copy.query<never, [string, number]>("UPDATE sqlite_sequence SET seq = max(seq, ?2) WHERE name = ?1").run(name, seq).changes;
        if (raised === 0) copy.query<never, [string, number]>("INSERT INTO sqlite_sequence (name, seq) VALUES (?1, ?2)").run(name, seq);
      }
    }).immediate();
  } finally {
    copy.close();
  }
  syncFile(path);
}

export interface RestoreOutcome {
  /** Where the database that was replaced now is; null when there was none. */
  kept: string | null;
  /**
   * Whether new ids start above every id the replaced database handed out; false when there was
   * none, or it could not be read (then ids made after the backup may be handed out again, and
   * the new history is what protects clients).
   */
  idsAbove: boolean;
}

/**
 * restoreDatabase puts a copy of `file` in place of the database at `dbPath`. The caller holds
 * the data directory's lock (no server runs on it). The file is checked first (checkRestorable)
 * and copied consistently beside the database (mode 0600), with a new generation (writeBackup:
 * the restored data is a new history, and change cursors from before are refused). The database
 * it replaces, its WAL folded in first, gives the copy its ids: the copy hands out new ones above
 * every id it issued (raiseSequences); it is then renamed `linkshelf.db.before-restore-<UTC time>`
 * (with any -wal and -shm that remain, renamed to match, so it still opens as it was). The copy
 * then takes the database's name in one rename. Pending migrations run at the next start.
 */
export function restoreDatabase(file: string, dbPath: string, now: number): RestoreOutcome {
  const source = checkRestorable(file);
  const incoming = `${dbPath}.restoring-${process.pid}`;
  rmSync(incoming, { force: true });
  try {
    writeBackup(source, incoming);
  } catch (error) {
    throw new RestoreRefused(`cannot copy ${file} into ${dirname(dbPath)}: ${(error as Error).message}`);
  } finally {
    source.close();
  }

  let kept: string | null = null;
  let idsAbove = false;
  try {
    if (existsSync(dbPath)) {
      const issued = foldAndReadIds(dbPath);
      if (issued) {
        raiseSequences(incoming, issued);
        idsAbove = true;
      }
      kept = `${dbPath}.before-restore-${fileTime(now)}`;
      if (existsSync(kept)) throw new RestoreRefused(`${basename(kept)} exists already; try again in a moment`);
      renameSync(dbPath, kept);
      for (const suffix of ["-wal", "-shm"]) {
        if (existsSync(dbPath + suffix)) renameSync(dbPath + suffix, kept + suffix);
      }
    }
    renameSync(incoming, dbPath);
  } finally {
    rmSync(incoming, { force: true });
  }
  syncDirectory(dirname(dbPath));
  return { kept, idsAbove };
}
