import { describe, expect, it } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO_ROOT } from "../support/binary";

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
    expect(resolveLocal(join(SRC, "app.ts"), "./common/config")).toBe(join(SRC, "common", "config.ts"));
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

describe("the shelf is the core", () => {
  it("src/shelf/ reaches no route, no page and no Elysia, through any module it imports", () => {
    const { modules, packages } = reachedFrom(sourceFiles(join(SRC, "shelf")));
    expect([...modules].filter((module) => ["src/api/", "src/web/", "src/pages/"].some((folder) => module.startsWith(folder))).sort()).toEqual([]);
    expect([...packages].filter((name) => name === "elysia" || name.startsWith("elysia/")).sort()).toEqual([]);
    // The walk goes past the shelf: it reaches the database and the typed errors.
    expect(modules).toContain("src/db/schema.ts");
    expect(modules).toContain("src/common/errors.ts");
  });

  it("the walk sees what a module imports through another", () => {
    const { modules, packages } = reachedFrom([join(SRC, "request", "well-formed.ts")]);
    expect(modules).toContain("src/contract/errors.ts");
    expect(packages).toContain("elysia");
  });
});

/** One row of the layer table: the folder (or `src/` for the root's files), what it may import, in the table's order. */
export interface Layer {
  folder: string;
  mayImport: string[];
}

/** An import that runs up, as the second table names it: from a module to a module. */
export interface UpwardImport {
  from: string;
  to: string;
}

/**
 * layerTable reads the "Layers" section of docs/development.md: its first table's rows, bottom
 * layer first (the folder is the first cell's first backticked `src/.../`; the root's row is
 * `src/` root; what it may import is every backticked `src/<folder>/` of the third cell), and the
 * table of imports that run up (its first two cells, backticked module paths; a row of "none" is
 * no row).
 */
export function layerTable(text: string): { layers: Layer[]; upward: UpwardImport[] } {
  const lines = text.split("\n");
  const start = lines.indexOf("## Layers");
  const end = lines.findIndex((line, at) => at > start && line.startsWith("## "));
  const tables: string[][][] = [];
  let previous = "";
  for (const line of lines.slice(start, end === -1 ? undefined : end)) {
    if (line.startsWith("|") && !previous.startsWith("|")) tables.push([]);
    if (line.startsWith("|") && !/^\|[-| ]+\|$/.test(line)) tables.at(-1)!.push(line.split("|").slice(1, -1).map((cell) => cell.trim()));
    previous = line;
  }
  const folders = (cell: string) => [...cell.matchAll(/`(src\/[\w-]*\/?)`/g)].map((match) => match[1]!);
  const layers = (tables[0] ?? []).slice(1).map(([name = "", , may = ""]) => ({
    folder: name.startsWith("`src/` root") ? "src/" : folders(name)[0] ?? name,
    mayImport: may.startsWith("anything") ? ["*"] : folders(may),
  }));
  const upwardRows = tables.find((table) => table[0]?.[0] === "from") ?? [];
  const upward = upwardRows.slice(1).filter(([from]) => from !== "none").map(([from = "", to = ""]) => ({ from: from.replace(/`/g, ""), to: to.replace(/`/g, "") }));
  return { layers, upward };
}

/** folderOf names the layer a module of src/ is in: its first folder, or `src/` for the root's files. */
const folderOf = (module: string): string => {
  const parts = module.split("/");
  return parts.length === 2 ? "src/" : `src/${parts[1]}/`;
};

/** layerBreaches lists every import of the graph its layer table does not allow, as `module -> module`. */
export function layerBreaches(graph: Graph, { layers, upward }: { layers: Layer[]; upward: UpwardImport[] }): string[] {
  const allowed = new Map(layers.map((layer) => [layer.folder, layer.mayImport]));
  const breaches: string[] = [];
  for (const [from, targets] of graph) {
    const may = allowed.get(folderOf(from));
    for (const to of targets) {
      const folder = folderOf(to);
      if (folder === folderOf(from) || may?.includes("*") || may?.includes(folder)) continue;
      if (upward.some((named) => named.from === from && named.to === to)) continue;
      breaches.push(`${from} -> ${to}`);
    }
  }
  return breaches.sort();
}

