import { describe, expect, it } from "bun:test";
import { cpSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./binary";
import { testDir } from "./dirs";

/**
 * The extension compiles the API's shapes from src/api/types.ts; the server's TypeBox schemas
 * assert, beside each schema, that their types are exactly those. These tests run the real
 * TypeScript compiler (a devDependency) on the repository and on copies of it with one shape
 * changed on one side only.
 */

const TSC = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
/** tsc takes a few seconds per run here, far over bun:test's default of 5. */
const TSC_TIMEOUT = 120_000;

/** typecheck runs `tsc --noEmit -p project` in `cwd`: its exit code and what it printed (paths relative to `cwd`). */
function typecheck(cwd: string, project: string): { exitCode: number; output: string } {
  const run = Bun.spawnSync([process.execPath, TSC, "--noEmit", "--pretty", "false", "-p", project], { cwd, stdout: "pipe", stderr: "pipe" });
  return { exitCode: run.exitCode, output: run.stdout.toString() + run.stderr.toString() };
}

/** copyTree copies what the two typechecks read (sources, configs, package.json) into a new folder, node_modules linked. */
function copyTree(name: string): string {
  const dir = testDir(name);
  for (const path of ["src", "extension/src", "extension/tsconfig.json", "tsconfig.json", "package.json"]) {
    cpSync(join(REPO_ROOT, path), join(dir, path), { recursive: true });
  }
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/**
 * rename changes the first `from` after `block` (a declaration's opening line) in a copied file,
 * failing when either is missing, so a reworded declaration fails here rather than passing unchanged.
 */
function rename(dir: string, file: string, block: string, from: string, to: string): void {
  const path = join(dir, file);
  const text = readFileSync(path, "utf8");
  const start = text.indexOf(block);
  expect({ file, block, found: start !== -1 }).toEqual({ file, block, found: true });
  const at = text.indexOf(from, start);
  expect({ file, from, found: at !== -1 }).toEqual({ file, from, found: true });
  writeFileSync(path, text.slice(0, at) + to + text.slice(at + from.length));
}

/** lineOf is the 1-based line of `fragment` in a file. */
function lineOf(path: string, fragment: string): number {
  const index = readFileSync(path, "utf8").split("\n").findIndex((line) => line.includes(fragment));
  expect({ path, fragment, found: index !== -1 }).toEqual({ path, fragment, found: true });
  return index + 1;
}

describe("the extension's types are the server's", () => {
  it("keeps src/api/types.ts a leaf: it imports nothing, so it brings nothing of the server into the extension", () => {
    const source = readFileSync(join(REPO_ROOT, "src/api/types.ts"), "utf8");
    expect(source.split("\n").filter((line) => /^\s*(import|export\s.*\sfrom)\b/.test(line) || /\bimport\s*\(|\brequire\s*\(/.test(line))).toEqual([]);
  });

  it("typechecks the extension as the repository holds it", () => {
    const { exitCode, output } = typecheck(REPO_ROOT, "extension");
    expect({ exitCode, output }).toEqual({ exitCode: 0, output: "" });
  }, TSC_TIMEOUT);

  it("fails the server's typecheck at LinkJson's assertion when a field of the schema is renamed", () => {
    const dir = copyTree("types-schema");
    rename(dir, "src/links/model.ts", "export const LinkJson = t.Object({", "url: t.String(),", "href: t.String(),");
    // Only the agreement and what it imports: the rest of the server would take longer and prove nothing more.
    writeFileSync(join(dir, "tsconfig.models.json"), JSON.stringify({ extends: "./tsconfig.json", include: [], files: ["src/api/agreement.ts"] }));
    const { exitCode, output } = typecheck(dir, "tsconfig.models.json");
    expect(exitCode).not.toBe(0);
    const agreement = join(dir, "src/api/agreement.ts");
    const assertion = lineOf(agreement, "Assert<SameType<typeof LinkJson.static, Api.LinkJson>>");
    expect(output).toContain(`src/api/agreement.ts(${assertion},`);
    expect(output.split("\n").find((line) => line.startsWith(`src/api/agreement.ts(${assertion},`))).toContain("error TS2344");
    // The envelopes and CollectionJson hold LinkJson: their assertions fail too.
    const collection = lineOf(agreement, "Assert<SameType<typeof CollectionJson.static, Api.CollectionJson>>");
    expect(output).toContain(`src/api/agreement.ts(${collection},`);
  }, TSC_TIMEOUT);

  it("fails the extension's typecheck where the extension reads or sends a field renamed in the shared types", () => {
    const dir = copyTree("types-shared");
    const changes = [
      { block: "export interface LinkJson {", from: "url: string;", to: "href: string;", file: "extension/src/popup.ts", error: "Property 'url' does not exist on type 'LinkJson'" },
      { block: "export interface CollectionJson {", from: "isDefault: boolean;", to: "isInbox: boolean;", file: "extension/src/popup.ts", error: "Property 'isDefault' does not exist on type 'CollectionJson'" },
      { block: "export interface CreateLinkBody {", from: "favorite: boolean;", to: "starred: boolean;", file: "extension/src/popup.ts", error: "'favorite' does not exist in type 'CreateLinkBody'" },
      { block: "export interface ErrorJson {", from: "errors?: FieldErrorJson[];", to: "problems?: FieldErrorJson[];", file: "extension/src/api.ts", error: "Property 'errors' does not exist on type 'Unchecked<ErrorJson>'" },
    ];
    for (const { block, from, to } of changes) rename(dir, "src/api/types.ts", block, from, to);
    const { exitCode, output } = typecheck(dir, "extension");
    expect(exitCode).not.toBe(0);
    const errors = output.split("\n").filter((line) => line.includes(": error TS"));
    for (const { file, error } of changes) {
      expect({ error, at: errors.filter((line) => line.startsWith(`${file}(`) && line.includes(error)).length > 0 }).toEqual({ error, at: true });
    }
  }, TSC_TIMEOUT);
});
