/**
 * `npm run soak`: builds dist/linkshelf, runs it on 127.0.0.1 and drives a
 * mixed load at it for a set time (`--seconds N` or `SOAK_SECONDS`, default 60): link creates,
 * updates, deletes, collection renames, collection list and favorites reads, clicks (by token,
 * by session and anonymous), `/favicon` placeholders, requests with invalid tokens from ever new
 * client addresses, and sign-ins that create sessions. It prints RSS and the `-wal` size as it
 * goes, then answers by status, p50/p99 latency, and a verdict on memory.
 *
 * Exit 1 when any answer is a 5xx, a request fails or gets a status its kind never gets, the
 * median RSS of the last third of the run is more than 32 MiB above that of the middle third
 * (memory growing without bound), the WAL passes 64 MiB (never checkpointed), or the server
 * does not stop with exit 0 on SIGTERM.
 *
 * Nothing outside 127.0.0.1 is contacted: favicon URLs name private addresses, which the proxy
 * refuses locally (no DNS, no connection) and answers with its placeholder.
 */
import { existsSync, rmSync, statSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { cli, compile, median, ROOT, rssMiB, serveCommand, tempDir } from "./lib";
import { NO_OUTBOUND } from "../test/support/binary";

/**
 * The limiter stays on, with windows longer than the run and a limit no key reaches: every
 * request is counted, nothing legitimate is refused, and no window expires, so the ever new
 * client addresses pile up against the 100,000-key bound instead of being swept.
 */
const RATE_LIMIT = "1000000/3600";
const MAX_RATE_LIMIT_KEYS = 100_000;
/** Distinct client addresses sent before measuring, so the limiter is at its bound from the start. */
const WARM_UP_ADDRESSES = 110_000;
const USERS = 3;
const WORKERS_PER_USER = 4;
const ANONYMOUS_WORKERS = 4;
/** Links each API worker keeps (it deletes when it has more, creates when it has fewer): the data stays the same size. */
const POOL = 40;
const PASSWORD = "soak password";
/** An address that only ever fails to sign in: after 10 failures the form answers 429. */
const THROTTLED_ADDRESS = "192.0.2.66";
/**
 * How much the median RSS may rise from the middle third of the run to the last third. A fixed
 * amount, not a share: a per-request leak also leaks during the 110,000-request warm-up, which
 * inflates the baseline so much that a percentage could never catch it. GC alone moved the
 * medians by up to 17 MiB in runs here.
 */
const GROWTH_LIMIT_MIB = 32;
const WAL_LIMIT_BYTES = 64 * 2 ** 20;

function parseSeconds(): number {
  const flag = process.argv.indexOf("--seconds");
  const raw = flag >= 0 ? process.argv[flag + 1] : process.env.SOAK_SECONDS;
  const seconds = raw === undefined ? 60 : Number(raw);
  if (!Number.isFinite(seconds) || seconds < 3) {
    console.error(`soak: --seconds / SOAK_SECONDS must be a number of at least 3, not ${raw}`);
    process.exit(2);
  }
  return seconds;
}

/** Latencies in buckets 2 % wide (1 µs to minutes), so an hour-long soak needs no more memory than a minute. */
class Histogram {
  private static readonly STEP = Math.log(1.02);
  private readonly buckets = new Float64Array(1200);
  count = 0;

  add(ms: number): void {
    const index = Math.min(this.buckets.length - 1, Math.max(0, Math.ceil(Math.log(Math.max(ms * 1000, 1)) / Histogram.STEP)));
    this.buckets[index]!++;
    this.count++;
  }

  /** percentile returns the upper bound (ms) of the bucket holding the p-th fraction. */
  percentile(p: number): number {
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i]!;
      if (seen >= p * this.count) return Math.exp(i * Histogram.STEP) / 1000;
    }
    return Number.NaN;
  }
}

interface KindStats {
  expected: number[];
  statuses: Map<number, number>;
  failures: Map<string, number>;
  latency: Histogram;
}

const stats = new Map<string, KindStats>();
/** Every request of the measured run (the warm-up's are only in their own kinds). */
const run = new Histogram();
let fiveHundreds = 0;
let unexpected = 0;
let failed = 0;

