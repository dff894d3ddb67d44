/**
 * The import and export flags of the real executable: `linkshelf import --into ID` (where a
 * service's collection goes, refused for a collection that is not one of the user's private
 * ones, storing nothing), `--keep-public` with a linkshelf JSON file, and `linkshelf export
 * --format json` with and without `--with-text`, whose file imported into an empty data
 * directory gives the same shelf back. A hostile zip (entries that give far more than they
 * declare) is refused by the command in one line, and by a running server while it keeps
 * answering `/healthz` and still stops on SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binaryWorkspace, cleanEnv, queryFile, runBinary, startServer, writeFile } from "../support/binary";
import { lyingZip } from "../support/zips";

const SERVICES = join(import.meta.dir, "..", "fixtures", "services");
const BOOKMARKS = join(import.meta.dir, "..", "fixtures", "bookmarks");
/** Per-test limit for tests that spawn several processes (argon2 hashing included). */
const SLOW = 60_000;

let root: string;
let binary: string;
let cwd: string;
let dataDir: string;
let dbPath: string;
let emailCounter = 0;

const cli = (args: string[], options: { stdin?: string; dir?: string } = {}) =>
  runBinary(binary, [...args, "--data-dir", options.dir ?? dataDir], { cwd, stdin: options.stdin });
const lines = (text: string) => text.trimEnd().split("\n");

/** newUser creates a user through the CLI (in `dir`, the test file's data directory by default) and returns their email and id. */
async function newUser(dir = dataDir): Promise<{ email: string; id: number }> {
  const email = `flags${++emailCounter}@example.test`;
  const created = await cli(["user", "create", "--email", email, "--name", "Flags"], { stdin: "long enough password\n", dir });
  expect(created.exitCode).toBe(0);
  const [user] = queryFile<{ id: number }>(join(dir, "linkshelf.db"), "SELECT id FROM users WHERE email = ?", [email]);
  return { email, id: user!.id };
}

