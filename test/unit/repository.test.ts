import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO_ROOT } from "../support/binary";

/**
 * The repository stands alone: what it says is readable by whoever clones it. These tests keep
 * the documentation short where it must be, its links working, and every tracked file free of
 * pointers to material that only exists outside the repository.
 */

/** The tracked files, as git lists them. */
function trackedFiles(): string[] {
  const git = Bun.spawnSync(["git", "ls-files", "-z"], { cwd: REPO_ROOT });
  if (git.exitCode !== 0) throw new Error(`git ls-files failed: ${git.stderr.toString()}`);
  return git.stdout.toString().split("\0").filter((path) => path !== "" && existsSync(join(REPO_ROOT, path)));
}

/** A file is binary when its first 8 KiB hold a NUL byte (what git itself checks). */
function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

// Built from pieces so that this file does not contain the very words it looks for.
const FORBIDDEN: { what: string; pattern: RegExp }[] = [
  { what: "a path into a folder beside the repository", pattern: new RegExp(["\\.\\.", "/shared"].join("")) },
  // The MIT licence's own wording ("an action of" followed by that word, in capitals) is the one use that stays.
  { what: "the name of a planning document", pattern: new RegExp(["(?<!ACTION OF )CONT", "RACT"].join("")) },
  { what: "the name of a notes file", pattern: new RegExp(["STACK", "\\.md"].join("")) },
  { what: "the name of a notes file", pattern: new RegExp(["DEVEL", "OPERS"].join("")) },
  { what: "a reference to a numbered tracker item", pattern: new RegExp(["\\bis", "sue\\s+#?\\d+"].join(""), "i") },
];

/** findForbidden lists `path:line: text` for every forbidden reference in the given files' text. */
function findForbidden(files: { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    text.split("\n").forEach((line, index) => {
      for (const { what, pattern } of FORBIDDEN) {
        if (pattern.test(line)) found.push(`${path}:${index + 1}: ${what}: ${line.trim().slice(0, 120)}`);
      }
    });
  }
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a Markdown file's headings make (a repeated heading gets `-1`, `-2`...). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) inCode = !inCode;
    const heading = !inCode && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The link targets of a Markdown text, outside code blocks and code spans. */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  let inCode = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) {
      inCode = !inCode;
      continue;
    }
    if (inCode) continue;
    const prose = line.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) targets.push(match[1]!);
  }
  return targets;
}

/** brokenLinks lists each relative link of a Markdown file that points at no file or no heading. */
function brokenLinks(file: string, markdown = readFileSync(file, "utf8")): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const where = `${relative(REPO_ROOT, file)} -> ${target}`;
    if (path === "") {
      if (!anchorsOf(markdown).has(anchor ?? "")) broken.push(`${where}: no such heading`);
      continue;
    }
    const destination = resolve(dirname(file), decodeURI(path));
    if (!existsSync(destination)) {
      broken.push(`${where}: no such file`);
      continue;
    }
    if (anchor !== undefined && destination.endsWith(".md") && !anchorsOf(readFileSync(destination, "utf8")).has(anchor)) {
      broken.push(`${where}: no such heading`);
    }
  }
  return broken;
}

const DOCS = join(REPO_ROOT, "docs");
const documentation = () => [
  join(REPO_ROOT, "README.md"),
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(DOCS, name)),
];

