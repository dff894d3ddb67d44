import { describe, expect, it } from "bun:test";
import { aliceWithInbox, createCollection, createLink, createUser, del, get, post, put, refused, request, snapshot, type TestEnv, type TestUser } from "../support/helpers";

const DAY = 24 * 60 * 60 * 1000;
const link = { name: "A page", url: "https://example.org/page", favorite: false };

const count = (env: TestEnv, table: string) => (env.db.$client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const keyed = (as: TestUser, key: string, body?: unknown) => ({ token: as.token, body, headers: { "idempotency-key": key } });

describe("Idempotency-Key", () => {
  it("answers a retry with the same key and body with the first answer, and writes nothing", async () => {
    const { env, alice } = await aliceWithInbox();
    const first = await post(env, "/api/v1/links", keyed(alice, "save-1", link));
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const before = snapshot(env);
    const retry = await post(env, "/api/v1/links", keyed(alice, "save-1", link));
    expect({ status: retry.status, text: retry.text, type: retry.headers.get("content-type") }).toEqual({ status: 201, text: first.text, type: first.headers.get("content-type") });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(snapshot(env)).toBe(before);
    expect(count(env, "links")).toBe(1);
  });

  it("replays within 24 hours and runs the request again after them", async () => {
    const { env, alice } = await aliceWithInbox();
    await post(env, "/api/v1/links", keyed(alice, "k", link));
    env.clock.now += DAY - 10;
    expect((await post(env, "/api/v1/links", keyed(alice, "k", link))).headers.get("idempotent-replayed")).toBe("true");
    expect(count(env, "links")).toBe(1);
    env.clock.now += 10;
    const late = await post(env, "/api/v1/links", keyed(alice, "k", link));
    expect({ status: late.status, replayed: late.headers.get("idempotent-replayed") }).toEqual({ status: 201, replayed: null });
    expect(count(env, "links")).toBe(2);
    // The expired row was replaced: the key now answers the second request.
    expect((await post(env, "/api/v1/links", keyed(alice, "k", link))).body.link.id).toBe(late.body.link.id);
  });

  it("purges expired keys a few at a time as new ones are kept", async () => {
    const { env, alice } = await aliceWithInbox();
    for (let i = 0; i < 20; i++) await post(env, "/api/v1/links", keyed(alice, `old-${i}`, { ...link, name: `Old ${i}` }));
    env.clock.now += DAY;
    await post(env, "/api/v1/links", keyed(alice, "new-1", link));
    expect(count(env, "idempotency_keys")).toBe(20 - 16 + 1);
    await post(env, "/api/v1/links", keyed(alice, "new-2", link));
    expect(count(env, "idempotency_keys")).toBe(2);
  });

  it("refuses the same key with another body, path or method (422 IDEMPOTENCY_KEY_REUSED), changing nothing", async () => {
    const { env, alice } = await aliceWithInbox();
    const saved = await post(env, "/api/v1/links", keyed(alice, "k", link));
    await refused(env, () => post(env, "/api/v1/links", keyed(alice, "k", { ...link, name: "Another" })), 422, "IDEMPOTENCY_KEY_REUSED");
    await refused(env, () => post(env, "/api/v1/collections", keyed(alice, "k", { name: "New", visibility: "PRIVATE" })), 422, "IDEMPOTENCY_KEY_REUSED");
    await refused(env, () => put(env, `/api/v1/links/${saved.body.link.id}`, keyed(alice, "k", { ...link, collectionIds: [] })), 422, "IDEMPOTENCY_KEY_REUSED");
  });

  it("binds a key to the query too: a DELETE with ?contents=1 after a plain DELETE under the same key is 422, and deletes nothing", async () => {
    const { env, alice } = await aliceWithInbox();
    const folder = await createCollection(env, alice);
    const inside = await createCollection(env, alice, { name: "Inside", parentId: folder.id });
    const path = `/api/v1/collections/${folder.id}`;
    const first = await del(env, path, keyed(alice, "delete-folder"));
    expect(first.status).toBe(200);
    expect((await post(env, "/api/v1/trash/restore", { token: alice.token, body: { links: [], collections: [folder.id] } })).status).toBe(200);
    const reused = await refused(env, () => del(env, `${path}?contents=1`, keyed(alice, "delete-folder")), 422, "IDEMPOTENCY_KEY_REUSED");
    expect(reused.headers.get("idempotent-replayed")).toBeNull();
    expect((await get(env, path, { token: alice.token })).status).toBe(200);
    expect((await get(env, `/api/v1/collections/${inside.id}`, { token: alice.token })).status).toBe(200);
    // The first request again is its retry: the first answer, and nothing deleted.
    const before = snapshot(env);
    const retry = await del(env, path, keyed(alice, "delete-folder"));
    expect({ status: retry.status, text: retry.text, replayed: retry.headers.get("idempotent-replayed") }).toEqual({ status: 200, text: first.text, replayed: "true" });
    expect(snapshot(env)).toBe(before);
  });

  it("takes a query's parameters in any order as the same request, and another value as another", async () => {
    const { env, alice } = await aliceWithInbox();
    const folder = await createCollection(env, alice);
    const path = `/api/v1/collections/${folder.id}`;
    const first = await del(env, `${path}?contents=1&view=x`, keyed(alice, "k"));
    expect(first.status).toBe(200);
    const before = snapshot(env);
    const retry = await del(env, `${path}?view=x&contents=1`, keyed(alice, "k"));
    expect({ status: retry.status, text: retry.text, replayed: retry.headers.get("idempotent-replayed") }).toEqual({ status: 200, text: first.text, replayed: "true" });
    expect(snapshot(env)).toBe(before);
    await refused(env, () => del(env, `${path}?contents=1&view=y`, keyed(alice, "k")), 422, "IDEMPOTENCY_KEY_REUSED");
    await refused(env, () => del(env, path, keyed(alice, "k")), 422, "IDEMPOTENCY_KEY_REUSED");
  });

  it("keeps keys per user: another user's same key and body is their own request", async () => {
    const { env, alice } = await aliceWithInbox();
    const bob = await createUser(env);
    const alices = await post(env, "/api/v1/links", keyed(alice, "k", link));
    const bobs = await post(env, "/api/v1/links", keyed(bob, "k", link));
    expect({ status: bobs.status, replayed: bobs.headers.get("idempotent-replayed") }).toEqual({ status: 201, replayed: null });
    expect(bobs.body.link.id).not.toBe(alices.body.link.id);
    // And Bob's other body under the key is judged against his own first request only.
    await refused(env, () => post(env, "/api/v1/links", keyed(bob, "k", { ...link, name: "Other" })), 422, "IDEMPOTENCY_KEY_REUSED");
    expect((await post(env, "/api/v1/links", keyed(alice, "k", link))).text).toBe(alices.text);
  });

  it("refuses a key that is empty, too long or not printable ASCII (400)", async () => {
    const { env, alice } = await aliceWithInbox();
    for (const key of ["x".repeat(256), "caf\u00e9", "tab\there"]) {
      await refused(env, () => post(env, "/api/v1/links", keyed(alice, key, link)), 400, "INVALID_IDEMPOTENCY_KEY");
    }
    const empty = new Request("http://localhost/api/v1/links", { method: "POST", headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json", "idempotency-key": "" }, body: JSON.stringify(link) });
    expect((await env.app.handle(empty)).status).toBe(400);
    expect((await post(env, "/api/v1/links", keyed(alice, "x".repeat(255), link))).status).toBe(201);
    expect((await post(env, "/api/v1/links", keyed(alice, " ~!", link))).status).toBe(201);
  });

  it("keeps no refused answer: the same key may be sent again once the refusal is fixed", async () => {
    const { env, alice } = await aliceWithInbox();
    const body = { ...link, collectionIds: [999] };
    await refused(env, () => post(env, "/api/v1/links", keyed(alice, "k", body)), 422, "VALIDATION_FAILED");
    await refused(env, () => post(env, "/api/v1/links", keyed(alice, "k", { ...link, url: "nope" })), 422, "VALIDATION_FAILED");
    expect((await post(env, "/api/v1/links", keyed(alice, "k", link))).status).toBe(201);
  });

  it("answers 409 IDEMPOTENCY_KEY_IN_USE to a retry while the first request is being answered", async () => {
    const { env, alice } = await aliceWithInbox();
    const first = post(env, "/api/v1/links", keyed(alice, "k", link));
    const second = post(env, "/api/v1/links", keyed(alice, "k", link));
    const [a, b] = await Promise.all([first, second]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect([a, b].find((r) => r.status === 409)!.body.code).toBe("IDEMPOTENCY_KEY_IN_USE");
    expect(count(env, "links")).toBe(1);
    await Bun.sleep(1);
    expect((await post(env, "/api/v1/links", keyed(alice, "k", link))).headers.get("idempotent-replayed")).toBe("true");
  });

  it("replays every kind of write, and each replay changes nothing", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const saved = await createLink(env, alice);
    const reading = await createCollection(env, alice);
    const sends: [string, string, unknown?][] = [
      ["POST", "/api/v1/collections", { name: "New", visibility: "PRIVATE" }],
      ["PUT", `/api/v1/links/${saved.id}`, { ...link, collectionIds: [inbox, reading.id] }],
      ["POST", "/api/v1/links/bulk", { ids: [saved.id], action: "favorite" }],
      ["PUT", `/api/v1/collections/${reading.id}/order`, { order: [{ kind: "link", id: saved.id }] }],
      ["PUT", `/api/v1/links/${saved.id}/content`, { text: "Saved text" }],
      ["POST", `/api/v1/links/${saved.id}/health/ignore`],
      ["DELETE", `/api/v1/links/${saved.id}/health/ignore`],
      ["PUT", `/api/v1/collections/${reading.id}`, { name: "Renamed", visibility: "PUBLIC" }],
      ["DELETE", `/api/v1/collections/${reading.id}`],
      ["DELETE", `/api/v1/links/${saved.id}`],
    ];
    for (const [method, path, body] of sends) {
      const key = `${method} ${path}`;
      const first = await request(env, method, path, keyed(alice, key, body));
      expect(`${key}: ${first.status}`).toMatch(/: 20[01]$/);
      const before = snapshot(env);
      const retry = await request(env, method, path, keyed(alice, key, body));
      expect({ key, status: retry.status, text: retry.text, replayed: retry.headers.get("idempotent-replayed") }).toEqual({ key, status: first.status, text: first.text, replayed: "true" });
      expect(snapshot(env)).toBe(before);
    }
    expect(count(env, "idempotency_keys")).toBe(sends.length);
  });

  it("replays a link check without checking again", async () => {
    const { env, alice } = await aliceWithInbox();
    const saved = await createLink(env, alice);
    const first = await post(env, `/api/v1/links/${saved.id}/check`, keyed(alice, "check"));
    expect(first.status).toBe(200);
    const retry = await post(env, `/api/v1/links/${saved.id}/check`, keyed(alice, "check"));
    expect({ status: retry.status, text: retry.text }).toEqual({ status: 200, text: first.text });
    // Without the key, a second check within the minute is refused.
    expect((await post(env, `/api/v1/links/${saved.id}/check`, { token: alice.token })).status).toBe(429);
  });

  it("ignores a key on a read", async () => {
    const { env, alice } = await aliceWithInbox();
    await createLink(env, alice);
    expect((await get(env, "/api/v1/links", keyed(alice, "k"))).body.links).toHaveLength(1);
    expect(count(env, "idempotency_keys")).toBe(0);
  });
});

describe("ETag and If-Match", () => {
  const etagOf = async (env: TestEnv, as: TestUser, path: string) => (await get(env, path, { token: as.token })).headers.get("etag")!;

  it("sends a strong ETag of the GET's body, and 304 for If-None-Match naming it", async () => {
    const { env, alice } = await aliceWithInbox();
    const saved = await createLink(env, alice);
    const read = await get(env, `/api/v1/links/${saved.id}`, { token: alice.token });
    const etag = read.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    expect(read.body).toEqual({ link: saved });
    const again = await get(env, `/api/v1/links/${saved.id}`, { token: alice.token, headers: { "if-none-match": `"other", ${etag}` } });
    expect({ status: again.status, text: again.text, etag: again.headers.get("etag") }).toEqual({ status: 304, text: "", etag });
    const collection = await get(env, `/api/v1/collections/${(await createCollection(env, alice)).id}`, { token: alice.token });
    expect(collection.headers.get("etag")).toMatch(/^"[\w-]{43}"$/);
  });

  it("changes a link's ETag with each kind of change", async () => {
    const { env, alice } = await aliceWithInbox();
    const saved = await createLink(env, alice);
    const reading = await createCollection(env, alice);
    const path = `/api/v1/links/${saved.id}`;
    const seen = new Set([await etagOf(env, alice, path)]);
    const changes = [
      () => put(env, path, { token: alice.token, body: { ...link, collectionIds: [] } }),
      () => put(env, path, { token: alice.token, body: { ...link, favorite: true, collectionIds: [] } }),
      () => put(env, path, { token: alice.token, body: { ...link, favorite: true, collectionIds: [reading.id] } }),
      () => post(env, "/api/v1/links/bulk", { token: alice.token, body: { ids: [saved.id], action: "unfavorite" } }),
    ];
    for (const change of changes) {
      expect((await change()).status).toBe(200);
      const etag = await etagOf(env, alice, path);
      expect(seen.has(etag)).toBe(false);
      seen.add(etag);
    }
  });

  it("changes a collection's ETag when its fields, its links or their order change", async () => {
    const { env, alice } = await aliceWithInbox();
    const reading = await createCollection(env, alice);
    const path = `/api/v1/collections/${reading.id}`;
    const seen = new Set([await etagOf(env, alice, path)]);
    const one = await createLink(env, alice, { collectionIds: [reading.id] });
    seen.add(await etagOf(env, alice, path));
    const two = await createLink(env, alice, { url: "https://two.example/", collectionIds: [reading.id] });
    const afterTwo = await etagOf(env, alice, path);
    expect(seen.has(afterTwo)).toBe(false);
    seen.add(afterTwo);
    expect((await put(env, `${path}/order`, { token: alice.token, body: { order: [{ kind: "link", id: two.id }, { kind: "link", id: one.id }] } })).status).toBe(200);
    const reordered = await etagOf(env, alice, path);
    expect(seen.has(reordered)).toBe(false);
    seen.add(reordered);
    expect((await put(env, path, { token: alice.token, body: { name: "Renamed", visibility: "PRIVATE" } })).status).toBe(200);
    expect(seen.has(await etagOf(env, alice, path))).toBe(false);
  });

  it("writes with a current ETag, *, or a list naming it; 412 PRECONDITION_FAILED otherwise, changing nothing", async () => {
    const { env, alice } = await aliceWithInbox();
    const saved = await createLink(env, alice);
    const reading = await createCollection(env, alice, { name: "Reading" });
    const linkPath = `/api/v1/links/${saved.id}`;
    const path = `/api/v1/collections/${reading.id}`;
    const stale = await etagOf(env, alice, linkPath);
    expect((await put(env, linkPath, { token: alice.token, body: { ...link, collectionIds: [] }, headers: { "if-match": stale } })).status).toBe(200);
    const current = await etagOf(env, alice, linkPath);
    const ifMatch = (value: string) => ({ token: alice.token, headers: { "if-match": value } });
    await refused(env, () => put(env, linkPath, { ...ifMatch(stale), body: { ...link, name: "Lost", collectionIds: [] } }), 412, "PRECONDITION_FAILED");
    await refused(env, () => del(env, linkPath, ifMatch(stale)), 412, "PRECONDITION_FAILED");
    // A weak ETag never matches If-Match (strong comparison).
    await refused(env, () => del(env, linkPath, ifMatch(`W/${current}`)), 412, "PRECONDITION_FAILED");
    expect((await put(env, linkPath, { ...ifMatch(`"nope", ${current}`), body: { ...link, name: "Kept", collectionIds: [] } })).status).toBe(200);

    const collectionEtag = await etagOf(env, alice, path);
    await refused(env, () => put(env, `${path}/order`, { ...ifMatch(`"nope"`), body: { order: [] } }), 412, "PRECONDITION_FAILED");
    await refused(env, () => put(env, path, { ...ifMatch(`"nope"`), body: { name: "Lost", visibility: "PRIVATE" } }), 412, "PRECONDITION_FAILED");
    await refused(env, () => del(env, path, ifMatch(`"nope"`)), 412, "PRECONDITION_FAILED");
    expect((await put(env, `${path}/order`, { ...ifMatch(collectionEtag), body: { order: [] } })).status).toBe(200);
    expect((await put(env, path, { ...ifMatch("*"), body: { name: "Any", visibility: "PRIVATE" } })).status).toBe(200);
    expect((await del(env, path, ifMatch(await etagOf(env, alice, path)))).status).toBe(200);
    expect((await del(env, linkPath, ifMatch("*"))).status).toBe(200);
    // `*` on an item that is gone: it does not exist.
    await refused(env, () => del(env, linkPath, ifMatch("*")), 404, "NOT_FOUND");
  });

  it("keeps a refused If-Match out of the key's answers: the retry with a fresh ETag writes", async () => {
    const { env, alice } = await aliceWithInbox();
    const saved = await createLink(env, alice);
    const path = `/api/v1/links/${saved.id}`;
    const body = { ...link, name: "Mine", collectionIds: [] };
    await refused(env, () => put(env, path, { token: alice.token, body, headers: { "if-match": `"old"`, "idempotency-key": "k" } }), 412, "PRECONDITION_FAILED");
    const fresh = await etagOf(env, alice, path);
    expect((await put(env, path, { token: alice.token, body, headers: { "if-match": fresh, "idempotency-key": "k" } })).status).toBe(200);
    expect((await get(env, path, { token: alice.token })).body.link.name).toBe("Mine");
  });
});
