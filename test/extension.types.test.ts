import { afterAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { REPO_ROOT } from "./binary";

/**
 * The extension compiles the API's shapes from src/api/types.ts; the server's TypeBox schemas
 * assert, beside each schema, that their types are exactly those. These tests run the real
 * TypeScript compiler (a devDependency) in this process on the repository and on the repository
 * with one shape changed on one side only, the changed file served from memory. The programs
 * share the files they parse (lib and node_modules declarations), so each change costs a check,
 * not a new compiler and its parsing.
 */

/** A program of the unmodified repository's sources takes a few seconds to check here, over bun:test's default of 5. */
const TSC_TIMEOUT = 120_000;

/**
 * Parsed (and, once checked, bound) files by path and parse options, shared by every program whose
 * file text is the same. Let go after the file: a few hundred MiB that would otherwise stay in the
 * test process (`--no-isolate`) and slow its collector through every file it runs next.
 */
const parsed = new Map<string, ts.SourceFile>();
afterAll(() => parsed.clear());

/**
 * compilerHost reads the repository from disk except for the files in `changed` (absolute path to
 * text), and hands every program the same parsed file for the same path and text.
 */
function compilerHost(options: ts.CompilerOptions, changed: Map<string, string>): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (path) => changed.get(path) ?? readFile(path);
  host.fileExists = ((fileExists) => (path: string) => changed.has(path) || fileExists(path))(host.fileExists.bind(host));
  host.getSourceFile = (path, languageVersion, onError) => {
    const text = host.readFile(path);
    if (text === undefined) {
      onError?.(`cannot read ${path}`);
      return undefined;
    }
    const key = `${path}\0${JSON.stringify(languageVersion)}`;
    const known = parsed.get(key);
    if (known?.text === text) return known;
    const file = ts.createSourceFile(path, text, languageVersion);
    parsed.set(key, file);
    return file;
  };
  return host;
}

/** The configuration of `project` (a tsconfig.json, or a folder holding one), or of `config` given as JSON text, as tsc reads it. */
function readProject(project: string, config?: object): ts.ParsedCommandLine {
  const path = join(REPO_ROOT, project.endsWith(".json") ? project : join(project, "tsconfig.json"));
  const json = config ?? ts.readConfigFile(path, ts.sys.readFile).config;
  return ts.parseJsonConfigFileContent(json, ts.sys, join(path, ".."), undefined, path);
}

/**
 * typecheck checks `project` the way `tsc --noEmit --pretty false -p project` does in the
 * repository, with `changed` (repository-relative path to text) in place of those files on disk:
 * an exit code of 0 or 2 (errors) and the errors as tsc prints them, paths relative to the
 * repository. Given `only`, the semantic errors are those of these files alone (tsc's for them,
 * without checking the rest of the program); else of every file, as tsc reports them.
 */
function typecheck(project: string, { config, changed = {}, only }: { config?: object; changed?: Record<string, string>; only?: string[] } = {}): { exitCode: number; output: string } {
  const { options, fileNames, errors } = readProject(project, config);
  const host = compilerHost(options, new Map(Object.entries(changed).map(([path, text]) => [join(REPO_ROOT, path), text])));
  const program = ts.createProgram({ rootNames: fileNames, options, host, configFileParsingDiagnostics: errors });
  const files = only?.map((path) => {
    const file = program.getSourceFile(join(REPO_ROOT, path));
    expect({ path, inProgram: file !== undefined }).toEqual({ path, inProgram: true });
    return file;
  });
  const diagnostics = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...(files ? files.flatMap((file) => program.getSemanticDiagnostics(file)) : program.getSemanticDiagnostics()),
  ];
  const output = ts.formatDiagnostics(diagnostics, { getCurrentDirectory: () => REPO_ROOT, getCanonicalFileName: (path) => path, getNewLine: () => "\n" });
  return { exitCode: diagnostics.length === 0 ? 0 : 2, output };
}

/**
 * rename returns the text of `file` (repository-relative) with the first `from` after `block` (a
 * declaration's opening line) changed, failing when either is missing, so a reworded declaration
 * fails here rather than passing unchanged.
 */