const DEVELOPMENT = join(REPO_ROOT, "docs", "development.md");

describe("each folder of src/ is one layer, as docs/development.md's table says", () => {
  const table = layerTable(readFileSync(DEVELOPMENT, "utf8"));
  const graph = importGraph(SRC);

  it("every folder of src/ has a row, once, and every row is a folder", () => {
    const present = ["src/", ...readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory()).map((name) => `src/${name}/`)].sort();
    const rows = table.layers.map((layer) => layer.folder);
    expect([...rows].sort()).toEqual(present);
    expect(new Set(rows).size).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(15);
  });

  it("a row may import only rows above it: the table itself has no circle", () => {
    const above = (at: number) => new Set(table.layers.slice(0, at).map((layer) => layer.folder));
    const wrong = table.layers.flatMap((layer, at) => layer.mayImport.filter((folder) => folder !== "*" && !above(at).has(folder)).map((folder) => `${layer.folder} -> ${folder}`));
    expect(wrong).toEqual([]);
    expect(table.layers[0]!.mayImport).toEqual([]);
    expect(table.layers.at(-1)!.folder).toBe("src/");
  });

  it("every import of src/ is one its layer may make, type-only and dynamic ones included", () => {
    expect(layerBreaches(graph, table)).toEqual([]);
  });

  it("the imports that run up are at most three, and each one named still happens", () => {
    expect(table.upward.length).toBeLessThanOrEqual(3);
    for (const { from, to } of table.upward) expect(graph.get(from) ?? []).toContain(to);
  });

  it("src/ holds no file but the entry points and the composition root", () => {
    const root = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isFile()).sort();
    expect(root).toEqual(["app.ts", "cli.ts", "deps.ts", "liveness-probe.ts", "main.ts", "server.ts"]);
  });

  it("the check finds a forbidden import, an unnamed upward one, and lets a named one through", () => {
    const layers: Layer[] = [
      { folder: "src/low/", mayImport: [] },
      { folder: "src/high/", mayImport: ["src/low/"] },
      { folder: "src/", mayImport: ["*"] },
    ];
    const sample: Graph = new Map([
      ["src/high/a.ts", ["src/low/b.ts", "src/high/c.ts"]],
      ["src/low/b.ts", ["src/high/a.ts"]],
      ["src/low/d.ts", ["src/high/c.ts"]],
      ["src/app.ts", ["src/high/a.ts", "src/low/b.ts"]],
    ]);
    expect(layerBreaches(sample, { layers, upward: [] })).toEqual(["src/low/b.ts -> src/high/a.ts", "src/low/d.ts -> src/high/c.ts"]);
    expect(layerBreaches(sample, { layers, upward: [{ from: "src/low/d.ts", to: "src/high/c.ts" }] })).toEqual(["src/low/b.ts -> src/high/a.ts"]);
  });

  it("the table reader reads the rows, the root's row and the named upward imports", () => {
    const text = [
      "## Layers", "", "| layer | holds | may import |", "|---|---|---|",
      "| `src/contract/` | schemas | nothing |",
      "| `src/shelf/` (the core) | data, see `src/db/schema.ts` | `src/contract/`, `src/db/` (types) |",
      "| `src/` root | entry points | anything; only `server.ts` imports `app.ts` |",
      "", "Imports that run up:", "", "| from | to | why |", "|---|---|---|",
      "| `src/db/a.ts` | `src/shelf/b.ts` | a reason |", "", "## Next", "| `src/other/` | x | `src/contract/` |",
    ].join("\n");
    expect(layerTable(text)).toEqual({
      layers: [
        { folder: "src/contract/", mayImport: [] },
        { folder: "src/shelf/", mayImport: ["src/contract/", "src/db/"] },
        { folder: "src/", mayImport: ["*"] },
      ],
      upward: [{ from: "src/db/a.ts", to: "src/shelf/b.ts" }],
    });
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
