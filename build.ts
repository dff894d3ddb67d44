/**
 * Builds dist/linkshelf: one executable with the migrations inlined (see
 * src/db/migrations.macro.ts), minified and with bytecode for a faster start.
 * `bun build.ts [outfile] [entry]` (the benchmarks compile their baselines the same way).
 */
const outfile = process.argv[2] ?? "dist/linkshelf";
const entry = process.argv[3] ?? new URL("./src/main.ts", import.meta.url).pathname;

const result = await Bun.build({
  entrypoints: [entry],
  compile: { outfile },
  target: "bun",
  format: "esm",
  minify: true,
  bytecode: true,
  sourcemap: "none",
  // Without this Bun bakes NODE_ENV=development into the bundle.
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
});

if (!result.success) {
  for (const message of result.logs) console.error(message);
  process.exit(1);
}
console.log(`built ${outfile}`);
