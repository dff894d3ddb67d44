/**
 * The search benchmark: 100,000 links with ~3 KB of page text each (deterministic
 * pseudo-English), served by dist/linkshelf; p50/p99 of one-word, two-word, phrase and miss
 * queries through `GET /api/v1/search`, one request at a time, on a copy of the library given
 * the use of a shelf in service (addUse); the rate of a burst of
 * `PUT /api/v1/links/:id/content`; the database's size against the raw text; RSS while serving.
 *
 * Building the library takes a while, so the database is kept under bench/.cache, named by the
 * generator's version and size: change GENERATOR_VERSION whenever the generator or the index changes.
 */
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, closeDatabase, type Db } from "../src/db/client";
import { DatabaseRefused } from "../src/db/schema-check";
import { indexPendingLinks } from "../src/fulltext/index-text";
import { unpackText } from "../src/fulltext/text-store";
import { writeLink } from "../src/shelf/links";
import { Shelf } from "../src/shelf/shelf";
import { createUser } from "../src/users/service";
import { cli, createBenchUser, indexCatchUp, median, NO_REFUSAL_RATE_LIMIT, pinned, ROOT, rssMiB, serveCommand, start, stop, tempDir, timedLoad, type Generator } from "./lib";

const GENERATOR_VERSION = 3;
const LINKS = 100_000;
const TEXT_BYTES = 3000;
const BENCH_EMAIL = "bench@example.test";

/** mulberry32: a small, fast, seeded generator, so every build writes the same library. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ["ka", "lo", "mi", "ne", "ra", "tu", "sel", "ver", "an", "dor", "pe", "qui", "ston", "bri", "gal", "mon", "ter", "ash",
  "el", "fin", "gro", "hal", "ix", "jor", "lun", "mar", "nor", "ost", "pra", "rin", "sul", "tra", "und", "val", "wen", "yor", "zel"];

/** The pseudo-English of the library: 20,000 words drawn with Zipf's law (the most common word is rank 1). */
class Language {
  readonly words: string[] = [];
  private readonly cumulative: Float64Array;

  constructor(readonly next: () => number) {
    const seen = new Set<string>();
    while (this.words.length < 20_000) {
      const length = 1 + Math.floor(next() * 4);
      let word = "";
      for (let i = 0; i < length; i++) word += SYLLABLES[Math.floor(next() * SYLLABLES.length)];
      if (!seen.has(word)) {
        seen.add(word);
        this.words.push(word);
      }
    }
    this.cumulative = new Float64Array(this.words.length);
    let total = 0;
    for (let rank = 0; rank < this.words.length; rank++) this.cumulative[rank] = total += 1 / (rank + 1);
    for (let rank = 0; rank < this.words.length; rank++) this.cumulative[rank]! /= total;
  }

  word(): string {
    const x = this.next();
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.cumulative[mid]! < x) low = mid + 1;
      else high = mid;
    }
    return this.words[low]!;
  }

  sentence(words: number): string {
    const parts: string[] = [];
    for (let i = 0; i < words; i++) parts.push(this.word());
    const first = parts[0]!;
    parts[0] = first[0]!.toUpperCase() + first.slice(1);
    return `${parts.join(" ")}.`;
  }

  text(bytes: number): string {
    const sentences: string[] = [];
    let length = 0;
    while (length < bytes) {
      const sentence = this.sentence(6 + Math.floor(this.next() * 14));
      sentences.push(sentence);
      length += sentence.length + 1;
    }
    return sentences.join(" ");
  }
}

/** commonestWords is the `count` most common words of the library's language, most common first. */
export const commonestWords = (count: number): string[] => new Language(random(20261125)).words.slice(0, count);

export interface SearchLibrary {
  path: string;
  links: number;
  rawTextBytes: number;
  /** Links indexed per second while the library was built in-process (one shelf write and one content save per link), when it was built in this run. */
  buildRate: number | null;
  /**
   * Query words of the library: common (rank 100: in ~28 % of the links), middling (rank 2,000),
   * rare (rank 15,000), a phrase of the two most common words after the first ten (the worst case:
   * both in most links), a phrase of two less common words as they occur in one link, a miss.
   */
  words: { common: string; middling: string; rare: string; phrase: string; typicalPhrase: string; miss: string };
}

/**
 * openCached opens the kept library, upgraded to the current migrations; undefined (and the file
 * removed, to be built again) when linkshelf refuses it: one built by code whose migrations differ.
 */
function openCached(path: string): Db | undefined {
  try {
    return openDatabase(path);
  } catch (error) {
    if (!(error instanceof DatabaseRefused)) throw error;
    console.error(`  search library: ${error.message}; building it again`);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
    return undefined;
  }
}

