import { Database } from "bun:sqlite";
import autocannon from "autocannon";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { NO_OUTBOUND } from "../test/support/binary";
import { testDir } from "../test/support/dirs";

export const ROOT = join(import.meta.dir, "..");

/** compile builds an entry point into a single executable exactly as build.ts builds linkshelf. */
export async function compile(entry: string, outfile: string): Promise<string> {
  const result = Bun.spawnSync([process.execPath, join(ROOT, "build.ts"), outfile, entry], { cwd: ROOT, stderr: "inherit" });
  if (result.exitCode !== 0) throw new Error(`building ${entry} failed`);
  return outfile;
}

export const tempDir = (name: string) => testDir(`bench-${name}`);

/** cli runs one linkshelf command on a data dir and returns its stdout (trimmed). */
export function cli(binary: string, dataDir: string, args: string[], stdin?: string): string {
  const result = Bun.spawnSync([binary, ...args, "--data-dir", dataDir], { stdin: stdin ? Buffer.from(stdin) : undefined });
  if (result.exitCode !== 0) throw new Error(`linkshelf ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.toString().trim();
}

/** createBenchUser creates a user through the CLI (which creates and migrates the database) and returns an API token. */
export function createBenchUser(binary: string, dataDir: string): string {
  cli(binary, dataDir, ["user", "create", "--email", "bench@example.test", "--name", "Bench"], "bench password\n");
  return cli(binary, dataDir, ["token", "create", "--email", "bench@example.test"]);
}

/** serveCommand is the command line that runs dist/linkshelf on loopback with a port chosen by the system. */
export const serveCommand = (binary: string, dataDir: string, port = 0) =>
  [binary, "serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir];

/** A rate limit far above anything the benchmarks send: the limiter runs, never refuses. */
export const NO_REFUSAL_RATE_LIMIT = "100000000/1";

/** rssMiB reads a process's resident set size (VmRSS) from /proc. */
export function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** peakRssMiB reads a process's peak resident set size (VmHWM) from /proc. */
export function peakRssMiB(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmHWM for process ${pid}`);
  return Number(match[1]) / 1024;
}

/**
 * rssParts splits VmRSS into anonymous memory (heaps, stacks: what a program allocates) and
 * file-backed pages (mostly the executable itself: the Bun runtime's code the process touched).
 */
export function rssParts(pid: number): { anonMiB: number; fileMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? NaN);
  return { anonMiB: kib("RssAnon") / 1024, fileMiB: (kib("RssFile") + kib("RssShmem")) / 1024 };
}

export interface Started {
  process: Subprocess<"pipe", "pipe", "pipe">;
  base: string;
}

/**
 * start runs an executable that logs `listening on http://127.0.0.1:<port>` and waits for that
 * line. Page reading and link checking are off (NO_OUTBOUND) unless `env` turns them on. With
 * `onLine`, every later line of its stderr (an access log, with `LINKSHELF_LOG=access`) is handed to it.
 */
export async function start(command: string[], options: { cwd?: string; env?: Record<string, string>; onLine?: (line: string) => void } = {}): Promise<Started> {
  const child = Bun.spawn(command, {
    cwd: options.cwd,
    env: { ...process.env, ...NO_OUTBOUND, ...options.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const decoder = new TextDecoder();
  let seen = "";
  const reader = child.stderr.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    seen += decoder.decode(read.value, { stream: true });
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
    if (match) {
      if (options.onLine) void followLines(reader, seen.slice(match.index + match[0].length), options.onLine);
      else void reader.cancel();
      return { process: child, base: match[1]! };
    }
  }
  throw new Error(`${command.join(" ")} exited before listening:\n${seen}`);
}

/** followLines hands each further line of a stream to `onLine` (starting with what is left of `rest`), so a chatty server never blocks on a full pipe. */
async function followLines(reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> }, rest: string, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let pending = rest;
  const flush = () => {
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) if (line !== "") onLine(line);
  };
  flush();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    pending += decoder.decode(read.value!, { stream: true });
    flush();
  }
}

/** stop sends SIGTERM and waits for the exit. */
export async function stop(started: Started): Promise<number> {
  started.process.kill("SIGTERM");
  return started.process.exited;
}

/** What every request of a load sends besides `GET url` (autocannon's own options). */
export interface LoadRequest {
  method?: "GET" | "POST" | "PUT";
  headers?: Record<string, string>;
  body?: string;
  /** For timedLoad: the requests go to these paths and bodies in turn (paths[i] with bodies[i % bodies.length]) instead of url and body. */
  cycle?: { paths: string[]; bodies: string[] };
}

export interface Load {
  requestsPerSecond: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
  errors: number;
}

/**
 * load sends exactly `amount` requests to a URL with autocannon over `connections` keep-alive
 * connections, and waits for every answer, so what was served can be compared with what was
 * stored. Requests per second are timed from the first answer to the last (autocannon's own
 * duration is counted in whole seconds in this mode).
 */
export async function load(url: string, amount: number, connections = 32, request: LoadRequest = {}): Promise<Load> {
  let first = 0;
  let last = 0;
  let answers = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url, connections, amount, ...request }, (error, done) => (error ? reject(error) : resolve(done)));
    instance.on("response", () => {
      last = performance.now();
      if (answers++ === 0) first = last;
    });
  });
  const statuses: Record<string, number> = {};
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) statuses[status] = (stats as { count: number }).count;
  return { requestsPerSecond: ((answers - 1) * 1000) / (last - first), statuses, errors: result.errors + result.timeouts };
}

