/**
 * The real executable: built once with build.ts, run from a directory that has no drizzle/
 * and no node_modules, as a user would run dist/linkshelf. Only 127.0.0.1 is contacted.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import {
  binaryWorkspace,
  cleanEnv,
  connectRaw,
  queryFile,
  REPO_ROOT,
  runBinary,
  startServer,
  writeFile,
  type RunningServer,
} from "../support/binary";
import { ISO } from "../support/helpers";

const TOKEN_LINE = /^lks_[A-Za-z0-9_-]{43}$/;
const JOURNAL = JSON.parse(readFileSync(join(REPO_ROOT, "drizzle", "meta", "_journal.json"), "utf8")) as { entries: { idx: number; tag: string }[] };
/** Per-test limit for tests that spawn several processes (argon2 hashing included). */
const SLOW = 30_000;

let root: string;
let binary: string;
/** The empty directory the binary runs in: no drizzle/, no node_modules. */
let cwd: string;
let dataDir: string;
let dbPath: string;
let server: RunningServer | undefined;
const extraServers: RunningServer[] = [];

let emailCounter = 0;
const newEmail = () => `person${++emailCounter}@example.test`;

const run = (args: string[], options: { stdin?: string; env?: Record<string, string>; cwd?: string } = {}) =>
  runBinary(binary, args, { cwd: options.cwd ?? cwd, stdin: options.stdin, env: options.env });
/** A command run against the shared data dir of the running server. */
const cli = (args: string[], stdin?: string) => run([...args, "--data-dir", dataDir], { stdin });

