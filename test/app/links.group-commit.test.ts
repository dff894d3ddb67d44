/**
 * `POST /api/v1/links` commits the creations of one turn of the event loop together
 * (src/db/group-commit.ts): each one still succeeds or fails on its own, a refused one
 * leaves nothing behind, and nothing is acknowledged before the commit that holds it.
 */
import { Database } from "bun:sqlite";
import { describe, expect, it, spyOn } from "bun:test";
import { join } from "node:path";
import { GroupCommit } from "../../src/db/group-commit";
import { testDir } from "../support/dirs";
import { createCollection, createUser, makeEnv, post, snapshot } from "../support/helpers";

/** A database file with one table, and a second connection to look at it from outside. */
function files() {
  const dir = testDir("group-commit");
  const path = join(dir, "test.db");
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("CREATE TABLE parents (id INTEGER PRIMARY KEY)");
  sqlite.run("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, parent INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED)");
  const outside = new Database(path, { readonly: true });
  const names = () => outside.query<{ name: string }, []>("SELECT name FROM items ORDER BY id").all().map((row) => row.name);
  return { sqlite, names };
}

describe("GroupCommit", () => {
  it("runs the writes of one turn in one transaction and settles them only after its commit", async () => {
    const { sqlite, names } = files();
    const commits = new GroupCommit(sqlite);
    const insert = sqlite.prepare("INSERT INTO items (name) VALUES (?) RETURNING id");
    const seen: boolean[] = [];
    const writes = ["a", "b", "c"].map((name) =>
      commits.run(() => {
        seen.push(sqlite.inTransaction);
        return (insert.all(name) as { id: number }[])[0]!.id;
      }));
    expect(names()).toEqual([]);
    const ids = await Promise.all(writes);
    expect(ids).toEqual([1, 2, 3]);
    expect(seen).toEqual([true, true, true]);
    expect(names()).toEqual(["a", "b", "c"]);
  });

  it("rolls back a write that throws, alone, and hands its error to its caller only", async () => {
    const { sqlite, names } = files();
    const commits = new GroupCommit(sqlite);
    const insert = sqlite.prepare("INSERT INTO items (name) VALUES (?)");
    const results = await Promise.allSettled([
      commits.run(() => insert.run("kept 1")),
      commits.run(() => {
        insert.run("half-done");
        throw new Error("refused");
      }),
      commits.run(() => insert.run("kept 2")),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe("refused");
    expect(names()).toEqual(["kept 1", "kept 2"]);
  });

  it("rejects every write of the batch, and keeps none, when the commit fails", async () => {
    const { sqlite, names } = files();
    sqlite.run("PRAGMA foreign_keys = ON");
    const commits = new GroupCommit(sqlite);
    const insert = sqlite.prepare("INSERT INTO items (name, parent) VALUES (?, ?)");
    // A deferred foreign key is only checked by COMMIT: the whole batch's commit fails.
    const results = await Promise.allSettled([
      commits.run(() => insert.run("fine", null)),
      commits.run(() => insert.run("orphan", 42)),
    ]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    expect(names()).toEqual([]);
    expect(sqlite.inTransaction).toBe(false);

    expect(await commits.run(() => insert.run("later", null).changes)).toBe(1);
    expect(names()).toEqual(["later"]);
  });
});

describe("POST /api/v1/links, many at once", () => {
  it("creates every valid link of a burst in one commit, each with its own id, refuses the invalid ones, and stores nothing of those", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const bobs = await createCollection(env, bob, { name: "Bob's" });
    const before = snapshot(env);
    const valid = (i: number) => ({ name: `Link ${i}`, url: `https://example.com/${i}`, favorite: false });
    const bodies = [
      ...Array.from({ length: 12 }, (_, i) => valid(i)),
      { ...valid(100), collectionIds: [bobs.id] },
      { ...valid(101), url: "javascript:alert(1)" },
      { ...valid(102), name: "   " },
    ];
    const flush = spyOn(GroupCommit.prototype, "flush");
    const responses = await Promise.all(bodies.map((body) => post(env, "/api/v1/links", { token: alice.token, body })));
    expect(flush).toHaveBeenCalledTimes(1);
    flush.mockRestore();
    expect(responses.map((response) => response.status)).toEqual([...Array(12).fill(201), 422, 422, 422]);
    const ids = responses.slice(0, 12).map((response) => response.body.link.id);
    expect(new Set(ids).size).toBe(12);
    expect(responses.slice(0, 12).map((response) => response.body.link.name)).toEqual(bodies.slice(0, 12).map((body) => body.name));

    const stored = env.db.$client.query<{ name: string }, [number]>("SELECT name FROM links WHERE user_id = ? ORDER BY id").all(alice.user.id);
    expect(stored.map((row) => row.name)).toEqual(bodies.slice(0, 12).map((body) => body.name));
    const memberships = env.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM link_collections").get()!.n;
    expect(memberships).toBe(12);
    expect(snapshot(env)).not.toBe(before);
  });
});
