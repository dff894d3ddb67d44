import { dirname } from "node:path";
import pkg from "../../package.json" with { type: "json" };

/** What build.ts writes into a compiled executable: the version it reports. Absent when the source runs. */
declare const LINKSHELF_BUILD_VERSION: string | undefined;

/**
 * The version `--version` prints. A release (`npm run release`) reports package.json's version; any
 * other build, and the source run as it is, report `<version>+<commit>` (`0.2.0+1a2b3c4d5e6f`), so
 * that a bug report tells a release from a development build.
 */
export function buildVersion(): string {
  return typeof LINKSHELF_BUILD_VERSION === "string" ? LINKSHELF_BUILD_VERSION : developmentVersion();
}

/** developmentVersion is `<version>+<commit>` of the checkout this file is in (`+unknown` outside git). */
export function developmentVersion(): string {
  let commit = "unknown";
  try {
    const git = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: dirname(import.meta.path), stdout: "pipe", stderr: "ignore" });
    if (git.exitCode === 0) commit = git.stdout.toString().trim();
  } catch {
    // No git on this machine.
  }
  return `${pkg.version}+${commit}`;
}