function api(path: string, token?: string, init: { method?: string; body?: unknown } = {}, target = server!) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${target.origin}${path}`, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** newUser creates a user through the CLI and returns a fresh token for them. */
async function newUser(dir = dataDir, email = newEmail()): Promise<{ email: string; token: string }> {
  const created = await run(["user", "create", "--email", email, "--name", "Someone", "--data-dir", dir], { stdin: "long enough password\n" });
  expect(created.exitCode).toBe(0);
  const token = await run(["token", "create", "--email", email, "--data-dir", dir]);
  expect(token.exitCode).toBe(0);
  return { email, token: token.stdout.trim() };
}

/** tokenRows reads `token list` into objects keyed by its header line. */
async function tokenRows(email: string): Promise<Record<string, string>[]> {
  const listed = await cli(["token", "list", "--email", email]);
  expect(listed.exitCode).toBe(0);
  const [header, ...rows] = listed.stdout.trimEnd().split("\n");
  const names = header!.split("\t");
  return rows.map((row) => Object.fromEntries(row.split("\t").map((value, i) => [names[i], value])));
}

const oneLine = (text: string) => text.trimEnd().split("\n");
const userCount = (email: string) =>
  queryFile<{ n: number }>(dbPath, "SELECT count(*) AS n FROM users WHERE lower(email) = lower(?)", [email])[0]!.n;

beforeAll(async () => {
  ({ root, binary, cwd, dataDir, dbPath } = binaryWorkspace("binary"));
  server = await startServer(binary, { cwd, dataDir });
}, 60_000);

afterAll(async () => {
  for (const running of [server, ...extraServers]) {
    if (running) await running.stop();
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("start-up of the binary from another directory", () => {
  it("creates linkshelf.db in the empty data dir, applies every migration and answers /healthz", async () => {
    expect(readdirSync(cwd)).toEqual(["data"]);
    expect(existsSync(dbPath)).toBe(true);
    // The hashes prove the SQL inside the executable is byte for byte the SQL of drizzle/.
    const migrations = queryFile<{ hash: string }>(dbPath, "SELECT hash FROM __drizzle_migrations ORDER BY created_at");
    const files = [...JOURNAL.entries].sort((a, b) => a.idx - b.idx).map((entry) => readFileSync(join(REPO_ROOT, "drizzle", `${entry.tag}.sql`), "utf8"));
    expect(migrations.map((m) => m.hash)).toEqual(files.map((sql) => new Bun.CryptoHasher("sha256").update(sql).digest("hex")));
    const tables = queryFile<{ name: string }>(dbPath, "SELECT name FROM sqlite_master WHERE type = 'table'").map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(["users", "collections", "links", "link_collections", "api_tokens", "sessions"]));

    const response = await api("/healthz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });
});

describe("API documentation in the binary", () => {
  it("serves the OpenAPI document and the reference page without a token, and the page loads nothing from elsewhere", async () => {
    const document = await api("/api/v1/openapi.json");
    expect(document.status).toBe(200);
    const body = (await document.json()) as { openapi: string; paths: Record<string, Record<string, { summary?: string }>> };
    expect(body.openapi).toMatch(/^3\.1\./);
    expect(body.paths["/api/v1/links"]?.post?.summary).toBeString();
    expect(body.paths["/l/{id}"]?.get?.summary).toBeString();
    const page = await api("/api/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(html).toContain("<code>/api/v1/collections</code>");
    expect(html).not.toMatch(/<script|(src|href)="(https?:)?\/\//i);
  });
});

describe("user create", () => {
  it("creates the user and their Inbox with the first line of stdin as password", async () => {
    const email = newEmail();
    const result = await cli(["user", "create", "--email", email, "--name", "Ada"], "first line password\nsecond line\n");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("");

    const [user] = queryFile<{ id: number; name: string; password_hash: string }>(dbPath, "SELECT id, name, password_hash FROM users WHERE email = ?", [email]);
    expect(user?.name).toBe("Ada");
    expect(await Bun.password.verify("first line password", user!.password_hash)).toBe(true);
    const inbox = queryFile(dbPath, "SELECT name, icon, visibility, is_default FROM collections WHERE user_id = ?", [user!.id]);
    expect(inbox).toEqual([{ name: "Inbox", icon: "📥", visibility: "PRIVATE", is_default: 1 }]);
  }, SLOW);

  it("refuses an email that exists already, in any letter case, with one line on stderr", async () => {
    const email = newEmail();
    expect((await cli(["user", "create", "--email", email, "--name", "First"], "long enough password\n")).exitCode).toBe(0);

    for (const again of [email, email.toUpperCase()]) {
      const result = await cli(["user", "create", "--email", again, "--name", "Second"], "long enough password\n");
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toBe("");
      expect(oneLine(result.stderr)).toHaveLength(1);
      expect(result.stderr).toContain("exists");
    }
    expect(userCount(email)).toBe(1);
  }, SLOW);

  it("refuses a 7-character password and creates nothing; 8 characters are enough", async () => {
    const email = newEmail();
    const collectionsBefore = queryFile<{ n: number }>(dbPath, "SELECT count(*) AS n FROM collections")[0]!.n;
    const short = await cli(["user", "create", "--email", email, "--name", "Short"], "1234567\n");
    expect(short.exitCode).toBe(1);
    expect(oneLine(short.stderr)).toHaveLength(1);
    expect(short.stderr).toContain("8");
    expect(userCount(email)).toBe(0);
    expect(queryFile<{ n: number }>(dbPath, "SELECT count(*) AS n FROM collections")[0]!.n).toBe(collectionsBefore);

    const enough = await cli(["user", "create", "--email", email, "--name", "Short"], "12345678\n");
    expect(enough.exitCode).toBe(0);
    expect(userCount(email)).toBe(1);
  }, SLOW);

  it("refuses an empty stdin instead of waiting for a terminal", async () => {
    const email = newEmail();
    const result = await cli(["user", "create", "--email", email, "--name", "Nobody"]);
    expect(result.exitCode).toBe(1);
    expect(userCount(email)).toBe(0);
  }, SLOW);
});

describe("token commands against the running server", () => {
  it("token create prints the token and nothing else, and the server accepts it at once", async () => {
    const { email } = await newUser();
    const result = await cli(["token", "create", "--email", email]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.endsWith("\n")).toBe(true);
    const lines = result.stdout.slice(0, -1).split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(TOKEN_LINE);

    const response = await api("/api/v1/collections", lines[0]);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { collections: { name: string; isDefault: boolean }[] };
    expect(body.collections).toHaveLength(1);
    expect(body.collections[0]).toMatchObject({ name: "Inbox", isDefault: true });
  }, SLOW);

  it("token create names the token CLI by default and takes --name", async () => {
    const { email } = await newUser();
    const named = await cli(["token", "create", "--email", email, "--name", "Laptop script"]);
    expect(named.exitCode).toBe(0);
    expect(named.stdout.trim()).toMatch(TOKEN_LINE);
    expect((await tokenRows(email)).map((row) => row.name)).toEqual(["Laptop script", "CLI"]);
  }, SLOW);

  it("token create for an unknown email exits 1 with one line", async () => {
    const result = await cli(["token", "create", "--email", "nobody@example.test"]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    expect(oneLine(result.stderr)).toHaveLength(1);
  });

  it("token list shows id, name, createdAt and lastUsedAt, and never the token", async () => {
    const { email, token } = await newUser();
    const listed = await cli(["token", "list", "--email", email]);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout.split("\n")[0]).toBe("id\tname\tcreatedAt\tlastUsedAt");
    expect(listed.stdout).not.toContain("lks_");
    expect(listed.stdout).not.toContain(token.slice(4));
    const hash = new Bun.CryptoHasher("sha256").update(token).digest("hex");
    expect(listed.stdout).not.toContain(hash);

    const [before] = await tokenRows(email);
    expect(before!.id).toMatch(/^\d+$/);
    expect(before!.name).toBe("CLI");
    expect(before!.createdAt).toMatch(ISO);
    expect(before!.lastUsedAt).toBe("never");

    expect((await api("/api/v1/collections", token)).status).toBe(200);
    const [after] = await tokenRows(email);
    expect(after!.lastUsedAt).toMatch(ISO);
  }, SLOW);

  it("token revoke makes the token 401 at once", async () => {
    const { email, token } = await newUser();
    expect((await api("/api/v1/collections", token)).status).toBe(200);
    const [row] = await tokenRows(email);

    const revoked = await cli(["token", "revoke", "--id", row!.id!]);
    expect(revoked.exitCode).toBe(0);
    expect(revoked.stdout).toBe("");
    const response = await api("/api/v1/collections", token);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await tokenRows(email)).toEqual([]);
  }, SLOW);

  it("token revoke of an unknown id exits 1 with one line", async () => {
    const result = await cli(["token", "revoke", "--id", "987654"]);
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toHaveLength(1);
  });
});

describe("backup", () => {
  const TABLES = ["users", "collections", "links", "link_collections", "__drizzle_migrations"];
  const dump = (path: string) => Object.fromEntries(TABLES.map((table) => [table, queryFile(path, `SELECT * FROM ${table} ORDER BY rowid`)]));

  it("copies every row while the server serves, after writes through the API", async () => {
    const { token } = await newUser();
    const created = await api("/api/v1/collections", token, { method: "POST", body: { name: "Reading", visibility: "PUBLIC" } });
    expect(created.status).toBe(201);
    const collectionId = ((await created.json()) as { collection: { id: number } }).collection.id;
    for (const [i, collectionIds] of [[], [collectionId], [collectionId]].entries()) {
      const link = await api("/api/v1/links", token, {
        method: "POST",
        body: { name: `Page ${i}`, url: `https://example.com/${i}`, favorite: i === 1, collectionIds },
      });
      expect(link.status).toBe(201);
    }

    const file = join(root, "backup-while-serving.db");
    const result = await cli(["backup", file]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("");
    expect(queryFile(file, "PRAGMA integrity_check")).toEqual([{ integrity_check: "ok" }]);
    const copy = dump(file);
    expect(copy.links!.length).toBeGreaterThanOrEqual(3);
    expect(copy).toEqual(dump(dbPath));
    expect((await api("/healthz")).status).toBe(200);
  }, SLOW);

  it("refuses a file that exists and leaves it alone", async () => {
    const file = join(root, "existing-backup.db");
    writeFileSync(file, "keep me");
    const result = await cli(["backup", file]);
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toHaveLength(1);
    expect(readFileSync(file, "utf8")).toBe("keep me");
  });
});

