/**
 * `bun bench/capture.ts`: the two ways of reading a saved page's text, side by side on the
 * capture test pages (an article among navigation and ads, a Japanese page, a windows-1252
 * page, a 2 MiB page): Readability over linkedom, and the one-pass htmlparser2 extractor.
 * For each: the median time of an extraction in this process, and the peak memory of one
 * extraction in a fresh process (its maxRSS after the extraction minus before it).
 */
import { extractWithReadability } from "./capture-readability";
import { extractReadable } from "../src/capture/extract";
import { ARTICLE_DROPS, ARTICLE_HTML, ARTICLE_KEEPS, bigPage, CJK_HTML, latin1Page } from "../test/support/capture.fixtures";
import { readFileSync, writeFileSync } from "node:fs";
import { median } from "./lib";

const statusKiB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(readFileSync("/proc/self/status", "utf8"))?.[1]);

const PAGES: Record<string, () => Uint8Array> = {
  article: () => new TextEncoder().encode(ARTICLE_HTML),
  cjk: () => new TextEncoder().encode(CJK_HTML),
  "windows-1252": () => latin1Page("charset"),
  "2 MiB": () => new TextEncoder().encode(bigPage(2 * 1024 * 1024)),
};
const ENGINES = {
  readability: (bytes: Uint8Array) => extractWithReadability(bytes, "https://example.com/page"),
  htmlparser2: (bytes: Uint8Array) => extractReadable(bytes),
};
type Engine = keyof typeof ENGINES;

const [mode, engineName, pageName] = process.argv.slice(2);
if (mode === "--one") {
  // Child: one extraction, its peak memory.
  const bytes = PAGES[pageName!]!();
  Bun.gc(true);
  // Writing 5 to clear_refs resets the peak (VmHWM) to the current resident size.
  writeFileSync("/proc/self/clear_refs", "5");
  const before = statusKiB("VmRSS");
  ENGINES[engineName as Engine](bytes);
  console.log(JSON.stringify({ peakKiB: statusKiB("VmHWM") - before }));
} else {
  const rows: string[] = [];
  for (const [page, make] of Object.entries(PAGES)) {
    const bytes = make();
    for (const engine of Object.keys(ENGINES) as Engine[]) {
      const runs: number[] = [];
      let result = ENGINES[engine](bytes);
      for (let i = 0; i < (bytes.length > 1e6 ? 5 : 30); i++) {
        const started = performance.now();
        result = ENGINES[engine](bytes);
        runs.push(performance.now() - started);
      }
      const child = Bun.spawnSync([process.execPath, import.meta.path, "--one", engine, page]);
      const { peakKiB } = JSON.parse(child.stdout.toString()) as { peakKiB: number };
      const text = result?.text ?? "";
      const quality = page === "article" || page === "2 MiB"
        ? `keeps ${ARTICLE_KEEPS.filter((s) => text.includes(s)).length}/${ARTICLE_KEEPS.length}, drops ${ARTICLE_DROPS.filter((s) => !text.includes(s)).length}/${ARTICLE_DROPS.length}`
          + (page === "2 MiB" ? `, link lists ${text.includes("More coverage") ? "kept" : "dropped"}` : "")
        : `title "${result?.title}"`;
      rows.push(`${page.padEnd(13)} ${engine.padEnd(12)} ${median(runs).toFixed(2).padStart(8)} ms ${(peakKiB / 1024).toFixed(1).padStart(7)} MiB peak  ${String(text.length).padStart(8)} chars  ${quality}`);
    }
  }
  console.log(rows.join("\n"));
}
