/**
 * The name rule through the JSON API: link and collection names refuse control characters,
 * line separators and bidirectional controls, and need one visible character; 422 at `/name`,
 * nothing stored. Emoji sequences and combining marks stay fine.
 */
import { describe, expect, it } from "bun:test";
import { createCollection, createLink, createUser, get, makeEnv, post, put, snapshot } from "../support/helpers";
import { BAD_NAMES, GOOD_NAMES } from "../support/names.fixtures";

async function shelf() {
  const env = makeEnv();
  const owner = await createUser(env);
  const link = await createLink(env, owner, { name: "Before", url: "https://before.example/" });
  const collection = await createCollection(env, owner, { name: "Before" });
  return { env, owner, link, collection };
}

const writes = (ids: { link: number; collection: number }) => [
  { name: "POST /api/v1/links", method: post, path: "/api/v1/links", body: { url: "https://a.example/", favorite: false } },
  { name: "PUT /api/v1/links/:id", method: put, path: `/api/v1/links/${ids.link}`, body: { url: "https://a.example/", favorite: false, collectionIds: [] } },
  { name: "POST /api/v1/collections", method: post, path: "/api/v1/collections", body: { visibility: "PRIVATE" } },
  { name: "PUT /api/v1/collections/:id", method: put, path: `/api/v1/collections/${ids.collection}`, body: { visibility: "PRIVATE" } },
];

describe("names through the API", () => {
  it.each(BAD_NAMES)("refuses a name with %s: 422 at /name, nothing stored", async (_label, name, message) => {
    const { env, owner, link, collection } = await shelf();
    for (const write of writes({ link: link.id, collection: collection.id })) {
      const before = snapshot(env);
      const response = await write.method(env, write.path, { token: owner.token, body: { ...write.body, name } });
      expect([write.name, response.status]).toEqual([write.name, 422]);
      expect(response.body.code).toBe("VALIDATION_FAILED");
      expect(response.body.errors).toEqual([{ path: "/name", message }]);
      expect(snapshot(env)).toBe(before);
    }
  });

  it.each(Object.entries(GOOD_NAMES))("stores a name with %s as it is (trimmed)", async (_label, name) => {
    const { env, owner, link, collection } = await shelf();
    for (const write of writes({ link: link.id, collection: collection.id })) {
      const response = await write.method(env, write.path, { token: owner.token, body: { ...write.body, name } });
      expect([write.name, response.status]).toEqual([write.name, write.method === post ? 201 : 200]);
      const stored = write.method === post ? response.body : (await get(env, write.path, { token: owner.token })).body;
      expect((stored.link ?? stored.collection).name).toBe(name.trim());
    }
  });

  it("reports the name with every other violation at once", async () => {
    const { env, owner } = await shelf();
    const response = await post(env, "/api/v1/links", { token: owner.token, body: { name: "\u200B", url: "ftp://x", favorite: false } });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(["/name", "/url"]);
  });

  it("gives a name that is too long and holds a control character one message: the length", async () => {
    const { env, owner } = await shelf();
    const response = await post(env, "/api/v1/collections", { token: owner.token, body: { name: `${"a".repeat(255)}\u0000`, visibility: "PRIVATE" } });
    expect(response.body.errors).toEqual([{ path: "/name", message: "Expected 1-254 characters" }]);
  });
});
