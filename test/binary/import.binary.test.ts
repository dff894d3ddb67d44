/**
 * `linkshelf import FILE --email E [--dry-run]` and `linkshelf export --email E` through the
 * real executable (built with build.ts, run from a directory without node_modules), also
 * while a server runs on the same data. Only 127.0.0.1 is contacted.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binaryWorkspace, cleanEnv, queryFile, runBinary, startServer, writeFile, type RunningServer } from "../support/binary";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "bookmarks");
/** Per-test limit for tests that spawn several processes (argon2 hashing included). */
const SLOW = 30_000;

let root: string;
let binary: string;
let cwd: string;
let dataDir: string;
let dbPath: string;
let server: RunningServer;
let emailCounter = 0;

const cli = (args: string[], stdin?: string) => runBinary(binary, [...args, "--data-dir", dataDir], { cwd, stdin });
const lines = (text: string) => text.trimEnd().split("\n");

/** newUser creates a user through the CLI and returns their email and a fresh token. */
async function newUser(): Promise<{ email: string; token: string }> {
  const email = `importer${++emailCounter}@example.test`;
  expect((await cli(["user", "create", "--email", email, "--name", "Importer"], "long enough password\n")).exitCode).toBe(0);
  const token = await cli(["token", "create", "--email", email]);
  return { email, token: token.stdout.trim() };
}

/** counts of a user's rows, read from the file with a connection of its own. */
function counts(email: string) {
  const [row] = queryFile<{ links: number; collections: number; memberships: number }>(dbPath, `
    SELECT (SELECT count(*) FROM links l JOIN users u ON u.id = l.user_id WHERE u.email = ?1) AS links,
           (SELECT count(*) FROM collections c JOIN users u ON u.id = c.user_id WHERE u.email = ?1) AS collections,
           (SELECT count(*) FROM link_collections lc JOIN links l ON l.id = lc.link_id JOIN users u ON u.id = l.user_id WHERE u.email = ?1) AS memberships`,
  [email]);
  return row!;
}

