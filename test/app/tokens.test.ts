import { describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { createUser, get, makeEnv, snapshot, type TestEnv } from "../support/helpers";
import { hashSecret } from "../../src/common/token-secrets";
import { Shelf } from "../../src/shelf/shelf";
import { findTokenUser } from "../../src/shelf/tokens";
import { NotFound } from "../../src/common/errors";

const TOKEN_SHAPE = /^lks_[A-Za-z0-9_-]{43}$/;

/** dumpDatabase renders every row of every table, to search it for a secret. */
function dumpDatabase(env: TestEnv): string {
  const client = env.db.$client;
  const tables = client.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
  return JSON.stringify(tables.map(({ name }) => client.query(`SELECT * FROM "${name}"`).all()));
}

function tokenRow(env: TestEnv, id: number) {
  return env.db.$client.query("SELECT * FROM api_tokens WHERE id = ?").get(id) as Record<string, unknown>;
}

function lastUsedAt(env: TestEnv, id: number): number | null {
  return tokenRow(env, id).last_used_at as number | null;
}

describe("createToken", () => {
  it("mints lks_ followed by the base64url of 32 random bytes", async () => {
    const env = makeEnv();
    const { user } = await createUser(env);
    const { token } = new Shelf(env.db, user).tokens.create("CLI", env.clock.now);
    expect(token).toMatch(TOKEN_SHAPE);
    const bytes = Buffer.from(token.slice("lks_".length), "base64url");
    expect(bytes.byteLength).toBe(32);
    expect(bytes.toString("base64url")).toBe(token.slice("lks_".length));
  });

  it("mints a different token every time", async () => {
    const env = makeEnv();
    const { user } = await createUser(env);
    const tokens = Array.from({ length: 50 }, () => new Shelf(env.db, user).tokens.create("CLI", env.clock.now).token);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it("stores only the SHA-256 hex of the token, never the token itself", async () => {
    const env = makeEnv();
    const { user } = await createUser(env);
    const { token, info } = new Shelf(env.db, user).tokens.create("CLI", env.clock.now);
    const row = tokenRow(env, info.id);
    expect(row.token_hash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(row.token_hash).toBe(hashSecret(token));
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    const dump = dumpDatabase(env);
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice("lks_".length));
  });

  it("returns the new token's id, name and creation time, with no use yet", async () => {
    const env = makeEnv();
    const { user } = await createUser(env);
    const { info } = new Shelf(env.db, user).tokens.create("Laptop", 1_800_000_000_000);
    expect(info).toEqual({ id: info.id, name: "Laptop", createdAt: 1_800_000_000_000, lastUsedAt: null });
  });
});

describe("findTokenUser", () => {
  it("finds the token's owner", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    await createUser(env);
    expect(findTokenUser(env.db, alice.token, env.clock.now)?.id).toBe(alice.user.id);
  });

  it("finds nobody for a token that is not stored, or not of the token's shape", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    expect(findTokenUser(env.db, `lks_${"A".repeat(43)}`, env.clock.now)).toBeUndefined();
    expect(findTokenUser(env.db, alice.token.slice(4), env.clock.now)).toBeUndefined();
    expect(findTokenUser(env.db, hashSecret(alice.token), env.clock.now)).toBeUndefined();
    expect(findTokenUser(env.db, "", env.clock.now)).toBeUndefined();
  });
});

describe("lastUsedAt", () => {
  it("is null until the token is used and set on its first use", async () => {
    const env = makeEnv();
    const { user } = await createUser(env);
    const { token, info } = new Shelf(env.db, user).tokens.create("CLI", env.clock.now++);
    expect(lastUsedAt(env, info.id)).toBeNull();

    const usedAt = env.clock.now;
    expect((await get(env, "/api/v1/collections", { token })).status).toBe(200);
    expect(lastUsedAt(env, info.id)).toBe(usedAt);
    expect(new Shelf(env.db, user).tokens.list().find((t) => t.id === info.id)?.lastUsedAt).toBe(usedAt);
  });

  it("is written at most once a minute: a use 30 s later leaves it, a use 61 s later moves it", async () => {
    const env = makeEnv();
    const { user } = await createUser(env);
    const { token, info } = new Shelf(env.db, user).tokens.create("CLI", env.clock.now++);
    const first = env.clock.now;
    await get(env, "/api/v1/collections", { token });
    expect(lastUsedAt(env, info.id)).toBe(first);

    env.clock.now = first + 30_000;
    env.queries.length = 0;
    expect((await get(env, "/api/v1/collections", { token })).status).toBe(200);
    expect(lastUsedAt(env, info.id)).toBe(first);
    expect(env.queries.filter((query) => /^update\b/i.test(query))).toEqual([]);

    env.clock.now = first + 61_000;
    expect((await get(env, "/api/v1/collections", { token })).status).toBe(200);
    expect(lastUsedAt(env, info.id)).toBe(first + 61_000);
    expect(env.queries.filter((query) => /^update\b/i.test(query)).length).toBe(1);
  });

  it("is not touched by a refused request with another token", async () => {
    const env = makeEnv();
    const { user } = await createUser(env);
    const { info } = new Shelf(env.db, user).tokens.create("CLI", env.clock.now++);
    expect((await get(env, "/api/v1/collections", { token: `lks_${"A".repeat(43)}` })).status).toBe(401);
    expect(lastUsedAt(env, info.id)).toBeNull();
  });

  it("is kept per token: using one token leaves the user's others alone", async () => {
    const env = makeEnv();
    const { user } = await createUser(env);
    const one = new Shelf(env.db, user).tokens.create("one", env.clock.now++);
    const two = new Shelf(env.db, user).tokens.create("two", env.clock.now++);
    await get(env, "/api/v1/collections", { token: one.token });
    expect(lastUsedAt(env, one.info.id)).not.toBeNull();
    expect(lastUsedAt(env, two.info.id)).toBeNull();
  });
});

describe("listTokens", () => {
  it("lists a user's tokens newest first with id, name, createdAt and lastUsedAt only", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const first = new Shelf(env.db, alice.user).tokens.create("Laptop", 1_000);
    const second = new Shelf(env.db, alice.user).tokens.create("Browser extension", 2_000);
    new Shelf(env.db, bob.user).tokens.create("Bob's", 3_000);

    const listed = new Shelf(env.db, alice.user).tokens.list();
    expect(listed.map((t) => t.id)).toEqual([second.info.id, first.info.id, listed[2]!.id]);
    expect(listed.map((t) => t.name)).toEqual(["Browser extension", "Laptop", "test"]);
    for (const token of listed) expect(Object.keys(token).sort()).toEqual(["createdAt", "id", "lastUsedAt", "name"]);
  });

  it("never exposes a token or its hash", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const { token } = new Shelf(env.db, alice.user).tokens.create("Laptop", env.clock.now);
    const text = JSON.stringify(new Shelf(env.db, alice.user).tokens.list());
    for (const secret of [token, alice.token]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(4));
      expect(text).not.toContain(hashSecret(secret));
    }
  });
});

