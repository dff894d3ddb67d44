/**
 * Where tests (and the benchmarks) put files. Temporary folders live in the system temporary
 * directory and are removed at the end of the test run (bunfig.toml preloads this file for that)
 * or, outside `bun test`, when the process exits. Files meant to be looked at afterwards
 * (screenshots) go to the git-ignored `test/.artifacts/`.
 */
import { afterAll } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The git-ignored folder for what a test run leaves to be looked at. */
export const ARTIFACTS = join(import.meta.dir, "..", ".artifacts");

const made = new Set<string>();

function removeAll(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}

try {
  // Preloaded, this hook runs once after every test file of the run.
  afterAll(removeAll);
} catch {
  // Imported by a benchmark script, outside `bun test`.
  process.once("exit", removeAll);
}

/** testDir creates a new empty folder `linkshelf-<name>-XXXXXX` in the system temporary directory, removed at the end. */
export function testDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `linkshelf-${name}-`));
  made.add(dir);
  return dir;
}

/** artifactDir empties (or creates) `test/.artifacts/<name>/` and returns it; it stays after the run. */
export function artifactDir(name: string): string {
  const dir = join(ARTIFACTS, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}