/** buildLibrary writes (or finds in bench/.cache) the library of the benchmark. */
export async function buildLibrary(options = { countText: true }): Promise<SearchLibrary> {
  const language = new Language(random(20261125));
  const phraseSource = new Language(random(7)).words;
  const rank = new Map(language.words.map((word, i) => [word, i]));
  const words = {
    common: language.words[99]!, middling: language.words[1999]!, rare: language.words[14_999]!,
    phrase: `${language.words[9]} ${language.words[10]}`, typicalPhrase: "", miss: `${phraseSource[0]}qzx`,
  };
  /** typicalPhrase: the first two adjacent words, both of rank 500 or more, in the text of link 50,000. */
  const typicalPhrase = (path: string) => {
    const db = openDatabase(path);
    const row = db.$client.query<{ text_zstd: Uint8Array }, []>("SELECT text_zstd FROM link_contents WHERE link_id = 50000").all()[0]!;
    closeDatabase(db);
    const seen = unpackText(row.text_zstd).toLowerCase().split(/[^a-z]+/);
    for (let i = 0; i + 1 < seen.length; i++) {
      if ((rank.get(seen[i]!) ?? 0) >= 500 && (rank.get(seen[i + 1]!) ?? 0) >= 500) return `${seen[i]} ${seen[i + 1]}`;
    }
    throw new Error("no typical phrase in link 50,000");
  };
  const cacheDir = join(ROOT, "bench", ".cache");
  mkdirSync(cacheDir, { recursive: true });
  const path = join(cacheDir, `search-v${GENERATOR_VERSION}-${LINKS}.db`);
  const cached = existsSync(path) ? openCached(path) : undefined;
  if (cached) {
    const db = cached;
    let raw = 0;
    if (options.countText) {
      for (const row of db.$client.query<{ text_zstd: Uint8Array }, []>("SELECT text_zstd FROM link_contents").iterate()) raw += Buffer.byteLength(unpackText(row.text_zstd));
    }
    closeDatabase(db);
    return { path, links: LINKS, rawTextBytes: raw, buildRate: null, words: { ...words, typicalPhrase: typicalPhrase(path) } };
  }
  const building = `${path}.building`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(building + suffix, { force: true });
  const db = openDatabase(building);
  const user = await createUser(db, { email: BENCH_EMAIL, name: "Bench", password: "bench password" }, Date.now());
  const shelf = new Shelf(db, user);
  let raw = 0;
  const began = performance.now();
  const now = Date.parse("2026-11-01T00:00:00.000Z");
  for (let done = 0; done < LINKS; done += 1000) {
    db.transaction(() => {
      for (let i = done; i < done + 1000; i++) {
        const link = writeLink(shelf, {
          name: language.sentence(3 + (i % 5)).slice(0, -1), url: `https://site${i % 997}.example/${language.word()}/${language.word()}-${i}`,
          description: i % 2 ? language.sentence(8) : "", favorite: i % 50 === 0,
        }, now + i);
        const text = language.text(TEXT_BYTES);
        raw += Buffer.byteLength(text);
        shelf.links.setContent(link.id, { text, title: language.sentence(5) }, i % 3 ? "browser" : "server", now + i);
      }
    }, { behavior: "immediate" });
    if (done % 10_000 === 0) console.error(`  search library: ${done} links ...`);
  }
  // Indexed here, as the server would in the background: the library is searched fully indexed.
  indexPendingLinks(db);
  const buildRate = LINKS / ((performance.now() - began) / 1000);
  closeDatabase(db);
  renameSync(building, path);
  return { path, links: LINKS, rawTextBytes: raw, buildRate, words: { ...words, typicalPhrase: typicalPhrase(path) } };
}

/**
 * addUse gives a copy of the library the use of a shelf in service: a link in three clicked, up
 * to 500 times (most a few times), last clicked within the 90 days before `now`. Deterministic.
 */
export function addUse(path: string, now: number): void {
  const db = new Database(path, { strict: true });
  db.run(`UPDATE links SET clicks = 1 + (id * 7919 % 997) * (id * 7919 % 997) / 1988,
    last_clicked_at = ? - (id * 104729 % 7776000000) WHERE id % 3 = 0`, [now]);
  db.close();
}

/** The queries timed, by kind, from the library's words. */
export const queryKinds = (words: SearchLibrary["words"]) => ({
  oneWordCommon: words.common, oneWordMiddling: words.middling, oneWordRare: words.rare,
  twoWords: `${words.middling} ${words.common}`, phrase: `"${words.typicalPhrase}"`, phraseOfCommonWords: `"${words.phrase}"`, miss: words.miss,
});

export interface Latency {
  p50: number;
  p99: number;
  hits: number;
}

