/**
 * File modes through the real executable: the data directory is 0700 and the database, its
 * WAL and SHM and every backup are 0600, for a fresh data directory and for one that an older
 * version (or a careless copy) left readable by everyone. The tests run under the test
 * runner's umask (usually 0022), which the binary must not inherit.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { chmodSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { binaryWorkspace, createUserWithToken, cleanEnv, runBinary, startServer, type BinaryWorkspace } from "../support/binary";

const SLOW = 30_000;
const modeOf = (path: string) => statSync(path).mode & 0o777;
const modesIn = (dbPath: string) => ({
  db: modeOf(dbPath),
  wal: modeOf(`${dbPath}-wal`),
  shm: modeOf(`${dbPath}-shm`),
});

let workspace: BinaryWorkspace;
let previousUmask: number;

beforeAll(() => {
  // A permissive umask in the test process, so that nothing here passes by inheriting a strict one.
  previousUmask = process.umask(0o022);
  workspace = binaryWorkspace("files");
}, 60_000);

afterAll(() => {
  process.umask(previousUmask);
  if (workspace) rmSync(workspace.root, { recursive: true, force: true });
});

describe("file modes", () => {
  it("serve creates the data directory 0700 and the database, WAL and SHM 0600", async () => {
    const dataDir = join(workspace.root, "fresh", "data");
    const server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir });
    try {
      expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
      expect(modeOf(dataDir)).toBe(0o700);
      expect(modesIn(join(dataDir, "linkshelf.db"))).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(modeOf(join(dataDir, "linkshelf.db"))).toBe(0o600);
  }, SLOW);

  it("serve takes group and other access away from an existing directory and its 0644 files", async () => {
    const dataDir = join(workspace.root, "existing");
    const dbPath = join(dataDir, "linkshelf.db");
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    // A database made by someone else's process: 0644, with a WAL and SHM of the same mode kept
    // open (a connection holds them) while the server starts.
    const other = new Database(dbPath, { create: true });
    chmodSync(dbPath, 0o644);
    other.run("PRAGMA journal_mode = WAL");
    // A write (to the header alone: a table of its own would make it no linkshelf database) starts the WAL.
    other.run("PRAGMA user_version = 1");
    try {
      expect(modesIn(dbPath)).toEqual({ db: 0o644, wal: 0o644, shm: 0o644 });
      const server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir });
      try {
        expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
        expect(modeOf(dataDir)).toBe(0o700);
        expect(modesIn(dbPath)).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
      } finally {
        expect(await server.stop()).toBe(0);
      }
    } finally {
      other.close();
    }
  }, SLOW);

  it("a CLI command on an existing 0644 database makes it 0600 too", async () => {
    const dataDir = join(workspace.root, "cli");
    const dbPath = join(dataDir, "linkshelf.db");
    await createUserWithToken({ ...workspace, dataDir, dbPath }, "files@example.test", "Files", cleanEnv());
    chmodSync(dataDir, 0o755);
    chmodSync(dbPath, 0o644);
    const listed = await runBinary(workspace.binary, ["token", "list", "--email", "files@example.test", "--data-dir", dataDir], { cwd: workspace.cwd });
    expect(listed.exitCode).toBe(0);
    expect([modeOf(dataDir), modeOf(dbPath)]).toEqual([0o700, 0o600]);
  }, SLOW);

  it("backup writes its copy 0600, wherever it goes", async () => {
    const dataDir = join(workspace.root, "backed-up");
    const server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir });
    try {
      const file = join(workspace.root, "backup.db");
      const result = await runBinary(workspace.binary, ["backup", file, "--data-dir", dataDir], { cwd: workspace.cwd });
      expect(result.exitCode).toBe(0);
      expect(modeOf(file)).toBe(0o600);
      const copy = new Database(file, { readonly: true });
      try {
        expect(copy.query("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
      } finally {
        copy.close();
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, SLOW);
});
