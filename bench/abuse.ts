/**
 * `bun bench/abuse.ts [--binary PATH]`: hostile requests against a running server, one case at a
 * time, each on a fresh server (the compiled linkshelf) and data directory, while another task
 * asks `/healthz` every 50 ms: each case prints its answer's status, `/healthz` p99 (target
 * ≤ 100 ms, every answer within 5 s) and the server's peak RSS (VmHWM, target < 300 MiB unless
 * the case sets its own), with ok / MISS. A case is one entry of ABUSE_CASES: a name, how it is
 * made, how it is sent and the statuses it must get (a refusal's; or, for the costliest request
 * within the bounds, its answer). `npm run bench` prints one row per case; run alone, it exits 1
 * on a MISS.
 */
import { join } from "node:path";
import { compile, createBenchUser, peakRssMiB, ROOT, rssMiB, serveCommand, start, stop, tempDir } from "./lib";
import { ZIP_LIMITS } from "../src/bookmarks/zip";
import { honestZip, lyingZip, zipAtTheCaps } from "../test/zips";

/** What a case's request may use: the server's address and a signed-in user's credentials. */
export interface Target {
  base: string;
  /** An API token of the user: `Authorization: Bearer <token>`. */
  token: string;
  /** The same user's session cookie (`name=value`), for the pages. */
  cookie: string;
}

/** One hostile request. `prepare` runs before the server starts (its time is not measured). */
export interface AbuseCase {
  name: string;
  /** What is sent, in a few words (sizes). */
  detail: string;
  prepare(): Uint8Array;
  /** send makes the request with what `prepare` gave and resolves with the answer's status once its body is read. */
  send(target: Target, prepared: Uint8Array): Promise<number>;
  /** The statuses it must get: a refusal's, or the answer to a request within the bounds. */
  expected: number[];
  /** Targets of its own, where ABUSE_TARGETS do not fit it. */
  targets?: Partial<Targets>;
}

/** uploadImport posts a file to the import page as the browser's form does. */
async function uploadImport(target: Target, file: Uint8Array, name: string): Promise<number> {
  const form = new FormData();
  form.append("file", new File([file], name));
  const response = await fetch(`${target.base}/import`, { method: "POST", body: form, redirect: "manual", headers: { cookie: target.cookie, origin: target.base, accept: "text/html" } });
  await response.arrayBuffer();
  return response.status;
}

export const ABUSE_CASES: AbuseCase[] = [
  {
    name: "lying zip on the import page",
    detail: "30 CSV parts stating 200 bytes, each 1 GiB of deflated spaces",
    prepare: () => lyingZip(30, 1024),
    send: (target, zip) => uploadImport(target, zip, "pocket.zip"),
    expected: [422],
  },
  {
    name: "zip entry lying at the cap on the import page",
    detail: `one CSV part stating ${ZIP_LIMITS.entryBytes / 1024 / 1024} MiB (the most one entry may give), holding 1 GiB of deflated spaces: ${ZIP_LIMITS.entryBytes / 1024 / 1024} MiB of it inflated before the refusal`,
    prepare: () => lyingZip(1, 1024, ZIP_LIMITS.entryBytes),
    send: (target, zip) => uploadImport(target, zip, "pocket.zip"),
    expected: [422],
  },
  {
    name: "500 MiB zip entry on the import page",
    detail: "one CSV part honestly stating and holding 500 MiB",
    prepare: () => honestZip(500),
    send: (target, zip) => uploadImport(target, zip, "pocket.zip"),
    expected: [422],
  },
  {
    name: "zip at the caps on the import page",
    detail: `the most a zip may give, accepted: two CSV parts of ${ZIP_LIMITS.entryBytes / 1024 / 1024} MiB, 48,000 items with long titles; previewed (303)`,
    prepare: zipAtTheCaps,
    send: (target, zip) => uploadImport(target, zip, "pocket.zip"),
    expected: [303],
    // An accepted file is read, planned and held for its preview, as a plain file of that size is: the
    // Pocket import's budget of bench/import-services.ts (400 MiB), whose /healthz answers took up to ~300 ms.
    targets: { peakMiB: 400, healthzP99Ms: 300 },
  },
];

export interface Targets {
  healthzP99Ms: number;
  peakMiB: number;
}

export const ABUSE_TARGETS: Targets = { healthzP99Ms: 100, peakMiB: 300 };
/** How long one /healthz may take before it counts as unanswered. */
const HEALTHZ_TIMEOUT_MS = 5000;
const POLL_MS = 50;