function rename(text: string, file: string, block: string, from: string, to: string): string {
  const start = text.indexOf(block);
  expect({ file, block, found: start !== -1 }).toEqual({ file, block, found: true });
  const at = text.indexOf(from, start);
  expect({ file, from, found: at !== -1 }).toEqual({ file, from, found: true });
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/** lineOf is the 1-based line of `fragment` in a repository file. */
function lineOf(file: string, fragment: string): number {
  const index = readFileSync(join(REPO_ROOT, file), "utf8").split("\n").findIndex((line) => line.includes(fragment));
  expect({ file, fragment, found: index !== -1 }).toEqual({ file, fragment, found: true });
  return index + 1;
}

/** The text of a repository file. */
function source(file: string): string {
  return readFileSync(join(REPO_ROOT, file), "utf8");
}

describe("the extension's types are the server's", () => {
  it("keeps src/api/types.ts a leaf: it imports nothing, so it brings nothing of the server into the extension", () => {
    expect(source("src/api/types.ts").split("\n").filter((line) => /^\s*(import|export\s.*\sfrom)\b/.test(line) || /\bimport\s*\(|\brequire\s*\(/.test(line))).toEqual([]);
  });

  it("typechecks the extension as the repository holds it", () => {
    const { exitCode, output } = typecheck("extension");
    expect({ exitCode, output }).toEqual({ exitCode: 0, output: "" });
  }, TSC_TIMEOUT);

  it("fails the server's typecheck at LinkJson's assertion when a field of the schema is renamed", () => {
    const model = "src/links/model.ts";
    const changed = { [model]: rename(source(model), model, "export const LinkJson = t.Object({", "url: t.String(),", "href: t.String(),") };
    const agreement = "src/api/agreement.ts";
    // Only the agreement and what it imports: the rest of the server would take longer and prove nothing more.
    const config = { extends: "./tsconfig.json", include: [], files: [agreement] };
    const { exitCode, output } = typecheck("tsconfig.models.json", { config, changed, only: [agreement] });
    expect(exitCode).not.toBe(0);
    const assertion = lineOf(agreement, "Assert<SameType<typeof LinkJson.static, Api.LinkJson>>");
    expect(output).toContain(`src/api/agreement.ts(${assertion},`);
    expect(output.split("\n").find((line) => line.startsWith(`src/api/agreement.ts(${assertion},`))).toContain("error TS2344");
    // The envelopes and CollectionJson hold LinkJson: their assertions fail too.
    const collection = lineOf(agreement, "Assert<SameType<typeof CollectionJson.static, Api.CollectionJson>>");
    expect(output).toContain(`src/api/agreement.ts(${collection},`);
  }, TSC_TIMEOUT);

  it("fails the extension's typecheck where the extension reads or sends a field renamed in the shared types", () => {
    const changes = [
      { block: "export interface LinkJson {", from: "url: string;", to: "href: string;", file: "extension/src/popup.ts", error: "Property 'url' does not exist on type 'LinkJson'" },
      { block: "export interface CollectionJson {", from: "isDefault: boolean;", to: "isInbox: boolean;", file: "extension/src/popup.ts", error: "Property 'isDefault' does not exist on type 'CollectionJson'" },
      { block: "export interface CreateLinkBody {", from: "favorite: boolean;", to: "starred: boolean;", file: "extension/src/popup.ts", error: "'favorite' does not exist in type 'CreateLinkBody'" },
      { block: "export interface ErrorJson {", from: "errors?: FieldErrorJson[];", to: "problems?: FieldErrorJson[];", file: "extension/src/api.ts", error: "Property 'errors' does not exist on type 'Unchecked<ErrorJson>'" },
    ];
    const types = "src/api/types.ts";
    const text = changes.reduce((text, { block, from, to }) => rename(text, types, block, from, to), source(types));
    const { exitCode, output } = typecheck("extension", { changed: { [types]: text }, only: [...new Set(changes.map(({ file }) => file))] });
    expect(exitCode).not.toBe(0);
    const errors = output.split("\n").filter((line) => line.includes(": error TS"));
    for (const { file, error } of changes) {
      expect({ error, at: errors.filter((line) => line.startsWith(`${file}(`) && line.includes(error)).length > 0 }).toEqual({ error, at: true });
    }
  }, TSC_TIMEOUT);
});
