import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "../support/binary";

/**
 * The rule of "Queries" in docs/development.md, checked: a raw statement on the connection behind
 * drizzle (`$client.query`, `.prepare`, `.run`, `.exec`, directly or through a variable holding
 * `$client`) stands only in a place the doc lists, with as many statements as it says; and in
 * src/shelf/ each one says why, in a `// Raw statement` comment just above it (or above the
 * variable it goes through). A new raw statement without a named reason fails here.
 */

const SRC = join(REPO_ROOT, "src");
const DOC = join(REPO_ROOT, "docs", "development.md");

/** Every .ts file under a folder, as absolute paths. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** A raw statement: the line it is on, and the line of what it goes through (itself, or the variable holding `$client`). */
interface RawStatement {
  line: number;
  anchor: number;
}

const RUNS = String.raw`\s*\.\s*(?:query|prepare|run|exec)\s*[<(]`;

/** rawStatements finds a module's statements run on `$client`, directly or through a variable holding it. */
function rawStatements(text: string): RawStatement[] {
  const lineOf = (index: number) => text.slice(0, index).split("\n").length;
  const found: RawStatement[] = [];
  for (const match of text.matchAll(new RegExp(String.raw`\$client` + RUNS, "g"))) {
    const line = lineOf(match.index);
    found.push({ line, anchor: line });
  }
  const holders = /\b(?:const|let|var)\s+(?:(\w+)\s*=\s*[\w.]*\$client\s*[;\n]|\{\s*\$client(?:\s*:\s*(\w+))?\s*\}\s*=)/g;
  const names = new Map<string, number>();
  for (const match of text.matchAll(holders)) {
    // `const { $client } = db`: its statements are `$client.query(…)`, found above.
    const name = match[1] ?? match[2];
    if (name !== undefined && !names.has(name)) names.set(name, lineOf(match.index));
  }
  for (const [name, anchor] of names) {
    for (const match of text.matchAll(new RegExp(String.raw`\b${name}` + RUNS, "g"))) found.push({ line: lineOf(match.index), anchor });
  }
  return found.sort((a, b) => a.line - b.line);
}

/** One row of the doc's list: a file, the functions its raw statements are in, how many. */
interface Listed {
  path: string;
  names: string[];
  statements: number;
}

/** listedPlaces reads the list under "## Queries" in docs/development.md: rows `| \`src/…\` \`name\` … | N | reason | bench |`. */
function listedPlaces(doc: string): Listed[] {
  const start = doc.indexOf("\n## Queries\n");
  expect(start).toBeGreaterThan(-1);
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  return section.split("\n").flatMap((line) => {
    const cells = line.split("|").map((cell) => cell.trim());
    const place = /^`(src\/[^`]+\.ts)`(.*)$/.exec(cells[1] ?? "");
    if (!place || !/^\d+$/.test(cells[2] ?? "")) return [];
    return [{ path: place[1]!, names: [...place[2]!.matchAll(/`(\w+)`/g)].map((name) => name[1]!), statements: Number(cells[2]) }];
  });
}

describe("raw statements on the connection (docs/development.md, Queries)", () => {
  const files = sourceFiles(SRC).map((path) => ({ path: relative(REPO_ROOT, path), text: readFileSync(path, "utf8") }));
  const listed = () => listedPlaces(readFileSync(DOC, "utf8"));

  it("finds the ways a raw statement is written", () => {
    const shapes = [
      'db.$client.query("SELECT 1").get()',
      "owner.db.$client\n    .query<never, [number]>(`DELETE FROM t WHERE id = ?`)",
      'this.owner.db.$client.prepare("SELECT 1")',
      'db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)")',
      "const sqlite = db.$client;\nsqlite.transaction(() => {});\nsqlite.query(`SELECT 1`).all();",
      "const { $client } = db;\n$client.exec(`CREATE TABLE t (a)`);",
      "const { $client: raw } = db;\nraw.query(`SELECT 1`);",
    ];
    for (const shape of shapes) expect({ shape, found: rawStatements(shape).length }).toEqual({ shape, found: 1 });
    const notRaw = [
      "db.$client.close()", "db.$client.transaction(() => db.select().from(links).all())", "new GroupCommit(deps.db.$client)",
      "db.select().from(links).where(eq(links.id, id)).get()", "db.run(sql`DELETE FROM t WHERE id = ${id}`)", "db.all(sql`SELECT 1`)",
    ];
    for (const shape of notRaw) expect({ shape, found: rawStatements(shape).length }).toEqual({ shape, found: 0 });
  });

  it("lists every file of src/ that runs raw statements, with as many statements as it has", () => {
    const found = Object.fromEntries(files.map(({ path, text }) => [path, rawStatements(text).length]).filter(([, n]) => n !== 0));
    const inDoc: Record<string, number> = {};
    for (const place of listed()) inDoc[place.path] = (inDoc[place.path] ?? 0) + place.statements;
    // A file with more raw statements than the doc lists: a new one, without a reason named in the doc.
    expect(found).toEqual(inDoc);
    expect(Object.keys(inDoc).length).toBeGreaterThan(0);
  });

  it("names, for each listed place, functions that are in that file", () => {
    for (const place of listed()) {
      const text = files.find((file) => file.path === place.path)?.text ?? "";
      expect({ place: place.path, names: place.names.length > 0 }).toEqual({ place: place.path, names: true });
      for (const name of place.names) expect({ place: place.path, name, there: new RegExp(`\\b${name}\\b`).test(text) }).toEqual({ place: place.path, name, there: true });
    }
  });

  it("has, in src/shelf/, a `// Raw statement` comment naming its reason just above each raw statement", () => {
    const unexplained = files.filter(({ path }) => path.startsWith("src/shelf/")).flatMap(({ path, text }) => {
      const lines = text.split("\n");
      return rawStatements(text)
        .filter(({ anchor }) => !lines.slice(Math.max(0, anchor - 4), anchor).some((line) => /\/\/ Raw statement \(.+\)/.test(line)))
        .map(({ line }) => `${path}:${line}`);
    });
    expect(unexplained).toEqual([]);
  });
});
