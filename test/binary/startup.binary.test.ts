/**
 * What `serve` and the commands refuse to start with, through the real executable: an address
 * another server listens on, a database from a newer linkshelf, and a database whose schema
 * objects its migrations do not make (also as a backup given to `restore`). Each refusal is one
 * line on stderr, exit code 1, and leaves the database's bytes as they were. Only 127.0.0.1 is
 * contacted; every server and command runs on data directories of its own.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { embeddedMigrations } from "../../src/db/migrate";
import {
  binaryWorkspace,
  cleanEnv,
  createUserWithToken,
  queryFile,
  runBinary,
  startServer,
  writeFile,
  type BinaryWorkspace,
  type RunningServer,
} from "../support/binary";

/** Per-test limit for tests that spawn several processes (argon2 hashing included). */
const SLOW = 60_000;

let workspace: BinaryWorkspace;
const running = new Set<RunningServer>();
let counter = 0;

beforeAll(() => {
  workspace = binaryWorkspace("startup");
}, 120_000);

afterAll(async () => {
  for (const server of running) await server.stop();
  if (workspace) rmSync(workspace.root, { recursive: true, force: true });
});

/** A data directory of its own inside the workspace (not created yet). */
function place(name: string) {
  const dataDir = join(workspace.cwd, `${name}-${++counter}`);
  return { dataDir, dbPath: join(dataDir, "linkshelf.db"), ws: { ...workspace, dataDir, dbPath: join(dataDir, "linkshelf.db") } };
}

const run = (args: string[], stdin?: string) => runBinary(workspace.binary, args, { cwd: workspace.cwd, stdin });

async function serveOn(dataDir: string): Promise<RunningServer> {
  const server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir });
  running.add(server);
  return server;
}

async function stop(server: RunningServer): Promise<number> {
  const code = await server.stop();
  running.delete(server);
  return code;
}
const lines = (text: string) => text.trimEnd().split("\n");

/** A data directory with a user and a token, served once and stopped cleanly. */
async function stoppedData(name: string) {
  const where = place(name);
  const server = await serveOn(where.dataDir);
  const token = await createUserWithToken(where.ws, `${name}@example.test`, "Owner", cleanEnv());
  expect(await stop(server)).toBe(0);
  return { ...where, token };
}

/** The bytes of the database and of its WAL (none counts as empty): a refused start must change neither. */
function bytesOf(dbPath: string): Buffer[] {
  const wal = `${dbPath}-wal`;
  return [readFileSync(dbPath), existsSync(wal) ? readFileSync(wal) : Buffer.alloc(0)];
}

function expectUntouched(dbPath: string, before: Buffer[], label: string): void {
  const after = bytesOf(dbPath);
  expect({ label, db: after[0]!.equals(before[0]!), wal: after[1]!.equals(before[1]!) }).toEqual({ label, db: true, wal: true });
}

/** Every command that opens the database, with what it needs to get that far. */
function everyCommand(dataDir: string, email: string): { args: string[]; stdin?: string }[] {
  const bookmarks = join(workspace.cwd, "bookmarks.html");
  writeFileSync(bookmarks, '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="https://example.com/">Example</A>\n</DL><p>\n');
  const withDir = (args: string[], stdin?: string) => ({ args: [...args, "--data-dir", dataDir], stdin });
  return [
    withDir(["serve", "--port", "0", "--host", "127.0.0.1"]),
    withDir(["user", "create", "--email", "new@example.test", "--name", "New"], "long enough password\n"),
    withDir(["user", "password", "--email", email], "another long password\n"),
    withDir(["token", "create", "--email", email]),
    withDir(["token", "list", "--email", email]),
    withDir(["token", "revoke", "--id", "1"]),
    withDir(["import", bookmarks, "--email", email]),
    withDir(["export", "--email", email]),
    withDir(["backup", join(workspace.cwd, `copy-${++counter}.db`)]),
  ];
}

describe("one server per address", () => {
  it("refuses to listen on a port another server listens on, in one line with exit 1, and the first keeps every request", async () => {
    const first = await serveOn(place("first-port").dataDir);
    const other = place("second-port");
    const second = await run(["serve", "--port", String(first.port), "--host", "127.0.0.1", "--data-dir", other.dataDir]);
    expect(second.exitCode).toBe(1);
    expect(lines(second.stderr)).toEqual([`linkshelf: cannot listen on 127.0.0.1:${first.port}: address in use`]);
    expect(existsSync(join(other.dataDir, "linkshelf.lock"))).toBe(false);
    for (let i = 0; i < 20; i++) expect((await fetch(`${first.origin}/healthz`)).status).toBe(200);
    expect(await stop(first)).toBe(0);
  }, SLOW);
});