describe("revokeToken", () => {
  it("deletes the token, which no longer authenticates, and leaves the user's other tokens working", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const { token, info } = new Shelf(env.db, alice.user).tokens.create("Laptop", env.clock.now++);
    expect((await get(env, "/api/v1/collections", { token })).status).toBe(200);

    new Shelf(env.db, alice.user).tokens.revoke(info.id);
    expect(findTokenUser(env.db, token, env.clock.now)).toBeUndefined();
    expect((await get(env, "/api/v1/collections", { token })).status).toBe(401);
    expect((await get(env, "/api/v1/collections", { token: alice.token })).status).toBe(200);
    expect(new Shelf(env.db, alice.user).tokens.list().map((t) => t.id)).not.toContain(info.id);
  });

  it("returns false for an id that names no token, and for one already revoked", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const { info } = new Shelf(env.db, alice.user).tokens.create("Laptop", env.clock.now++);
    expect(() => new Shelf(env.db, alice.user).tokens.revoke(999_999)).toThrow(NotFound);
    new Shelf(env.db, alice.user).tokens.revoke(info.id);
    expect(() => new Shelf(env.db, alice.user).tokens.revoke(info.id)).toThrow(NotFound);
    expect(new Shelf(env.db, alice.user).tokens.list().length).toBe(1);
  });

  it("cannot delete another user's token, whatever id it is given", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const before = snapshot(env);
    const bobTokens = new Shelf(env.db, bob.user).tokens.list();
    for (const token of bobTokens) expect(() => new Shelf(env.db, alice.user).tokens.revoke(token.id)).toThrow(NotFound);
    expect(snapshot(env)).toBe(before);
    expect((await get(env, "/api/v1/collections", { token: bob.token })).status).toBe(200);
  });
});
