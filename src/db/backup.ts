import { Database } from "bun:sqlite";
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { BackupSchedule } from "../common/config";
import { stampGeneration } from "./history";

/**
 * writeBackup writes a consistent copy of an open database to `file` (`VACUUM INTO`: one read
 * transaction, so writes that commit meanwhile are either wholly in or wholly out; the copy
 * is compact and needs no WAL) and gives the copy a new generation (src/db/history.ts): put in
 * place of the database, by `linkshelf restore` or by hand, it is a new history, and change
 * cursors of the database it was copied from are refused. The copy is written beside `file`
 * and takes its name once whole; `file` is created new with mode 0600 (it holds password hashes)
 * and synced to disk before this returns; an existing file is never overwritten. On failure
 * nothing is left behind.
 */
export function writeBackup(sqlite: Database, file: string): void {
  closeSync(openSync(file, "wx", 0o600));
  const partial = `${file}.partial-${process.pid}`;
  try {
    closeSync(openSync(partial, "wx", 0o600));
    sqlite.run("VACUUM INTO ?", [partial]);
    const copy = new Database(partial, { strict: true });
    try {
      stampGeneration(copy);
    } finally {
      copy.close();
    }
    const fd = openSync(partial, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    rmSync(file, { force: true });
    throw error;
  }
}

/** fileTime is a UTC time for a file name, sorting as it reads: `20261125T034055.123Z`. */
export function fileTime(now: number): string {
  return new Date(now).toISOString().replace(/[-:]/g, "");
}

/** The scheduled backups' names: `linkshelf-<UTC time>.db`. Only files named so are ever removed. */
const SCHEDULED = /^linkshelf-\d{8}T\d{6}\.\d{3}Z\.db$/;

/** pruneBackups removes the oldest scheduled backups in `dir` beyond the newest `keep`; returns the names removed. */
export function pruneBackups(dir: string, keep: number): string[] {
  const names = readdirSync(dir).filter((name) => SCHEDULED.test(name)).sort();
  const removed = names.slice(0, Math.max(0, names.length - keep));
  for (const name of removed) unlinkSync(join(dir, name));
  return removed;
}

/** The longest a timer may wait in one go (a signed 32-bit count of milliseconds). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * scheduleBackups writes `linkshelf-<UTC time>.db` into the schedule's folder once every period
 * (the first one period after start), then removes the oldest beyond `keep`. A failure (the
 * folder unwritable, the disk full) is logged in one line and the next period tries again; the
 * server keeps serving either way. The timer never keeps the process alive. Returns `stop`.
 */
export function scheduleBackups(sqlite: Database, schedule: BackupSchedule, log: (line: string) => void, clock: () => number = Date.now): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let due = clock() + schedule.everyMs;

  const runOnce = () => {
    const file = join(schedule.dir, `linkshelf-${fileTime(clock())}.db`);
    try {
      mkdirSync(schedule.dir, { recursive: true, mode: 0o700 });
      writeBackup(sqlite, file);
      const removed = pruneBackups(schedule.dir, schedule.keep);
      log(`linkshelf: backup written to ${file}${removed.length > 0 ? `; removed ${removed.length} older` : ""}`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      log(`linkshelf: backup to ${schedule.dir} failed: ${reason.replace(/\s+/g, " ")}; next try in one period`);
    }
  };

  const arm = () => {
    timer = setTimeout(() => {
      if (clock() >= due) {
        runOnce();
        // The next one counts from now, so a slow backup never makes them pile up.
        due = clock() + schedule.everyMs;
      }
      arm();
    }, Math.min(Math.max(due - clock(), 0), MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
