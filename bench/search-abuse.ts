/**
 * The abuse case of search: while 4 clients send the costliest searches the server accepts
 * (4 two-letter prefixes, as many of the commonest words as fit, both together, a phrase of the
 * two commonest words) as fast as they are answered, on the 100,000-link library of
 * bench/search.ts, one more client asks `GET /healthz` and `GET /l/:id` one after the other; their
 * p50/p99 are printed beside the same with no search running. Also each costly search alone,
 * and how many searches were answered 200 or refused 422 QUERY_TOO_BROAD. `bun bench/search-abuse.ts`
 * runs it alone (`--binary PATH` times another build, `--seconds N`).
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { cli, median, NO_REFUSAL_RATE_LIMIT, ROOT, serveCommand, start, stop, tempDir } from "./lib";
import { addUse, buildLibrary, commonestWords } from "./search";

const BENCH_EMAIL = "bench@example.test";

/** The costliest searches the server takes: as broad as its limits let them be (at most 200 characters, 32 terms, 4 prefixes). */
export function costlySearches(phrase: string): Record<string, string> {
  const prefixes = "ka* lo* mi* ne*";
  const fill = (start: string) => {
    let q = start;
    for (const word of commonestWords(40)) {
      const next = q === "" ? word : `${q} ${word}`;
      if (next.length > 200 || next.split(" ").length > 32) break;
      q = next;
    }
    return q;
  };
  return { prefixes, commonWords: fill(""), prefixesAndCommonWords: fill(prefixes), commonPhrase: `"${phrase}"` };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

export interface Latencies {
  p50: number;
  p99: number;
  count: number;
}

const latencies = (values: number[]): Latencies => ({ p50: median(values), p99: percentile(values, 99), count: values.length });

export interface SearchAbuseFigure {
  clients: number;
  seconds: number;
  /** Each costly search alone: its query, status and time. */
  alone: Record<string, { q: string; status: number; ms: number }>;
  idle: { healthz: Latencies; redirect: Latencies };
  underLoad: { healthz: Latencies; redirect: Latencies };
  searches: { answered: number; refused: number; other: number };
  target: number;
}

/** benchSearchAbuse runs the abuse case against a compiled linkshelf. */
export async function benchSearchAbuse(binary: string, options = { clients: 4, seconds: 10 }): Promise<SearchAbuseFigure> {
  const library = await buildLibrary({ countText: false });
  const work = tempDir("search-abuse");
  const dataDir = join(work, "data");
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  copyFileSync(library.path, join(dataDir, "linkshelf.db"));
  addUse(join(dataDir, "linkshelf.db"), Date.now());
  const token = cli(binary, dataDir, ["token", "create", "--email", BENCH_EMAIL]);
  const app = await start(serveCommand(binary, dataDir), { cwd: work, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT } });
  const headers = { Authorization: `Bearer ${token}` };
  const queries = costlySearches(library.words.phrase);
  try {
    const ask = async (q: string) => {
      const response = await fetch(`${app.base}/api/v1/search?q=${encodeURIComponent(q)}`, { headers });
      await response.arrayBuffer();
      return response.status;
    };
    // Warm the server (and the page cache) with each search, then time each alone.
    for (const q of Object.values(queries)) await ask(q);
    const alone: SearchAbuseFigure["alone"] = {};
    for (const [kind, q] of Object.entries(queries)) {
      const began = performance.now();
      const status = await ask(q);
      alone[kind] = { q, status, ms: performance.now() - began };
    }

    /** probe asks /healthz and /l/1 one after the other until `until`, timing each. */
    const probe = async (until: number) => {
      const healthz: number[] = [];
      const redirect: number[] = [];
      while (performance.now() < until) {
        let began = performance.now();
        await (await fetch(`${app.base}/healthz`)).arrayBuffer();
        healthz.push(performance.now() - began);
        began = performance.now();
        await (await fetch(`${app.base}/l/1`, { headers, redirect: "manual" })).arrayBuffer();
        redirect.push(performance.now() - began);
        await Bun.sleep(5);
      }
      return { healthz: latencies(healthz), redirect: latencies(redirect) };
    };
    const idle = await probe(performance.now() + 3000);

    const searches = { answered: 0, refused: 0, other: 0 };
    const until = performance.now() + options.seconds * 1000;
    const kinds = Object.values(queries);
    const clients = Array.from({ length: options.clients }, async (_, client) => {
      for (let i = client; performance.now() < until; i++) {
        const status = await ask(kinds[i % kinds.length]!);
        if (status === 200) searches.answered++;
        else if (status === 422) searches.refused++;
        else searches.other++;
      }
    });
    // The probe starts once the searches are under way.
    await Bun.sleep(200);
    const underLoad = await probe(until);
    await Promise.all(clients);
    return { clients: options.clients, seconds: options.seconds, alone, idle, underLoad, searches, target: 100 };
  } finally {
    await stop(app);
  }
}

if (import.meta.main) {
  const { compile } = await import("./lib");
  const args = process.argv;
  const binary = args.includes("--binary") ? args[args.indexOf("--binary") + 1]! : await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));
  const seconds = args.includes("--seconds") ? Number(args[args.indexOf("--seconds") + 1]) : 10;
  console.log(JSON.stringify(await benchSearchAbuse(binary, { clients: 4, seconds }), null, 2));
}
