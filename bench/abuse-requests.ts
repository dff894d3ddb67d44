/**
 * The abuse cases of requests (bench/abuse.ts has those of files): single requests any signed-in user or token holder may send, each as large as
 * the limits let it be (or larger, to see it refused), against a compiled linkshelf. Each case
 * gets a fresh server and data dir, builds what it needs (not measured), then sends its request(s)
 * while `GET /healthz` is asked every 10 ms (each timed from when it was due); the case prints its
 * p99 (and slowest) wait and the server's peak RSS (VmHWM: its whole life, the setup included)
 * against the targets: p99 ≤ 100 ms, RSS < 300 MiB. The probes' clock is this process's: a case
 * writes its large bodies in its setup and never parses a large answer. `bun bench/abuse.ts` runs them alone
 * (`--binary PATH` measures another build, `--only NAME` one case).
 */
import { join } from "node:path";
import { cli, median, NO_REFUSAL_RATE_LIMIT, peakRssMiB, ROOT, serveCommand, start, stop, tempDir, type Started } from "./lib";

const EMAIL = "bench@example.test";
const PASSWORD = "bench password";
export const ABUSE_TARGETS = { healthzP99Ms: 100, peakRssMiB: 300 } as const;

/** What a case is given: the server, a token of its user, and the session cookie of the same user (for the pages). */
interface Context {
  base: string;
  token: string;
  cookie: string;
}

/** One abuse case: `setup` builds its data (not measured); `run` sends the request(s) measured and says what was answered. */
export interface AbuseCase {
  name: string;
  setup(context: Context): Promise<Record<string, unknown>>;
  run(context: Context, state: Record<string, unknown>): Promise<string>;
}

export interface AbuseFigure {
  name: string;
  /** What the measured requests were answered, in a few words. */
  answer: string;
  /** Time of the measured requests, ms. */
  runMs: number;
  healthz: { p50: number; p99: number; slowest: number; count: number };
  peakRssMiB: number;
  ok: boolean;
}