describe("user password", () => {
  const addSession = (email: string, idHash: string) =>
    writeFile(
      dbPath,
      "INSERT INTO sessions (id_hash, user_id, created_at, expires_at) SELECT ?, id, 1, 4102444800000 FROM users WHERE email = ?",
      [idHash, email],
    );
  const sessionsOf = (email: string) =>
    queryFile<{ id_hash: string }>(dbPath, "SELECT id_hash FROM sessions WHERE user_id = (SELECT id FROM users WHERE email = ?)", [email]).map((s) => s.id_hash);
  const hashOf = (email: string) => queryFile<{ password_hash: string }>(dbPath, "SELECT password_hash FROM users WHERE email = ?", [email])[0]!.password_hash;

  it("sets the new password from stdin and ends that user's sessions only", async () => {
    const { email } = await newUser();
    const { email: other } = await newUser();
    addSession(email, `${email}-a`);
    addSession(email, `${email}-b`);
    addSession(other, `${other}-a`);
    const oldHash = hashOf(email);

    const result = await cli(["user", "password", "--email", email], "a brand new password\n");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("");
    const newHash = hashOf(email);
    expect(newHash).not.toBe(oldHash);
    expect(await Bun.password.verify("a brand new password", newHash)).toBe(true);
    expect(sessionsOf(email)).toEqual([]);
    expect(sessionsOf(other)).toEqual([`${other}-a`]);
  }, SLOW);

  it("refuses a short password and keeps the old one and the sessions", async () => {
    const { email } = await newUser();
    addSession(email, `${email}-kept`);
    const oldHash = hashOf(email);
    const result = await cli(["user", "password", "--email", email], "short\n");
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toHaveLength(1);
    expect(hashOf(email)).toBe(oldHash);
    expect(sessionsOf(email)).toEqual([`${email}-kept`]);
  }, SLOW);

  it("exits 1 for an unknown email", async () => {
    const result = await cli(["user", "password", "--email", "nobody@example.test"], "long enough password\n");
    expect(result.exitCode).toBe(1);
    expect(oneLine(result.stderr)).toHaveLength(1);
  });
});

