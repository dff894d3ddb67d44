/**
 * Backups and restores are new histories: every copy linkshelf writes (`writeBackup`, which
 * `linkshelf backup`, the scheduled backups and `linkshelf restore` use) carries a generation of
 * its own, so a change cursor of the database it was copied from is refused by a server on the
 * copy (410 HISTORY_REPLACED), never read as "no changes"; a restore hands out new ids above
 * every id the database it replaces issued. The CLI and the server around them are in
 * test/binary/operations.data.binary.test.ts.
 */
import { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeBackup } from "../../src/db/backup";
import { closeDatabase } from "../../src/db/client";
import { restoreDatabase } from "../../src/db/restore";
import { testDir } from "../support/dirs";
import { createCollection, createLink, createUser, del, get, makeEnv, type TestEnv, type TestUser } from "../support/helpers";

const generationOf = (sqlite: Database) => sqlite.query<{ generation: string }, []>("SELECT generation FROM history").get()!.generation;
const generationOfFile = (file: string) => {
  const sqlite = new Database(file, { readonly: true });
  try {
    return generationOf(sqlite);
  } finally {
    sqlite.close();
  }
};

async function used() {
  const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off" });
  const alice = await createUser(env);
  const link = await createLink(env, alice, { name: "Kept", url: "https://kept.example/" });
  const cursor = (await get(env, "/api/v1/changes/cursor", { token: alice.token })).body.cursor as string;
  return { env, alice, link, cursor };
}

const onCopy = (file: string): TestEnv => makeEnv({ LINKSHELF_FETCH_CONTENT: "off" }, { path: file });

describe("writeBackup", () => {
  it("gives every copy a generation of its own and leaves the database's as it was", async () => {
    const { env } = await used();
    const live = generationOf(env.db.$client);
    const dir = testDir("backup-generation");
    const [first, second] = [join(dir, "first.db"), join(dir, "second.db")];
    writeBackup(env.db.$client, first);
    writeBackup(env.db.$client, second);
    expect(generationOf(env.db.$client)).toBe(live);
    const copies = [generationOfFile(first), generationOfFile(second)];
    for (const generation of copies) expect(generation).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set([live, ...copies]).size).toBe(3);
    // Whole files of mode 0600, nothing else left beside them.
    for (const file of [first, second]) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(["first.db", "second.db"]);
  });

  it("makes a copy that, put in place of the database, refuses the cursors of the database it came from as HISTORY_REPLACED and keeps its data", async () => {
    const { env, alice, link, cursor } = await used();
    const file = join(testDir("backup-served"), "copy.db");
    writeBackup(env.db.$client, file);
    const copy = onCopy(file);
    try {
      const refused = await get(copy, `/api/v1/changes?since=${cursor}`, { token: alice.token });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 410, code: "HISTORY_REPLACED" });
      expect((await get(copy, `/api/v1/links/${link.id}`, { token: alice.token })).body.link.name).toBe("Kept");
      const fresh = (await get(copy, "/api/v1/changes/cursor", { token: alice.token })).body.cursor as string;
      expect(fresh.split(".")[0]).toBe(generationOfFile(file));
      expect(fresh.split(".")[1]).toBe(cursor.split(".")[1]);
      expect((await get(copy, `/api/v1/changes?since=${fresh}`, { token: alice.token })).status).toBe(200);
    } finally {
      closeDatabase(copy.db);
    }
  });

  it("carries the page copies, compressed as they are stored", async () => {
    const { env, alice } = await used();
    const link = await createLink(env, alice, { name: "Kept", url: "https://kept.example/" });
    const html = "<p>As it was.</p>".repeat(100);
    const put = await env.app.handle(new Request(`http://localhost/api/v1/links/${link.id}/copy`, {
      method: "PUT", body: html, headers: { authorization: `Bearer ${alice.token}`, "content-type": "text/html" },
    }));
    expect(put.status).toBe(200);
    const file = join(testDir("backup-copies"), "backup.db");
    writeBackup(env.db.$client, file);
    const copy = new Database(file, { readonly: true });
    try {
      const row = copy.query<{ body: Uint8Array; bytes: number }, [number]>("SELECT body, bytes FROM link_copies WHERE link_id = ?").get(link.id)!;
      expect(row.bytes).toBe(html.length);
      expect(Buffer.from(Bun.zstdDecompressSync(row.body)).toString()).toBe(html);
    } finally {
      copy.close();
    }
  });

  it("never overwrites an existing file, and leaves nothing behind when it fails", async () => {
    const { env } = await used();
    const dir = testDir("backup-refused");
    const taken = join(dir, "taken.db");
    writeFileSync(taken, "mine");
    expect(() => writeBackup(env.db.$client, taken)).toThrow(/EEXIST|exists/);
    expect(await Bun.file(taken).text()).toBe("mine");
    const nowhere = join(dir, "missing", "copy.db");
    expect(() => writeBackup(env.db.$client, nowhere)).toThrow();
    expect(readdirSync(dir)).toEqual(["taken.db"]);
    expect(existsSync(nowhere)).toBe(false);
  });
});

