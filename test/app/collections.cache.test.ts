/**
 * `GET /api/v1/collections` is kept per user while the database stamp holds
 * (src/db/etag-stamp.ts): the answer's exact bytes, that every kind of change is seen (this
 * connection's writes and clicks, another connection's commit), that users never share an
 * answer, that a kept answer costs a constant two queries, and that the store is bounded.
 */
import { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { createApp } from "../../src/app";
import { readDatabaseStamp, StampedAnswers } from "../../src/db/etag-stamp";
import { testDir } from "../support/dirs";
import { createCollection, createLink, createUser, del, get, makeEnv, post, put, START, type ApiResponse, type TestEnv, type TestUser } from "../support/helpers";

const list = (env: TestEnv, as: TestUser) => get(env, "/api/v1/collections", { token: as.token });
/** The answer a new app over the same database gives: nothing kept, everything read. */
const freshAnswer = async (env: TestEnv, as: TestUser) =>
  (await list({ ...env, app: createApp({ db: env.db, config: env.config, clock: () => env.clock.now++ }) }, as)).text;
const iso = (millis: number) => new Date(millis).toISOString();

/** A user with one more collection and two links, one of them in both collections; the answer fetched once. */
async function library() {
  const env = makeEnv();
  const owner = await createUser(env, { name: "Zoë \"Z\" \\ Ünïcødé", email: "zoe@example.test" });
  const reading = await createCollection(env, owner, { name: "Reading 𝄞", visibility: "PUBLIC", description: "tabs\tand\nlines", icon: "🇫🇷" });
  const first = await createLink(env, owner, { name: "First – café", url: "https://example.com/1" });
  const second = await createLink(env, owner, { name: "Second 😀", url: "https://example.com/2", favorite: true, collectionIds: [reading.id, 1] });
  await list(env, owner);
  return { env, owner, reading, first, second };
}

describe("GET /api/v1/collections, kept between changes", () => {

  it("answers exactly the bytes of the contract's JSON, with keys in the documented order", async () => {
    const { env, owner, reading, first, second } = await library();
    const inboxId = 1;
    const author = { id: owner.user.id, name: owner.user.name, email: owner.user.email };
    const linkJson = (link: typeof first, collectionIds: number[]) => ({
      id: link.id, name: link.name, description: "", url: link.url, favorite: link.favorite, toRead: false, archived: false, clicks: 0,
      lastClickedAt: null, collectionIds, copy: null, authorId: owner.user.id, createdAt: link.createdAt, updatedAt: link.updatedAt,
    });
    const expected = {
      collections: [
        {
          id: inboxId, name: "Inbox", description: null, visibility: "PRIVATE", authorId: owner.user.id, author,
          links: [linkJson(second, [inboxId, reading.id]), linkJson(first, [inboxId])],
          icon: "📥", isDefault: true, createdAt: iso(owner.user.createdAt), updatedAt: iso(owner.user.createdAt), isOwner: true,
          copiesPublic: false, parentId: null, order: [{ kind: "link", id: first.id }, { kind: "link", id: second.id }],
        },
        {
          id: reading.id, name: "Reading 𝄞", description: "tabs\tand\nlines", visibility: "PUBLIC", authorId: owner.user.id, author,
          links: [linkJson(second, [inboxId, reading.id])],
          icon: "🇫🇷", isDefault: false, createdAt: reading.createdAt, updatedAt: reading.updatedAt, isOwner: true,
          copiesPublic: false, parentId: null, order: [{ kind: "link", id: second.id }],
        },
      ],
    };
    for (let i = 0; i < 2; i++) {
      const response = await list(env, owner);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/json;charset=utf-8");
      expect(response.headers.get("ratelimit-limit")).toBe("300");
      expect(response.text).toBe(JSON.stringify(expected));
    }
  });

  it("runs two queries (token, stamp) for a kept answer, however large the library", async () => {
    const { env, owner } = await library();
    env.queries.length = 0;
    await list(env, owner);
    expect(env.queries).toHaveLength(2);
    expect(env.queries[1]).toContain("total_changes()");

    for (let i = 0; i < 30; i++) await createLink(env, owner, { name: `More ${i}`, url: `https://example.com/more/${i}` });
    for (let i = 0; i < 5; i++) await createCollection(env, owner, { name: `Shelf ${i}` });
    await list(env, owner);
    env.queries.length = 0;
    await list(env, owner);
    expect(env.queries).toHaveLength(2);
  });

  it("builds a changed answer with the same number of queries, however large the library", async () => {
    const { env, owner, first } = await library();
    const rebuild = async () => {
      await put(env, `/api/v1/links/${first.id}`, { token: owner.token, body: { name: "Renamed", url: "https://example.com/1", favorite: false, collectionIds: [] } });
      env.queries.length = 0;
      await list(env, owner);
      return env.queries.length;
    };
    const small = await rebuild();
    for (let i = 0; i < 40; i++) await createLink(env, owner, { name: `More ${i}`, url: `https://example.com/more/${i}` });
    for (let i = 0; i < 8; i++) await createCollection(env, owner, { name: `Shelf ${i}` });
    expect(await rebuild()).toBe(small);
    expect(small).toBe(5); // token, stamp, collections, links, memberships
  });

  type Change = (env: TestEnv, owner: TestUser, ids: { reading: number; first: number }) => Promise<ApiResponse>;
  const changes: [string, Change][] = [
    ["a link is created", (env, owner) => post(env, "/api/v1/links", { token: owner.token, body: { name: "Third", url: "https://example.com/3", favorite: false } })],
    ["a link is updated", (env, owner, { first }) => put(env, `/api/v1/links/${first}`, { token: owner.token, body: { name: "Renamed", url: "https://example.com/1", favorite: true, collectionIds: [] } })],
    ["a link is deleted", (env, owner, { first }) => del(env, `/api/v1/links/${first}`, { token: owner.token })],
    ["a link is clicked", (env, owner, { first }) => get(env, `/l/${first}`, { token: owner.token })],
    ["a collection is created", (env, owner) => post(env, "/api/v1/collections", { token: owner.token, body: { name: "Later", visibility: "PRIVATE" } })],
    ["a collection is updated", (env, owner, { reading }) => put(env, `/api/v1/collections/${reading}`, { token: owner.token, body: { name: "Renamed", visibility: "PRIVATE" } })],
    ["a collection is deleted", (env, owner, { reading }) => del(env, `/api/v1/collections/${reading}`, { token: owner.token })],
  ];
  for (const [what, change] of changes) {
    it(`answers afresh once ${what}`, async () => {
      const { env, owner, reading, first } = await library();
      const before = (await list(env, owner)).text;
      expect((await change(env, owner, { reading: reading.id, first: first.id })).status).toBeLessThan(400);
      const after = (await list(env, owner)).text;
      expect(after).not.toBe(before);
      expect(after).toBe(await freshAnswer(env, owner));
    });
  }

  it("sees a commit made by another connection (the CLI) on the same file", async () => {
    const dir = testDir("cache");
    const path = join(dir, "linkshelf.db");
    const env = makeEnv({}, { path });
    const owner = await createUser(env);
    const link = await createLink(env, owner, { name: "Before", url: "https://example.com/" });
    expect((await list(env, owner)).body.collections[0].links[0].name).toBe("Before");
    expect((await list(env, owner)).body.collections[0].links[0].name).toBe("Before");

    const other = new Database(path);
    other.run("UPDATE links SET name = 'After' WHERE id = ?", [link.id]);
    other.close();
    expect((await list(env, owner)).body.collections[0].links[0].name).toBe("After");
    env.db.$client.close();
  });

  it("never answers one user with another's kept answer", async () => {
    const env = makeEnv();
    const alice = await createUser(env, { name: "Alice" });
    const bob = await createUser(env, { name: "Bob" });
    await createLink(env, alice, { name: "Alice's", url: "https://alice.example/" });
    await createLink(env, bob, { name: "Bob's", url: "https://bob.example/" });
    for (let round = 0; round < 3; round++) {
      for (const [who, name] of [[alice, "Alice's"], [bob, "Bob's"]] as const) {
        const body = (await list(env, who)).body;
        expect(body.collections.map((c: { author: { id: number } }) => c.author.id)).toEqual([who.user.id]);
        expect(body.collections[0].links.map((l: { name: string }) => l.name)).toEqual([name]);
      }
    }
  });

  it("still checks the token on every request while the answer is kept", async () => {
    const { env, owner } = await library();
    expect((await list(env, owner)).status).toBe(200);
    env.db.$client.run("DELETE FROM api_tokens");
    expect((await list(env, owner)).status).toBe(401);
  });
});

describe("readDatabaseStamp", () => {
  it("moves with this connection's writes and with another connection's commits, not with reads", () => {
    const dir = testDir("stamp");
    const env = makeEnv({}, { path: join(dir, "linkshelf.db") });
    const first = readDatabaseStamp(env.db);
    env.db.$client.query("SELECT * FROM links").all();
    expect(readDatabaseStamp(env.db)).toEqual(first);

    env.db.$client.run("INSERT INTO users (email, name, password_hash, created_at) VALUES ('a@b.c', 'A', 'x', ?)", [START]);
    const afterOwnWrite = readDatabaseStamp(env.db);
    expect(afterOwnWrite.changes).toBe(first.changes + 1);

    const other = new Database(join(dir, "linkshelf.db"));
    other.run("UPDATE users SET name = 'B'");
    other.close();
    const afterOtherWrite = readDatabaseStamp(env.db);
    expect(afterOtherWrite.changes).toBe(afterOwnWrite.changes);
    expect(afterOtherWrite.version).not.toBe(afterOwnWrite.version);
    env.db.$client.close();
  });
});

describe("StampedAnswers", () => {
  const at = (changes: number) => ({ changes, version: 1 });

  it("builds once per user while the stamp holds, and again after it moved", () => {
    const answers = new StampedAnswers<string>();
    let builds = 0;
    const build = (user: number) => () => `answer ${user} #${++builds}`;
    expect(answers.get(at(1), 1, build(1))).toBe("answer 1 #1");
    expect(answers.get(at(1), 1, build(1))).toBe("answer 1 #1");
    expect(answers.get(at(1), 2, build(2))).toBe("answer 2 #2");
    expect(answers.get(at(2), 1, build(1))).toBe("answer 1 #3");
    expect(answers.size).toBe(1);
    expect(answers.get({ changes: 2, version: 2 }, 1, build(1))).toBe("answer 1 #4");
  });

  it("keeps at most maxUsers answers", () => {
    const answers = new StampedAnswers<number>(3);
    for (let user = 1; user <= 10; user++) answers.get(at(1), user, () => user);
    expect(answers.size).toBe(3);
    expect(answers.get(at(1), 10, () => -1)).toBe(10);
    expect(answers.get(at(1), 1, () => -1)).toBe(-1);
  });
});
