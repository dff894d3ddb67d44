/**
 * The search benchmark in-process: the shelf's search function timed directly (no HTTP) on a
 * copy of the cached 100,000-link library of bench/search.ts, with use added to the copy (a
 * link in three clicked, up to 500 times, last clicked within 90 days), so the ranking blends
 * relevance and use as it does on a used shelf. `bun bench/search-inprocess.ts [runs]` prints
 * p50/p99 per query kind (as bench/search.ts names them) and the median CPU time; `--ranking FILE` writes instead every
 * query's ranking (ids and scores of its first pages, with and without filters) to FILE, so two
 * versions of the search can be compared for identical results.
 */
import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../src/db/client";
import { findUserById } from "../src/users/service";
import { tempDir } from "./lib";
import { addUse, buildLibrary, queryKinds } from "./search";

const args = process.argv.slice(2);
// `--module PATH`: another version of src/shelf/search.ts to run (one kept aside for comparison).
const { searchLinks } = (await import(args.includes("--module") ? args[args.indexOf("--module") + 1]! : "../src/shelf/search")) as typeof import("../src/shelf/search");
const rankingFile = args.includes("--ranking") ? args[args.indexOf("--ranking") + 1]! : undefined;
const runs = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 200);
const library = await buildLibrary({ countText: false });
const path = join(tempDir("search-inprocess"), "linkshelf.db");
copyFileSync(library.path, path);
const now = Date.parse("2026-11-20T00:00:00.000Z");
addUse(path, now);
const db = openDatabase(path);
// `--pragma "mmap_size = N"` and the like: a setting to measure against the server's.
if (args.includes("--pragma")) db.$client.run(`PRAGMA ${args[args.indexOf("--pragma") + 1]!}`);
const owner = { db, user: findUserById(db, 1)! };
const kinds = queryKinds(library.words);

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

if (rankingFile) {
  const ranking: Record<string, [number, number][]> = {};
  const collection = db.$client.query<{ id: number }, []>("SELECT id FROM collections WHERE user_id = 1 ORDER BY id LIMIT 1").all()[0]!.id;
  const queries = [...Object.values(kinds), `${library.words.common} -${library.words.middling}`, `${library.words.common.slice(0, 4)}*`];
  for (const q of queries) {
    for (const [name, filters] of [["", {}], [" favorite", { favorite: true }], [" collection", { collectionId: collection }]] as const) {
      for (const limit of [20, 100]) {
        const seen: [number, number][] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 8; page++) {
          const result = searchLinks(owner, { q, limit, cursor, ...filters }, now);
          for (const hit of result.hits) seen.push([hit.link.id, hit.score]);
          if (!result.nextCursor) break;
          cursor = result.nextCursor;
        }
        ranking[`${q}${name} limit ${limit}`] = seen;
      }
    }
  }
  writeFileSync(rankingFile, JSON.stringify(ranking));
  console.log(`${Object.keys(ranking).length} rankings, ${Object.values(ranking).reduce((n, hits) => n + hits.length, 0)} hits written to ${rankingFile}`);
} else {
  // Wall-clock p50/p99, and the median CPU time of the process (less moved by other work on a shared machine).
  const out: Record<string, { q: string; p50: number; p99: number; cpuP50: number; hits: number }> = {};
  for (const [kind, q] of Object.entries(kinds)) {
    for (let i = 0; i < 5; i++) searchLinks(owner, { q }, now);
    const times: number[] = [];
    const cpu: number[] = [];
    let hits = 0;
    for (let i = 0; i < runs; i++) {
      const began = performance.now();
      const used = process.cpuUsage();
      hits = searchLinks(owner, { q }, now).hits.length;
      const { user, system } = process.cpuUsage(used);
      times.push(performance.now() - began);
      cpu.push((user + system) / 1000);
    }
    out[kind] = { q, p50: +percentile(times, 50).toFixed(2), p99: +percentile(times, 99).toFixed(2), cpuP50: +percentile(cpu, 50).toFixed(2), hits };
  }
  console.log(JSON.stringify(out));
}
closeDatabase(db);
for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