export interface AbuseFigure {
  name: string;
  detail: string;
  requestBytes: number;
  status: number;
  /** The status is one the case expects. */
  answeredRight: boolean;
  /** From sending the request to its answer's end. */
  ms: number;
  healthz: { answered: number; failed: number; p99: number; slowest: number };
  idleMiB: number;
  peakMiB: number;
  /** The server's exit code on SIGTERM right after the case. */
  exitCode: number;
  targets: Targets;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** poll asks /healthz every POLL_MS until stopped, timing each answer; one without an answer in HEALTHZ_TIMEOUT_MS fails. */
function poll(base: string) {
  let running = true;
  const times: number[] = [];
  let failed = 0;
  const done = (async () => {
    while (running) {
      const began = performance.now();
      const ok = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(HEALTHZ_TIMEOUT_MS) })
        .then(async (response) => (await response.arrayBuffer(), response.ok), () => false);
      if (ok) times.push(performance.now() - began);
      else failed++;
      await Bun.sleep(POLL_MS);
    }
  })();
  return async () => {
    running = false;
    await done;
    return { answered: times.length, failed, p99: percentile(times, 99), slowest: Math.max(0, ...times) };
  };
}

/** runCase runs one case on a fresh server: signs a user in, sends the request while /healthz is polled, and reads the peak RSS. */
async function runCase(binary: string, abuse: AbuseCase): Promise<AbuseFigure> {
  const prepared = abuse.prepare();
  const work = tempDir("abuse");
  const dataDir = join(work, "data");
  const token = createBenchUser(binary, dataDir);
  const server = await start(serveCommand(binary, dataDir), { cwd: work, env: { LINKSHELF_RATE_LIMIT: "off" } });
  let exitCode = -1;
  try {
    const signIn = await fetch(`${server.base}/login`, {
      method: "POST", redirect: "manual",
      headers: { origin: server.base, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "bench@example.test", password: "bench password", next: "/" }),
    });
    const cookie = signIn.headers.get("set-cookie")?.split(";")[0];
    if (signIn.status !== 303 || !cookie) throw new Error(`signing in answered ${signIn.status}`);
    const target = { base: server.base, token, cookie };
    const idleMiB = rssMiB(server.process.pid);
    const stopPolling = poll(server.base);
    await Bun.sleep(200);
    const began = performance.now();
    const status = await abuse.send(target, prepared);
    const ms = performance.now() - began;
    // What follows the answer (the collector) is the case's too.
    await Bun.sleep(500);
    const healthz = await stopPolling();
    const peakMiB = peakRssMiB(server.process.pid);
    exitCode = await stop(server);
    return { name: abuse.name, detail: abuse.detail, requestBytes: prepared.length, status, answeredRight: abuse.expected.includes(status), ms, healthz, idleMiB, peakMiB, exitCode,
      targets: { ...ABUSE_TARGETS, ...abuse.targets },
    };
  } finally {
    if (exitCode === -1) await stop(server);
  }
}

/** withinTargets: answered as it should be, every /healthz answered, p99 and peak RSS within their targets, and a clean stop on SIGTERM. */
export const withinTargets = (figure: AbuseFigure) =>
  figure.answeredRight && figure.healthz.failed === 0 && figure.healthz.p99 <= figure.targets.healthzP99Ms && figure.peakMiB < figure.targets.peakMiB && figure.exitCode === 0;

/** benchAbuse runs every case (ABUSE_CASES unless others are given) against the compiled linkshelf `binary`, one after another. */
export async function benchAbuse(binary: string, cases: AbuseCase[] = ABUSE_CASES): Promise<AbuseFigure[]> {
  const figures: AbuseFigure[] = [];
  for (const abuse of cases) figures.push(await runCase(binary, abuse));
  return figures;
}

/** abuseRows are the rows `npm run bench` prints for the figures, with `status` deciding ok / MISS. */
export function abuseRows<S extends string>(figures: AbuseFigure[], status: (met: boolean) => S): [S, string, string, string, string][] {
  return figures.map((figure): [S, string, string, string, string] => [
    status(withinTargets(figure)), `abuse: ${figure.name}, /healthz p99 / peak RSS`,
    `${figure.detail} (${(figure.requestBytes / 1024 / 1024).toFixed(1)} MiB): ${figure.status} in ${figure.ms.toFixed(0)} ms; /healthz ${figure.healthz.answered} answered, ${figure.healthz.failed} failed, slowest ${figure.healthz.slowest.toFixed(0)} ms; idle ${figure.idleMiB.toFixed(0)} MiB; SIGTERM exit ${figure.exitCode}`,
    `${figure.healthz.p99.toFixed(1)} ms / ${figure.peakMiB.toFixed(0)} MiB`, `≤ ${figure.targets.healthzP99Ms} ms / < ${figure.targets.peakMiB} MiB`,
  ]);
}

if (import.meta.main) {
  const at = process.argv.indexOf("--binary");
  const binary = at > 0 ? process.argv[at + 1]! : await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));
  const figures = await benchAbuse(binary);
  for (const row of abuseRows(figures, (met) => (met ? "ok" : "MISS"))) console.log(row.join("  "));
  if (!figures.every(withinTargets)) process.exitCode = 1;
}
