/**
 * The read endpoints the interface left out: `GET /api/v1/links` (search, filters, cursor
 * pages), `GET /api/v1/links/:id` and `GET /api/v1/collections/:id`. Only the requester's own
 * data is ever read; another user's ids are 404 like unknown ones.
 */
import { describe, expect, it } from "bun:test";
import { chars, createCollection, createLink, createUser, del, get, makeEnv, put, snapshot, type TestEnv, type TestUser } from "../support/helpers";

const search = (env: TestEnv, as: TestUser, query: string) => get(env, `/api/v1/links?${query}`, { token: as.token });
const ids = (body: { links: { id: number }[] }) => body.links.map((link) => link.id);

/** A user with links whose names, URLs and descriptions each hold one searchable word. */
async function shelf() {
  const env = makeEnv();
  const owner = await createUser(env);
  const other = await createUser(env);
  const reading = await createCollection(env, owner, { name: "Reading" });
  const byName = await createLink(env, owner, { name: "Zebra crossing", url: "https://a.example/" });
  const byUrl = await createLink(env, owner, { name: "Second", url: "https://zebra.example/path" });
  const byDescription = await createLink(env, owner, { name: "Third", url: "https://c.example/", description: "a ZEBRA here", collectionIds: [reading.id] });
  const favorite = await createLink(env, owner, { name: "100% real_thing", url: "https://d.example/", favorite: true, collectionIds: [reading.id] });
  const foreign = await createLink(env, other, { name: "Zebra too", url: "https://zebra.example/other" });
  return { env, owner, other, reading, byName, byUrl, byDescription, favorite, foreign };
}

