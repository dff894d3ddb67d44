/**
 * Builds dist/linkshelf: one executable with the migrations inlined (see
 * src/db/migrations.macro.ts), minified and with bytecode for a faster start.
 * `bun build.ts [outfile] [entry]` (the benchmarks compile their baselines the same way);
 * release.ts calls buildExecutable for every platform it ships.
 */
import pkg from "./package.json" with { type: "json" };
import { developmentVersion } from "./src/common/version";

const MAIN = new URL("./src/main.ts", import.meta.url).pathname;
/** The search worker's thread (src/server.ts starts it as `./search/worker.ts` beside main.ts): a second entry point of the executable. */
const SEARCH_WORKER = new URL("./src/search/worker.ts", import.meta.url).pathname;
/** The restore worker's thread (src/server.ts starts it as `./shelf/restore-worker.ts` beside main.ts): a third entry point. */
const RESTORE_WORKER = new URL("./src/shelf/restore-worker.ts", import.meta.url).pathname;

export interface BuildOptions {
  /** The entry point, src/main.ts unless given. */
  entry?: string;
  /** Another platform's executable (`bun-linux-arm64`, ...); this machine's when absent. */
  target?: Bun.Build.CompileTarget;
  /** A release reports package.json's version; any other build `<version>+<commit>`. */
  release?: boolean;
}

/** buildExecutable compiles `entry` into the single executable `outfile`; throws with bun's messages when it fails. */
export async function buildExecutable(outfile: string, { entry = MAIN, target, release = false }: BuildOptions = {}): Promise<string> {
  const result = await Bun.build({
    entrypoints: entry === MAIN ? [entry, SEARCH_WORKER, RESTORE_WORKER] : [entry],
    compile: target ? { outfile, target } : { outfile },
    target: "bun",
    format: "esm",
    minify: true,
    bytecode: true,
    sourcemap: "none",
    // Without this Bun bakes NODE_ENV=development into the bundle.
    define: { "process.env.NODE_ENV": JSON.stringify("production"), LINKSHELF_BUILD_VERSION: JSON.stringify(release ? pkg.version : developmentVersion()) },
  });
  if (!result.success) throw new AggregateError(result.logs, `building ${outfile} failed:\n${result.logs.join("\n")}`);
  return outfile;
}

if (import.meta.main) {
  const outfile = process.argv[2] ?? "dist/linkshelf";
  try {
    await buildExecutable(outfile, { entry: process.argv[3] });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  console.log(`built ${outfile}`);
}
