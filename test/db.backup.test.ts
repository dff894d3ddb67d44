/**
 * Backups and restores are new histories: every copy linkshelf writes (`writeBackup`, which
 * `linkshelf backup`, the scheduled backups and `linkshelf restore` use) carries a generation of
 * its own, so a change cursor of the database it was copied from is refused by a server on the
 * copy (410 HISTORY_REPLACED), never read as "no changes". The CLI and the server around them are
 * in ops.binary.test.ts.
 */
import { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeBackup } from "../src/db/backup";
import { closeDatabase } from "../src/db/client";
import { testDir } from "./dirs";
import { createLink, createUser, get, makeEnv, type TestEnv } from "./helpers";

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