function kind(name: string, expected: number[]): KindStats {
  let entry = stats.get(name);
  if (!entry) stats.set(name, (entry = { expected, statuses: new Map(), failures: new Map(), latency: new Histogram() }));
  return entry;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** call sends one request, times it to the end of its body, and counts it under its kind. */
async function call(name: string, expected: number[], url: string, init: RequestInit = {}): Promise<Answer | undefined> {
  const entry = kind(name, expected);
  const began = performance.now();
  try {
    const response = await fetch(url, { ...init, redirect: "manual" });
    const text = await response.text();
    const ms = performance.now() - began;
    entry.latency.add(ms);
    if (!name.startsWith("warm-up")) run.add(ms);
    entry.statuses.set(response.status, (entry.statuses.get(response.status) ?? 0) + 1);
    if (response.status >= 500) fiveHundreds++;
    if (!expected.includes(response.status)) unexpected++;
    return { status: response.status, headers: response.headers, text };
  } catch (error) {
    const message = error instanceof Error ? error.message.slice(0, 60) : String(error);
    entry.failures.set(message, (entry.failures.get(message) ?? 0) + 1);
    failed++;
    return undefined;
  }
}

let addressCounter = 0;
/** nextAddress is a client address never used before (10.0.0.0/8 has 16 million). */
function nextAddress(): string {
  const n = ++addressCounter;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

// ---------------------------------------------------------------------------------------

const seconds = parseSeconds();
const binary = await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));
const work = tempDir("soak");
const dataDir = join(work, "data");
const walPath = join(dataDir, "linkshelf.db-wal");
const walBytes = () => (existsSync(walPath) ? statSync(walPath).size : 0);

const users = Array.from({ length: USERS }, (_, i) => {
  const email = `soak${i + 1}@example.test`;
  cli(binary, dataDir, ["user", "create", "--email", email, "--name", `Soak ${i + 1}`], `${PASSWORD}\n`);
  return { email, token: cli(binary, dataDir, ["token", "create", "--email", email]) };
});

const server = Bun.spawn(serveCommand(binary, dataDir), {
  cwd: work,
  env: { ...process.env, ...NO_OUTBOUND, LINKSHELF_RATE_LIMIT: RATE_LIMIT, LINKSHELF_TRUST_PROXY: "1" },
  stdin: "ignore",
  stdout: "ignore",
  stderr: "pipe",
});
/** The server's log, drained all along (a full pipe would stall it); its tail is shown when something failed. */
let serverLog = "";
const base = await new Promise<string>((resolve, reject) => {
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of server.stderr) {
      serverLog = (serverLog + decoder.decode(chunk, { stream: true })).slice(-20_000);
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serverLog);
      if (match) resolve(match[1]!);
    }
    reject(new Error(`linkshelf exited before listening:\n${serverLog}`));
  })();
});
const rssAtStart = rssMiB(server.pid);

const json = (token: string, method: string, body?: unknown): RequestInit => ({
  method,
  headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
  body: body === undefined ? undefined : JSON.stringify(body),
});
const faviconUrl = () => `${base}/favicon?url=${encodeURIComponent(`http://10.${Math.floor(Math.random() * 256)}.0.1/page`)}`;

// ---------------------------------------------------------------------------------------
// Warm-up: each user's collections and links, then the limiter filled to its bound.

const warmUpBegan = performance.now();
interface UserSetup {
  token: string;
  email: string;
  collectionIds: number[];
  publicLink: number;
  privateLink: number;
}
const setups: UserSetup[] = [];
for (const user of users) {
  const created = async (path: string, body: unknown, key: "collection" | "link") => {
    const answer = await call(`warm-up ${key}`, [201], `${base}${path}`, json(user.token, "POST", body));
    if (answer?.status !== 201) throw new Error(`warm-up POST ${path}: ${answer?.status} ${answer?.text}`);
    return (JSON.parse(answer.text) as Record<string, { id: number }>)[key]!.id;
  };
  const shared = await created("/api/v1/collections", { name: "Shared", visibility: "PUBLIC", icon: "📚" }, "collection");
  const own = await created("/api/v1/collections", { name: "Own", visibility: "PRIVATE" }, "collection");
  const publicLink = await created("/api/v1/links", { name: "Public", url: "https://example.com/public", favorite: true, collectionIds: [shared] }, "link");
  const privateLink = await created("/api/v1/links", { name: "Private", url: "https://example.com/private", favorite: false, collectionIds: [own] }, "link");
  setups.push({ ...user, collectionIds: [shared, own], publicLink, privateLink });
}

/** runConcurrently runs `loops` copies of `step` until `more()` says stop. */
const runConcurrently = (loops: number, more: () => boolean, step: () => Promise<unknown>) =>
  Promise.all(Array.from({ length: loops }, async () => {
    while (more()) await step();
  }));

await runConcurrently(32, () => addressCounter < WARM_UP_ADDRESSES, () =>
  call("warm-up invalid token", [401], `${base}/api/v1/collections`, {
    headers: { Authorization: "Bearer lks_not-a-real-token", "X-Forwarded-For": nextAddress() },
  }));
const warmUpSeconds = (performance.now() - warmUpBegan) / 1000;
const rssAfterWarmUp = rssMiB(server.pid);

// ---------------------------------------------------------------------------------------
// The measured run.