/** Which program drove a throughput figure: `wrk` when installed (Debian's package), else autocannon. */
export type Generator = "wrk" | "autocannon";

export const WRK = Bun.which("wrk");
const TASKSET = Bun.which("taskset");

/**
 * pinned runs a command on one CPU (`taskset`, when there is one and the machine has two CPUs
 * or more): servers on CPU 0, the load generator on CPU 1, so neither is moved onto the
 * other's CPU in mid-round. Every server of a comparison is pinned the same way.
 */
export function pinned(command: string[], cpu: 0 | 1): string[] {
  return TASKSET && cpus().length >= 2 ? [TASKSET, "-c", String(cpu), ...command] : command;
}
export const GENERATOR: Generator = WRK ? "wrk" : "autocannon";

export interface TimedLoad {
  generator: Generator;
  requestsPerSecond: number;
  /** Answers received (any status). */
  answered: number;
  /** Answers outside 2xx and 3xx. */
  refused: number;
  /** Connection, read, write errors and timeouts. */
  errors: number;
}

/** A Lua long string holding `text` as it is (no escape is interpreted inside one). */
function luaString(text: string): string {
  let level = "";
  while (text.includes(`]${level}]`)) level += "=";
  return `[${level}[${text}]${level}]`;
}

/**
 * wrkScript is the Lua that makes wrk send `request` and print its counts as one JSON line
 * (wrk's own summary counts answers outside 2xx and 3xx as `errors.status`).
 */
function wrkScript(request: LoadRequest): string {
  const lines = [`wrk.method = "${request.method ?? "GET"}"`];
  if (request.body !== undefined) lines.push(`wrk.body = ${luaString(request.body)}`);
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`);
  if (request.cycle) {
    lines.push(
      `local paths = { ${request.cycle.paths.map(luaString).join(", ")} }`,
      `local bodies = { ${request.cycle.bodies.map(luaString).join(", ")} }`,
      "local sent = 0",
      "request = function()",
      "  sent = sent + 1",
      "  return wrk.format(nil, paths[(sent - 1) % #paths + 1], nil, bodies[(sent - 1) % #bodies + 1])",
      "end",
    );
  }
  lines.push(
    "done = function(summary, latency, requests)",
    '  local e = summary.errors',
    '  io.write(string.format("WRK_RESULT %d %d %d %d\\n", summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout))',
    "end",
  );
  return lines.join("\n") + "\n";
}

/**
 * timedLoad drives a URL for `seconds` over `connections` keep-alive connections with one
 * load-generator thread: wrk when it is installed (it costs the shared CPU less than
 * autocannon, so a fast server is less flattened by its own client), autocannon otherwise.
 * Requests still in flight when the time is up are not counted as answered; the server may
 * still complete them (at most one per connection).
 */
export async function timedLoad(url: string, seconds: number, connections: number, request: LoadRequest = {}): Promise<TimedLoad> {
  if (!WRK) {
    const { cycle, ...fixed } = request;
    const result = await autocannon({
      url, connections, duration: seconds, ...fixed,
      ...(cycle && { setupClient: (client: autocannon.Client) => client.setRequests(cycle.paths.map((path, i) => ({ ...fixed, path, body: cycle.bodies[i % cycle.bodies.length] }))) }),
    });
    const answered = result.requests.total;
    return { generator: "autocannon", requestsPerSecond: answered / seconds, answered, refused: result.non2xx, errors: result.errors + result.timeouts };
  }
  const script = join(tempDir("wrk"), "load.lua");
  await Bun.write(script, wrkScript(request));
  // Spawned, not spawnSync: the bench process itself serves the origins some rounds fetch from.
  const run = Bun.spawn(pinned([WRK, "-t1", `-c${connections}`, `-d${seconds}s`, "-s", script, url], 1), { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  const match = /WRK_RESULT (\d+) (\d+) (\d+) (\d+)/.exec(stdout);
  if (exitCode !== 0 || !match) throw new Error(`wrk failed: ${stdout}${stderr}`);
  const [answered, micros, refused, errors] = match.slice(1).map(Number) as [number, number, number, number];
  return { generator: "wrk", requestsPerSecond: (answered * 1e6) / micros, answered, refused, errors };
}

/**
 * indexCatchUp waits until the server's search index has taken every link and page stored
 * (nothing left in `link_search_pending`, read from the database file every 2 ms) and returns how
 * long that took, in seconds. A write rate that leaves indexing behind is counted with this
 * added: the index is built in the background, and its work must not fall outside the figure.
 */
export async function indexCatchUp(dbPath: string, timeoutMillis = 120_000): Promise<number> {
  const started = performance.now();
  const db = new Database(dbPath, { readonly: true });
  try {
    const pending = db.query<{ n: number }, []>("SELECT count(*) AS n FROM link_search_pending");
    while (pending.get()!.n > 0) {
      if (performance.now() - started > timeoutMillis) throw new Error(`the search index was still behind after ${timeoutMillis} ms`);
      await Bun.sleep(2);
    }
  } finally {
    db.close();
  }
  return (performance.now() - started) / 1000;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** timeGet sends one GET and reads the whole body; milliseconds. */
export async function timeGet(url: string, headers: Record<string, string>): Promise<number> {
  const began = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  return performance.now() - began;
}