describe("a database from a newer linkshelf", () => {
  it("is refused by serve and by every command that opens it: one line naming both versions, exit 1, the file and its WAL unchanged", async () => {
    const where = await stoppedData("newer");
    // Another connection keeps the newer release's last write in the WAL, as a server of that release would.
    const holder = new Database(where.dbPath, { strict: true });
    holder.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-later-release', ?)", [embeddedMigrations.at(-1)!.when + 1]);
    holder.run("PRAGMA user_version = 9000001");
    try {
      expect(readFileSync(`${where.dbPath}-wal`).length).toBeGreaterThan(0);
      const before = bytesOf(where.dbPath);
      const expected = `linkshelf: ${where.dbPath} comes from a newer linkshelf (schema version ${embeddedMigrations.length + 1}, recorded by linkshelf 9.0.1) than this one (linkshelf ${pkg.version}, schema version ${embeddedMigrations.length}); use that version or a later one`;
      for (const command of everyCommand(where.dataDir, "newer@example.test")) {
        const refused = await run(command.args, command.stdin);
        expect({ command: command.args.slice(0, 2), exitCode: refused.exitCode, stderr: lines(refused.stderr), stdout: refused.stdout })
          .toEqual({ command: command.args.slice(0, 2), exitCode: 1, stderr: [expected], stdout: "" });
        expectUntouched(where.dbPath, before, command.args.slice(0, 2).join(" "));
      }
      expect(existsSync(join(where.dataDir, "linkshelf.lock"))).toBe(false);
    } finally {
      holder.close();
    }
  }, SLOW);
});

describe("a database whose schema its migrations do not make", () => {
  const PLANT = "CREATE TRIGGER keep_tokens AFTER DELETE ON api_tokens BEGIN "
    + "INSERT INTO api_tokens (id, user_id, name, token_hash, created_at) VALUES (old.id, old.user_id, old.name, old.token_hash, old.created_at); END";

  it("is refused by serve and every command with a planted trigger, naming it, and nothing is written", async () => {
    const where = await stoppedData("planted");
    writeFile(where.dbPath, PLANT);
    const before = bytesOf(where.dbPath);
    const expected = `linkshelf: ${where.dbPath} is not as linkshelf's migrations made it: unexpected trigger "keep_tokens"`;
    for (const command of everyCommand(where.dataDir, "planted@example.test")) {
      const refused = await run(command.args, command.stdin);
      expect({ command: command.args.slice(0, 2), exitCode: refused.exitCode, stderr: lines(refused.stderr) })
        .toEqual({ command: command.args.slice(0, 2), exitCode: 1, stderr: [expected] });
      expectUntouched(where.dbPath, before, command.args.slice(0, 2).join(" "));
    }
    expect(queryFile(where.dbPath, "SELECT id FROM api_tokens")).toEqual([{ id: 1 }]);
  }, SLOW);

  it("is refused by restore when a backup carries a trigger that undoes revocation: one line, nothing replaced", async () => {
    const source = await stoppedData("restore-source");
    const backup = join(workspace.cwd, `planted-${++counter}.db`);
    expect((await run(["backup", backup, "--data-dir", source.dataDir])).exitCode).toBe(0);
    writeFile(backup, PLANT);

    const live = await stoppedData("restore-live");
    const before = bytesOf(live.dbPath);
    const listing = readdirSync(live.dataDir).sort();
    const refused = await run(["restore", backup, "--data-dir", live.dataDir]);
    expect(refused.exitCode).toBe(1);
    expect(lines(refused.stderr)).toEqual([`linkshelf: ${backup} is not as linkshelf's migrations made it: unexpected trigger "keep_tokens"`]);
    expectUntouched(live.dbPath, before, "restore");
    expect(readdirSync(live.dataDir).sort()).toEqual(listing);

    // The same backup without the trigger restores, and the server starts on it.
    writeFile(backup, "DROP TRIGGER keep_tokens");
    const restored = await run(["restore", backup, "--data-dir", live.dataDir]);
    expect(restored.exitCode).toBe(0);
    const server = await serveOn(live.dataDir);
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
    expect(await stop(server)).toBe(0);
  }, SLOW);
});