const began = performance.now();
const end = began + seconds * 1000;
const running = () => performance.now() < end;
const samples: { t: number; rss: number; wal: number }[] = [];
let walMax = 0;
let lastPrinted = 0;
let requestsAtLastPrint = 0;
const printEvery = Math.max(5, Math.round(seconds / 12));
const total = () => run.count;

console.error(`\nsoak: ${seconds} s of mixed load on ${base} (dist/linkshelf pid ${server.pid}, ${cpus().length} cores), ` +
  `LINKSHELF_RATE_LIMIT=${RATE_LIMIT} LINKSHELF_TRUST_PROXY=1`);
console.error(`warm-up: ${WARM_UP_ADDRESSES.toLocaleString("en")} invalid-token requests from as many addresses in ${warmUpSeconds.toFixed(1)} s; ` +
  `RSS ${rssAtStart.toFixed(1)} MiB at start, ${rssAfterWarmUp.toFixed(1)} MiB after warm-up\n`);
console.error("     t   RSS MiB   WAL KiB   requests    req/s   5xx");
const sampler = setInterval(() => {
  const t = (performance.now() - began) / 1000;
  const sample = { t, rss: rssMiB(server.pid), wal: walBytes() };
  samples.push(sample);
  walMax = Math.max(walMax, sample.wal);
  if (t - lastPrinted >= printEvery - 0.25) {
    const rate = (total() - requestsAtLastPrint) / (t - lastPrinted);
    console.error(`${t.toFixed(0).padStart(5)}s ${sample.rss.toFixed(1).padStart(9)} ${(sample.wal / 1024).toFixed(0).padStart(9)} ` +
      `${String(total()).padStart(10)} ${rate.toFixed(0).padStart(8)} ${String(fiveHundreds).padStart(5)}`);
    lastPrinted = t;
    requestsAtLastPrint = total();
  }
}, 250);

/** One API client of a user: keeps a pool of its own links and mixes writes, reads and clicks. */
async function apiWorker(setup: UserSetup, worker: number) {
  const pool: number[] = [];
  let serial = 0;
  const linkBody = () => ({
    name: `Soak ${worker}.${++serial}`,
    url: `https://example.com/${worker}/${serial}`,
    description: serial % 2 ? "" : `note ${serial}`,
    favorite: serial % 3 === 0,
    collectionIds: setup.collectionIds.filter(() => Math.random() < 0.5),
  });
  while (running()) {
    const roll = Math.random();
    if (roll < 0.2 && pool.length < POOL) {
      const answer = await call("POST /api/v1/links", [201], `${base}/api/v1/links`, json(setup.token, "POST", linkBody()));
      if (answer?.status === 201) pool.push((JSON.parse(answer.text) as { link: { id: number } }).link.id);
    } else if (roll < 0.2) {
      const id = pool.splice(Math.floor(Math.random() * pool.length), 1)[0]!;
      await call("DELETE /api/v1/links/:id", [200], `${base}/api/v1/links/${id}`, json(setup.token, "DELETE"));
    } else if (roll < 0.35 && pool.length) {
      await call("PUT /api/v1/links/:id", [200], `${base}/api/v1/links/${pick(pool)}`, json(setup.token, "PUT", linkBody()));
    } else if (roll < 0.5) {
      await call("GET /api/v1/collections", [200], `${base}/api/v1/collections`, json(setup.token, "GET"));
    } else if (roll < 0.55) {
      await call("GET /api/v1/links/favorites", [200], `${base}/api/v1/links/favorites`, json(setup.token, "GET"));
    } else if (roll < 0.57) {
      await call("PUT /api/v1/collections/:id", [200], `${base}/api/v1/collections/${setup.collectionIds[1]}`,
        json(setup.token, "PUT", { name: `Own ${worker}.${++serial}`, visibility: "PRIVATE" }));
    } else if (roll < 0.87) {
      await call("GET /l/:id (token)", [302], `${base}/l/${pool.length ? pick(pool) : setup.privateLink}`, json(setup.token, "GET"));
    } else {
      await call("GET /favicon (token)", [200], faviconUrl(), json(setup.token, "GET"));
    }
  }
}

/** A client without credentials (or with an invalid token) from a new address each time: it grows the limiter's keys. */
async function anonymousWorker() {
  while (running()) {
    const headers = { "X-Forwarded-For": nextAddress() };
    const roll = Math.random();
    if (roll < 0.4) {
      await call("GET /api/v1/collections (invalid token)", [401], `${base}/api/v1/collections`,
        { headers: { ...headers, Authorization: "Bearer lks_not-a-real-token" } });
    } else if (roll < 0.7) {
      await call("GET /l/:id (anonymous, public)", [302], `${base}/l/${pick(setups).publicLink}`, { headers });
    } else {
      await call("GET /favicon (anonymous)", [200], faviconUrl(), { headers });
    }
  }
}

