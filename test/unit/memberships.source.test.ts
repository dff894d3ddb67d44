/**
 * One writer of memberships: no file of src/ but src/shelf/memberships.ts inserts into
 * `link_collections` (through drizzle or in SQL) or writes the change feed's marks, so every way
 * of putting a link in a collection marks the feed (what each way marks is checked through the
 * API and the pages in changes.api.test.ts).
 */
import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "../support/binary";

const WRITER = "src/shelf/memberships.ts";

/** What inserts rows into a table, in drizzle or in SQL (`INSERT OR IGNORE INTO`, `REPLACE INTO`, the table written as `${linkCollections}`). */
const insertsInto = (table: string, drizzleName: string) => [
  new RegExp(`\\.insert\\(\\s*${drizzleName}\\s*\\)`),
  new RegExp(`\\b(?:INSERT(?:\\s+OR\\s+\\w+)?|REPLACE)\\s+INTO\\s+(?:\\\\?[\`"'\\[]?${table}\\b|\\$\\{\\s*${drizzleName}\\s*\\})`, "i"),
];
const RULES: { what: string; patterns: RegExp[] }[] = [
  { what: "inserts into link_collections", patterns: insertsInto("link_collections", "linkCollections") },
  { what: "marks the change feed", patterns: insertsInto("pending_changes", "pendingChanges") },
];

/** writes lists every `file: what` of the sources whose text matches a rule. */
function writes(files: { path: string; text: string }[]): string[] {
  return files.flatMap(({ path, text }) => RULES.filter((rule) => rule.patterns.some((pattern) => pattern.test(text))).map((rule) => `${path}: ${rule.what}`));
}

const sources = () => readdirSync(join(REPO_ROOT, "src"), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
  .map((entry) => {
    const path = join(entry.parentPath, entry.name);
    return { path: relative(REPO_ROOT, path), text: readFileSync(path, "utf8") };
  });

describe("the one writer of memberships", () => {
  it("is the only file of src/ that inserts into link_collections or marks the change feed", () => {
    const found = writes(sources());
    expect(found.filter((line) => !line.startsWith(`${WRITER}:`))).toEqual([]);
    // The writer itself is found: the patterns see the forms it writes.
    expect(found).toEqual([`${WRITER}: inserts into link_collections`, `${WRITER}: marks the change feed`]);
  });

  it("sees every form an insert takes", () => {
    const forms = [
      "db.insert(linkCollections).values({ linkId, collectionId })",
      "db.insert( linkCollections ).values(rows)",
      'client.query("INSERT INTO link_collections (link_id, collection_id) VALUES (?, ?)")',
      "sql`INSERT OR IGNORE INTO ${linkCollections} (link_id, collection_id, position) SELECT 1, 2, 3`",
      "`insert or replace into \\`link_collections\\` values (1, 2, 0)`",
      '"REPLACE INTO link_collections VALUES (1, 2, 0)"',
      "db.insert(pendingChanges).values({ userId, kind, itemId })",
      '"INSERT OR IGNORE INTO pending_changes (user_id, kind, item_id) VALUES (1, \'link\', 2)"',
    ];
    for (const text of forms) expect({ text, found: writes([{ path: "x.ts", text }]).length }).toEqual({ text, found: 1 });
    const reads = [
      "db.select().from(linkCollections)", "SELECT link_id FROM link_collections WHERE collection_id = 1",
      "db.delete(linkCollections).where(x)", "db.update(linkCollections).set({ position })", "INSERT INTO links (user_id) VALUES (1)",
    ];
    for (const text of reads) expect({ text, found: writes([{ path: "x.ts", text }]) }).toEqual({ text, found: [] });
  });
});
