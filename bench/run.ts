/**
 * `npm run bench`: builds dist/linkshelf and prints the contract's performance figures
 * (CONTRACT section 10) measured in this run on this machine, and writes them to
 * bench/results.json.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { compile, ROOT } from "./lib";
import { benchRedirect } from "./redirect";

const binary = await compile(join(ROOT, "src", "main.ts"), join(ROOT, "dist", "linkshelf"));

const redirect = await benchRedirect(binary);
const rows = [
  ["GET /l/:id ÷ bare Bun.serve 302", `${redirect.linkshelfRps.toFixed(0)} / ${redirect.bareRps.toFixed(0)} req/s`, redirect.ratio.toFixed(2), `≥ ${redirect.target}`, redirect.ratio >= redirect.target],
  ["clicks stored = 302s served", `${redirect.clicksStored} / ${redirect.redirectsServed}`, "", "equal", redirect.clicksMatch],
] as const;

console.log("\nlinkshelf benchmarks (one run, this machine, loopback)\n");
for (const [name, detail, ratio, target, ok] of rows) {
  console.log(`${ok ? "ok  " : "MISS"}  ${name.padEnd(36)} ${detail.padEnd(28)} ${ratio.padStart(5)}  target ${target}`);
}
writeFileSync(join(ROOT, "bench", "results.json"), JSON.stringify({ measuredAt: new Date().toISOString(), redirect }, null, 2) + "\n");
console.log("\nwritten to bench/results.json");
if (rows.some((row) => !row[4])) process.exitCode = 1;
