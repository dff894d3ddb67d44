/**
 * Every setting that loadConfig reads is listed once in SETTINGS, and so in `--help`, README's
 * configuration table and the compose file's comments: a new setting cannot be left out of any.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { USAGE } from "../../src/cli";
import { SETTINGS } from "../../src/common/config";

const ROOT = join(import.meta.dir, "..", "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The names loadConfig reads from its environment, from config.ts's source. */
function namesRead(): string[] {
  const source = read("src/common/config.ts");
  return [...new Set([...source.matchAll(/env\.(LINKSHELF_[A-Z_]+)/g)].map((match) => match[1]!))].sort();
}

describe("the list of settings", () => {
  const listed = SETTINGS.map((setting) => setting.name);

  it("names each setting loadConfig reads, once", () => {
    expect(namesRead().length).toBeGreaterThan(10);
    expect([...listed].sort()).toEqual(namesRead());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("is what --help lists, one line each", () => {
    const lines = USAGE.split("\n");
    for (const name of namesRead()) expect(lines.filter((line) => line.trimStart().startsWith(`${name}=`))).toHaveLength(1);
  });

  it("is in README's configuration table and the compose file's comments", () => {
    const readme = read("README.md");
    const compose = read("deploy/compose.yaml");
    for (const name of namesRead()) {
      expect(readme).toContain(`| \`${name}\` |`);
      expect(compose).toMatch(new RegExp(`(^|[\\s#])${name}[:=]`, "m"));
    }
  });
});