/** api sends one API request with the token; its status and body (JSON when it is). */
async function api(context: Context, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; bytes: number }> {
  const response = await fetch(`${context.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${context.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
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
async function sendBatch(context: Context, body: string): Promise<{ status: number; code: string }> {
  const response = await fetch(`${context.base}/api/v1/batch`, { method: "POST", headers: { authorization: `Bearer ${context.token}`, "content-type": "application/json" }, body });
  const answer = await response.json() as { code?: string };
  return { status: response.status, code: answer.code ?? "" };
}

/** must is an API request that has to answer `status`. */
async function must(context: Context, status: number, method: string, path: string, body?: unknown) {
  const answer = await api(context, method, path, body);
  if (answer.status !== status) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer.body;
}

/** collections creates `count` collections inside a new top-level one, in batches, and returns their ids. */
async function collections(context: Context, count: number): Promise<number[]> {
  const holder = (await must(context, 201, "POST", "/api/v1/collections", { name: "Holder", visibility: "PRIVATE" })).collection.id as number;
  const ids: number[] = [];
  for (let at = 0; at < count; at += 500) {
    const size = Math.min(500, count - at);
    const created = await must(context, 200, "POST", "/api/v1/batch", {
      operations: Array.from({ length: size }, (_, i) => ({ op: "createCollection", ref: `c${at + i}`, name: `Collection ${at + i}`, parent: { id: holder } })),
    });
    ids.push(...Array.from({ length: size }, (_, i) => created.refs[`c${at + i}`] as number));
  }
  return ids;
}

/** A URL of about 200 characters, different for each `i`. */
const longUrl = (i: number) => `https://site-${i % 97}.example/articles/${i}/${"a-rather-long-path-segment-".repeat(6)}${i}`;

/** createLinks creates `count` links in batches as large as allowed, each in `perLink` of `into` (taken in turn); returns their ids. */
async function createLinks(context: Context, count: number, into: number[], perLink: number): Promise<number[]> {
  const ids: number[] = [];
  // As many as one batch takes: 500 operations, 5,000 memberships.
  const most = Math.min(500, Math.floor(5000 / perLink));
  for (let at = 0; at < count; at += most) {
    const size = Math.min(most, count - at);
    const operations = Array.from({ length: size }, (_, i) => ({
      op: "createLink", ref: `l${at + i}`, name: `Link ${at + i} with a name of some length`, url: longUrl(at + i),
      collections: Array.from({ length: perLink }, (_, k) => ({ id: into[(at + i + k) % into.length]! })),
    }));
    const created = await must(context, 200, "POST", "/api/v1/batch", { operations });
    ids.push(...operations.map((operation) => created.refs[operation.ref] as number));
  }
  return ids;
}

/** The cases, in the order they run. */
export const ABUSE_CASES: AbuseCase[] = [
  {
    name: "batch 500 createLink × 500 collections (refused)",
    setup: async (context) => {
      const ids = await collections(context, 500);
      const operations = Array.from({ length: 500 }, (_, i) => ({
        op: "createLink", ref: `l${i}`, name: `Link ${i}`, url: `https://abuse.example/${i}`, collections: ids.map((id) => ({ id })),
      }));
      return { body: JSON.stringify({ operations }) };
    },
    run: async (context, { body }) => {
      const answer = await sendBatch(context, body as string);
      return `${answer.status} ${answer.code}`;
    },
  },
  {
    name: "batch at the caps: 500 createLink, 5,000 memberships",
    setup: async (context) => {
      const ids = await collections(context, 100);
      const operations = Array.from({ length: 500 }, (_, i) => ({
        op: "createLink", ref: `l${i}`, name: `Link ${i} with a name of some length`, url: longUrl(i),
        collections: Array.from({ length: 10 }, (_, k) => ({ id: ids[(i + k * 10) % 100]! })),
      }));
      return { body: JSON.stringify({ operations }) };
    },
    run: async (context, { body }) => String((await sendBatch(context, body as string)).status),
  },
  {
    name: "GET /api/v1/collections, 100,000 memberships",
    setup: async (context) => {
      const ids = await collections(context, 100);
      // 1,000 links in 100 collections each (the most a link may be in): 20 batches at the caps.
      await createLinks(context, 1000, ids, 100);
      return {};
    },
    run: async (context) => {
      // A write first: the answer is built afresh, not served from what was kept.
      await must(context, 201, "POST", "/api/v1/collections", { name: "Fresh", visibility: "PRIVATE" });
      // Counted, not parsed: parsing 76 MB here would hold this process's own event loop, and with it the probes' clock.
      const response = await fetch(`${context.base}/api/v1/collections`, { headers: { authorization: `Bearer ${context.token}` } });
      const bytes = (await response.arrayBuffer()).byteLength;
      return `${response.status}, ${(bytes / 1e6).toFixed(1)} MB`;
    },
  },
  {
    name: "restore a 10,000-link collection",
    setup: async (context) => {
      const [root] = await collections(context, 1);
      const subs: number[] = [];
      for (let i = 0; i < 20; i++) subs.push((await must(context, 201, "POST", "/api/v1/collections", { name: `Sub ${i}`, visibility: "PRIVATE", parentId: root })).collection.id);
      await createLinks(context, 10_000, subs, 1);
      await must(context, 200, "DELETE", `/api/v1/collections/${root}?contents=1`);
      return { root };
    },
    run: async (context, { root }) => String((await api(context, "POST", "/api/v1/trash/restore", { collections: [root] })).status),
  },
  {
    name: "empty a trash of 10,000 items",
    setup: async (context) => {
      const [into] = await collections(context, 1);
      const ids = await createLinks(context, 10_000, [into!], 1);
      for (let at = 0; at < ids.length; at += 1000) await must(context, 200, "POST", "/api/v1/links/bulk", { ids: ids.slice(at, at + 1000), action: "delete" });
      return {};
    },
    run: async (context) => {
      const answer = await api(context, "DELETE", "/api/v1/trash");
      return `${answer.status}, ${answer.body?.items} items`;
    },
  },
  {
    name: "GET /export?format=json, 2,500 pages of 10 KB",
    setup: async (context) => {
      const [into] = await collections(context, 1);
      const ids = await createLinks(context, 2500, [into!], 1);
      const text = "Words of a saved page, repeated to make it long enough. ".repeat(180);
      for (const id of ids) await must(context, 200, "PUT", `/api/v1/links/${id}/content`, { text: `${id} ${text}` });
      return {};
    },
    run: async (context) => {
      const response = await fetch(`${context.base}/export?format=json`, { headers: { cookie: context.cookie } });
      const bytes = (await response.arrayBuffer()).byteLength;
      return `${response.status}, ${(bytes / 1e6).toFixed(1)} MB`;
    },
  },
];

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** signIn signs the bench user in through the form and returns the session cookie. */
async function signIn(base: string): Promise<string> {
  const response = await fetch(`${base}/login`, {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
    body: new URLSearchParams({ email: EMAIL, password: PASSWORD, next: "/" }),
  });
  const cookie = response.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error(`signing in failed: ${response.status}`);
  return cookie;
}

/** runCase measures one case on a fresh server. */
async function runCase(binary: string, abuse: AbuseCase): Promise<AbuseFigure> {
  const dataDir = join(tempDir("abuse"), "data");
  cli(binary, dataDir, ["user", "create", "--email", EMAIL, "--name", "Bench"], `${PASSWORD}\n`);
  const token = cli(binary, dataDir, ["token", "create", "--email", EMAIL]);
  const server: Started = await start(serveCommand(binary, dataDir), { env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT, LINKSHELF_TRASH_DAYS: "30" } });
  try {
    const context: Context = { base: server.base, token, cookie: await signIn(server.base) };
    const state = await abuse.setup(context);
    // Let the search index and the change feed catch up with the setup before measuring.
    await Bun.sleep(1500);
    // /healthz is asked every 10 ms whether or not the last one was answered, each timed from when
    // it was due: a server that holds its event loop for a second makes every probe of that second wait.
    const waits: number[] = [];
    const asked: Promise<void>[] = [];
    const timer = setInterval(() => {
      const due = performance.now();
      asked.push(fetch(`${server.base}/healthz`).then((response) => response.arrayBuffer()).then(() => void waits.push(performance.now() - due)));
    }, 10);
    await Bun.sleep(100);
    const began = performance.now();
    const answer = await abuse.run(context, state);
    const runMs = performance.now() - began;
    // What follows the request (the indexer, a purge) is measured as well, for a moment.
    await Bun.sleep(500);
    clearInterval(timer);
    await Promise.all(asked);
    const peak = peakRssMiB(server.process.pid);
    const healthz = { p50: median(waits), p99: percentile(waits, 99), slowest: Math.max(...waits), count: waits.length };
    return { name: abuse.name, answer, runMs, healthz, peakRssMiB: peak, ok: healthz.p99 <= ABUSE_TARGETS.healthzP99Ms && peak < ABUSE_TARGETS.peakRssMiB };
  } finally {
    await stop(server);
  }
}

/** benchAbuse runs every case (or those named in `only`) against a compiled linkshelf. */
export async function benchRequestAbuse(binary: string, only?: string): Promise<AbuseFigure[]> {
  const figures: AbuseFigure[] = [];
  for (const abuse of ABUSE_CASES) {
    if (only !== undefined && !abuse.name.includes(only)) continue;
    console.error(`  abuse: ${abuse.name} ...`);
    figures.push(await runCase(binary, abuse));
  }
  return figures;
}

/** abuseLine is one case as the bench prints it. */
export const abuseLine = (figure: AbuseFigure) =>
  `${(figure.ok ? "ok" : "MISS").padEnd(5)} abuse: ${figure.name.padEnd(52)} ${`${figure.answer} in ${figure.runMs.toFixed(0)} ms`.padEnd(28)}` +
  ` /healthz p99 ${figure.healthz.p99.toFixed(0)} ms (slowest ${figure.healthz.slowest.toFixed(0)}, ${figure.healthz.count} asked), peak RSS ${figure.peakRssMiB.toFixed(0)} MiB` +
  `  target ≤ ${ABUSE_TARGETS.healthzP99Ms} ms, < ${ABUSE_TARGETS.peakRssMiB} MiB`;

if (import.meta.main) {
  const { compile } = await import("./lib");
  const args = process.argv;
  const binary = args.includes("--binary") ? args[args.indexOf("--binary") + 1]! : await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));
  const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
  for (const figure of await benchRequestAbuse(binary, only)) console.log(abuseLine(figure));
}
