/**
 * Helpers for the tests through the real executable: build it into a workspace, run its commands,
 * start it as a server and follow its log. Everything waits on output, never on the clock,
 * except for bounded deadlines that turn a hang into a failure with the log attached.
 */
import { Database } from "bun:sqlite";
import { closeSync, existsSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ARTIFACTS, testDir } from "./dirs";

export const REPO_ROOT = join(import.meta.dir, "..", "..");
/** How long any single wait may take before the test fails instead of hanging. */
const DEADLINE_MS = 15_000;

/** buildBinary compiles the executable with build.ts into `outfile`; throws with bun's output when it fails. */
function buildBinary(outfile: string): string {
  const result = Bun.spawnSync([process.execPath, "build.ts", outfile], { cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) {
    throw new Error(`build.ts failed (${result.exitCode}):\n${result.stdout.toString()}\n${result.stderr.toString()}`);
  }
  return outfile;
}

/** What the executable is built from: a change to any of these builds it anew. */
const BUILD_INPUTS = ["src", "drizzle", "build.ts", "package.json", "package-lock.json"];
/** Where the executable of the sources as they are now is kept between test files and runs. */
const BUILT = join(ARTIFACTS, "linkshelf-binary");
/** A build lock older than this is a build that died: it is taken over. */
const STALE_BUILD_MS = 120_000;

/** sourceKey hashes every build input's path and bytes, with the Bun version that compiles them. */
function sourceKey(): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(Bun.version);
  const files = (entry: string): string[] => {
    const path = join(REPO_ROOT, entry);
    if (!statSync(path).isDirectory()) return [path];
    return readdirSync(path, { recursive: true, withFileTypes: true }).filter((file) => file.isFile()).map((file) => join(file.parentPath, file.name));
  };
  for (const file of BUILD_INPUTS.flatMap(files).sort()) hasher.update(`\0${relative(REPO_ROOT, file)}\0`).update(readFileSync(file));
  return hasher.digest("hex").slice(0, 16);
}

/**
 * builtBinary is the executable of the sources as they are now, built by build.ts once and kept
 * in `test/.artifacts/` under a hash of its inputs, so test files (and parallel test processes,
 * which wait for the one building) share one build. Older builds are removed.
 */
export function builtBinary(): string {
  const binary = join(BUILT, `linkshelf-${sourceKey()}`);
  mkdirSync(BUILT, { recursive: true });
  const lock = `${binary}.lock`;
  const deadline = Date.now() + 4 * STALE_BUILD_MS;
  while (!existsSync(binary)) {
    let held: number | undefined;
    try {
      held = openSync(lock, "wx");
    } catch {
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > STALE_BUILD_MS) rmSync(lock, { force: true });
      if (Date.now() > deadline) throw new Error(`waited too long for another test process to build ${binary}`);
      Bun.sleepSync(100);
      continue;
    }
    try {
      if (existsSync(binary)) break;
      for (const old of readdirSync(BUILT)) if (!old.endsWith(".lock")) rmSync(join(BUILT, old), { force: true });
      renameSync(buildBinary(`${binary}.building`), binary);
    } finally {
      closeSync(held);
      rmSync(lock, { force: true });
    }
  }
  return binary;
}

/** Where a test runs the executable: a fresh temporary folder, removed after the test file. */
export interface BinaryWorkspace {
  root: string;
  /** The executable, built by build.ts. */
  binary: string;
  /** The working directory: no node_modules, no drizzle/ (the binary must not need them). */
  cwd: string;
  /** The data directory, not created yet (the binary creates it). */
  dataDir: string;
  /** The database file inside it. */
  dbPath: string;
}

/** binaryWorkspace puts the executable (see builtBinary) into a new temporary folder (see testDir) named after `name`, with a working directory beside it. */
export function binaryWorkspace(name: string): BinaryWorkspace {
  const root = testDir(name);
  mkdirSync(join(root, "bin"));
  const binary = join(root, "bin", "linkshelf");
  linkSync(builtBinary(), binary);
  const cwd = join(root, "run");
  mkdirSync(cwd);
  const dataDir = join(cwd, "data");
  return { root, binary, cwd, dataDir, dbPath: join(dataDir, "linkshelf.db") };
}

/** createUserWithToken makes a user through the CLI (the password on stdin) and returns a new API token of theirs. */
export async function createUserWithToken(workspace: BinaryWorkspace, email: string, name: string, env: Record<string, string>): Promise<string> {
  const { binary, cwd, dataDir } = workspace;
  const created = await runBinary(binary, ["user", "create", "--email", email, "--name", name, "--data-dir", dataDir], {
    cwd,
    env,
    stdin: "long enough password\n",
  });
  if (created.exitCode !== 0) throw new Error(`user create failed: ${created.stderr}`);
  const minted = await runBinary(binary, ["token", "create", "--email", email, "--data-dir", dataDir], { cwd, env });
  if (minted.exitCode !== 0) throw new Error(`token create failed: ${minted.stderr}`);
  return minted.stdout.trim();
}

/**
 * What the executable does in the background that reaches out to the network (reading saved
 * pages, checking links): off in every test and benchmark unless it turns one on (and then points
 * it at loopback), so none makes the server look up or contact a saved link's host.
 */
export const NO_OUTBOUND = { LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off" } as const;

/** cleanEnv is the test's environment without any LINKSHELF_* setting, plus NO_OUTBOUND, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("LINKSHELF_") && value !== undefined) env[key] = value;
  }
  return { ...env, ...NO_OUTBOUND, ...extra };
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  /** Text piped to stdin (a password); stdin is empty otherwise, never a terminal. */
  stdin?: string;
  env?: Record<string, string>;
}

