/**
 * Builds dist/release/: the executable for every platform linkshelf ships to, both browser
 * extension zips, and SHA256SUMS (`sha256sum -c SHA256SUMS` checks them). `bun release.ts [outdir]`.
 * The executables are compiled exactly as build.ts compiles dist/linkshelf, each for its target.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { buildExtension } from "./extension/build";
import { buildExecutable } from "./build";

const ROOT = import.meta.dir;
export const VERSION: string = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

/**
 * The platforms, named as their files are. x64 builds use Bun's baseline runtime, which needs no
 * AVX2: many home-server CPUs (Celeron/Pentium J and N series before 2023, older Atoms) lack it.
 */
export const PLATFORMS: { name: string; target: Bun.Build.CompileTarget; suffix?: string }[] = [
  { name: "linux-x64", target: "bun-linux-x64-baseline" },
  { name: "linux-arm64", target: "bun-linux-arm64" },
  { name: "darwin-arm64", target: "bun-darwin-arm64" },
  { name: "darwin-x64", target: "bun-darwin-x64-baseline" },
  { name: "windows-x64", target: "bun-windows-x64-baseline", suffix: ".exe" },
];

/** releaseFiles lists what a release holds, SHA256SUMS last. */
export function releaseFiles(version = VERSION): string[] {
  return [
    ...PLATFORMS.map((platform) => `linkshelf-${version}-${platform.name}${platform.suffix ?? ""}`),
    `linkshelf-${version}-extension-chromium.zip`,
    `linkshelf-${version}-extension-firefox.zip`,
    "SHA256SUMS",
  ];
}

/** What a release is built from (the lock file names every dependency's version); a change to any makes an earlier release stale. */
const INPUTS = ["src", "drizzle", "extension/src", "extension/static", "extension/build.ts", "build.ts", "release.ts", "package.json", "package-lock.json"];

/** sourceStamp hashes every input file (path and bytes) and the Bun version that compiles them. */
export function sourceStamp(): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(Bun.version);
  for (const input of INPUTS) {
    const path = join(ROOT, input);
    let files: string[];
    try {
      files = statSync(path).isDirectory()
        ? readdirSync(path, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name)).sort()
        : [path];
    } catch {
      continue;
    }
    for (const file of files) {
      hasher.update(`${relative(ROOT, file)}\0`);
      hasher.update(readFileSync(file));
    }
  }
  return hasher.digest("hex");
}

/**
 * buildRelease writes a release into `outdir` (emptied first) and returns the files' paths,
 * SHA256SUMS last. `<outdir>.stamp` records the sourceStamp it was built from, so the release
 * test builds again only when something changed.
 */
export async function buildRelease(outdir: string): Promise<string[]> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const files: string[] = [];
  for (const platform of PLATFORMS) {
    const file = join(outdir, `linkshelf-${VERSION}-${platform.name}${platform.suffix ?? ""}`);
    await buildExecutable(file, { target: platform.target, release: true });
    files.push(file);
  }
  const extension = join(outdir, ".extension");
  for (const zip of await buildExtension(extension)) {
    const target = basename(zip).includes("firefox") ? "firefox" : "chromium";
    const file = join(outdir, `linkshelf-${VERSION}-extension-${target}.zip`);
    copyFileSync(zip, file);
    files.push(file);
  }
  rmSync(extension, { recursive: true, force: true });
  const sums = files.map((file) => `${new Bun.CryptoHasher("sha256").update(readFileSync(file)).digest("hex")}  ${basename(file)}\n`);
  const sumsFile = join(outdir, "SHA256SUMS");
  writeFileSync(sumsFile, sums.join(""));
  files.push(sumsFile);
  writeFileSync(`${outdir}.stamp`, sourceStamp());
  return files;
}

if (import.meta.main) {
  const outdir = process.argv[2] ?? join(ROOT, "dist", "release");
  const started = performance.now();
  for (const file of await buildRelease(outdir)) {
    const bytes = statSync(file).size;
    console.log(`${relative(process.cwd(), file)}\t${bytes < 2 ** 20 ? `${(bytes / 2 ** 10).toFixed(1)} KiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`}`);
  }
  console.log(`release ${VERSION} built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
