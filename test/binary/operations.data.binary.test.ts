/**
 * Operations through the real executable: the data directory's lock (one server per
 * directory), `linkshelf restore`, and scheduled backups while serving. Only 127.0.0.1 is
 * contacted; every server and command runs on data directories of its own.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { applyMigrations, embeddedMigrations } from "../../src/db/migrate";
import {
  binaryWorkspace,
  cleanEnv,
  createUserWithToken,
  queryFile,
  REPO_ROOT,
  runBinary,
  startServer,
  writeFile,
  type BinaryWorkspace,
  type RunningServer,
} from "../support/binary";

/** Per-test limit for tests that spawn several processes (argon2 hashing included). */
const SLOW = 30_000;
const BEFORE_RESTORE = /^linkshelf\.db\.before-restore-\d{8}T\d{6}\.\d{3}Z$/;
const SCHEDULED = /^linkshelf-\d{8}T\d{6}\.\d{3}Z\.db$/;

let workspace: BinaryWorkspace;
const servers: RunningServer[] = [];
let counter = 0;

beforeAll(() => {
  workspace = binaryWorkspace("ops");
}, 60_000);

afterAll(async () => {
  for (const running of servers) await running.stop();
  if (workspace) rmSync(workspace.root, { recursive: true, force: true });
});

/** A place of its own: a working directory and a data directory inside it (not created yet). */
function place(name: string) {
  const cwd = join(workspace.root, `${name}-${++counter}`);
  mkdirSync(cwd);
  const dataDir = join(cwd, "data");
  return { cwd, dataDir, dbPath: join(dataDir, "linkshelf.db"), ws: { ...workspace, cwd, dataDir, dbPath: join(dataDir, "linkshelf.db") } };
}

async function serveIn(where: { cwd: string; dataDir: string }, env: Record<string, string> = {}) {
  const running = await startServer(workspace.binary, { cwd: where.cwd, dataDir: where.dataDir, env: cleanEnv(env) });
  servers.push(running);
  return running;
}

const cli = (where: { cwd: string; dataDir: string }, args: string[]) =>
  runBinary(workspace.binary, [...args, "--data-dir", where.dataDir], { cwd: where.cwd });

async function addLink(server: RunningServer, token: string, name: string): Promise<void> {
  const response = await fetch(`${server.origin}/api/v1/links`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name, url: `https://example.com/${encodeURIComponent(name)}`, favorite: false }),
  });
  expect(response.status).toBe(201);
}