export interface SearchFigure {
  links: number;
  rawTextBytes: number;
  dbBytes: number;
  sizeRatio: number;
  sizeTarget: number;
  queries: Record<"oneWordCommon" | "oneWordMiddling" | "oneWordRare" | "twoWords" | "phrase" | "phraseOfCommonWords" | "miss", Latency & { q: string }>;
  p50Target: number;
  p99Target: number;
  putContentPerSecond: number;
  /** How long the search index took to take the burst's last pages, in seconds (counted in the rate). */
  putIndexCatchUpSeconds: number;
  putGenerator: Generator;
  putTarget: number;
  buildRate: number | null;
  rssWhileServingMiB: number;
  rssTarget: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/**
 * benchPutContent: `PUT /api/v1/links/:id/content` (~3 KB of text each, 256 different pages)
 * from 16 connections to a fresh dist/linkshelf for `seconds` (`timedLoad`: wrk when installed),
 * each to a link that has no content yet; pages saved and indexed per second: the burst's time
 * runs until the search index, built in the background, has taken every page (indexCatchUp).
 */
export async function benchPutContent(binary: string, options = { links: 16_000, seconds: 4, connections: 16 }): Promise<{ perSecond: number; indexCatchUpSeconds: number; generator: Generator }> {
  const work = tempDir("search-put");
  const dataDir = join(work, "data");
  const token = createBenchUser(binary, dataDir);
  const app = await start(pinned(serveCommand(binary, dataDir), 0), { cwd: work, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT } });
  try {
    const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const ids: number[] = [];
    await Promise.all(Array.from({ length: options.connections }, async (_, client) => {
      for (let i = client; i < options.links; i += options.connections) {
        const response = await fetch(`${app.base}/api/v1/links`, { method: "POST", headers, body: JSON.stringify({ name: `Page ${i}`, url: `https://example.com/${i}`, favorite: false }) });
        ids.push(((await response.json()) as { link: { id: number } }).link.id);
      }
    }));
    const language = new Language(random(99));
    const bodies = Array.from({ length: 256 }, () => JSON.stringify({ text: language.text(TEXT_BYTES), title: language.sentence(5) }));
    const run = await timedLoad(`${app.base}/api/v1/links/${ids[0]}/content`, options.seconds, options.connections, {
      method: "PUT", headers, cycle: { paths: ids.map((id) => `/api/v1/links/${id}/content`), bodies },
    });
    if (run.refused > 0 || run.errors > 0) throw new Error(`PUT content: ${run.refused} answers that were not 200, ${run.errors} errors`);
    if (run.answered > ids.length) throw new Error(`PUT content: ${run.answered} pages saved to ${ids.length} links; give the burst more links`);
    const behind = await indexCatchUp(join(dataDir, "linkshelf.db"));
    return { perSecond: run.answered / (run.answered / run.requestsPerSecond + behind), indexCatchUpSeconds: behind, generator: run.generator };
  } finally {
    await stop(app);
  }
}

/** benchSearch runs the whole search benchmark against a compiled linkshelf. */
export async function benchSearch(binary: string, options = { requests: 300 }): Promise<SearchFigure> {
  const { perSecond: putContentPerSecond, indexCatchUpSeconds: putIndexCatchUpSeconds, generator: putGenerator } = await benchPutContent(binary);
  const library = await buildLibrary();
  const work = tempDir("search");
  const dataDir = join(work, "data");
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = join(dataDir, "linkshelf.db");
  copyFileSync(library.path, db);
  const dbBytes = statSync(db).size;
  addUse(db, Date.now());
  const token = cli(binary, dataDir, ["token", "create", "--email", BENCH_EMAIL]);
  const app = await start(serveCommand(binary, dataDir), { cwd: work, env: { LINKSHELF_RATE_LIMIT: NO_REFUSAL_RATE_LIMIT } });
  let rss = 0;
  const queries = {} as SearchFigure["queries"];
  try {
    const headers = { Authorization: `Bearer ${token}` };
    const time = async (q: string) => {
      const began = performance.now();
      const response = await fetch(`${app.base}/api/v1/search?q=${encodeURIComponent(q)}`, { headers });
      const body = (await response.json()) as { hits: unknown[] };
      if (response.status !== 200) throw new Error(`search ${q}: ${response.status}`);
      return { ms: performance.now() - began, hits: body.hits.length };
    };
    const kinds = queryKinds(library.words);
    for (const q of Object.values(kinds)) for (let i = 0; i < 10; i++) await time(q);
    for (const [kind, q] of Object.entries(kinds) as [keyof typeof kinds, string][]) {
      const runs: number[] = [];
      let hits = 0;
      for (let i = 0; i < options.requests; i++) {
        const run = await time(q);
        runs.push(run.ms);
        hits = run.hits;
        if (i % 50 === 0) rss = Math.max(rss, rssMiB(app.process.pid));
      }
      queries[kind] = { q, p50: median(runs), p99: percentile(runs, 99), hits };
    }
    rss = Math.max(rss, rssMiB(app.process.pid));
  } finally {
    await stop(app);
  }
  return {
    links: library.links, rawTextBytes: library.rawTextBytes, dbBytes, sizeRatio: dbBytes / library.rawTextBytes, sizeTarget: 1.6,
    queries, p50Target: 5, p99Target: 25, putContentPerSecond, putIndexCatchUpSeconds, putGenerator, putTarget: 2000, buildRate: library.buildRate,
    rssWhileServingMiB: rss, rssTarget: 150,
  };
}

if (import.meta.main) {
  const { compile } = await import("./lib");
  // `--binary PATH`: time another build (an earlier version, for a before/after comparison).
  const at = process.argv.indexOf("--binary");
  const binary = at > 0 ? process.argv[at + 1]! : await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));
  console.log(JSON.stringify(await benchSearch(binary), null, 2));
}