describe("stopping", () => {
  /** A server of its own, on a data dir of its own, with a user, a token and one link. */
  async function ownServer(name: string) {
    const dir = join(root, name);
    const ownData = join(dir, "data");
    mkdirSync(dir, { recursive: true });
    const running = await startServer(binary, { cwd: dir, dataDir: ownData });
    extraServers.push(running);
    const { token } = await newUser(ownData);
    const created = await api("/api/v1/links", token, { method: "POST", body: { name: "Before", url: "https://example.com/", favorite: false } }, running);
    expect(created.status).toBe(201);
    const linkId = ((await created.json()) as { link: { id: number } }).link.id;
    return { running, token, linkId, db: join(ownData, "linkshelf.db") };
  }

  it("SIGTERM finishes the request in flight, stops accepting, checkpoints the WAL and exits 0", async () => {
    const { running, token, linkId, db } = await ownServer("sigterm");
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);

    // The request's headers reach the server (it answers 100 Continue) before the signal;
    // its body is sent only once the server has logged the signal.
    const body = JSON.stringify({ name: "After", url: "https://example.com/after", favorite: true, collectionIds: [] });
    const connection = await connectRaw(running.port);
    connection.write(
      `PUT /api/v1/links/${linkId} HTTP/1.1\r\nHost: 127.0.0.1:${running.port}\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await connection.received.waitFor(/^HTTP\/1\.1 100 /);
    running.proc.kill("SIGTERM");
    await running.log.waitFor(/SIGTERM/);
    await expect(fetch(`${running.origin}/healthz`)).rejects.toThrow();

    connection.write(body);
    const [, status] = await connection.received.waitFor(/HTTP\/1\.1 (?!100)(\d{3})/);
    expect(status).toBe("200");
    connection.close();

    expect(await running.proc.exited).toBe(0);
    expect(running.log.text).toMatch(/stopped/);
    expect(!existsSync(`${db}-wal`) || statSync(`${db}-wal`).size === 0).toBe(true);
    expect(queryFile(db, "SELECT name, url, favorite FROM links WHERE id = ?", [linkId])).toEqual([
      { name: "After", url: "https://example.com/after", favorite: 1 },
    ]);
  }, SLOW);

  it("SIGINT stops the server with exit code 0", async () => {
    const { running } = await ownServer("sigint");
    running.proc.kill("SIGINT");
    expect(await running.proc.exited).toBe(0);
    expect(running.log.text).toMatch(/stopped/);
  }, SLOW);

  it("keeps every answered write after kill -9 and starts again on the same data", async () => {
    const { running, token, linkId } = await ownServer("sigkill");
    running.proc.kill("SIGKILL");
    await running.proc.exited;

    const again = await startServer(binary, { cwd: join(root, "sigkill"), dataDir: join(root, "sigkill", "data") });
    extraServers.push(again);
    const response = await api("/api/v1/collections", token, {}, again);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { collections: { links: { id: number; name: string }[] }[] };
    expect(body.collections[0]!.links).toMatchObject([{ id: linkId, name: "Before" }]);
    expect(await again.stop()).toBe(0);
  }, SLOW);
});

describe("command line words", () => {
  /** Usage and configuration errors run in a directory of their own, so a regression cannot touch the shared data. */
  let scratch: string;
  beforeAll(() => {
    scratch = join(root, "scratch");
    mkdirSync(scratch);
  });

  it("--version of a build that is not a release prints the package.json version and the commit", async () => {
    const result = await run(["--version"], { cwd: scratch });
    expect(result.exitCode).toBe(0);
    const commit = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: import.meta.dir }).stdout.toString().trim();
    expect(commit).toMatch(/^[0-9a-f]{12}$/);
    expect(result.stdout.trim()).toBe(`${pkg.version}+${commit}`);
  });

  it("--help prints the usage on stdout with exit 0", async () => {
    const result = await run(["--help"], { cwd: scratch });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("Usage: linkshelf");
    for (const word of ["serve", "user create", "user password", "token create", "token list", "token revoke", "backup", "restore", "LINKSHELF_LOG=access"]) {
      expect(result.stdout).toContain(word);
    }
  });

  const usageErrors: [string, string[]][] = [
    ["an unknown command", ["frobnicate"]],
    ["an unknown subcommand", ["token", "frobnicate", "--email", "x@example.test"]],
    ["an unknown flag", ["token", "list", "--email", "x@example.test", "--colour", "red"]],
    ["a flag the command does not take", ["token", "revoke", "--email", "x@example.test"]],
    ["a missing required flag", ["token", "create"]],
    ["a missing --name", ["user", "create", "--email", "x@example.test"]],
    ["backup without its FILE", ["backup"]],
    ["restore without its FILE", ["restore"]],
    ["restore with two files", ["restore", "a.db", "b.db"]],
    ["restore with a flag it does not take", ["restore", "a.db", "--email", "x@example.test"]],
    ["an extra word", ["token", "list", "--email", "x@example.test", "extra"]],
  ];
  it.each(usageErrors)("%s exits 2 with the usage on stderr", async (_name, args) => {
    const result = await run(args, { cwd: scratch });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("Usage: linkshelf");
    expect(readdirSync(scratch)).toEqual([]);
  });

  const configErrors: [string, string[], Record<string, string>, RegExp][] = [
    ["--port abc", ["--port", "abc"], {}, /port.*abc/],
    ["LINKSHELF_PORT=99999", [], { LINKSHELF_PORT: "99999" }, /port.*99999/],
    ["LINKSHELF_RATE_LIMIT=nonsense", ["--port", "0"], { LINKSHELF_RATE_LIMIT: "nonsense" }, /LINKSHELF_RATE_LIMIT.*nonsense/],
    ["LINKSHELF_LOG=verbose", ["--port", "0"], { LINKSHELF_LOG: "verbose" }, /LINKSHELF_LOG.*verbose/],
    ["a data dir under a regular file", ["--port", "0", "--data-dir", "FILE/data"], {}, /data dir.*a-regular-file\/data/],
  ];
  it.each(configErrors)("bad configuration (%s) exits 2 with one clear line", async (_name, args, env, message) => {
    const file = join(scratch, "a-regular-file");
    writeFileSync(file, "");
    try {
      const result = await run(["serve", "--host", "127.0.0.1", ...args.map((arg) => arg.replace("FILE", file))], {
        cwd: scratch,
        env: cleanEnv(env),
      });
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe("");
      const lines = oneLine(result.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^linkshelf: /);
      expect(lines[0]).toMatch(message);
      expect(readdirSync(scratch)).toEqual(["a-regular-file"]);
    } finally {
      rmSync(file);
    }
  });
});