/** everything is every row of every table of the file, in rowid order: a refused command must leave it as it was. */
function everything(path = dbPath): string {
  const tables = queryFile<{ name: string }>(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  return JSON.stringify(Object.fromEntries(tables.map(({ name }) => [name, queryFile(path, `SELECT * FROM "${name}"`)])));
}

/** collectionsOf is a user's collections as the tree shows them: name, parent's name, visibility. */
function collectionsOf(userId: number, path = dbPath) {
  return queryFile<{ name: string; parent: string | null; visibility: string }>(path, `
    SELECT c.name, p.name AS parent, c.visibility FROM collections c LEFT JOIN collections p ON p.id = c.parent_id
    WHERE c.user_id = ? ORDER BY c.id`, [userId]);
}

/** collectionId is the id of a user's collection of that name. */
function collectionId(userId: number, name: string): number {
  const [row] = queryFile<{ id: number }>(dbPath, "SELECT id FROM collections WHERE user_id = ? AND name = ?", [userId, name]);
  return row!.id;
}

const POCKET_COLLECTION = /^Pocket \d{4}-\d{2}-\d{2}$/;

beforeAll(() => {
  ({ root, binary, cwd, dataDir, dbPath } = binaryWorkspace("import-flags"));
}, 60_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("linkshelf import --into", () => {
  it("puts a service's collection inside the user's private collection it names", async () => {
    const alice = await newUser();
    expect((await cli(["import", join(BOOKMARKS, "chromium.html"), "--email", alice.email])).exitCode).toBe(0);
    const parent = collectionId(alice.id, "Bookmarks bar");

    const imported = await cli(["import", join(SERVICES, "pocket.csv"), "--email", alice.email, "--into", String(parent)]);
    expect(imported.stderr).toBe("");
    expect(imported.exitCode).toBe(0);
    const pocket = collectionsOf(alice.id).find((collection) => POCKET_COLLECTION.test(collection.name));
    expect(pocket).toEqual({ name: expect.stringMatching(POCKET_COLLECTION), parent: "Bookmarks bar", visibility: "PRIVATE" });
    // Its Tags are inside it, as without --into; archived items are a flag, not an Archive collection.
    expect(collectionsOf(alice.id).filter((collection) => collection.parent === pocket!.name).map((collection) => collection.name)).toEqual(["Tags"]);
  }, SLOW);

  it("without --into puts the service's collection at the top level", async () => {
    const alice = await newUser();
    expect((await cli(["import", join(SERVICES, "pocket.csv"), "--email", alice.email])).exitCode).toBe(0);
    expect(collectionsOf(alice.id).find((collection) => POCKET_COLLECTION.test(collection.name))?.parent).toBeNull();
  }, SLOW);

  it("refuses an unknown collection, another user's, a public one, the Inbox and a word, storing nothing", async () => {
    const alice = await newUser();
    const bob = await newUser();
    expect((await cli(["import", join(BOOKMARKS, "chromium.html"), "--email", alice.email])).exitCode).toBe(0);
    expect((await cli(["import", join(BOOKMARKS, "chromium.html"), "--email", bob.email])).exitCode).toBe(0);
    const bobs = collectionId(bob.id, "Bookmarks bar");
    const inbox = collectionId(alice.id, "Inbox");
    const shared = collectionId(alice.id, "Recipes");
    writeFile(dbPath, "UPDATE collections SET visibility = 'PUBLIC' WHERE id = ?", [shared]);
    const before = everything();

    for (const into of ["999999", String(bobs), String(shared), String(inbox)]) {
      for (const dryRun of [[], ["--dry-run"]]) {
        const refused = await cli(["import", join(SERVICES, "pocket.csv"), "--email", alice.email, "--into", into, ...dryRun]);
        expect({ into, dryRun, exitCode: refused.exitCode }).toEqual({ into, dryRun, exitCode: 1 });
        expect(refused.stdout).toBe("");
        expect(lines(refused.stderr)).toEqual([`linkshelf: --into ${into} is not one of the user's private collections (the Inbox is not one either); nothing was imported`]);
      }
    }
    const word = await cli(["import", join(SERVICES, "pocket.csv"), "--email", alice.email, "--into", "reading"]);
    expect(word.exitCode).toBe(2);
    expect(lines(word.stderr)[0]).toBe('linkshelf: --into must be a collection id, not "reading"');
    expect(everything()).toBe(before);
  }, SLOW);
});

/** A linkshelf JSON export, written by hand: a public collection holding a private one, a private one, and the Inbox. */
const SHELF = {
  format: "linkshelf", version: 1, exportedAt: "2026-11-20T10:00:00.000Z",
  // In the order an export numbers them: the Inbox's first, then as the tree meets them.
  links: [
    { name: "Two", url: "https://two.example/", description: "", favorite: false, toRead: true, archived: false, clicks: 0, lastClickedAt: null, createdAt: "2026-03-02T03:04:05.000Z", updatedAt: "2026-03-02T03:04:05.000Z" },
    { name: "Three", url: "https://three.example/", description: "Third", favorite: false, toRead: false, archived: false, clicks: 1, lastClickedAt: "2026-11-18T08:00:00.000Z", createdAt: "2026-04-02T03:04:05.000Z", updatedAt: "2026-04-02T03:04:05.000Z", text: "Saved words of three" },
    { name: "One", url: "https://one.example/", description: "First", favorite: true, toRead: false, archived: true, clicks: 3, lastClickedAt: "2026-11-19T08:00:00.000Z", createdAt: "2026-01-02T03:04:05.000Z", updatedAt: "2026-02-02T03:04:05.000Z", text: "The first page's text" },
  ],
  inbox: [0],
  collections: [
    {
      name: "Shared", description: "For everyone", icon: "📚", visibility: "PUBLIC", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-05T00:00:00.000Z",
      items: [
        { link: 1 },
        { collection: { name: "Inner", description: null, icon: "📁", visibility: "PRIVATE", createdAt: "2026-01-02T00:00:00.000Z", updatedAt: "2026-01-02T00:00:00.000Z", items: [{ link: 2 }] } },
        { link: 2 },
      ],
    },
    { name: "Mine", description: null, icon: "🔒", visibility: "PRIVATE", createdAt: "2026-01-03T00:00:00.000Z", updatedAt: "2026-01-03T00:00:00.000Z", items: [{ link: 0 }, { link: 1 }] },
  ],
};

describe("linkshelf import of a file with nothing to import", () => {
  it("refuses what the import page refuses (empty, plain text, a CSV of no known header, an ordinary page) in one line, exit 1, recording nothing", async () => {
    const alice = await newUser();
    const files: [string, string][] = [
      ["empty.html", ""], ["notes.txt", "just some words\n"], ["people.csv", "name,address\nx,y\n"],
      ["page.html", "<!DOCTYPE html><html><body><p>Hello</p><a href='https://x.example/'>x</a></body></html>"],
    ];
    const before = everything();
    for (const [name, text] of files) {
      const file = join(root, name);
      writeFileSync(file, text);
      for (const dryRun of [[], ["--dry-run"]]) {
        const refused = await cli(["import", file, "--email", alice.email, ...dryRun]);
        expect(refused.exitCode).toBe(1);
        expect(refused.stdout).toBe("");
        expect(lines(refused.stderr)).toEqual([`linkshelf: “${name}” holds no bookmarks, so there is nothing to import. Choose a bookmarks file exported by a browser (an HTML file that starts with <!DOCTYPE NETSCAPE-Bookmark-file-1>) or the export of one of the services listed.`]);
      }
    }
    expect(everything()).toBe(before);
  }, SLOW);

  it("lists each entry whose date cannot be read on a line of its own", async () => {
    const alice = await newUser();
    const dryRun = await cli(["import", join(SERVICES, "dates.html"), "--email", alice.email, "--dry-run"]);
    expect(dryRun.exitCode).toBe(0);
    expect(lines(dryRun.stdout).filter((line) => line.startsWith("date\t"))).toEqual([
      'date\thttps://dates.example/invalid\tInvalid date\tADD_DATE "invaliddate": not a date linkshelf reads; kept the import time',
      'date\thttps://dates.example/apache\tLog-style date\tADD_DATE "10/Oct/2000:13:55:36 +0300": not a date linkshelf reads; kept the import time',
    ]);
  }, SLOW);

  it("imports Pocket's older HTML export", async () => {
    const alice = await newUser();
    const imported = await cli(["import", join(SERVICES, "pocket.html"), "--email", alice.email]);
    expect(imported.exitCode).toBe(0);
    expect(lines(imported.stdout)[0]).toStartWith("imported 3 links;");
  }, SLOW);
});

describe("linkshelf import --keep-public", () => {
  it("brings a linkshelf JSON file's public collections back PRIVATE, and PUBLIC with --keep-public", async () => {
    const file = join(cwd, "shelf.json");
    writeFileSync(file, JSON.stringify(SHELF));
    const plain = await newUser();
    const kept = await newUser();

    const privately = await cli(["import", file, "--email", plain.email]);
    expect(privately.exitCode).toBe(0);
    expect(privately.stdout).toContain("collection\tShared\tnew\tPRIVATE\t");
    expect(collectionsOf(plain.id)).toEqual([
      { name: "Inbox", parent: null, visibility: "PRIVATE" },
      { name: "Shared", parent: null, visibility: "PRIVATE" },
      { name: "Inner", parent: "Shared", visibility: "PRIVATE" },
      { name: "Mine", parent: null, visibility: "PRIVATE" },
    ]);

    const dryRun = await cli(["import", file, "--email", kept.email, "--keep-public", "--dry-run"]);
    expect(dryRun.exitCode).toBe(0);
    expect(dryRun.stdout).toContain("collection\tShared\tnew\tPUBLIC\t");
    expect(collectionsOf(kept.id)).toEqual([{ name: "Inbox", parent: null, visibility: "PRIVATE" }]);
    const publicly = await cli(["import", file, "--email", kept.email, "--keep-public"]);
    expect(publicly.exitCode).toBe(0);
    expect(collectionsOf(kept.id)).toEqual([
      { name: "Inbox", parent: null, visibility: "PRIVATE" },
      { name: "Shared", parent: null, visibility: "PUBLIC" },
      { name: "Inner", parent: "Shared", visibility: "PRIVATE" },
      { name: "Mine", parent: null, visibility: "PRIVATE" },
    ]);
  }, SLOW);
});

describe("linkshelf export --format json", () => {
  it("writes the saved page texts only with --with-text, and its file imported into an empty data directory gives the same shelf back", async () => {
    const file = join(cwd, "source.json");
    writeFileSync(file, JSON.stringify(SHELF));
    const source = await newUser();
    expect((await cli(["import", file, "--email", source.email, "--keep-public"])).exitCode).toBe(0);

    const bare = await cli(["export", "--email", source.email, "--format", "json"]);
    expect(bare.exitCode).toBe(0);
    expect(bare.stderr).toBe("");
    const withoutText = JSON.parse(bare.stdout) as typeof SHELF;
    expect(withoutText.format).toBe("linkshelf");
    expect(withoutText.links.map((link) => link.url).sort()).toEqual(["https://one.example/", "https://three.example/", "https://two.example/"]);
    expect(withoutText.links.filter((link) => "text" in link)).toEqual([]);

    const full = await cli(["export", "--email", source.email, "--format", "json", "--with-text"]);
    expect(full.exitCode).toBe(0);
    const withText = JSON.parse(full.stdout) as typeof SHELF;
    expect(Object.fromEntries(withText.links.map((link) => [link.url, link.text ?? null]))).toEqual({
      "https://one.example/": "The first page's text", "https://two.example/": null, "https://three.example/": "Saved words of three",
    });
    // Without the texts, the same file.
    expect({ ...withText, exportedAt: "", links: withText.links.map(({ text: _, ...link }) => link) }).toEqual({ ...withoutText, exportedAt: "" });
    // Everything the file was made from comes back: links, their reading flags, clicks, dates, the tree, its order, icons, visibility.
    const { exportedAt: _at, ...shelf } = withText;
    const { exportedAt: _was, ...original } = SHELF;
    expect(shelf).toEqual(original);

    // Into an empty data directory: the same shelf, so the same export.
    const exported = join(cwd, "exported.json");
    writeFileSync(exported, full.stdout);
    const emptyDir = join(cwd, "empty");
    const copy = await newUser(emptyDir);
    const imported = await cli(["import", exported, "--email", copy.email, "--keep-public"], { dir: emptyDir });
    expect(imported.exitCode).toBe(0);
    expect(lines(imported.stdout)[0]).toBe("imported 3 links; 1 link marked to read; 1 link marked archived; 3 new collections; 0 duplicates; 0 skipped");
    const again = await cli(["export", "--email", copy.email, "--format", "json", "--with-text"], { dir: emptyDir });
    expect(again.exitCode).toBe(0);
    const { exportedAt: _again, ...copied } = JSON.parse(again.stdout) as typeof SHELF;
    expect(copied).toEqual(shelf);
    expect(collectionsOf(copy.id, join(emptyDir, "linkshelf.db"))).toEqual(collectionsOf(source.id));
  }, SLOW);

  it("writes the page copies only with --with-copies, and importing that file restores them", async () => {
    const copy = { savedAt: "2026-05-03T10:00:00.000Z", html: "<!doctype html><p>As it was.</p>" };
    const file = join(cwd, "copies.json");
    writeFileSync(file, JSON.stringify({
      format: "linkshelf", version: 1, exportedAt: "2026-12-01T00:00:00.000Z", inbox: [0, 1], collections: [],
      links: [
        { name: "Kept", url: "https://kept.example/", description: "", favorite: false, clicks: 0, lastClickedAt: null, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", copy },
        { name: "Bare", url: "https://bare.example/", description: "", favorite: false, clicks: 0, lastClickedAt: null, createdAt: "2026-01-02T00:00:00.000Z", updatedAt: "2026-01-02T00:00:00.000Z" },
      ],
    }));
    const source = await newUser();
    expect((await cli(["import", file, "--email", source.email])).exitCode).toBe(0);
    const copiesOf = (stdout: string) => Object.fromEntries((JSON.parse(stdout) as { links: { url: string; copy?: unknown }[] }).links.map((link) => [link.url, link.copy ?? null]));
    const bare = await cli(["export", "--email", source.email, "--format", "json"]);
    expect(copiesOf(bare.stdout)).toEqual({ "https://kept.example/": null, "https://bare.example/": null });
    const full = await cli(["export", "--email", source.email, "--format", "json", "--with-copies"]);
    expect(full.exitCode).toBe(0);
    expect(copiesOf(full.stdout)).toEqual({ "https://kept.example/": copy, "https://bare.example/": null });

    const exported = join(cwd, "with-copies.json");
    writeFileSync(exported, full.stdout);
    const emptyDir = join(cwd, "empty-copies");
    const restored = await newUser(emptyDir);
    expect((await cli(["import", exported, "--email", restored.email], { dir: emptyDir })).exitCode).toBe(0);
    const again = await cli(["export", "--email", restored.email, "--format", "json", "--with-copies"], { dir: emptyDir });
    expect(copiesOf(again.stdout)).toEqual({ "https://kept.example/": copy, "https://bare.example/": null });
  }, SLOW);

  it("refuses another format with one line on stderr", async () => {
    const user = await newUser();
    const refused = await cli(["export", "--email", user.email, "--format", "csv"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe("");
    expect(lines(refused.stderr)[0]).toBe('linkshelf: --format must be html or json, not "csv"');
  }, SLOW);

  it("names the flags in --help", async () => {
    const help = await runBinary(binary, ["--help"], { cwd });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain("import FILE --email E [--dry-run] [--into ID] [--keep-public]");
    expect(help.stdout).toContain("export --email E [--format json] [--with-text]");
  });
});

describe("a zip whose entries give far more than they declare", () => {
  /** What the refusal says, on the command line and on the import page. */
  const REFUSAL = "“part_000000.csv” in the zip file unpacks to more than the 200 bytes the zip states for it: the zip file is damaged or made to overload the server. Nothing was stored.";

  it("linkshelf import refuses it with one line and exit 1, storing nothing", async () => {
    const alice = await newUser();
    const file = join(cwd, "lying.zip");
    // 30 parts that each state 200 bytes and hold 64 MiB of spaces.
    writeFileSync(file, lyingZip(30, 64));
    const before = everything();
    for (const dryRun of [[], ["--dry-run"]]) {
      const refused = await cli(["import", file, "--email", alice.email, ...dryRun]);
      expect({ dryRun, exitCode: refused.exitCode, stdout: refused.stdout }).toEqual({ dryRun, exitCode: 1, stdout: "" });
      expect(lines(refused.stderr)).toEqual([`linkshelf: ${REFUSAL}`]);
    }
    expect(everything()).toBe(before);
  }, SLOW);

  it("a server refuses it on the import page (422, the reason) while every /healthz asked every 50 ms answers, then stops on SIGTERM", async () => {
    const alice = await newUser();
    const server = await startServer(binary, { cwd, dataDir, env: cleanEnv({ LINKSHELF_RATE_LIMIT: "off" }) });
    try {
      const signedIn = await fetch(`${server.origin}/login`, {
        method: "POST", redirect: "manual",
        headers: { origin: server.origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: alice.email, password: "long enough password", next: "/" }),
      });
      expect(signedIn.status).toBe(303);
      const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
      const before = everything();
      // 30 parts that each state 200 bytes and hold 256 MiB of spaces (8 MB uploaded): inflated whole, 7.5 GiB.
      const form = new FormData();
      form.append("file", new File([lyingZip(30, 256)], "pocket.zip"));
      let uploading = true;
      const upload = fetch(`${server.origin}/import`, { method: "POST", body: form, headers: { cookie, origin: server.origin, accept: "text/html" } })
        .finally(() => (uploading = false));
      const answers: number[] = [];
      do {
        // Every answer must come, each within a generous 5 s: a server held by the zip gives none.
        const health = await fetch(`${server.origin}/healthz`, { signal: AbortSignal.timeout(5000) });
        answers.push(health.status);
        await Bun.sleep(50);
      } while (uploading);
      const refused = await upload;
      expect(refused.status).toBe(422);
      expect(await refused.text()).toContain(REFUSAL);
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.every((status) => status === 200)).toBe(true);
      expect(everything()).toBe(before);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, SLOW);
});
