import { describe, expect, it } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO_ROOT } from "./binary";

/**
 * The modules of src/ form no import circle: a module that needs another's type or function
 * imports the module that owns it, and nothing leads back. Type-only imports count (they tie
 * modules together as much for a reader), and so do dynamic `import("...")` calls with a literal
 * path. Packages are not part of the graph.
 */

const SRC = join(REPO_ROOT, "src");

/** Every .ts file under a folder, as absolute paths. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/**
 * specifiersOf lists what a module's text imports: static `import ... from`, side-effect
 * `import "..."`, `export ... from` (type-only forms included), and `import("...")` with a literal.
 */
function specifiersOf(text: string): string[] {
  const found: string[] = [];
  const statics = /(?:^|[;}\s])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"'\n]+)["']/g;
  for (const match of text.matchAll(statics)) found.push(match[1]!);
  for (const match of text.matchAll(/\bimport\(\s*["']([^"'\n]+)["']\s*\)/g)) found.push(match[1]!);
  return found;
}

/**
 * resolveLocal turns a relative specifier into the module file it names (`x.ts`, `x/index.ts`,
 * or the path itself); null for a package. A relative specifier that names no file is an error.
 */
function resolveLocal(from: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, "index.ts"), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${relative(REPO_ROOT, from)} imports ${specifier}, which names no file`);
}

type Graph = Map<string, string[]>;

/** importGraph maps each module of a folder to the modules under that folder it imports. */
function importGraph(folder: string): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(folder)) {
    const targets = specifiersOf(readFileSync(file, "utf8"))
      .map((specifier) => resolveLocal(file, specifier))
      .filter((target): target is string => target !== null && target.endsWith(".ts") && target.startsWith(folder + "/"));
    graph.set(relative(REPO_ROOT, file), [...new Set(targets.map((target) => relative(REPO_ROOT, target)))]);
  }
  return graph;
}

/**
 * cyclesOf names every import circle a depth-first walk meets (one per edge that leads back to
 * a module still being walked), each as `a -> b -> a`, listed once whichever module it starts at.
 */
function cyclesOf(graph: Graph): string[] {
  const cycles = new Map<string, string>();
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (node: string) => {
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const at = stack.indexOf(next);
      if (at !== -1) {
        const loop = stack.slice(at);
        const start = loop.indexOf([...loop].sort()[0]!);
        const rotated = [...loop.slice(start), ...loop.slice(0, start)];
        cycles.set(rotated.join(" "), [...rotated, rotated[0]].join(" -> "));
      } else if (!done.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    done.add(node);
  };
  for (const node of [...graph.keys()].sort()) if (!done.has(node)) visit(node);
  return [...cycles.values()].sort();
}

describe("the modules of src/ import each other without circles", () => {
  it("no import circle, type-only and dynamic imports included", () => {
    expect(cyclesOf(importGraph(SRC))).toEqual([]);
  });

  it("only the modules that build the app import the composition root", () => {
    const builders = new Set(["src/server.ts", "src/cli.ts", "src/main.ts"]);
    const importers = [...importGraph(SRC)].filter(([file, targets]) => targets.includes("src/app.ts") && !builders.has(file)).map(([file]) => file);
    expect(importers).toEqual([]);
  });

  it("nothing but the composition root and the entry points imports src/deps.ts or src/app.ts: each module names the types it uses", () => {
    const roots = new Set(["src/app.ts", "src/server.ts", "src/cli.ts", "src/main.ts"]);
    const hubs = ["src/deps.ts", "src/app.ts"];
    const graph = importGraph(SRC);
    const importers = [...graph].filter(([file, targets]) => !roots.has(file) && targets.some((target) => hubs.includes(target))).map(([file]) => file);
    expect(importers).toEqual([]);
    expect(graph.get("src/app.ts")).toContain("src/deps.ts");
  });

  it("the reader sees every kind of import and the walk names each circle once", () => {
    const text = [
      `import { a } from "./a";`,
      `import type { B } from "../b";`,
      `import {\n  c,\n  type C,\n} from "./c";`,
      `import "./side-effect";`,
      `export * from "./d";`,
      `export { type E } from "./e";`,
      `const f = await import("./f");`,
      `import pkg from "elysia";`,
      `const notAnImport = "imported from the shelf";`,
    ].join("\n");
    expect(specifiersOf(text)).toEqual(["./a", "../b", "./c", "./side-effect", "./d", "./e", "elysia", "./f"]);
    const graph: Graph = new Map([
      ["a", ["b"]],
      ["b", ["c", "d"]],
      ["c", ["a"]],
      ["d", ["d"]],
      ["e", ["a"]],
    ]);
    expect(cyclesOf(graph)).toEqual(["a -> b -> c -> a", "d -> d"]);
    expect(cyclesOf(new Map([["a", ["b"]], ["b", []], ["c", ["a", "b"]]]))).toEqual([]);
  });

  it("the reader finds every relative import Bun's own scanner finds in src/ (which skips the type-only ones)", () => {
    const scanner = new Bun.Transpiler({ loader: "ts" });
    let seen = 0;
    const missed = sourceFiles(SRC).flatMap((file) => {
      const text = readFileSync(file, "utf8");
      const read = new Set(specifiersOf(text));
      const scanned = scanner.scanImports(text.replace(/^#!.*/, "")).map(({ path }) => path).filter((path) => path.startsWith("."));
      seen += scanned.length;
      return scanned.filter((path) => !read.has(path)).map((path) => `${relative(REPO_ROOT, file)}: ${path}`);
    });
    expect(missed).toEqual([]);
    expect(seen).toBeGreaterThan(100);
  });

  it("a relative import that names no file fails the walk instead of being skipped", () => {
    expect(() => resolveLocal(join(SRC, "app.ts"), "./no-such-module")).toThrow("names no file");
    expect(resolveLocal(join(SRC, "app.ts"), "elysia")).toBeNull();
    expect(resolveLocal(join(SRC, "app.ts"), "./config")).toBe(join(SRC, "config.ts"));
  });
});

/**
 * reachedFrom walks every import of the given modules and of the modules they import, to the
 * end: the local modules reached (repository-relative) and the packages named on the way.
 */
function reachedFrom(files: string[]): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const waiting = [...files];
  while (waiting.length > 0) {
    const file = waiting.pop()!;
    if (modules.has(relative(REPO_ROOT, file))) continue;
    modules.add(relative(REPO_ROOT, file));
    if (!file.endsWith(".ts")) continue;
    for (const specifier of specifiersOf(readFileSync(file, "utf8"))) {
      const target = resolveLocal(file, specifier);
      if (target === null) packages.add(specifier);
      else waiting.push(target);
    }
  }
  return { modules, packages };
}

/** The folders of routes and views, which the shelf never reaches. */
const ABOVE_THE_SHELF = ["src/api/", "src/web/", "src/pages/"];
/** The folders that reach the database only through the shelf. */
const THROUGH_THE_SHELF = ["api", "web", "pages", "public", "redirect", "outbound"];

describe("the shelf is the core", () => {
  it("src/shelf/ reaches no route, no page and no Elysia, through any module it imports", () => {
    const { modules, packages } = reachedFrom(sourceFiles(join(SRC, "shelf")));
    expect([...modules].filter((module) => ABOVE_THE_SHELF.some((folder) => module.startsWith(folder))).sort()).toEqual([]);
    expect([...packages].filter((name) => name === "elysia" || name.startsWith("elysia/")).sort()).toEqual([]);
    // The walk goes past the shelf: it reaches the database and the typed errors.
    expect(modules).toContain("src/db/schema.ts");
    expect(modules).toContain("src/errors.ts");
  });

  it("routes, pages, public pages, the redirect and the way out import nothing of src/db/, type-only imports included", () => {
    const db = join(SRC, "db") + "/";
    const files = THROUGH_THE_SHELF.flatMap((folder) => sourceFiles(join(SRC, folder)));
    const reaching = files.flatMap((file) => specifiersOf(readFileSync(file, "utf8"))
      .filter((specifier) => resolveLocal(file, specifier)?.startsWith(db))
      .map((specifier) => `${relative(REPO_ROOT, file)}: ${specifier}`));
    expect(reaching).toEqual([]);
    expect(files.length).toBeGreaterThan(40);
  });

  it("the walk sees what a module imports through another", () => {
    const { modules, packages } = reachedFrom([join(SRC, "request", "well-formed.ts")]);
    expect(modules).toContain("src/contract/errors.ts");
    expect(packages).toContain("elysia");
  });
});

describe("the wire contract stands alone", () => {
  it("src/contract/ imports nothing but TypeBox and its own modules", () => {
    const contract = join(SRC, "contract");
    const foreign = sourceFiles(contract).flatMap((file) => specifiersOf(readFileSync(file, "utf8"))
      .filter((specifier) => {
        const target = resolveLocal(file, specifier);
        return target === null ? specifier !== "@sinclair/typebox" : !target.startsWith(contract + "/");
      })
      .map((specifier) => `${relative(REPO_ROOT, file)}: ${specifier}`));
    expect(foreign).toEqual([]);
    expect(sourceFiles(contract).length).toBeGreaterThan(5);
  });

  it("the browser extension takes nothing of the server but the wire contract", () => {
    const extension = join(REPO_ROOT, "extension", "src");
    const contract = join(SRC, "contract");
    const reached = sourceFiles(extension).flatMap((file) => specifiersOf(readFileSync(file, "utf8"))
      .map((specifier) => resolveLocal(file, specifier))
      .filter((target): target is string => target !== null && !target.startsWith(extension + "/"))
      .map((target) => relative(REPO_ROOT, target)));
    expect(reached.filter((target) => !target.startsWith(relative(REPO_ROOT, contract) + "/"))).toEqual([]);
    expect(reached.length).toBeGreaterThan(0);
  });

  it("the extension takes values only from the contract's schema-free modules, which import nothing but types: its scripts carry no TypeBox", () => {
    const schemaFree = ["src/contract/batch-targets.ts", "src/contract/content-limits.ts", "src/contract/handoff.ts"];
    // Bun's scanner lists the imports that stay in the bundle: type-only ones are left out.
    const scanner = new Bun.Transpiler({ loader: "ts" });
    const valuesImported = (file: string) => scanner.scanImports(readFileSync(file, "utf8"))
      .map(({ path }) => resolveLocal(file, path))
      .filter((target): target is string => target !== null)
      .map((target) => relative(REPO_ROOT, target));
    const fromContract = sourceFiles(join(REPO_ROOT, "extension", "src")).flatMap(valuesImported).filter((target) => target.startsWith("src/contract/"));
    expect([...new Set(fromContract)].sort()).toEqual(schemaFree);
    expect(schemaFree.flatMap((module) => scanner.scanImports(readFileSync(join(REPO_ROOT, module), "utf8")).map(({ path }) => `${module}: ${path}`))).toEqual([]);
  });
});

describe("the extension's layout", () => {
  it("the extension's sync engine (extension/src/sync/) reaches no page: not the pages, their DOM helpers or the sync's own view, and nothing that reads a document", () => {
    const { modules } = reachedFrom(sourceFiles(join(REPO_ROOT, "extension", "src", "sync")));
    const pages = /^extension\/src\/(options|popup|dom|sync-[\w-]+)\.ts$/;
    expect([...modules].filter((module) => pages.test(module))).toEqual([]);
    expect([...modules].filter((module) => module.endsWith(".ts") && /\bdocument\./.test(readFileSync(join(REPO_ROOT, module), "utf8")))).toEqual([]);
    // The walk leaves the folder: the engine uses the API client and the contract.
    expect(modules).toContain("extension/src/api.ts");
    expect(modules).toContain("src/contract/batch-targets.ts");
  });
});