async function linkNamesOver(server: RunningServer, token: string): Promise<string[]> {
  const response = await fetch(`${server.origin}/api/v1/collections`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { collections: { links: { name: string }[] }[] };
  return body.collections.flatMap((c) => c.links.map((l) => l.name)).sort();
}

const linkNamesIn = (file: string) => queryFile<{ name: string }>(file, "SELECT name FROM links ORDER BY name").map((row) => row.name);
const integrityOf = (file: string) => queryFile<{ integrity_check: string }>(file, "PRAGMA integrity_check").map((row) => row.integrity_check);
const modeOf = (file: string) => statSync(file).mode & 0o777;
const lines = (text: string) => text.trimEnd().split("\n");

/** A data directory with a user, a token and the links named, served and then stopped cleanly. */
async function stoppedData(name: string, links: string[]) {
  const where = place(name);
  const server = await serveIn(where);
  const token = await createUserWithToken(where.ws, `${name}@example.test`, "Owner", cleanEnv());
  for (const link of links) await addLink(server, token, link);
  expect(await server.stop()).toBe(0);
  return { ...where, token };
}

/** backupOf copies a data directory's database with `linkshelf backup` into `file` (mode 0600: it holds password hashes). */
async function backupOf(where: { cwd: string; dataDir: string }, file: string): Promise<string> {
  const made = await cli(where, ["backup", file]);
  expect(made.exitCode).toBe(0);
  expect(modeOf(file)).toBe(0o600);
  return file;
}

describe("one server per data directory", () => {
  it("refuses a second server on the same data directory in one line with exit 1, and the first keeps serving", async () => {
    const where = place("second-serve");
    const first = await serveIn(where);
    const lock = JSON.parse(readFileSync(join(where.dataDir, "linkshelf.lock"), "utf8")) as { pid: number };
    expect(lock.pid).toBe(first.proc.pid);
    expect(modeOf(join(where.dataDir, "linkshelf.lock"))).toBe(0o600);

    const second = await runBinary(workspace.binary, ["serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", where.dataDir], { cwd: where.cwd });
    expect(second.exitCode).toBe(1);
    expect(lines(second.stderr)).toEqual([`linkshelf: data directory ${where.dataDir} is in use by linkshelf serve (pid ${first.proc.pid}); stop it first`]);
    expect((await fetch(`${first.origin}/healthz`)).status).toBe(200);

    // A clean stop gives the directory back.
    expect(await first.stop()).toBe(0);
    expect(existsSync(join(where.dataDir, "linkshelf.lock"))).toBe(false);
    const again = await serveIn(where);
    expect((await fetch(`${again.origin}/healthz`)).status).toBe(200);
    expect(await again.stop()).toBe(0);
  }, SLOW);

  it("takes over the lock a killed server left behind (kill -9), and a lock of a process that is not running", async () => {
    const where = place("stale-lock");
    const killed = await serveIn(where);
    killed.proc.kill("SIGKILL");
    await killed.proc.exited;
    expect(existsSync(join(where.dataDir, "linkshelf.lock"))).toBe(true);
    const next = await serveIn(where);
    expect((await fetch(`${next.origin}/healthz`)).status).toBe(200);
    expect(await next.stop()).toBe(0);

    // A lock file cut short, one naming a pid that does not run (beyond Linux's pid_max), and
    // one whose pid was reused by another process (this test's: alive, but started at another time).
    const reused = JSON.stringify({ pid: process.pid, started: "1", command: "serve" });
    for (const content of ["", '{"pid":2147483647,"started":"1","command":"serve"}', reused]) {
      writeFileSync(join(where.dataDir, "linkshelf.lock"), content);
      // An empty lock file counts as left by a crash once it is a few seconds old.
      if (content === "") utimesSync(join(where.dataDir, "linkshelf.lock"), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      const started = await serveIn(where);
      expect((await fetch(`${started.origin}/healthz`)).status).toBe(200);
      expect(await started.stop()).toBe(0);
    }
  }, SLOW);
});

describe("linkshelf restore", () => {
  it("refuses while a server uses the data directory, in one line with exit 1, and changes nothing", async () => {
    const source = await stoppedData("restore-source", ["Old"]);
    const file = await backupOf(source, join(source.cwd, "backup.db"));
    const where = place("restore-busy");
    const server = await serveIn(where);
    const token = await createUserWithToken(where.ws, "busy@example.test", "Busy", cleanEnv());
    await addLink(server, token, "Live");

    const refused = await cli(where, ["restore", file]);
    expect(refused.exitCode).toBe(1);
    expect(lines(refused.stderr)).toEqual([`linkshelf: data directory ${where.dataDir} is in use by linkshelf serve (pid ${server.proc.pid}); stop it first`]);
    expect(readdirSync(where.dataDir).filter((name) => name.includes("restor"))).toEqual([]);
    expect(await linkNamesOver(server, token)).toEqual(["Live"]);
    expect(await server.stop()).toBe(0);
  }, SLOW);

  it("refuses a missing file, a file that is not a database, another program's database, a damaged one and one from a newer linkshelf", async () => {
    const source = await stoppedData("refusals", ["Kept"]);
    const good = await backupOf(source, join(source.cwd, "good.db"));
    const bytes = readFileSync(good);

    const text = join(source.cwd, "notes.txt");
    writeFileSync(text, "these are my notes, not a database\n".repeat(200));
    const foreign = join(source.cwd, "foreign.db");
    const other = new Database(foreign, { create: true });
    other.run("CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT)");
    other.close();
    // Damaged: the pages after the first two overwritten with garbage (the header stays readable).
    const damaged = join(source.cwd, "damaged.db");
    const broken = Buffer.from(bytes);
    for (let i = 2 * 4096; i < broken.length; i++) broken[i] = (i * 7919) & 0xff;
    writeFileSync(damaged, broken);
    const future = await backupOf(source, join(source.cwd, "future.db"));
    writeFile(future, "INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-later-release', ?)", [embeddedMigrations.at(-1)!.when + 1]);

    const cases: [string, RegExp][] = [
      [join(source.cwd, "missing.db"), /missing\.db does not exist$/],
      [source.cwd, /is not a file$/],
      [text, /notes\.txt is not a SQLite database$/],
      [foreign, /foreign\.db is a SQLite database but not a linkshelf one$/],
      [damaged, /damaged\.db is damaged: /],
      [future, /future\.db comes from a newer linkshelf/],
    ];
    const before = readFileSync(source.dbPath);
    for (const [file, message] of cases) {
      const refused = await cli(source, ["restore", file]);
      expect({ file, exitCode: refused.exitCode }).toEqual({ file, exitCode: 1 });
      expect(lines(refused.stderr)).toHaveLength(1);
      expect(refused.stderr.trim()).toMatch(message);
    }
    // Nothing changed: the same database, no renamed copy, no half-written file, no lock left.
    expect(readFileSync(source.dbPath).equals(before)).toBe(true);
    expect(readdirSync(source.dataDir).sort()).toEqual(["linkshelf.db"]);
  }, SLOW);

  it("puts the backup in place, keeps the replaced database (its WAL folded in) as linkshelf.db.before-restore-<UTC time>, and the server serves the restored data", async () => {
    const where = place("restore-ok");
    let server = await serveIn(where);
    const token = await createUserWithToken(where.ws, "restore@example.test", "Owner", cleanEnv());
    await addLink(server, token, "Before");
    const file = await backupOf(where, join(where.cwd, "saved.db"));
    await addLink(server, token, "After");
    // kill -9: the last write is committed in the WAL only, not yet in linkshelf.db.
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    expect(statSync(`${where.dbPath}-wal`).size).toBeGreaterThan(0);

    const restored = await cli(where, ["restore", file]);
    expect({ code: restored.exitCode, stderr: restored.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(lines(restored.stderr)).toHaveLength(1);
    const kept = readdirSync(where.dataDir).filter((name) => BEFORE_RESTORE.test(name));
    expect(kept).toHaveLength(1);
    expect(restored.stderr).toContain(join(where.dataDir, kept[0]!));
    // The old database stands alone and holds everything that was committed, WAL included.
    expect(readdirSync(where.dataDir).sort()).toEqual(["linkshelf.db", kept[0]!]);
    expect(linkNamesIn(join(where.dataDir, kept[0]!))).toEqual(["After", "Before"]);
    expect(integrityOf(join(where.dataDir, kept[0]!))).toEqual(["ok"]);
    expect(modeOf(where.dbPath)).toBe(0o600);
    expect(linkNamesIn(where.dbPath)).toEqual(["Before"]);

    server = await serveIn(where);
    expect(await linkNamesOver(server, token)).toEqual(["Before"]);
    expect(await server.stop()).toBe(0);
  }, SLOW);

  it("restores into an empty data directory, and an older database is migrated by the next start", async () => {
    const where = place("restore-old");
    const old = join(where.cwd, "release0.db");
    const sqlite = new Database(old, { create: true, strict: true });
    applyMigrations(sqlite, embeddedMigrations.slice(0, 1));
    sqlite.run("INSERT INTO users (id, email, name, password_hash, created_at) VALUES (1, 'old@example.test', 'Old', 'hash', 1000)");
    sqlite.run("INSERT INTO collections (id, user_id, name, visibility, icon, is_default, created_at, updated_at) VALUES (1, 1, 'Inbox', 'PRIVATE', '📥', 1, 1000, 1000)");
    sqlite.run("INSERT INTO links (id, user_id, name, description, url, favorite, clicks, created_at, updated_at) VALUES (1, 1, 'Old link', '', 'https://example.com/', 0, 3, 1001, 1001)");
    sqlite.run("INSERT INTO link_collections (link_id, collection_id) VALUES (1, 1)");
    sqlite.close();

    const restored = await cli(where, ["restore", old]);
    expect(restored.exitCode).toBe(0);
    expect(readdirSync(where.dataDir)).toEqual(["linkshelf.db"]);
    expect(queryFile<{ n: number }>(where.dbPath, "SELECT count(*) AS n FROM __drizzle_migrations")[0]!.n).toBe(1);

    const server = await serveIn(where);
    // The server treats it as its own: no first-run setup, the old user's link is there.
    expect(server.log.text).not.toContain("setup code");
    expect(await server.stop()).toBe(0);
    expect(queryFile<{ n: number }>(where.dbPath, "SELECT count(*) AS n FROM __drizzle_migrations")[0]!.n).toBe(embeddedMigrations.length);
    expect(linkNamesIn(where.dbPath)).toEqual(["Old link"]);
    expect(integrityOf(where.dbPath)).toEqual(["ok"]);
  }, SLOW);
});

describe("a restore is a new history", () => {
  /** api sends one request with the token and answers its status and JSON body. */
  async function api(server: RunningServer, token: string, method: string, path: string, body?: unknown) {
    const response = await fetch(`${server.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }
  const newLink = async (server: RunningServer, token: string, name: string) =>
    (await api(server, token, "POST", "/api/v1/links", { name, url: `https://example.com/${encodeURIComponent(name)}`, favorite: false })).body.link.id as number;
  const cursorOver = async (server: RunningServer, token: string) => (await api(server, token, "GET", "/api/v1/changes/cursor")).body.cursor as string;
  const expectReplaced = async (server: RunningServer, token: string, cursor: string) => {
    const feed = await api(server, token, "GET", `/api/v1/changes?since=${encodeURIComponent(cursor)}`);
    expect({ cursor, status: feed.status, code: feed.body.code }).toEqual({ cursor, status: 410, code: "HISTORY_REPLACED" });
  };

  it("linkshelf restore: new ids start above every id issued before, a cursor from before is 410 HISTORY_REPLACED, the feed's cursor names the new history", async () => {
    const where = place("restore-history");
    let server = await serveIn(where);
    const token = await createUserWithToken(where.ws, "history@example.test", "Owner", cleanEnv());
    const kept = await newLink(server, token, "Before");
    const file = await backupOf(where, join(where.cwd, "saved.db"));
    const after = [await newLink(server, token, "After 1"), await newLink(server, token, "After 2")];
    const cursor = await cursorOver(server, token);
    expect(await server.stop()).toBe(0);

    const restored = await cli(where, ["restore", file]);
    expect(restored.exitCode).toBe(0);
    expect(lines(restored.stderr)).toHaveLength(1);
    expect(restored.stderr).toContain("new ids start above every id it issued");
    server = await serveIn(where);
    expect(await linkNamesOver(server, token)).toEqual(["Before"]);
    const made = [await newLink(server, token, "Restored 1"), await newLink(server, token, "Restored 2")];
    expect(made[0]).toBeGreaterThan(Math.max(kept, ...after));
    expect(made[1]).toBeGreaterThan(made[0]!);
    await expectReplaced(server, token, cursor);
    const fresh = await cursorOver(server, token);
    expect(fresh.split(".")[0]).not.toBe(cursor.split(".")[0]);
    expect(fresh.split(".")[0]).toBe(queryFile<{ generation: string }>(where.dbPath, "SELECT generation FROM history")[0]!.generation);
    expect((await api(server, token, "GET", `/api/v1/changes?since=${encodeURIComponent(fresh)}`)).body).toEqual({ changes: [], cursor: fresh, more: false });
    expect(await server.stop()).toBe(0);
  }, SLOW);

  it("a backup file copied by hand over the stopped database is a new history too: cursors from before are 410 HISTORY_REPLACED", async () => {
    const where = place("copy-history");
    let server = await serveIn(where);
    const token = await createUserWithToken(where.ws, "copy@example.test", "Owner", cleanEnv());
    await newLink(server, token, "Before");
    const before = await cursorOver(server, token);
    const file = await backupOf(where, join(where.cwd, "saved.db"));
    await newLink(server, token, "After");
    const after = await cursorOver(server, token);
    expect(await server.stop()).toBe(0);

    for (const suffix of ["", "-wal", "-shm"]) rmSync(where.dbPath + suffix, { force: true });
    writeFileSync(where.dbPath, readFileSync(file), { mode: 0o600 });
    server = await serveIn(where);
    expect(await linkNamesOver(server, token)).toEqual(["Before"]);
    await expectReplaced(server, token, before);
    await expectReplaced(server, token, after);
    const fresh = await cursorOver(server, token);
    expect(fresh.split(".")[0]).not.toBe(before.split(".")[0]);
    expect((await api(server, token, "GET", `/api/v1/changes?since=${encodeURIComponent(fresh)}`)).status).toBe(200);
    expect(await server.stop()).toBe(0);
  }, SLOW);
});

describe("scheduled backups", () => {
  /** waitForCount waits until `pattern` has appeared `count` times in the log. */
  const waitForCount = (server: RunningServer, pattern: string, count: number) =>
    server.log.waitFor(new RegExp(`(?:${pattern}[^\\n]*\\n[\\s\\S]*?){${count}}`));

  it("writes linkshelf-<UTC time>.db every period, mode 0600, each a whole database with the data, and keeps the newest KEEP", async () => {
    const where = place("scheduled");
    const dir = join(where.cwd, "backups");
    mkdirSync(dir);
    // Files that are not scheduled backups are never removed.
    writeFileSync(join(dir, "notes.txt"), "mine");
    writeFileSync(join(dir, "linkshelf-manual.db"), "mine");
    const server = await serveIn(where, { LINKSHELF_BACKUP_EVERY: "1s", LINKSHELF_BACKUP_DIR: dir, LINKSHELF_BACKUP_KEEP: "2" });
    const token = await createUserWithToken(where.ws, "scheduled@example.test", "Owner", cleanEnv());
    await addLink(server, token, "Saved");
    // The two newest are written after the link was added, and at least one older one was removed.
    const already = server.log.text.split("linkshelf: backup written to ").length - 1;
    await waitForCount(server, "linkshelf: backup written to ", Math.max(already + 2, 3));

    const backups = readdirSync(dir).filter((name) => SCHEDULED.test(name)).sort();
    expect(backups).toHaveLength(2);
    expect(readdirSync(dir).filter((name) => !SCHEDULED.test(name)).sort()).toEqual(["linkshelf-manual.db", "notes.txt"]);
    for (const name of backups) {
      const file = join(dir, name);
      expect(modeOf(file)).toBe(0o600);
      expect(integrityOf(file)).toEqual(["ok"]);
      expect(linkNamesIn(file)).toEqual(["Saved"]);
      expect(queryFile<{ email: string }>(file, "SELECT email FROM users")).toEqual([{ email: "scheduled@example.test" }]);
    }
    expect(server.log.text).toMatch(/removed 1 older/);
    expect(await server.stop()).toBe(0);
  }, SLOW);

  it("logs a failed backup in one line, tries again the next period, and keeps serving", async () => {
    const where = place("backup-fails");
    const blocker = join(where.cwd, "a-file");
    writeFileSync(blocker, "");
    // A folder inside a file can never be made, even by root.
    const dir = join(blocker, "backups");
    const server = await serveIn(where, { LINKSHELF_BACKUP_EVERY: "1s", LINKSHELF_BACKUP_DIR: dir });
    await waitForCount(server, "linkshelf: backup to ", 2);
    const failures = server.log.text.split("\n").filter((line) => line.startsWith("linkshelf: backup"));
    expect(failures.length).toBeGreaterThanOrEqual(2);
    for (const line of failures) expect(line).toMatch(new RegExp(`^linkshelf: backup to ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} failed: .+; next try in one period$`));
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
    expect(await server.stop()).toBe(0);
  }, SLOW);

  it("refuses to start with an invalid schedule: one line, exit 2", async () => {
    const where = place("backup-config");
    const result = await runBinary(workspace.binary, ["serve", "--port", "0", "--data-dir", where.dataDir], {
      cwd: where.cwd,
      env: cleanEnv({ LINKSHELF_BACKUP_EVERY: "soon", LINKSHELF_BACKUP_DIR: join(where.cwd, "b") }),
    });
    expect(result.exitCode).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain("LINKSHELF_BACKUP_EVERY");
  });
});

describe("what a new server shows, from the executable", () => {
  it("says on /login and / where the first account is made, and serves the icons and the manifest built into it", async () => {
    const where = place("first-run");
    const server = await serveIn(where);
    await server.log.waitFor(/setup code: /);
    for (const path of ["/login", "/"]) {
      const page = await fetch(`${server.origin}${path}`, { redirect: "manual" });
      expect({ path, status: page.status }).toEqual({ path, status: 200 });
      expect(await page.text()).toContain("No account exists yet. Create the first one at <a href=\"/setup\">/setup</a> with the setup code printed in the server's log.");
    }
    // Inlined at build time: the binary runs from a folder without assets/.
    const files: [string, string][] = [["/favicon.ico", "assets/favicon.ico"], ["/icon.svg", "assets/icon.svg"], ["/icons/icon-512.png", "assets/icons/icon-512.png"]];
    for (const [path, file] of files) {
      const response = await fetch(`${server.origin}${path}`);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(join(REPO_ROOT, file)))).toBe(true);
    }
    const manifest = await fetch(`${server.origin}/manifest.webmanifest`);
    expect(manifest.headers.get("content-type")).toBe("application/manifest+json");
    expect(((await manifest.json()) as { share_target: { action: string } }).share_target.action).toBe("/links/new");
    expect(await server.stop()).toBe(0);
  }, SLOW);
});
