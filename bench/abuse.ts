/**
 * `bun bench/abuse.ts [--binary PATH] [--only NAME]`: hostile files and requests, one case at a time,
 * each on a fresh server (the compiled linkshelf) and data directory with a signed-in user. A case is
 * one entry of ABUSE_CASES: its name, what it sends, how its data is made (`setup`, not measured),
 * how it is sent, and the statuses it must get (a refusal's; or, for the costliest request within the
 * bounds, its answer). While it is sent, and for 0.5 s after its answer, `GET /healthz` is asked every
 * 10 ms whether or not the last one was answered, each timed from when it was due (a server that holds
 * its event loop for 200 ms makes ~20 probes wait; asking one after another would hide it behind a
 * single slow probe). A case meets its targets with the status expected, every probe answered within
 * 5 s, the probes' p99 ≤ 100 ms, the server's peak RSS (VmHWM, its whole life, the setup included)
 * < 300 MiB unless the case sets its own, and exit code 0 on SIGTERM right after. The probes' clock is
 * this process's: a case writes its large bodies in its setup and never parses a large answer.
 * `npm run bench` prints one row per case (abuseRows); run alone, it prints them and exits 1 on a MISS.
 */
import { join } from "node:path";
import { cli, compile, median, NO_REFUSAL_RATE_LIMIT, peakRssMiB, ROOT, rssMiB, serveCommand, start, stop, tempDir } from "./lib";
import { ZIP_LIMITS } from "../src/bookmarks/zip";
import { honestZip, lyingZip, zipAtTheCaps } from "../test/support/zips";

const EMAIL = "bench@example.test";
const PASSWORD = "bench password";

/** What a case is given: the server's address and the signed-in user's credentials. */
export interface Target {
  base: string;
  /** An API token of the user: `Authorization: Bearer <token>`. */
  token: string;
  /** The same user's session cookie (`name=value`), for the pages. */
  cookie: string;
}

/** What a case's request was answered: its status and, where it says more, a few words (sizes, counts). */
export interface Answer {
  status: number;
  note?: string;
}

export interface Targets {
  healthzP99Ms: number;
  peakMiB: number;
}

export const ABUSE_TARGETS: Targets = { healthzP99Ms: 100, peakMiB: 300 };

/** One hostile file or request. */
export interface AbuseCase<State = any> {
  name: string;
  /** What is sent, in a few words (sizes). */
  detail: string;
  /** setup builds what the case needs on the running server and in this process (not measured). */
  setup(target: Target): Promise<State>;
  /** send makes the request measured and resolves once its answer's body is read. */
  send(target: Target, state: State): Promise<Answer>;
  /** The statuses it must get: a refusal's, or the answer to a request within the bounds. */
  expected: number[];
  /** Targets of its own, where ABUSE_TARGETS do not fit it. */
  targets?: Partial<Targets>;
}

/** uploadImport posts a file to the import page as the browser's form does. */
async function uploadImport(target: Target, file: Uint8Array, name: string): Promise<Answer> {
  const form = new FormData();
  form.append("file", new File([file], name));
  const response = await fetch(`${target.base}/import`, { method: "POST", body: form, redirect: "manual", headers: { cookie: target.cookie, origin: target.base, accept: "text/html" } });
  await response.arrayBuffer();
  return { status: response.status, note: `${(file.length / 1024 / 1024).toFixed(1)} MiB sent` };
}

/** A zip case: the file is made in setup and posted to the import page. */
const zipCase = (name: string, detail: string, make: () => Uint8Array, expected: number, targets?: Partial<Targets>): AbuseCase<Uint8Array> => ({
  name, detail, expected: [expected], targets,
  setup: async () => make(),
  send: (target, zip) => uploadImport(target, zip, "pocket.zip"),
});