async function collectionsOf(token: string) {
  const response = await fetch(`${server.origin}/api/v1/collections`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const body = await response.json() as { collections: { name: string; links: { url: string; name: string; description: string }[] }[] };
  return body.collections.map((c) => ({ name: c.name, links: c.links.map((l) => `${l.name} <${l.url}> ${l.description}`).sort() }));
}

beforeAll(async () => {
  ({ root, binary, cwd, dataDir, dbPath } = binaryWorkspace("bookmarks"));
  // The polls while an import runs ask /l/:id as often as answers come: however long the import takes on a busy machine, they must not meet the rate limit.
  server = await startServer(binary, { cwd, dataDir, env: cleanEnv({ LINKSHELF_RATE_LIMIT: "1000000/60" }) });
}, 60_000);

afterAll(async () => {
  if (server) await server.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("linkshelf import", () => {
  it("imports a Firefox file while the server runs, prints the report, and the server serves the result", async () => {
    const { email, token } = await newUser();
    const result = await cli(["import", join(FIXTURES, "firefox.html"), "--email", email]);

    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    const [summary, ...entries] = lines(result.stdout);
    expect(summary).toBe("imported 8 links; 9 new collections; 0 duplicates; 5 skipped");
    // The last line names the import's record, which the API lists as the CLI's.
    const recorded = /^import (\d+) recorded: undo it on the account page, or with DELETE \/api\/v1\/imports\/(\d+)$/.exec(entries.pop()!);
    expect(recorded?.[1]).toBe(recorded?.[2]);
    const listed = await fetch(`${server.origin}/api/v1/imports`, { headers: { authorization: `Bearer ${token}` } });
    expect((await listed.json() as { imports: unknown[] }).imports).toEqual([expect.objectContaining({
      id: Number(recorded![1]), source: "cli", fileName: "firefox.html", links: 8, collections: 9, duplicates: 0, skipped: 5, undoneAt: null,
    })]);
    expect(entries).toEqual([
      // Firefox's keyword (SHORTCUTURL) is not imported: listed.
      "unknown fields\tSHORTCUTURL",
      "collection\tInbox\texisting\tPRIVATE\t2 links",
      "collection\tMozilla Firefox\tnew\tPRIVATE\t2 links",
      "collection\tMozilla Firefox › Add-ons\tnew\tPRIVATE\t1 link",
      "collection\tBookmarks Toolbar\tnew\tPRIVATE\t2 links",
      "collection\tBookmarks Toolbar › Daily\tnew\tPRIVATE\t2 links",
      "collection\tOther Bookmarks\tnew\tPRIVATE\t2 links",
      // Firefox's tags: a collection each under a top-level Tags.
      "collection\tTags\tnew\tPRIVATE\t0 links",
      "collection\tTags › reference\tnew\tPRIVATE\t1 link",
      "collection\tTags › search\tnew\tPRIVATE\t1 link",
      "collection\tTags › about\tnew\tPRIVATE\t1 link",
      "skipped\tplace:parent=menu________&sort=12&maxResults=10\tRecent Tags\tlinkshelf keeps only http and https links, not place: ones.",
      "skipped\tfile:///home/me/notes.txt\tMy notes\tlinkshelf keeps only http and https links, not file: ones.",
      "skipped\tdata:text/html,<h1>hi</h1>\tA data page\tlinkshelf keeps only http and https links, not data: ones.",
      "skipped\t\tBroken entry without HREF\tThe bookmark has no URL.",
      "skipped\tplace:sort=8&maxResults=10\tMost Visited\tlinkshelf keeps only http and https links, not place: ones.",
    ]);
    const served = await collectionsOf(token);
    expect(served.map((c) => c.name)).toEqual(["Inbox", "Mozilla Firefox", "Add-ons", "Bookmarks Toolbar", "Daily", "Other Bookmarks", "Tags", "reference", "search", "about"]);
    expect(served[0]!.links).toContain("Getting Started <https://www.mozilla.org/en-US/firefox/central/> Firefox's welcome page & tour");

    // Again: each of the file's 11 http(s) bookmarks is one duplicate, its tag collections not counted again.
    const again = await cli(["import", join(FIXTURES, "firefox.html"), "--email", email]);
    expect(again.exitCode).toBe(0);
    expect(lines(again.stdout)[0]).toBe("imported 0 links; 0 new collections; 11 duplicates; 5 skipped");
    expect(lines(again.stdout)).toContain("duplicate\thttps://github.com/\tGitHub");
  }, SLOW);

  it("decodes a windows-1252 file", async () => {
    const { email, token } = await newUser();
    const result = await cli(["import", join(FIXTURES, "windows-1252.html"), "--email", email]);
    expect(result.exitCode).toBe(0);
    expect((await collectionsOf(token))[1]).toEqual({
      name: "Café & Crème",
      links: ["Le “meilleur” café – Paris <https://example.org/caf%C3%A9> Prix : 5 € ; Straße, Ærø, naïve"],
    });
  }, SLOW);

  it("stores nothing with --dry-run, and says so", async () => {
    const { email } = await newUser();
    const before = counts(email);
    const result = await cli(["import", join(FIXTURES, "chromium.html"), "--email", email, "--dry-run"]);
    expect(result.exitCode).toBe(0);
    expect(lines(result.stdout)[0]).toBe("dry run, nothing stored: would import 8 links; 5 new collections; 0 duplicates; 2 skipped");
    // The collections one per line, each new one named once.
    const named = lines(result.stdout).filter((line) => line.startsWith("collection\t")).map((line) => line.split("\t").slice(1, 3).join(" "));
    expect(named).toEqual(expect.arrayContaining(["Bookmarks bar new", "Bookmarks bar › Dev new", "Bookmarks bar › Dev › JavaScript new", "Bookmarks bar › Dev › Empty ideas new", "Recipes new"]));
    expect(result.stdout).not.toContain("recorded");
    expect(counts(email)).toEqual(before);
    expect(queryFile(dbPath, "SELECT count(*) AS n FROM imports i JOIN users u ON u.id = i.user_id WHERE u.email = ?", [email])).toEqual([{ n: 0 }]);
  }, SLOW);

  it("lists every destination with --dry-run, puts a folder named like a PUBLIC collection into a private stand-in, and publishes nothing", async () => {
    const { email, token } = await newUser();
    const api = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const made = await fetch(`${server.origin}/api/v1/collections`, { method: "POST", headers: api, body: JSON.stringify({ name: "Reading", visibility: "PUBLIC", icon: "📚" }) });
    expect(made.status).toBe(201);
    const reading = (await made.json() as { collection: { id: number } }).collection.id;
    const file = join(cwd, "reading.html");
    writeFileSync(file, `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="https://loose.example/">Loose</A>\n<DT><H3>Reading</H3>\n<DL><p>\n<DT><A HREF="https://private.example/">Private read</A>\n</DL><p>\n</DL><p>\n`);
    const destinations = [
      "collection\tInbox\texisting\tPRIVATE\t1 link",
      "collection\tReading (imported)\tnew\tPRIVATE\t1 link\tinstead of public Reading",
    ];
    const before = counts(email);

    const dry = await cli(["import", file, "--email", email, "--dry-run"]);
    expect(dry.exitCode).toBe(0);
    expect(lines(dry.stdout)).toEqual(["dry run, nothing stored: would import 2 links; 1 new collection; 0 duplicates; 0 skipped", ...destinations]);
    expect(counts(email)).toEqual(before);

    const real = await cli(["import", file, "--email", email]);
    expect(lines(real.stdout).slice(0, 3)).toEqual(["imported 2 links; 1 new collection; 0 duplicates; 0 skipped", ...destinations]);
    const [imported] = queryFile<{ id: number }>(dbPath, "SELECT id FROM links WHERE url = 'https://private.example/'");
    const [standIn] = queryFile<{ id: number; visibility: string }>(dbPath, "SELECT id, visibility FROM collections WHERE name = 'Reading (imported)'");
    expect(standIn!.visibility).toBe("PRIVATE");
    // Anonymous visitors of the running server: the link and its collection are unknown, the public collection shows nothing new.
    const anonymous = async (path: string) => {
      const response = await fetch(`${server.origin}${path}`, { redirect: "manual" });
      return { status: response.status, text: await response.text() };
    };
    expect((await anonymous(`/l/${imported!.id}`)).status).toBe(404);
    expect((await anonymous(`/c/${standIn!.id}`)).status).toBe(404);
    expect((await anonymous(`/c/${standIn!.id}/feed`)).status).toBe(404);
    for (const path of [`/c/${reading}`, `/c/${reading}/feed`]) {
      const shown = await anonymous(path);
      expect(shown.status).toBe(200);
      expect(shown.text).not.toContain("private.example");
      expect(shown.text).not.toContain(`/l/${imported!.id}`);
    }
  }, SLOW);

  it("refuses a missing file, an unknown email and missing words with one line on stderr, storing nothing", async () => {
    const { email } = await newUser();
    const before = counts(email);

    const missing = await cli(["import", join(cwd, "nope.html"), "--email", email]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stdout).toBe("");
    expect(lines(missing.stderr)).toEqual([expect.stringMatching(/^linkshelf: cannot read .*nope\.html: /)]);

    const unknown = await cli(["import", join(FIXTURES, "chromium.html"), "--email", "nobody@example.test"]);
    expect(unknown.exitCode).toBe(1);
    expect(lines(unknown.stderr)).toEqual(["linkshelf: no user has the email nobody@example.test"]);

    const noFile = await cli(["import", "--email", email]);
    expect(noFile.exitCode).toBe(2);
    expect(lines(noFile.stderr)[0]).toBe("linkshelf: import needs 1 argument");
    const noEmail = await cli(["import", join(FIXTURES, "chromium.html")]);
    expect(noEmail.exitCode).toBe(2);
    expect(lines(noEmail.stderr)[0]).toBe("linkshelf: import needs --email");
    const wrongFlag = await cli(["export", "--email", email, "--dry-run"]);
    expect(wrongFlag.exitCode).toBe(2);
    expect(lines(wrongFlag.stderr)[0]).toBe("linkshelf: export does not take --dry-run");

    expect(counts(email)).toEqual(before);
  }, SLOW);

  it("refuses a file nesting folders 65 deep with one line on stderr, storing nothing, and imports one 64 deep", async () => {
    const { email } = await newUser();
    const before = counts(email);
    const nested = (depth: number) => `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n${"<DT><H3>f</H3><DL><p>".repeat(depth)}<DT><A HREF="https://deep.example/">Deep</A>\n`;
    const tooDeep = join(cwd, "too-deep.html");
    writeFileSync(tooDeep, nested(65));
    const refused = await cli(["import", tooDeep, "--email", email]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe("");
    expect(lines(refused.stderr)).toEqual(["linkshelf: The file nests folders more than 64 deep, deeper than linkshelf imports. Move the deepest folders up, or split the file. Nothing was stored."]);
    expect(counts(email)).toEqual(before);

    const deepEnough = join(cwd, "deep-enough.html");
    writeFileSync(deepEnough, nested(64));
    const imported = await cli(["import", deepEnough, "--email", email]);
    expect(imported.exitCode).toBe(0);
    expect(counts(email).links).toBe(before.links + 1);
  }, SLOW);
});

/** The pause between two rounds of polling while an import runs. */
const POLL_MS = 20;

describe("the import page while the server runs", () => {
  /** signIn signs a user in through the form and returns the session cookie. */
  async function signIn(email: string): Promise<string> {
    const response = await fetch(`${server.origin}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: server.origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password: "long enough password", next: "/" }),
    });
    expect(response.status).toBe(303);
    return response.headers.get("set-cookie")!.split(";")[0]!;
  }

  /** importerWithPinnedLink is a new user, signed in, with one link saved: the link the polls click while an import runs. */
  async function importerWithPinnedLink() {
    const { email, token } = await newUser();
    const cookie = await signIn(email);
    const created = await fetch(`${server.origin}/api/v1/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Pinned", url: "https://pinned.example/", favorite: false }),
    });
    expect(created.status).toBe(201);
    const pinned = ((await created.json()) as { link: { id: number } }).link;
    return { email, token, cookie, pinned };
  }

  /** sendAll writes a whole HTTP request on a new connection and resolves once every byte is handed to the kernel, with the response to come. */
  async function sendAll(bytes: Uint8Array): Promise<{ sent: Promise<void>; response: Promise<string> }> {
    let offset = 0;
    let sentDone!: () => void;
    const sent = new Promise<void>((resolve) => (sentDone = resolve));
    let answer = "";
    let answered!: (text: string) => void;
    const response = new Promise<string>((resolve) => (answered = resolve));
    const push = (socket: Bun.Socket) => {
      while (offset < bytes.length) {
        const written = socket.write(bytes.subarray(offset));
        if (written <= 0) return;
        offset += written;
      }
      sentDone();
    };
    await Bun.connect({
      hostname: "127.0.0.1",
      port: server.port,
      socket: {
        open: push,
        drain: push,
        data(socket, data) {
          answer += new TextDecoder().decode(data);
          if (/\r\n\r\n/.test(answer)) {
            answered(answer);
            socket.end();
          }
        },
        close: () => answered(answer),
      },
    });
    return { sent, response };
  }

  /**
   * poll asks for /healthz and /l/:id, one after the other, a round every POLL_MS at most, until
   * `work` settles: the rounds answered meanwhile, the slowest answers, how long it took. Paced, it
   * measures how long answers take without taking the CPU the server's work needs.
   */
  async function poll(work: Promise<unknown>, clickId: number, token: string) {
    let settled = false;
    void work.finally(() => (settled = true)).catch(() => undefined);
    const started = performance.now();
    const result = { rounds: 0, slowestHealth: 0, slowestClick: 0, millis: 0 };
    while (!settled) {
      let at = performance.now();
      const health = await fetch(`${server.origin}/healthz`);
      expect(await health.json()).toEqual({ status: "ok" });
      result.slowestHealth = Math.max(result.slowestHealth, performance.now() - at);
      at = performance.now();
      const click = await fetch(`${server.origin}/l/${clickId}`, { redirect: "manual", headers: { authorization: `Bearer ${token}` } });
      expect(click.status).toBe(302);
      result.slowestClick = Math.max(result.slowestClick, performance.now() - at);
      if (!settled) result.rounds++;
      await Bun.sleep(POLL_MS);
    }
    result.millis = performance.now() - started;
    return result;
  }

  it("keeps answering /healthz and /l/:id while it reads a 32 MiB upload, then imports it on confirmation", async () => {
    const { email, token, cookie, pinned } = await importerWithPinnedLink();

    // 5,000 links with long descriptions, in 50 folders: 32 MiB of markup to read.
    const entries = 5000;
    const padding = "d".repeat(Math.floor((32 * 1024 * 1024 - 200_000) / entries) - 120);
    const parts = ["<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n"];
    for (let folder = 0; folder < 50; folder++) {
      parts.push(`<DT><H3>Folder ${folder}</H3>\n<DL><p>\n`);
      for (let i = folder; i < entries; i += 50) parts.push(`<DT><A HREF="https://site${i}.example/">Page ${i}</A>\n<DD>${padding}\n`);
      parts.push("</DL><p>\n");
    }
    parts.push("</DL><p>\n");
    const file = parts.join("");
    const boundary = "----linkshelf-test-boundary";
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.html"\r\nContent-Type: text/html\r\n\r\n`),
      Buffer.from(file),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    expect(file.length).toBeGreaterThan(31 * 1024 * 1024);
    expect(file.length).toBeLessThan(32 * 1024 * 1024);
    const head = `POST /import HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nOrigin: ${server.origin}\r\nCookie: ${cookie}\r\n`
      + `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;

    const upload = await sendAll(Buffer.concat([Buffer.from(head), body]));
    const response = upload.response;
    // Counted from the moment the whole upload is handed over: from then on the server is reading it.
    await upload.sent;
    const { rounds } = await poll(response, pinned.id, token);
    const answer = await response;
    expect(answer).toStartWith("HTTP/1.1 303");
    // Answers all along the reading: a server that held the event loop for it would answer once,
    // after. Alone it gives about 14 rounds here, fewer when other tests share the cores.
    expect(rounds).toBeGreaterThanOrEqual(5);

    const key = /\r\nlocation: (\/import\/[0-9a-f-]{36})\r\n/i.exec(answer)![1]!;
    const before = counts(email).links;
    const confirmed = await fetch(`${server.origin}${key}/confirm`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, origin: server.origin, "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(confirmed.status).toBe(303);
    expect(counts(email).links).toBe(before + entries);
  }, 60_000);

  /** shelfRows dumps a user's links (without their click counts), collections and memberships, read from the file. */
  const shelfRows = (email: string) => JSON.stringify([
    queryFile(dbPath, "SELECT l.id, l.name, l.url, l.description, l.favorite, l.created_at, l.updated_at FROM links l JOIN users u ON u.id = l.user_id WHERE u.email = ? ORDER BY l.id", [email]),
    queryFile(dbPath, "SELECT c.* FROM collections c JOIN users u ON u.id = c.user_id WHERE u.email = ? ORDER BY c.id", [email]),
    queryFile(dbPath, "SELECT lc.* FROM link_collections lc JOIN links l ON l.id = lc.link_id JOIN users u ON u.id = l.user_id WHERE u.email = ? ORDER BY lc.link_id, lc.collection_id", [email]),
  ]);

  it("keeps answering /healthz and /l/:id during the preview and the confirmed import of 99,000 links (32 MiB); the preview stores nothing, a failure half-way stores nothing", async () => {
    const { email, token, cookie, pinned } = await importerWithPinnedLink();

    // 99,000 short links in 100 folders: 32 MiB of markup, close to the 100,000 bookmarks a file may hold.
    const entries = 99_000;
    const folders = 100;
    const padding = "d".repeat(Math.floor((32 * 1024 * 1024 - 100_000) / entries) - 65);
    const parts = ["<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n"];
    for (let folder = 0; folder < folders; folder++) {
      parts.push(`<DT><H3>Folder ${folder}</H3>\n<DL><p>\n`);
      for (let i = folder; i < entries; i += folders) parts.push(`<DT><A HREF="https://site${i}.example/">Page ${i}</A>\n<DD>${padding}\n`);
      parts.push("</DL><p>\n");
    }
    parts.push("</DL><p>\n");
    const file = parts.join("");
    expect(file.length).toBeGreaterThan(31 * 1024 * 1024);
    expect(file.length).toBeLessThan(32 * 1024 * 1024);
    const form = new FormData();
    form.set("file", new File([file], "huge.html", { type: "text/html" }));
    const before = shelfRows(email);

    const upload = fetch(`${server.origin}/import`, { method: "POST", redirect: "manual", headers: { cookie, origin: server.origin }, body: form });
    const preview = await poll(upload, pinned.id, token);
    const previewed = await upload;
    expect(previewed.status).toBe(303);
    const key = previewed.headers.get("location")!;
    expect(shelfRows(email)).toBe(before);
    const previewPage = await fetch(`${server.origin}${key}`, { headers: { cookie } });
    expect(await previewPage.text()).toContain("99,000");

    const confirm = () => fetch(`${server.origin}${key}/confirm`, {
      method: "POST", redirect: "manual", headers: { cookie, origin: server.origin, "content-type": "application/x-www-form-urlencoded" }, body: "",
    });
    // A failure the rules cannot foresee, at the file's 49,551st bookmark (folder 50, its 51st): at
    // least 9 transactions of this import (5,000 links at most each) have committed by then, and
    // the import runs long enough for several rounds of polling on a fast machine too.
    writeFile(dbPath, `CREATE TRIGGER fail_huge_import BEFORE INSERT ON links WHEN NEW.url = 'https://site5050.example/' BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    const failing = confirm();
    const failed = await poll(failing, pinned.id, token);
    expect((await failing).status).toBe(500);
    expect(shelfRows(email)).toBe(before);
    writeFile(dbPath, "DROP TRIGGER fail_huge_import");

    // The preview waits again; confirmed once more, the import goes through.
    const confirming = confirm();
    const confirmed = await poll(confirming, pinned.id, token);
    expect((await confirming).status).toBe(303);
    expect(counts(email)).toEqual({ links: 1 + entries, collections: 1 + folders, memberships: 1 + entries });
    // A server that held its event loop through the import would answer once, at its end. This
    // one answers throughout: several rounds, none waiting half of the import. (The count of rounds
    // follows the machine: 14 alone here, 7 with a browser test beside it.)
    for (const figures of [failed, confirmed]) {
      expect(figures.rounds).toBeGreaterThanOrEqual(5);
      expect(figures.slowestHealth).toBeLessThan(figures.millis / 2);
    }

    // Reported, never asserted: the slowest answers depend on the machine.
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    for (const [label, figures] of [["upload and preview", preview], ["confirm, failing at link 49,551", failed], ["confirm", confirmed]] as const) {
      console.log(`99,000 links (32 MiB), ${label}: ${ms(figures.millis)}, ${figures.rounds} rounds, slowest /healthz ${ms(figures.slowestHealth)}, slowest /l/:id ${ms(figures.slowestClick)}`);
    }
  }, 180_000);
});

describe("linkshelf export", () => {
  it("writes the file on stdout, and importing it for another user reproduces the same collections and links, and the same file", async () => {
    const first = await newUser();
    expect((await cli(["import", join(FIXTURES, "chromium.html"), "--email", first.email])).exitCode).toBe(0);
    expect((await cli(["import", join(FIXTURES, "odd.html"), "--email", first.email])).exitCode).toBe(0);

    const exported = await cli(["export", "--email", first.email]);
    expect(exported.exitCode).toBe(0);
    expect(exported.stderr).toBe("");
    expect(exported.stdout.startsWith("<!DOCTYPE NETSCAPE-Bookmark-file-1>\n")).toBe(true);
    expect(exported.stdout.endsWith("</DL><p>\n")).toBe(true);

    const file = join(cwd, "export.html");
    writeFileSync(file, exported.stdout);
    const second = await newUser();
    const imported = await cli(["import", file, "--email", second.email]);
    expect(imported.exitCode).toBe(0);
    expect(lines(imported.stdout)[0]).toBe("imported 18 links; 10 new collections; 0 duplicates; 0 skipped");
    expect(await collectionsOf(second.token)).toEqual(await collectionsOf(first.token));
    expect(counts(second.email)).toEqual(counts(first.email));
    expect((await cli(["export", "--email", second.email])).stdout).toBe(exported.stdout);
  }, SLOW);

  it("lists import and export in --help", async () => {
    const help = await runBinary(binary, ["--help"], { cwd });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain("import FILE --email E [--dry-run]");
    expect(help.stdout).toContain("export --email E");
  });
});
