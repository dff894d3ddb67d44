/**
 * The capture of saved pages in the real executable: the server fetches a saved link's page in
 * the background (from a fake origin on 127.0.0.1, which LINKSHELF_FAVICON_ALLOW_PRIVATE=1 admits),
 * SIGTERM aborts a fetch in flight and the server still exits 0, and LINKSHELF_FETCH_CONTENT=off
 * (or a wrong value) is honoured at start. New links are indexed for search in the background.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { heldRequest, htmlPage } from "../support/capture.fixtures";
import { fakeOrigin, type FakeOrigin } from "../support/favicon.fixtures";
import { binaryWorkspace, cleanEnv, createUserWithToken, queryFile, runBinary, startServer, type BinaryWorkspace } from "../support/binary";

const SLOW = 120_000;
const EMAIL = "capture@example.test";
let workspace: BinaryWorkspace;
let token: string;
let origin: FakeOrigin;
const held = heldRequest();

beforeAll(async () => {
  workspace = binaryWorkspace("capture");
  token = await createUserWithToken(workspace, EMAIL, "Capture", cleanEnv());
  origin = fakeOrigin({
    "/hold": held.route,
    "/page": () => htmlPage("A page"),
  });
}, SLOW);

afterAll(() => {
  origin?.stop();
  if (workspace) rmSync(workspace.root, { recursive: true, force: true });
});

const addLink = (base: string, url: string) =>
  fetch(`${base}/api/v1/links`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Held", url, favorite: false }),
  });

describe("the server's background capture", () => {
  it("fetches a saved link's page, and on SIGTERM abandons the fetch in flight and exits 0", async () => {
    const server = await startServer(workspace.binary, { ...workspace, env: cleanEnv({ LINKSHELF_FAVICON_ALLOW_PRIVATE: "1", LINKSHELF_FETCH_CONTENT: "on" }) });
    try {
      expect((await addLink(server.origin, `${origin.url}/hold`)).status).toBe(201);
      await held.arrived;
      expect(origin.hits).toEqual(["/hold"]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    await held.abandoned;
    expect(server.log.text).toContain("linkshelf: stopped");
  }, SLOW);

  it("with LINKSHELF_FETCH_CONTENT=off fetches nothing: an unnamed link on the form is named after its address", async () => {
    const server = await startServer(workspace.binary, { ...workspace, env: cleanEnv({ LINKSHELF_FAVICON_ALLOW_PRIVATE: "1", LINKSHELF_FETCH_CONTENT: "off" }) });
    try {
      const signIn = await fetch(`${server.origin}/login`, {
        method: "POST", redirect: "manual",
        headers: { origin: server.origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: EMAIL, password: "long enough password", next: "/" }),
      });
      expect(signIn.status).toBe(303);
      const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
      const added = await fetch(`${server.origin}/links`, {
        method: "POST", redirect: "manual",
        headers: { origin: server.origin, cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ name: "", url: `${origin.url}/page` }),
      });
      expect(added.status).toBe(303);
      expect(added.headers.get("location")).toBe("/?done=link-added-address");
      expect(origin.hitsOf("/page")).toBe(0);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, SLOW);

  it("refuses to start with a LINKSHELF_FETCH_CONTENT that is neither on nor off: one line, exit 2", async () => {
    const result = await runBinary(workspace.binary, ["serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", workspace.dataDir], {
      cwd: workspace.cwd, env: cleanEnv({ LINKSHELF_FETCH_CONTENT: "yes" }),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe('linkshelf: invalid LINKSHELF_FETCH_CONTENT "yes": expected on or off');
  }, SLOW);
});

describe("the server's background search index", () => {
  const dbFile = () => `${workspace.dataDir}/linkshelf.db`;
  /** The rows of every user's index (`link_search_<user id>`), and the links marked for indexing. */
  const indexState = () => {
    const indexes = queryFile<{ name: string }>(dbFile(), "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'link_search_[1-9]*'")
      .map((row) => row.name).filter((name) => /^link_search_\d+$/.test(name));
    const indexed = indexes.map((name) => `(SELECT count(*) FROM ${name})`).join(" + ") || "0";
    return queryFile<{ indexed: number; pending: number }>(dbFile(), `SELECT ${indexed} AS indexed, (SELECT count(*) FROM link_search_pending) AS pending`)[0]!;
  };
  /** caughtUp reads the file until nothing is marked (10 s at most), then returns the counts. */
  const caughtUp = async () => {
    const deadline = performance.now() + 10_000;
    while (indexState().pending > 0 && performance.now() < deadline) await Bun.sleep(20);
    return indexState();
  };

  it("indexes new links soon after they are stored, with no search asking; on SIGTERM leaves the rest marked; indexes what is marked after the next start", async () => {
    const env = cleanEnv({ LINKSHELF_FETCH_CONTENT: "off" });
    let server = await startServer(workspace.binary, { ...workspace, env });
    // Links an earlier test of this file stored may still be marked: counted once the indexer has them.
    const before = await caughtUp();
    try {
      const added = await addLink(server.origin, "https://indexed.example/");
      expect(added.status).toBe(201);
      expect(await caughtUp()).toEqual({ indexed: before.indexed + 1, pending: 0 });
      // A burst, then SIGTERM at once: whatever the indexer had not reached stays marked.
      const burst = await Promise.all(Array.from({ length: 50 }, () => addLink(server.origin, "https://burst.example/")));
      expect(burst.map((answer) => answer.status)).toEqual(Array(50).fill(201));
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const stopped = indexState();
    expect(stopped.indexed + stopped.pending).toBe(before.indexed + 51);
    // Whatever the indexer reached before it stopped, every link is marked again now (as the
    // migration that made the index marked every link stored before search existed).
    queryFile(dbFile(), "INSERT OR IGNORE INTO link_search_pending (link_id) SELECT id FROM links");
    expect(indexState().pending).toBe(before.indexed + 51);
    server = await startServer(workspace.binary, { ...workspace, env });
    try {
      expect(await caughtUp()).toEqual({ indexed: before.indexed + 51, pending: 0 });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, SLOW);
});