/** api sends one API request with the token; its status and body (JSON when it is). */
async function api(target: Target, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; bytes: number }> {
  const response = await fetch(`${target.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return { status: response.status, body: parsed, bytes: Buffer.byteLength(text) };
}

/** sendBatch sends a batch's body, written beforehand (stringifying 3 MB here would hold this process's event loop, and the probes' clock). */
async function sendBatch(target: Target, body: string): Promise<Answer> {
  const response = await fetch(`${target.base}/api/v1/batch`, { method: "POST", headers: { authorization: `Bearer ${target.token}`, "content-type": "application/json" }, body });
  const answer = await response.json() as { code?: string; pointer?: string };
  return { status: response.status, note: answer.code };
}

/** must is an API request that has to answer `status`. */
async function must(target: Target, status: number, method: string, path: string, body?: unknown) {
  const answer = await api(target, method, path, body);
  if (answer.status !== status) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer.body;
}

/** collections creates `count` collections inside a new top-level one, in batches, and returns their ids. */
async function collections(target: Target, count: number): Promise<number[]> {
  const holder = (await must(target, 201, "POST", "/api/v1/collections", { name: "Holder", visibility: "PRIVATE" })).collection.id as number;
  const ids: number[] = [];
  for (let at = 0; at < count; at += 500) {
    const size = Math.min(500, count - at);
    const created = await must(target, 200, "POST", "/api/v1/batch", {
      operations: Array.from({ length: size }, (_, i) => ({ op: "createCollection", ref: `c${at + i}`, name: `Collection ${at + i}`, parent: { id: holder } })),
    });
    ids.push(...Array.from({ length: size }, (_, i) => created.refs[`c${at + i}`] as number));
  }
  return ids;
}

/** A URL of about 200 characters, different for each `i`. */
const longUrl = (i: number) => `https://site-${i % 97}.example/articles/${i}/${"a-rather-long-path-segment-".repeat(6)}${i}`;

/** createLinks creates `count` links in batches as large as allowed, each in `perLink` of `into` (taken in turn); returns their ids. */
async function createLinks(target: Target, count: number, into: number[], perLink: number): Promise<number[]> {
  const ids: number[] = [];
  // As many as one batch takes: 500 operations, 5,000 memberships.
  const most = Math.min(500, Math.floor(5000 / perLink));
  for (let at = 0; at < count; at += most) {
    const size = Math.min(most, count - at);
    const operations = Array.from({ length: size }, (_, i) => ({
      op: "createLink", ref: `l${at + i}`, name: `Link ${at + i} with a name of some length`, url: longUrl(at + i),
      collections: Array.from({ length: perLink }, (_, k) => ({ id: into[(at + i + k) % into.length]! })),
    }));
    const created = await must(target, 200, "POST", "/api/v1/batch", { operations });
    ids.push(...operations.map((operation) => created.refs[operation.ref] as number));
  }
  return ids;
}

/** The cases, in the order they run. */
export const ABUSE_CASES: AbuseCase[] = [
  zipCase("lying zip on the import page", "30 CSV parts stating 200 bytes, each 1 GiB of deflated spaces", () => lyingZip(30, 1024), 422),
  zipCase("zip entry lying at the cap on the import page",
    `one CSV part stating ${ZIP_LIMITS.entryBytes / 1024 / 1024} MiB (the most one entry may give), holding 1 GiB of deflated spaces: ${ZIP_LIMITS.entryBytes / 1024 / 1024} MiB of it inflated before the refusal`,
    () => lyingZip(1, 1024, ZIP_LIMITS.entryBytes), 422),
  zipCase("500 MiB zip entry on the import page", "one CSV part honestly stating and holding 500 MiB", () => honestZip(500), 422),
  // An accepted file is read, planned and held for its preview, as a plain file of that size is: the
  // Pocket import's budget of bench/import-services.ts (400 MiB), whose /healthz answers took up to ~300 ms.
  zipCase("zip at the caps on the import page",
    `the most a zip may give, accepted: two CSV parts of ${ZIP_LIMITS.entryBytes / 1024 / 1024} MiB, 48,000 items with long titles; previewed (303)`,
    zipAtTheCaps, 303, { peakMiB: 400, healthzP99Ms: 300 }),
  {
    name: "batch 500 createLink × 500 collections (refused)",
    detail: "250,000 memberships asked in one batch (3 MB)",
    setup: async (target) => {
      const ids = await collections(target, 500);
      const operations = Array.from({ length: 500 }, (_, i) => ({
        op: "createLink", ref: `l${i}`, name: `Link ${i}`, url: `https://abuse.example/${i}`, collections: ids.map((id) => ({ id })),
      }));
      return JSON.stringify({ operations });
    },
    send: (target, body: string) => sendBatch(target, body),
    expected: [422],
  },
  {
    name: "batch at the caps: 500 createLink, 5,000 memberships",
    detail: "500 links each in 10 of 100 collections, one transaction",
    setup: async (target) => {
      const ids = await collections(target, 100);
      const operations = Array.from({ length: 500 }, (_, i) => ({
        op: "createLink", ref: `l${i}`, name: `Link ${i} with a name of some length`, url: longUrl(i),
        collections: Array.from({ length: 10 }, (_, k) => ({ id: ids[(i + k * 10) % 100]! })),
      }));
      return JSON.stringify({ operations });
    },
    send: (target, body: string) => sendBatch(target, body),
    expected: [200],
  },
  {
    name: "GET /api/v1/collections, 100,000 memberships",
    detail: "1,000 links each in 100 collections, the answer built afresh after a write",
    setup: async (target) => {
      const ids = await collections(target, 100);
      // 1,000 links in 100 collections each (the most a link may be in): 20 batches at the caps.
      await createLinks(target, 1000, ids, 100);
    },
    send: async (target) => {
      // A write first: the answer is built afresh, not served from what was kept.
      await must(target, 201, "POST", "/api/v1/collections", { name: "Fresh", visibility: "PRIVATE" });
      // Counted, not parsed: parsing 76 MB here would hold this process's own event loop, and with it the probes' clock.
      const response = await fetch(`${target.base}/api/v1/collections`, { headers: { authorization: `Bearer ${target.token}` } });
      const bytes = (await response.arrayBuffer()).byteLength;
      return { status: response.status, note: `${(bytes / 1e6).toFixed(1)} MB` };
    },
    expected: [200],
  },
  {
    name: "restore a 10,000-link collection",
    detail: "a collection of 20 sub-collections holding 10,000 links, from the trash in one transaction",
    setup: async (target) => {
      const [root] = await collections(target, 1);
      const subs: number[] = [];
      for (let i = 0; i < 20; i++) subs.push((await must(target, 201, "POST", "/api/v1/collections", { name: `Sub ${i}`, visibility: "PRIVATE", parentId: root })).collection.id);
      await createLinks(target, 10_000, subs, 1);
      await must(target, 200, "DELETE", `/api/v1/collections/${root}?contents=1`);
      return root!;
    },
    send: async (target, root: number) => ({ status: (await api(target, "POST", "/api/v1/trash/restore", { collections: [root] })).status }),
    expected: [200],
  },
  {
    name: "empty a trash of 10,000 items",
    detail: "DELETE /api/v1/trash holding 10,000 links",
    setup: async (target) => {
      const [into] = await collections(target, 1);
      const ids = await createLinks(target, 10_000, [into!], 1);
      for (let at = 0; at < ids.length; at += 1000) await must(target, 200, "POST", "/api/v1/links/bulk", { ids: ids.slice(at, at + 1000), action: "delete" });
    },
    send: async (target) => {
      const answer = await api(target, "DELETE", "/api/v1/trash");
      return { status: answer.status, note: `${answer.body?.items} items` };
    },
    expected: [200],
  },
  {
    name: "GET /export?format=json, 2,500 pages of 10 KB",
    detail: "2,500 links each with 10 KB of saved text",
    setup: async (target) => {
      const [into] = await collections(target, 1);
      const ids = await createLinks(target, 2500, [into!], 1);
      const text = "Words of a saved page, repeated to make it long enough. ".repeat(180);
      for (const id of ids) await must(target, 200, "PUT", `/api/v1/links/${id}/content`, { text: `${id} ${text}` });
    },
    send: async (target) => {
      const response = await fetch(`${target.base}/export?format=json`, { headers: { cookie: target.cookie } });
      const bytes = (await response.arrayBuffer()).byteLength;
      return { status: response.status, note: `${(bytes / 1e6).toFixed(1)} MB` };
    },
    expected: [200],
  },
];

/** How often /healthz is asked, and how long one may take before it counts as unanswered. */
const PROBE_EVERY_MS = 10;
const PROBE_TIMEOUT_MS = 5000;

export interface AbuseFigure {
  name: string;
  detail: string;
  status: number;
  note?: string;
  /** The status is one the case expects. */
  answeredRight: boolean;
  /** From sending the request to its answer's end. */
  ms: number;
  healthz: { asked: number; failed: number; p50: number; p99: number; slowest: number };
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

/**
 * probe asks /healthz every PROBE_EVERY_MS whether or not the last one was answered, each timed from
 * when it was due; one without an answer within PROBE_TIMEOUT_MS fails. The function it returns stops it
 * and waits for every probe sent.
 */
function probe(base: string) {
  const waits: number[] = [];
  const asked: Promise<void>[] = [];
  let failed = 0;
  const timer = setInterval(() => {
    const due = performance.now();
    asked.push(fetch(`${base}/healthz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
      .then(async (response) => {
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`/healthz answered ${response.status}`);
        waits.push(performance.now() - due);
      })
      .catch(() => void failed++));
  }, PROBE_EVERY_MS);
  return async () => {
    clearInterval(timer);
    await Promise.all(asked);
    return { asked: asked.length, failed, p50: median(waits), p99: percentile(waits, 99), slowest: Math.max(0, ...waits) };
  };
}

/** signIn signs the bench user in through the form and returns the session cookie. */
async function signIn(base: string): Promise<string> {
  const response = await fetch(`${base}/login`, {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
    body: new URLSearchParams({ email: EMAIL, password: PASSWORD, next: "/" }),
  });
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (response.status !== 303 || !cookie) throw new Error(`signing in answered ${response.status}`);
  return cookie;
}

/** runCase measures one case on a fresh server and data directory. */
async function runCase(binary: string, abuse: AbuseCase): Promise<AbuseFigure> {
  const work = tempDir("abuse");
  const dataDir = join(work, "data");
  cli(binary, dataDir, ["user", "create", "--email", EMAIL, "--name", "Bench"], `${PASSWORD}\n`);
  const token = cli(binary, dataDir, ["token", "create", "--email", EMAIL]);
  // The limiter runs (its cost is counted) and never refuses; links deleted stay in the trash.
  const server = await start(serveCommand(binary, dataDir), { cwd: work, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT, LINKSHELF_TRASH_DAYS: "30" } });
  let exitCode: number | undefined;
  try {
    const idleMiB = rssMiB(server.process.pid);
    const target: Target = { base: server.base, token, cookie: await signIn(server.base) };
    const state = await abuse.setup(target);
    // Let the search index and the change feed catch up with the setup before measuring.
    await Bun.sleep(1500);
    const stopProbing = probe(server.base);
    await Bun.sleep(100);
    const began = performance.now();
    const answer = await abuse.send(target, state);
    const ms = performance.now() - began;
    // What follows the answer (the collector, the indexer, a purge) is the case's too.
    await Bun.sleep(500);
    const healthz = await stopProbing();
    const peakMiB = peakRssMiB(server.process.pid);
    exitCode = await stop(server);
    return {
      name: abuse.name, detail: abuse.detail, status: answer.status, note: answer.note, answeredRight: abuse.expected.includes(answer.status),
      ms, healthz, idleMiB, peakMiB, exitCode, targets: { ...ABUSE_TARGETS, ...abuse.targets },
    };
  } finally {
    if (exitCode === undefined) await stop(server);
  }
}

/** withinTargets: answered as it should be, every probe answered, p99 and peak RSS within their targets, and a clean stop on SIGTERM. */
export const withinTargets = (figure: AbuseFigure) =>
  figure.answeredRight && figure.healthz.failed === 0 && figure.healthz.p99 <= figure.targets.healthzP99Ms && figure.peakMiB < figure.targets.peakMiB && figure.exitCode === 0;

/** benchAbuse runs every case (or those whose name contains `only`) against the compiled linkshelf `binary`, one after another. */
export async function benchAbuse(binary: string, only?: string): Promise<AbuseFigure[]> {
  const figures: AbuseFigure[] = [];
  for (const abuse of ABUSE_CASES) {
    if (only !== undefined && !abuse.name.includes(only)) continue;
    console.error(`  abuse: ${abuse.name} ...`);
    figures.push(await runCase(binary, abuse));
  }
  return figures;
}

/** abuseRows are the rows `npm run bench` prints for the figures, with `status` deciding ok / MISS. */
export function abuseRows<S extends string>(figures: AbuseFigure[], status: (met: boolean) => S): [S, string, string, string, string][] {
  return figures.map((figure): [S, string, string, string, string] => [
    status(withinTargets(figure)), `abuse: ${figure.name}, /healthz p99 / peak RSS`,
    `${figure.detail}: ${figure.status}${figure.note ? ` (${figure.note})` : ""} in ${figure.ms.toFixed(0)} ms; /healthz ${figure.healthz.asked} asked, ${figure.healthz.failed} failed, ` +
      `p50 ${figure.healthz.p50.toFixed(1)} ms, slowest ${figure.healthz.slowest.toFixed(0)} ms; idle ${figure.idleMiB.toFixed(0)} MiB; SIGTERM exit ${figure.exitCode}`,
    `${figure.healthz.p99.toFixed(1)} ms / ${figure.peakMiB.toFixed(0)} MiB`, `≤ ${figure.targets.healthzP99Ms} ms / < ${figure.targets.peakMiB} MiB`,
  ]);
}

if (import.meta.main) {
  const args = process.argv;
  const binary = args.includes("--binary") ? args[args.indexOf("--binary") + 1]! : await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));
  const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
  const figures = await benchAbuse(binary, only);
  for (const row of abuseRows(figures, (met) => (met ? "ok" : "MISS"))) console.log(row.join("  "));
  if (!figures.every(withinTargets)) process.exitCode = 1;
}