/** runBinary runs one command to completion; a command still running at the deadline is killed and fails the test. */
export async function runBinary(binary: string, args: string[], options: RunOptions): Promise<RunResult> {
  const proc = Bun.spawn([binary, ...args], {
    cwd: options.cwd,
    env: options.env ?? cleanEnv(),
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, DEADLINE_MS);
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  if (timedOut) throw new Error(`linkshelf ${args.join(" ")} did not finish in ${DEADLINE_MS} ms; stderr:\n${stderr}`);
  return { exitCode, stdout, stderr };
}

/** Collects a stream's text as it arrives and lets callers wait for a pattern in it. */
export class OutputWatcher {
  text = "";
  ended = false;
  private waiters: (() => void)[] = [];

  constructor(stream: ReadableStream<Uint8Array>) {
    void this.pump(stream);
  }

  private async pump(stream: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      this.text += decoder.decode(chunk, { stream: true });
      this.notify();
    }
    this.ended = true;
    this.notify();
  }

  private notify() {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** waitFor resolves with the first match of `pattern`; rejects when the stream ends without it or at the deadline. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${DEADLINE_MS} ms; output so far:\n${this.text}`)), DEADLINE_MS);
      const check = () => {
        const match = pattern.exec(this.text);
        if (match) {
          clearTimeout(timer);
          resolve(match);
        } else if (this.ended) {
          clearTimeout(timer);
          reject(new Error(`output ended without ${pattern}:\n${this.text}`));
        } else {
          this.waiters.push(check);
        }
      };
      check();
    });
  }
}

export interface RunningServer {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  log: OutputWatcher;
  /** stop sends SIGTERM (unless the process has exited) and resolves with the exit code. */
  stop(): Promise<number>;
}

const LISTENING = /linkshelf listening on http:\/\/127\.0\.0\.1:(\d+)/;

/**
 * startServer runs `linkshelf serve` on a loopback port (a free one, unless `port` names one: to
 * restart a server at the address its clients know) and resolves once it says where it listens.
 */
export async function startServer(binary: string, options: { cwd: string; dataDir: string; env?: Record<string, string>; port?: number }): Promise<RunningServer> {
  const proc = Bun.spawn([binary, "serve", "--port", String(options.port ?? 0), "--host", "127.0.0.1", "--data-dir", options.dataDir], {
    cwd: options.cwd,
    env: options.env ?? cleanEnv(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const log = new OutputWatcher(proc.stderr);
  // stdout is drained so a chatty server can never block on a full pipe.
  void new Response(proc.stdout).text();
  let match: RegExpExecArray;
  try {
    match = await log.waitFor(LISTENING);
  } catch (error) {
    proc.kill("SIGKILL");
    throw error;
  }
  const port = Number(match[1]);
  return {
    proc,
    port,
    origin: `http://127.0.0.1:${port}`,
    log,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), DEADLINE_MS);
      const code = await proc.exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * WorkspaceServers starts servers on one workspace's data and keeps each until it is known to
 * have exited, so that the file's afterAll (close) can kill what a failing test left running
 * before it removes the workspace.
 */
export class WorkspaceServers {
  private readonly alive = new Set<RunningServer>();

  constructor(readonly workspace: BinaryWorkspace, private readonly env: Record<string, string>) {}

  async start(): Promise<RunningServer> {
    const { binary, cwd, dataDir } = this.workspace;
    const server = await startServer(binary, { cwd, dataDir, env: this.env });
    this.alive.add(server);
    return server;
  }

  /** stop ends a server with SIGTERM, as a service manager does, and resolves with its exit code. */
  async stop(server: RunningServer): Promise<number> {
    const code = await server.stop();
    this.alive.delete(server);
    return code;
  }

  /** killHard ends a server with SIGKILL, as a crash or a power cut does. */
  async killHard(server: RunningServer): Promise<void> {
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    this.alive.delete(server);
  }

  /** forget drops a server the test saw exit by itself. */
  forget(server: RunningServer): void {
    this.alive.delete(server);
  }

  /** close kills every server still running and removes the workspace. */
  async close(): Promise<void> {
    for (const server of this.alive) await this.killHard(server);
    rmSync(this.workspace.root, { recursive: true, force: true });
  }
}

/** queryFile runs one read on a database file with its own short-lived connection. */
export function queryFile<T = Record<string, unknown>>(path: string, sql: string, params: (string | number | null)[] = []): T[] {
  const db = new Database(path, { strict: true });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    return db.query(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** writeFile runs one write on a database file with its own short-lived connection. */
export function writeFile(path: string, sql: string, params: (string | number | null)[] = []): void {
  const db = new Database(path, { strict: true });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    db.run(sql, params);
  } finally {
    db.close();
  }
}

/** A raw HTTP/1.1 connection, for requests whose bytes the test sends in steps. */
export interface RawConnection {
  write(text: string): void;
  /** Everything the server sent so far, watched like a log. */
  received: { waitFor(pattern: RegExp): Promise<RegExpExecArray>; text: string };
  close(): void;
}

/** connectRaw opens a TCP connection to 127.0.0.1:port. */
export async function connectRaw(port: number): Promise<RawConnection> {
  let push: (chunk: Uint8Array) => void = () => {};
  let end: () => void = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      push = (chunk) => open && controller.enqueue(chunk);
      end = () => {
        if (open) controller.close();
        open = false;
      };
    },
  });
  const received = new OutputWatcher(stream);
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, data) {
        push(new Uint8Array(data));
      },
      close() {
        end();
      },
      error() {
        end();
      },
    },
  });
  return {
    write: (text) => void socket.write(text),
    received,
    close: () => socket.end(),
  };
}
