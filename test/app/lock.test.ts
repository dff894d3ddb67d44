/**
 * The data directory's lock file (src/db/lock.ts), in-process: who may take it over. The
 * binary's side (a second `serve`, `restore` while serving, a killed server's lock) is in
 * test/binary/operations.data.binary.test.ts.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DataDirBusy, LOCK_FILE, lockDataDir } from "../../src/db/lock";
import { testDir } from "../support/dirs";

describe("lockDataDir", () => {
  it("gives way to a lock file that is still empty and new: its creator has not written it yet", () => {
    const dir = testDir("lock-fresh");
    writeFileSync(join(dir, LOCK_FILE), "");
    expect(() => lockDataDir(dir, "restore")).toThrow(DataDirBusy);
    expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe("");
  });

  it("takes over an empty lock file a few seconds old (a crash between creating and writing it)", () => {
    const dir = testDir("lock-old-empty");
    const path = join(dir, LOCK_FILE);
    writeFileSync(path, "");
    const past = new Date(Date.now() - 60_000);
    utimesSync(path, past, past);
    const lock = lockDataDir(dir, "restore");
    expect(JSON.parse(readFileSync(path, "utf8")).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it("refuses a lock held by a live process, naming it, and leaves the file as it was", () => {
    const dir = testDir("lock-live");
    const path = join(dir, LOCK_FILE);
    const holder = Bun.spawn(["sleep", "30"]);
    try {
      const content = JSON.stringify({ pid: holder.pid, started: null, command: "serve" });
      writeFileSync(path, content);
      expect(() => lockDataDir(dir, "restore")).toThrow(`is in use by linkshelf serve (pid ${holder.pid})`);
      expect(readFileSync(path, "utf8")).toBe(content);
    } finally {
      holder.kill();
    }
  });
});