describe("the repository stands alone", () => {
  it("no tracked text file points outside the repository", () => {
    const files = trackedFiles()
      .filter((path) => statSync(join(REPO_ROOT, path)).isFile())
      .map((path) => ({ path, bytes: readFileSync(join(REPO_ROOT, path)) }))
      .filter(({ bytes }) => !isBinary(bytes))
      .map(({ path, bytes }) => ({ path, text: bytes.toString("utf8") }));
    expect(files.length).toBeGreaterThan(50);
    expect(findForbidden(files)).toEqual([]);
  });

  it("the check catches each kind of outside reference, and not ordinary words", () => {
    const samples = [
      ["..", "/shared/spec/service-interface.md"].join(""),
      ["see CONT", "RACT section 3"].join(""),
      ["STACK", ".md says"].join(""),
      ["DEVEL", "OPERS.md"].join(""),
      ["fixed in is", "sue 6"].join(""),
      ["Is", "sue #12"].join(""),
    ];
    for (const text of samples) expect(findForbidden([{ path: "x", text }])).toHaveLength(1);
    const fine = ["the contract of `Op`", ["IN AN ACTION OF CONT", "RACT, TORT"].join(""), "an issue with tissue 5", "developers", "../docs/api.md", "issues"];
    expect(findForbidden([{ path: "x", text: fine.join("\n") }])).toEqual([]);
  });

  it("the README is at most 12 KiB and keeps the commands CI and new users start with", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"));
    expect(readme.byteLength).toBeLessThanOrEqual(12_288);
    const lines = readme.toString("utf8").split("\n");
    expect(lines.slice(0, 40).some((line) => line.includes("npm install"))).toBe(true);
    expect(lines.some((line) => line.includes("npm test"))).toBe(true);
    expect(lines.some((line) => line.includes("npm run test:all"))).toBe(true);
  });

  it("every relative link in the README and docs/ points at a file (and heading) that exists", () => {
    const files = documentation();
    expect(files.map((file) => relative(REPO_ROOT, file))).toEqual(
      expect.arrayContaining(["README.md", "docs/api.md", "docs/security.md", "docs/operations.md", "docs/development.md", "docs/extension.md"]),
    );
    expect(files.flatMap((file) => brokenLinks(file))).toEqual([]);
  });

  it("the link check finds a missing file and a missing heading, and skips code and web addresses", () => {
    const page = join(DOCS, "probe.md");
    const markdown = [
      "# Probe",
      "[a](nowhere.md) `[b](code.md)` [c](security.md#no-such-heading) [d](https://example.com/x)",
      "[e](security.md#tokens-and-sessions) [f](../README.md) [g](#probe) [h](#missing)",
      "```",
      "[i](inside-a-code-block.md)",
      "```",
    ].join("\n");
    expect(brokenLinks(page, markdown)).toEqual([
      "docs/probe.md -> nowhere.md: no such file",
      "docs/probe.md -> security.md#no-such-heading: no such heading",
      "docs/probe.md -> #missing: no such heading",
    ]);
    expect(anchorsOf("# Routes outside `/api/v1`\n## A b\n## A b\n")).toEqual(new Set(["routes-outside-apiv1", "a-b", "a-b-1"]));
  });

  it("the screenshot in the README is committed and small", () => {
    const png = readFileSync(join(REPO_ROOT, "docs", "screenshot.png"));
    expect([...png.subarray(1, 4)].map((byte) => String.fromCharCode(byte)).join("")).toBe("PNG");
    expect(png.byteLength).toBeLessThan(200 * 1024);
    expect(readFileSync(join(REPO_ROOT, "README.md"), "utf8")).toContain("](docs/screenshot.png)");
  });

  it("the search page's screenshot in docs/search.md is committed and small", () => {
    const png = readFileSync(join(REPO_ROOT, "docs", "search-page.png"));
    expect([...png.subarray(1, 4)].map((byte) => String.fromCharCode(byte)).join("")).toBe("PNG");
    expect(png.byteLength).toBeLessThan(200 * 1024);
    expect(readFileSync(join(REPO_ROOT, "docs", "search.md"), "utf8")).toContain("](search-page.png)");
  });
});

/** The test files, by path under test/ (`app/links.api.test.ts`); not this one, which spells out the patterns below. */
const testFiles = () =>
  readdirSync(join(REPO_ROOT, "test"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".test.ts") && !name.startsWith("fixtures/") && name !== "unit/repository.test.ts");