describe("restoreDatabase", () => {
  /** A data directory: a served database with a user, a collection and links, a backup taken, then more links (one deleted for good), stopped. */
  async function history() {
    const dir = testDir("restore-ids");
    const dbPath = join(dir, "linkshelf.db");
    const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_TRASH_DAYS: "0" }, { path: dbPath });
    const alice = await createUser(env);
    const before = await createLink(env, alice, { name: "Before", url: "https://before.example/" });
    const backup = join(dir, "backup.db");
    writeBackup(env.db.$client, backup);
    const cursor = (await get(env, "/api/v1/changes/cursor", { token: alice.token })).body.cursor as string;
    const later = [];
    for (const name of ["After 1", "After 2", "After 3"]) later.push(await createLink(env, alice, { name, url: `https://${name.replace(" ", "")}.example/` }));
    const collection = await createCollection(env, alice, { name: "After" });
    // The newest link gone for good: its id was handed out all the same.
    expect((await del(env, `/api/v1/links/${later.at(-1)!.id}`, { token: alice.token })).status).toBe(200);
    closeDatabase(env.db);
    return { dir, dbPath, alice, before, backup, cursor, newest: { link: later.at(-1)!.id, collection: collection.id } };
  }
  const serve = (dbPath: string) => makeEnv({ LINKSHELF_FETCH_CONTENT: "off" }, { path: dbPath });
  const createdIds = async (env: TestEnv, alice: TestUser) => ({
    link: (await createLink(env, alice, { name: "New", url: "https://new.example/" })).id,
    collection: (await createCollection(env, alice, { name: "New" })).id,
  });

  it("hands out new ids above every id the replaced database issued, and the restored data is a new history", async () => {
    const { dbPath, alice, before, backup, cursor, newest } = await history();
    const outcome = restoreDatabase(backup, dbPath, Date.now());
    expect(outcome).toEqual({ kept: expect.stringMatching(/linkshelf\.db\.before-restore-/), idsAbove: true });
    const env = serve(dbPath);
    try {
      expect((await get(env, `/api/v1/links/${before.id}`, { token: alice.token })).body.link.name).toBe("Before");
      const made = await createdIds(env, alice);
      expect(made.link).toBe(newest.link + 1);
      expect(made.collection).toBe(newest.collection + 1);
      const refused = await get(env, `/api/v1/changes?since=${cursor}`, { token: alice.token });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 410, code: "HISTORY_REPLACED" });
      const generation = generationOf(env.db.$client);
      expect(generation).not.toBe(generationOfFile(backup));
      expect(generation).not.toBe(cursor.split(".")[0]);
      expect(generation).not.toBe(generationOfFile(outcome.kept!));
    } finally {
      closeDatabase(env.db);
    }
  });

  it("gives the same backup restored twice two histories", async () => {
    const { dbPath, backup } = await history();
    restoreDatabase(backup, dbPath, Date.now());
    const first = generationOfFile(dbPath);
    restoreDatabase(backup, dbPath, Date.now() + 1000);
    expect(generationOfFile(dbPath)).not.toBe(first);
  });

  it("with no database to replace, or one that cannot be read, restores all the same: ids count from the backup's, and its history is new", async () => {
    const { dir, dbPath, alice, before, backup } = await history();
    const elsewhere = join(dir, "new-disk");
    const fresh = join(elsewhere, "linkshelf.db");
    await Bun.write(join(elsewhere, ".keep"), "");
    expect(restoreDatabase(backup, fresh, Date.now())).toEqual({ kept: null, idsAbove: false });
    const env = serve(fresh);
    try {
      expect((await createdIds(env, alice)).link).toBe(before.id + 1);
      expect(generationOf(env.db.$client)).not.toBe(generationOfFile(backup));
    } finally {
      closeDatabase(env.db);
    }
    writeFileSync(dbPath, Buffer.alloc(8192, 7));
    for (const suffix of ["-wal", "-shm"]) rmSync(dbPath + suffix, { force: true });
    const outcome = restoreDatabase(backup, dbPath, Date.now());
    expect(outcome).toEqual({ kept: expect.any(String), idsAbove: false });
    expect((await Bun.file(outcome.kept!).bytes()).every((byte) => byte === 7)).toBe(true);
  });
});
