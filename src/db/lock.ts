import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

/** The file in the data directory that says which process has it: `serve`, or a `restore` at work. */
export const LOCK_FILE = "linkshelf.lock";

/** Another live process holds the data directory; its message is the one line the CLI prints. */
export class DataDirBusy extends Error {}

interface Holder {
  pid: number;
  /** The process's start time as the kernel counts it (Linux), so a reused pid is not mistaken for the holder. */
  started: string | null;
  command: string;
}

/**
 * startTimeOf reads a process's start time (field 22 of /proc/PID/stat, in clock ticks since
 * boot). null where there is no /proc (macOS) or no such process.
 */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** isAlive: the process of a lock file still runs (and is the same process, where the start time tells). */
function isAlive(holder: Holder): boolean {
  // 0 is no process (kill(0) would signal our own group); after a crash in a container the new process may get the old pid.
  if (holder.pid <= 0 || holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  const started = startTimeOf(holder.pid);
  return holder.started === null || started === null || started === holder.started;
}

function readHolder(path: string): Holder | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    if (Number.isSafeInteger(parsed.pid) && parsed.pid! > 0) {
      return { pid: parsed.pid!, started: typeof parsed.started === "string" ? parsed.started : null, command: String(parsed.command ?? "linkshelf") };
    }
  } catch {
    // A lock file cut short by a crash between its creation and its write: nobody holds it.
  }
  return { pid: 0, started: null, command: "" };
}

/** How long a lock file may stay empty (created, its holder not yet written) before it counts as left by a crash. */
const UNWRITTEN_GRACE_MS = 5_000;

/**
 * claimOf is the live claim a lock file holds: its process runs, or the file is still empty
 * and new (its creator is between creating and writing it). undefined: no file, or a stale one.
 */
function claimOf(path: string): Holder | undefined {
  const holder = readHolder(path);
  if (!holder) return undefined;
  if (holder.pid === 0) {
    try {
      return Date.now() - statSync(path).mtimeMs < UNWRITTEN_GRACE_MS ? holder : undefined;
    } catch {
      return undefined;
    }
  }
  return isAlive(holder) ? holder : undefined;
}

export interface DataDirLock {
  /** release removes the lock file; the data directory is free again. */
  release(): void;
}

/**
 * lockDataDir claims the data directory for one process: `serve` for as long as it runs, and
 * `restore` while it swaps the database. The claim is a file created atomically (O_EXCL)
 * holding the process id and start time, removed when the process ends cleanly. A file left
 * by a process that no longer runs (kill -9, a power cut) is taken over. Throws DataDirBusy,
 * naming the holder, when another live process has the directory.
 */
export function lockDataDir(dataDir: string, command: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  const me: Holder = { pid: process.pid, started: startTimeOf(process.pid), command };
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const busy = (holder: Holder) =>
        new DataDirBusy(holder.pid === 0
          ? `data directory ${dataDir} is being claimed by another linkshelf; try again`
          : `data directory ${dataDir} is in use by linkshelf ${holder.command} (pid ${holder.pid}); stop it first`);
      const holder = claimOf(path);
      if (holder) throw busy(holder);
      // Stale: move it aside, then try again. If another process took the stale file over first,
      // what was moved aside is its fresh claim: put it back and give way.
      const aside = `${path}.stale-${process.pid}`;
      try {
        renameSync(path, aside);
      } catch (renameError) {
        if ((renameError as NodeJS.ErrnoException).code !== "ENOENT") throw renameError;
        continue;
      }
      const moved = claimOf(aside);
      if (moved) {
        try {
          linkSync(aside, path);
        } catch (linkError) {
          if ((linkError as NodeJS.ErrnoException).code !== "EEXIST") throw linkError;
        }
        unlinkSync(aside);
        throw busy(moved);
      }
      unlinkSync(aside);
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(me));
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        const holder = readHolder(path);
        if (holder?.pid === me.pid) unlinkSync(path);
      },
    };
  }
  throw new DataDirBusy(`data directory ${dataDir} is being claimed by another linkshelf; try again`);
}