const testSource = (name: string) => readFileSync(join(REPO_ROOT, "test", name), "utf8");

// A browser or another outside program, through test/support/browser.ts, test/support/firefox.ts and test/support/programs.ts.
const STARTS_A_PROGRAM = /\blaunch(?:Chromium|Firefox)\(|\b(?:QEMU_AARCH64|PODMAN|SYSTEMD_ANALYZE|CADDY|NGINX|FAIL2BAN)\b/;
// The same, or the compiled executable (test/support/binary.ts), or Playwright's browsers directly.
const STARTS_SOMETHING = new RegExp([
  STARTS_A_PROGRAM.source,
  /\b(?:builtBinary|binaryWorkspace|runBinary|startServer|createUserWithToken)\(|\bnew WorkspaceServers\(/.source,
  /\b(?:chromium|firefox)\.launch(?:PersistentContext)?\(|from "(?:\.\.\/support\/(?:browser|extension\.chromium|extension\.stack|firefox|programs)|playwright-core)"/.source,
].join("|"));
const END_TO_END = /\.(?:binary|e2e)\.test\.ts$/;

describe("tests that need a program npm cannot install", () => {
  // A test file that starts a browser or another outside program must ask requireProgram first,
  // so that on a machine without it `npm run test:e2e` skips with one line (and CI, which installs it, fails).
  it("ask requireProgram first, every one of them", () => {
    const starting = testFiles().filter((name) => STARTS_A_PROGRAM.test(testSource(name)));
    expect(starting.length).toBeGreaterThanOrEqual(5);
    // Named once in the import, and at least once more where it is called (or mapped over a list).
    const asks = (name: string) => testSource(name).split("requireProgram").length - 1 >= 2;
    expect(starting.filter((name) => !asks(name))).toEqual([]);
  });
});

describe("the suite's two parts", () => {
  // `npm test` runs the in-process files and skips the end-to-end ones by their names. A file that
  // starts the executable, a browser or another outside program must say so in its name, or
  // `npm test` would quietly grow slow (and need programs npm cannot install).
  it("names every file that starts the executable, a browser or another program *.binary.test.ts or *.e2e.test.ts", () => {
    const starting = testFiles().filter((name) => STARTS_SOMETHING.test(testSource(name)));
    expect(starting.length).toBeGreaterThan(25);
    expect(starting.filter((name) => !END_TO_END.test(name))).toEqual([]);
    expect(STARTS_SOMETHING.test("const server = await startServer(binary, options);")).toBe(true);
    expect(STARTS_SOMETHING.test('import { e2e } from "../support/browser";')).toBe(true);
    expect(STARTS_SOMETHING.test("const browser = await chromium.launch({ headless: true });")).toBe(true);
    expect(STARTS_SOMETHING.test("await launchFirefox(profile);")).toBe(true);
    expect(STARTS_SOMETHING.test('import { REPO_ROOT, queryFile } from "../support/binary";')).toBe(false);
  });

  it("npm test leaves out exactly those names, test:e2e takes them, and CI runs test:all", () => {
    const { scripts } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(scripts.test).toBe("bun run test:run ./test/unit ./test/app");
    expect(scripts["test:e2e"]).toBe("bun run test:run ./test/binary ./test/e2e ./test/slow");
    expect(scripts["test:all"]).toBe("bun run test:run");
    expect(scripts["test:run"]).toStartWith("bun test ");
    expect(readFileSync(join(REPO_ROOT, ".ci", "run"), "utf8")).toContain("\nnpm run test:all 2>&1 | tee");
    expect(testFiles().filter((name) => !END_TO_END.test(name) && (name.includes(".e2e.") || name.includes(".binary.")))).toEqual([]);
    // npm test takes its tiers by folder: the names above live in binary/ and e2e/, and only they do.
    expect(testFiles().filter((name) => END_TO_END.test(name) !== /^(?:binary|e2e)\//.test(name))).toEqual([]);
  });
});