describe("GET /api/v1/links", () => {
  it("lists the requester's links newest first, with a null cursor on the last page", async () => {
    const { env, owner, byName, byUrl, byDescription, favorite } = await shelf();
    const response = await search(env, owner, "");
    expect(response.status).toBe(200);
    expect(ids(response.body)).toEqual([favorite.id, byDescription.id, byUrl.id, byName.id]);
    expect(response.body.links[0]).toEqual(favorite);
    expect(response.body.nextCursor).toBeNull();
    expect(response.headers.get("ratelimit-limit")).not.toBeNull();
  });

  it("finds a word in names, URLs and descriptions, ignoring ASCII case, never in another user's links", async () => {
    const { env, owner, byName, byUrl, byDescription } = await shelf();
    const response = await search(env, owner, "q=zEbRa");
    expect(ids(response.body)).toEqual([byDescription.id, byUrl.id, byName.id]);
    expect(ids((await search(env, owner, "q=%20%20zebra%20")).body)).toEqual([byDescription.id, byUrl.id, byName.id]);
    expect(ids((await search(env, owner, "q=nothing-like-this")).body)).toEqual([]);
  });

  it("matches %, _ and \\ literally, not as LIKE wildcards", async () => {
    const { env, owner, favorite } = await shelf();
    expect(ids((await search(env, owner, "q=%25")).body)).toEqual([favorite.id]);
    expect(ids((await search(env, owner, "q=100_")).body)).toEqual([]);
    expect(ids((await search(env, owner, "q=l_thing")).body)).toEqual([favorite.id]);
    expect(ids((await search(env, owner, "q=%5C")).body)).toEqual([]);
  });

  it("filters by collection and by favorite, combined with the search", async () => {
    const { env, owner, reading, byDescription, favorite, byName, byUrl } = await shelf();
    expect(ids((await search(env, owner, `collectionId=${reading.id}`)).body)).toEqual([favorite.id, byDescription.id]);
    expect(ids((await search(env, owner, `collectionId=${reading.id}&q=zebra`)).body)).toEqual([byDescription.id]);
    expect(ids((await search(env, owner, "favorite=true")).body)).toEqual([favorite.id]);
    expect(ids((await search(env, owner, "favorite=false")).body)).toEqual([byDescription.id, byUrl.id, byName.id]);
  });

  it("answers 404 for a collection that is another user's or unknown", async () => {
    const { env, owner, other } = await shelf();
    const theirs = await createCollection(env, other, { name: "Theirs" });
    for (const id of [theirs.id, 999, 0]) {
      const response = await search(env, owner, `collectionId=${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: expect.any(String), code: "NOT_FOUND" });
    }
  });

  it("walks every link exactly once in pages, and a link created meanwhile never shifts a page", async () => {
    const env = makeEnv();
    const owner = await createUser(env);
    const created = [];
    for (let i = 0; i < 7; i++) created.push((await createLink(env, owner, { name: `Link ${i}`, url: `https://example.com/${i}` })).id);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await search(env, owner, `limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(response.status).toBe(200);
      expect(response.body.links.length).toBeLessThanOrEqual(3);
      seen.push(...ids(response.body));
      cursor = response.body.nextCursor;
      if (pages++ === 0) await createLink(env, owner, { name: "Newer", url: "https://example.com/new" });
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(created.reverse());
  });

  it("ends on a full last page with a null cursor (no empty page after it)", async () => {
    const env = makeEnv();
    const owner = await createUser(env);
    for (let i = 0; i < 4; i++) await createLink(env, owner, { url: `https://example.com/${i}` });
    const first = await search(env, owner, "limit=2");
    const second = await search(env, owner, `limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.links).toHaveLength(2);
    expect(second.body.nextCursor).toBeNull();
  });

  it("takes limit from 1 to 100 and q up to 200 characters; anything else is 422", async () => {
    const { env, owner } = await shelf();
    for (const query of ["limit=1", "limit=100", `q=${chars(200)}`, `q=${encodeURIComponent(chars(200, "😀"))}`]) {
      expect((await search(env, owner, query)).status).toBe(200);
    }
    const refused = {
      "limit=0": "/limit", "limit=101": "/limit", "limit=-1": "/limit", "limit=1.5": "/limit", "limit=abc": "/limit",
      [`q=${chars(201)}`]: "/q", "favorite=yes": "/favorite", "collectionId=abc": "/collectionId",
      "cursor=garbage": "/cursor", [`cursor=${Buffer.from("1.0").toString("base64url")}`]: "/cursor",
    };
    for (const [query, path] of Object.entries(refused)) {
      const response = await search(env, owner, query);
      expect(response.status, query).toBe(422);
      expect(response.body.code).toBe("VALIDATION_FAILED");
      expect(response.body.errors.map((error: { path: string }) => error.path), query).toEqual([path]);
    }
    expect((await search(env, owner, "limit=1")).body.links).toHaveLength(1);
  });

  it("reads limit and collectionId as decimal digits only: exponents, hex, signs, decimals and spaces are 422 at the parameter", async () => {
    const { env, owner, reading } = await shelf();
    for (const query of ["limit=1", "limit=01", "limit=100", `collectionId=${reading.id}`, `collectionId=0${reading.id}`]) {
      expect([query, (await search(env, owner, query)).status]).toEqual([query, 200]);
    }
    expect((await search(env, owner, "limit=01")).body.links).toHaveLength(1);
    expect((await search(env, owner, `collectionId=${reading.id}`)).body.links).toHaveLength(2);

    const hostile = ["1e2", "1E0", "0x10", "%2B5", "-5", "5.0", "5.", "%201", "1%20", "%091", "1_0", "", "%EF%BC%95", "Infinity", "1234567890123456"];
    const before = snapshot(env);
    for (const [name, path] of [["limit", "/limit"], ["collectionId", "/collectionId"]] as const) {
      for (const value of hostile) {
        const response = await search(env, owner, `${name}=${value}`);
        expect([`${name}=${value}`, response.status], name).toEqual([`${name}=${value}`, 422]);
        expect(response.body.errors).toEqual([{ path, message: "Expected a whole number in decimal digits" }]);
      }
    }
    expect(snapshot(env)).toBe(before);
  });

  it("is 401 without a valid token", async () => {
    const { env } = await shelf();
    expect((await get(env, "/api/v1/links")).status).toBe(401);
    expect((await get(env, "/api/v1/links", { token: "lks_nope" })).status).toBe(401);
  });
});

describe("GET /api/v1/links/:id", () => {
  it("answers one of the requester's links as it is stored now", async () => {
    const { env, owner, reading, byName } = await shelf();
    await put(env, `/api/v1/links/${byName.id}`, {
      token: owner.token,
      body: { name: "Renamed", url: byName.url, favorite: true, collectionIds: [reading.id] },
    });
    const response = await get(env, `/api/v1/links/${byName.id}`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body.link).toMatchObject({ id: byName.id, name: "Renamed", favorite: true, collectionIds: [reading.id] });
    expect((await search(env, owner, `q=Renamed`)).body.links[0]).toEqual(response.body.link);
  });

  it("is 404 for another user's, unknown, deleted and malformed ids, and reads nothing into a change", async () => {
    const { env, owner, foreign, byName } = await shelf();
    await del(env, `/api/v1/links/${byName.id}`, { token: owner.token });
    const before = snapshot(env);
    for (const id of [foreign.id, byName.id, 999, "0", "abc", "1e3", "-1"]) {
      const response = await get(env, `/api/v1/links/${id}`, { token: owner.token });
      expect(response.status, String(id)).toBe(404);
      expect(response.body.code).toBe("NOT_FOUND");
    }
    expect(snapshot(env)).toBe(before);
  });
});

describe("GET /api/v1/collections/:id", () => {
  it("answers one of the requester's collections with its links, newest first, as the list shows it", async () => {
    const { env, owner, reading, byDescription, favorite } = await shelf();
    const response = await get(env, `/api/v1/collections/${reading.id}`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body.collection.links.map((link: { id: number }) => link.id)).toEqual([favorite.id, byDescription.id]);
    const listed = (await get(env, "/api/v1/collections", { token: owner.token })).body.collections;
    expect(listed.find((collection: { id: number }) => collection.id === reading.id)).toEqual(response.body.collection);
  });

  it("is 404 for another user's collection, even a public one, and for unknown ids", async () => {
    const { env, owner, other } = await shelf();
    const theirs = await createCollection(env, other, { name: "Public", visibility: "PUBLIC" });
    for (const id of [theirs.id, 999, "x"]) {
      const response = await get(env, `/api/v1/collections/${id}`, { token: owner.token });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe("NOT_FOUND");
    }
  });
});
