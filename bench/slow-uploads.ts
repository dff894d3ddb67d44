/**
 * `bun bench/slow-uploads.ts [--binary PATH]`: slow uploads from one address against the
 * compiled executable on 127.0.0.1, by the server's peak RSS (VmHWM) and by `/healthz`, polled
 * every 200 ms meanwhile (each poll answered within 5 s, or it counts as not answered). Two
 * cases, each on a fresh server:
 *
 * - sign-in forms: 10,000 connections, each sending 65,000 of 65,536 declared bytes to
 *   `POST /login`, then a byte every 4 s;
 * - saved pages: 280 connections with a token, each sending all but 1,000 bytes of a 2 MiB
 *   `PUT /api/v1/links/:id/content`, then a byte every 4 s.
 *
 * The server and the client (bench/slow-client.ts, a process of its own) run with their open
 * file limit raised to the hard limit.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CONTENT_LIMITS } from "../src/contract/content-limits";
import { compile, createBenchUser, ROOT, serveCommand, start, stop, tempDir } from "./lib";
import type { SlowClientPlan, SlowClientReport } from "./slow-client";

/** The peak RSS the server may reach under either case, MiB. */
export const SLOW_UPLOADS_RSS_TARGET = 300;
/**
 * How long a `/healthz` poll may take before it counts as not answered: while thousands of
 * connections arrive at once, the kernel's listen queue is full for a moment, and a connection
 * it drops is tried again after 1 s, then 3 s.
 */
const HEALTHZ_TIMEOUT_MS = 5_000;
/** How long the client keeps its connections trickling after the last one opened. */
const HOLD_SECONDS = 20;

export interface SlowUploadCase {
  plan: Omit<SlowClientPlan, "port" | "head"> & { path: string };
  client: SlowClientReport;
  /** VmRSS before the client started, and VmHWM at its end, MiB. */
  idleRssMiB: number;
  peakRssMiB: number;
  healthz: { polled: number; answered: number; p50Ms: number; p99Ms: number; slowestMs: number };
}

export interface SlowUploadsFigure {
  login: SlowUploadCase;
  content: SlowUploadCase;
  rssTarget: number;
}

const status = (pid: number, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

/** withOpenFiles runs a command with its open file limit raised to the hard limit (10,000 connections need as many descriptors). */
const withOpenFiles = (command: string[]) => ["sh", "-c", 'ulimit -n "$(ulimit -Hn)" && exec "$@"', "sh", ...command];

/** pollHealthz asks `/healthz` every 200 ms until `done` settles. */
async function pollHealthz(base: string, done: Promise<unknown>): Promise<SlowUploadCase["healthz"]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  let answered = 0;
  while (!finished) {
    const at = performance.now();
    try {
      const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(HEALTHZ_TIMEOUT_MS) });
      await response.text();
      if (response.status === 200) answered++;
    } catch {
      // Not answered within HEALTHZ_TIMEOUT_MS (or refused): counted as polled, not answered.
    }
    latencies.push(performance.now() - at);
    await Bun.sleep(200);
  }
  latencies.sort((a, b) => a - b);
  const at = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))] ?? 0;
  return { polled: latencies.length, answered, p50Ms: at(0.5), p99Ms: at(0.99), slowestMs: latencies.at(-1) ?? 0 };
}

/** slowCase starts a server on `dataDir`, runs the slow client against it, and measures. */
async function slowCase(binary: string, dataDir: string, plan: SlowUploadCase["plan"], headers: string): Promise<SlowUploadCase> {
  const server = await start(withOpenFiles(serveCommand(binary, dataDir)));
  try {
    const port = Number(new URL(server.base).port);
    const idleRssMiB = status(server.process.pid, "VmRSS");
    const declared = plan.path === "/login" ? 65_536 : CONTENT_LIMITS.bodyBytes;
    const head = `${plan.path.startsWith("/api/") ? "PUT" : "POST"} ${plan.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Content-Length: ${declared}\r\n\r\n`;
    const { path: _, ...rest } = plan;
    const client = Bun.spawn(withOpenFiles([process.execPath, join(ROOT, "bench", "slow-client.ts"), JSON.stringify({ ...rest, port, head })]), { stdout: "pipe", stderr: "inherit" });
    const report = new Response(client.stdout).text();
    const healthz = await pollHealthz(server.base, client.exited);
    if ((await client.exited) !== 0) throw new Error("the slow client failed");
    return { plan, client: JSON.parse(await report) as SlowClientReport, idleRssMiB, peakRssMiB: status(server.process.pid, "VmHWM"), healthz };
  } finally {
    await stop(server);
  }
}

/** benchSlowUploads measures both cases, each on a fresh server with one user. */
export async function benchSlowUploads(binary: string): Promise<SlowUploadsFigure> {
  const dataDir = tempDir("slow-uploads");
  const token = createBenchUser(binary, dataDir);
  // A link to save pages to: made on a server of its own, so that neither case's peak counts it.
  const server = await start(serveCommand(binary, dataDir));
  const created = await fetch(`${server.base}/api/v1/links`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Slow", url: "https://slow.example/", favorite: false }),
  });
  const linkId = ((await created.json()) as { link: { id: number } }).link.id;
  await stop(server);

  const login = await slowCase(binary, dataDir, { path: "/login", connections: 10_000, sent: 65_000, everySeconds: 4, seconds: HOLD_SECONDS },
    "Content-Type: application/x-www-form-urlencoded\r\n");
  const content = await slowCase(binary, dataDir, { path: `/api/v1/links/${linkId}/content`, connections: 280, sent: CONTENT_LIMITS.bodyBytes - 1_000, everySeconds: 4, seconds: HOLD_SECONDS },
    `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n`);
  return { login, content, rssTarget: SLOW_UPLOADS_RSS_TARGET };
}

/** withinTarget: the peak RSS stayed under the target and every `/healthz` poll was answered. */
export const withinTarget = (figure: SlowUploadCase) => figure.peakRssMiB < SLOW_UPLOADS_RSS_TARGET && figure.healthz.answered === figure.healthz.polled;

/** caseLine is one case in words. */
export function caseLine(name: string, figure: SlowUploadCase): string {
  const { client, healthz } = figure;
  const answers = Object.entries(client.answers).map(([code, count]) => `${count} × ${code}`).join(", ") || "none";
  return `${name}: ${client.opened} of ${figure.plan.connections} connections opened in ${client.openingSeconds.toFixed(1)} s (${client.failed} failed); answers ${answers}; ` +
    `${client.held} held open after ${HOLD_SECONDS} s; RSS ${figure.idleRssMiB.toFixed(0)} MiB idle, peak ${figure.peakRssMiB.toFixed(0)} MiB; ` +
    `/healthz ${healthz.answered} / ${healthz.polled} answered, p50 ${healthz.p50Ms.toFixed(0)} ms, p99 ${healthz.p99Ms.toFixed(0)} ms, slowest ${healthz.slowestMs.toFixed(0)} ms`;
}

if (import.meta.main) {
  const at = process.argv.indexOf("--binary");
  const binary = at > 0 ? process.argv[at + 1]! : await compile(join(ROOT, "src", "main.ts"), join(tempDir("slow-uploads-build"), "linkshelf"));
  const figure = await benchSlowUploads(binary);
  console.log(caseLine("10,000 slow sign-in forms", figure.login));
  console.log(caseLine("280 slow 2 MiB saved pages", figure.content));
}