/** Signs in (a new session each time, argon2 verification included), then uses the session; now and then a failed sign-in from one address. */
async function sessionWorker() {
  for (let round = 0; running(); round++) {
    const setup = setups[round % setups.length]!;
    if (round % 4 === 3) {
      await call("POST /login (wrong password)", [401, 429], `${base}/login`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": THROTTLED_ADDRESS },
        body: new URLSearchParams({ email: setup.email, password: "not the password", next: "/" }),
      });
      continue;
    }
    const signedIn = await call("POST /login", [303], `${base}/login`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": nextAddress() },
      body: new URLSearchParams({ email: setup.email, password: PASSWORD, next: "/" }),
    });
    const cookie = signedIn?.headers.get("set-cookie")?.split(";")[0];
    if (!cookie) continue;
    await call("GET /l/:id (session, private)", [302], `${base}/l/${setup.privateLink}`, { headers: { Cookie: cookie } });
    await call("GET / (session)", [200], `${base}/`, { headers: { Cookie: cookie } });
  }
}

await Promise.all([
  ...setups.flatMap((setup) => Array.from({ length: WORKERS_PER_USER }, (_, w) => apiWorker(setup, w))),
  ...Array.from({ length: ANONYMOUS_WORKERS }, anonymousWorker),
  sessionWorker(),
]);
clearInterval(sampler);
const elapsed = (performance.now() - began) / 1000;
const rssAtEnd = rssMiB(server.pid);
const walAtEnd = walBytes();

server.kill("SIGTERM");
const exitCode = await server.exited;
const walAfterStop = walBytes();
rmSync(work, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------
// Report.

const third = seconds / 3;
const middle = median(samples.filter((s) => s.t >= third && s.t < 2 * third).map((s) => s.rss));
const last = median(samples.filter((s) => s.t >= 2 * third).map((s) => s.rss));
const growth = last - middle;
const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;

console.error(`\n${"kind".padEnd(42)} ${"count".padStart(8)}  ${"p50".padStart(9)} ${"p99".padStart(9)}  statuses`);
for (const [name, entry] of [...stats].sort(([a], [b]) => a.localeCompare(b))) {
  const statuses = [...entry.statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`);
  const failures = [...entry.failures].map(([message, count]) => `failed×${count} (${message})`);
  console.error(`${name.padEnd(42)} ${String(entry.latency.count).padStart(8)}  ${ms(entry.latency.percentile(0.5)).padStart(9)} ` +
    `${ms(entry.latency.percentile(0.99)).padStart(9)}  ${[...statuses, ...failures].join(" ")}`);
}
console.error(`${"all of the run".padEnd(42)} ${String(run.count).padStart(8)}  ${ms(run.percentile(0.5)).padStart(9)} ${ms(run.percentile(0.99)).padStart(9)}  ` +
  `${(run.count / elapsed).toFixed(0)} req/s`);

const checks: [boolean, string][] = [
  [fiveHundreds === 0, `5xx answers: ${fiveHundreds}`],
  [failed === 0, `requests without an answer: ${failed}`],
  [unexpected === 0, `answers with a status their kind never gets: ${unexpected}`],
  [growth <= GROWTH_LIMIT_MIB,
    `RSS: ${rssAtStart.toFixed(1)} MiB at start, ${rssAfterWarmUp.toFixed(1)} after warm-up, median ${middle.toFixed(1)} in the middle third, ` +
    `${last.toFixed(1)} in the last third (${growth >= 0 ? "+" : ""}${growth.toFixed(1)} MiB, limit +${GROWTH_LIMIT_MIB} MiB), ` +
    `max ${Math.max(...samples.map((s) => s.rss)).toFixed(1)}, ${rssAtEnd.toFixed(1)} at the end`],
  [walMax <= WAL_LIMIT_BYTES, `WAL: at most ${(walMax / 1024).toFixed(0)} KiB during the run, ${(walAtEnd / 1024).toFixed(0)} KiB at the end, ` +
    `${walAfterStop} bytes after the server stopped (limit ${WAL_LIMIT_BYTES / 2 ** 20} MiB)`],
  [exitCode === 0, `server exit code after SIGTERM: ${exitCode}`],
];
console.error(`\nclient addresses used: ${addressCounter.toLocaleString("en")} (the limiter keeps at most ${MAX_RATE_LIMIT_KEYS.toLocaleString("en")} keys)`);
for (const [ok, line] of checks) console.error(`${ok ? "ok  " : "FAIL"} ${line}`);
const passed = checks.every(([ok]) => ok);
if (!passed) console.error(`\nlast lines of the server's log:\n${serverLog.split("\n").slice(-20).join("\n")}`);
console.error(passed ? "\nsoak: passed" : "\nsoak: FAILED");
process.exit(passed ? 0 : 1);
