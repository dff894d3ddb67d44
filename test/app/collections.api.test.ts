/**
 * The collections API through `app.handle`: fields,
 * defaults and limits on both sides of each boundary, emoji icons, `PUT` keeping what it was
 * not sent, the Inbox rules, deleting a collection without ever deleting a link (in one
 * transaction), the list's order, and a constant number of SQL statements per
 * `GET /api/v1/collections` at 1 and at 200 collections. Every refused write is shown to leave
 * the database unchanged. Ownership across users is in permissions.api.test.ts; the answer's
 * exact bytes and its cache in collections.cache.test.ts.
 */
import { describe, expect, it, spyOn } from "bun:test";
import {
  ISO,
  aliceWithInbox,
  chars,
  createCollection,
  createLink,
  createUser,
  del,
  get,
  inboxOf,
  makeEnv,
  post,
  put,
  refused,
  type TestEnv,
  type TestUser,
} from "../support/helpers";

const COLLECTION_KEYS = ["author", "authorId", "copiesPublic", "createdAt", "description", "icon", "id", "isDefault", "isOwner", "links", "name", "order", "parentId", "updatedAt", "visibility"];
const valid = { name: "Reading", visibility: "PRIVATE" };

/** setup names alice, so that the answers' authors can be written out in full. */
const setup = () => aliceWithInbox({ name: "Alice", email: "alice@example.test" });

const createAs = (env: TestEnv, as: TestUser, body: unknown) => post(env, "/api/v1/collections", { token: as.token, body });
const updateAs = (env: TestEnv, as: TestUser, id: number | string, body: unknown) => put(env, `/api/v1/collections/${id}`, { token: as.token, body });
const deleteAs = (env: TestEnv, as: TestUser, id: number | string) => del(env, `/api/v1/collections/${id}`, { token: as.token });

async function list(env: TestEnv, as: TestUser): Promise<any[]> {
  const response = await get(env, "/api/v1/collections", { token: as.token });
  expect(response.status).toBe(200);
  return response.body.collections;
}

async function collectionOf(env: TestEnv, as: TestUser, id: number): Promise<any> {
  return (await list(env, as)).find((c) => c.id === id);
}

/** Emoji the contract names as one icon each (one RGI emoji, at most 10 code points). */
const ONE_EMOJI: [string, string][] = [
  ["a plain emoji", "📚"],
  ["an emoji with its presentation selector", "❤️"],
  ["a flag", "🇫🇷"],
  ["a keycap", "1️⃣"],
  ["a keycap #", "#️⃣"],
  ["a ZWJ family of 7 code points", "👨‍👩‍👧‍👦"],
  ["a skin tone", "👍🏽"],
  ["a subdivision flag (tag sequence)", "🏴󠁧󠁢󠁥󠁮󠁧󠁿"],
  ["a ZWJ sequence of exactly 10 code points", "🧑🏻‍❤️‍💋‍🧑🏼"],
];
/** Anything else, refused. */
const NOT_ONE_EMOJI: [string, string][] = [
  ["plain text", "abc"],
  ["one letter", "a"],
  ["a digit without the keycap", "1"],
  ["an emoticon", ":)"],
  ["two emojis", "😀😀"],
  ["two flags", "🇫🇷🇩🇪"],
  ["two keycaps", "1️⃣2️⃣"],
  ["two families", "👨‍👩‍👧‍👦👨‍👩‍👧‍👦"],
  ["an emoji and text", "📚x"],
  ["an emoji, a space and an emoji", "📚 📚"],
  ["a ZWJ chain that is not RGI", "👨‍👩‍👧‍👦‍👦"],
  ["a bare ZWJ", "\u200d"],
];

describe("POST /api/v1/collections", () => {
  it("creates a collection with 201 {message, collection}: no links, not the default, owned, description null, icon 📁", async () => {
    const { env, alice } = await setup();
    const response = await createAs(env, alice, valid);
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["collection", "message"]);
    expect(response.body.message).toMatch(/created/i);
    const collection = response.body.collection;
    expect(Object.keys(collection).sort()).toEqual(COLLECTION_KEYS);
    expect(collection).toEqual({
      id: expect.any(Number), name: "Reading", description: null, visibility: "PRIVATE", authorId: alice.user.id,
      author: { id: alice.user.id, name: "Alice", email: "alice@example.test" }, links: [], icon: "📁", isDefault: false,
      createdAt: expect.stringMatching(ISO), updatedAt: collection.createdAt, isOwner: true, copiesPublic: false, parentId: null, order: [],
    });
    expect(await collectionOf(env, alice, collection.id)).toEqual(collection);
  });

  it("starts in the visibility sent, PUBLIC or PRIVATE", async () => {
    const { env, alice } = await setup();
    for (const visibility of ["PUBLIC", "PRIVATE"]) {
      const response = await createAs(env, alice, { ...valid, visibility });
      expect(response.body.collection.visibility).toBe(visibility);
      expect((await collectionOf(env, alice, response.body.collection.id)).visibility).toBe(visibility);
    }
  });

  it("requires name and visibility (visibility has no default: the interface makes it required)", async () => {
    const { env, alice } = await setup();
    await refused(env, () => createAs(env, alice, { visibility: "PUBLIC" }), 422, "VALIDATION_FAILED", ["/name"]);
    // One error per field: TypeBox's second report of a missing union ("Expected union value") is folded.
    const missing = await refused(env, () => createAs(env, alice, { name: "X" }), 422, "VALIDATION_FAILED", ["/visibility"]);
    expect(missing.body.errors).toEqual([{ path: "/visibility", message: "Expected required property" }]);
    const none = await refused(env, () => createAs(env, alice, {}), 422, "VALIDATION_FAILED");
    expect(none.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["/name", "/visibility"]);
  });

  it("names the allowed values when visibility is neither", async () => {
    const { env, alice } = await setup();
    const response = await refused(env, () => createAs(env, alice, { name: "X", visibility: "public" }), 422, "VALIDATION_FAILED");
    expect(response.body.errors).toEqual([{ path: "/visibility", message: 'Expected "PUBLIC" or "PRIVATE"' }]);
  });

  it("refuses any visibility but PUBLIC and PRIVATE, and fields of the wrong type", async () => {
    const { env, alice } = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ visibility: "public" }, "/visibility"],
      [{ visibility: "Private" }, "/visibility"],
      [{ visibility: "HIDDEN" }, "/visibility"],
      [{ visibility: " PUBLIC" }, "/visibility"],
      [{ visibility: null }, "/visibility"],
      [{ visibility: true }, "/visibility"],
      [{ name: 5 }, "/name"],
      [{ name: null }, "/name"],
      [{ description: 5 }, "/description"],
      [{ icon: null }, "/icon"],
      [{ icon: 128218 }, "/icon"],
    ];
    for (const [change, path] of cases) {
      const response = await refused(env, () => createAs(env, alice, { ...valid, ...change }), 422, "VALIDATION_FAILED");
      expect({ change, paths: response.body.errors.map((e: { path: string }) => e.path) }).toEqual({ change, paths: expect.arrayContaining([path]) });
    }
  });

  it("accepts a name of 254 code points and refuses 255; trimmed first, and blank is refused", async () => {
    const { env, alice } = await setup();
    for (const name of [chars(254), chars(254, "😀"), "e\u0301".repeat(127), ` \t${chars(254)}\n `]) {
      const response = await createAs(env, alice, { ...valid, name });
      expect(response.status).toBe(201);
      expect(response.body.collection.name).toBe(name.trim());
    }
    for (const name of [chars(255), chars(255, "😀"), chars(254) + "𝄞", "", "   ", "\n\t"]) {
      await refused(env, () => createAs(env, alice, { ...valid, name }), 422, "VALIDATION_FAILED", ["/name"]);
    }
  });

  it("accepts a description of 254 code points and refuses 255; null, \"\" and blank store null", async () => {
    const { env, alice } = await setup();
    for (const description of [chars(254), chars(254, "😀"), `  ${chars(254)}  `]) {
      const response = await createAs(env, alice, { ...valid, description });
      expect(response.status).toBe(201);
      expect(response.body.collection.description).toBe(description.trim());
    }
    for (const description of [null, "", "   "]) {
      const response = await createAs(env, alice, { ...valid, description });
      expect(response.status).toBe(201);
      expect(response.body.collection.description).toBeNull();
      expect((await collectionOf(env, alice, response.body.collection.id)).description).toBeNull();
    }
    for (const description of [chars(255), chars(255, "😀"), `${chars(254)} x`]) {
      await refused(env, () => createAs(env, alice, { ...valid, description }), 422, "VALIDATION_FAILED", ["/description"]);
    }
  });

  for (const [what, icon] of ONE_EMOJI) {
    it(`accepts ${what} as the icon (${[...icon].length} code points)`, async () => {
      const { env, alice } = await setup();
      const response = await createAs(env, alice, { ...valid, icon });
      expect(response.status).toBe(201);
      expect(response.body.collection.icon).toBe(icon);
      expect((await collectionOf(env, alice, response.body.collection.id)).icon).toBe(icon);
    });
  }

  for (const [what, icon] of NOT_ONE_EMOJI) {
    it(`refuses ${what} as the icon with 422 /icon, changing nothing`, async () => {
      const { env, alice } = await setup();
      await refused(env, () => createAs(env, alice, { ...valid, icon }), 422, "VALIDATION_FAILED", ["/icon"]);
    });
  }

  it("trims the icon, and gives 📁 for an omitted, empty or blank one", async () => {
    const { env, alice } = await setup();
    expect((await createAs(env, alice, { ...valid, icon: " 🇫🇷\n" })).body.collection.icon).toBe("🇫🇷");
    for (const icon of [undefined, "", "  "]) {
      expect((await createAs(env, alice, { ...valid, icon })).body.collection.icon).toBe("📁");
    }
  });

  it("reports every rule a body breaks at once", async () => {
    const { env, alice } = await setup();
    const response = await refused(env, () => createAs(env, alice, { name: "", description: chars(255), visibility: "PUBLIC", icon: "ab" }), 422, "VALIDATION_FAILED");
    expect(response.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["/description", "/icon", "/name"]);
  });

  it("allows two collections with the same name", async () => {
    const { env, alice } = await setup();
    const first = await createCollection(env, alice, { name: "Same" });
    const second = await createCollection(env, alice, { name: "Same" });
    expect(second.id).not.toBe(first.id);
  });
});

describe("PUT /api/v1/collections/:id", () => {
  /** A collection with every optional field set and one link in it. */
  async function fullCollection() {
    const { env, alice, inbox } = await setup();
    const collection = await createCollection(env, alice, { name: "Before", description: "Kept", visibility: "PRIVATE", icon: "🇫🇷" });
    const link = await createLink(env, alice, { collectionIds: [collection.id] });
    return { env, alice, inbox, collection: await collectionOf(env, alice, collection.id), link };
  }

  it("replaces name and visibility, answers {message} only, keeps the links and moves updatedAt only", async () => {
    const { env, alice, collection } = await fullCollection();
    const response = await updateAs(env, alice, collection.id, { name: " After ", visibility: "PUBLIC", description: "New", icon: "1️⃣" });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["message"]);
    expect(response.body.message).toMatch(/updated/i);
    const after = await collectionOf(env, alice, collection.id);
    expect(after).toEqual({ ...collection, name: "After", visibility: "PUBLIC", description: "New", icon: "1️⃣", updatedAt: expect.stringMatching(ISO) });
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(collection.updatedAt));
    expect(after.createdAt).toBe(collection.createdAt);
  });

  it("keeps the stored description and icon when they are omitted", async () => {
    const { env, alice, collection } = await fullCollection();
    expect((await updateAs(env, alice, collection.id, { name: "After", visibility: "PUBLIC" })).status).toBe(200);
    const after = await collectionOf(env, alice, collection.id);
    expect({ description: after.description, icon: after.icon }).toEqual({ description: "Kept", icon: "🇫🇷" });
  });

  it("clears the description with null, \"\" or blank, and resets the icon to 📁 with \"\"", async () => {
    for (const description of [null, "", "  "]) {
      const { env, alice, collection } = await fullCollection();
      expect((await updateAs(env, alice, collection.id, { ...valid, description, icon: "" })).status).toBe(200);
      const after = await collectionOf(env, alice, collection.id);
      expect({ description: after.description, icon: after.icon }).toEqual({ description: null, icon: "📁" });
    }
  });

  it("takes the same limits as POST on both sides of each boundary", async () => {
    const { env, alice, collection } = await fullCollection();
    for (const change of [{ name: chars(254, "😀") }, { description: chars(254) }, { icon: "👨‍👩‍👧‍👦" }]) {
      expect({ change, status: (await updateAs(env, alice, collection.id, { ...valid, ...change })).status }).toEqual({ change, status: 200 });
    }
    const cases: [Record<string, unknown>, string][] = [
      [{ name: chars(255) }, "/name"],
      [{ name: " " }, "/name"],
      [{ description: chars(255) }, "/description"],
      [{ icon: "😀😀" }, "/icon"],
      [{ icon: "text" }, "/icon"],
      [{ visibility: "public" }, "/visibility"],
    ];
    for (const [change, path] of cases) {
      await refused(env, () => updateAs(env, alice, collection.id, { ...valid, ...change }), 422, "VALIDATION_FAILED", [path]);
    }
    await refused(env, () => updateAs(env, alice, collection.id, { name: "X" }), 422, "VALIDATION_FAILED", ["/visibility"]);
    await refused(env, () => updateAs(env, alice, collection.id, { visibility: "PUBLIC" }), 422, "VALIDATION_FAILED", ["/name"]);
  });

  it("answers 404 for an unknown, deleted or malformed id, changing nothing", async () => {
    const { env, alice, collection } = await fullCollection();
    for (const id of ["999999", "0", "-1", "1.5", "01", "1e3", "abc", "%20", "99999999999999999999"]) {
      await refused(env, () => updateAs(env, alice, id, valid), 404, "NOT_FOUND");
    }
    expect((await deleteAs(env, alice, collection.id)).status).toBe(200);
    await refused(env, () => updateAs(env, alice, collection.id, valid), 404, "NOT_FOUND");
  });
});

describe("the Inbox", () => {
  it("is created with the user: named Inbox, PRIVATE, 📥, isDefault, description null, no links", async () => {
    const { env, alice, inbox } = await setup();
    const collections = await list(env, alice);
    expect(collections).toHaveLength(1);
    expect(collections[0]).toEqual({
      id: inbox, name: "Inbox", description: null, visibility: "PRIVATE", authorId: alice.user.id,
      author: { id: alice.user.id, name: "Alice", email: "alice@example.test" }, links: [], icon: "📥", isDefault: true,
      createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO), isOwner: true, copiesPublic: false, parentId: null, order: [],
    });
  });

  it("can be renamed, re-iconed, described and made public, and stays the default", async () => {
    const { env, alice, inbox } = await setup();
    expect((await updateAs(env, alice, inbox, { name: "Unsorted", visibility: "PUBLIC", icon: "🗃️", description: "Everything" })).status).toBe(200);
    const after = await collectionOf(env, alice, inbox);
    expect(after).toMatchObject({ name: "Unsorted", visibility: "PUBLIC", icon: "🗃️", description: "Everything", isDefault: true });
    // Links with no collection still go to it.
    const link = await createLink(env, alice);
    expect(link.collectionIds).toEqual([inbox]);
  });

  it("gets 📥 back, not 📁, when its icon is cleared with \"\", and keeps its icon when it is omitted", async () => {
    const { env, alice, inbox } = await setup();
    await updateAs(env, alice, inbox, { name: "Inbox", visibility: "PRIVATE", icon: "📚" });
    await updateAs(env, alice, inbox, { name: "Inbox", visibility: "PRIVATE" });
    expect((await collectionOf(env, alice, inbox)).icon).toBe("📚");
    await updateAs(env, alice, inbox, { name: "Inbox", visibility: "PRIVATE", icon: "" });
    expect((await collectionOf(env, alice, inbox)).icon).toBe("📥");
  });

  it("is never deletable: 409 DEFAULT_COLLECTION with the error shape, changing nothing, even renamed and full", async () => {
    const { env, alice, inbox } = await setup();
    await createLink(env, alice);
    const response = await refused(env, () => deleteAs(env, alice, inbox), 409, "DEFAULT_COLLECTION");
    expect(Object.keys(response.body).sort()).toEqual(["code", "message"]);
    await updateAs(env, alice, inbox, { name: "Renamed", visibility: "PUBLIC" });
    await refused(env, () => deleteAs(env, alice, inbox), 409, "DEFAULT_COLLECTION");
    expect((await list(env, alice)).map((c) => c.id)).toEqual([inbox]);
  });
});

describe("DELETE /api/v1/collections/:id", () => {
  /**
   * A collection `doomed` holding: a link only there, a link also in `kept`, a link also in the
   * Inbox, and a link in all three; plus a link of `kept` alone and one of the Inbox alone.
   */
  async function shelves() {
    const { env, alice, inbox } = await setup();
    const doomed = await createCollection(env, alice, { name: "Doomed" });
    const kept = await createCollection(env, alice, { name: "Kept" });
    const make = (name: string, collectionIds: number[]) => createLink(env, alice, { name, url: `https://example.com/${name}`, collectionIds });
    const links = {
      onlyDoomed: await make("onlyDoomed", [doomed.id]),
      doomedAndKept: await make("doomedAndKept", [doomed.id, kept.id]),
      doomedAndInbox: await make("doomedAndInbox", [doomed.id, inbox]),
      everywhere: await make("everywhere", [doomed.id, kept.id, inbox]),
      onlyKept: await make("onlyKept", [kept.id]),
      onlyInbox: await make("onlyInbox", [inbox]),
    };
    return { env, alice, inbox, doomed, kept, links };
  }

  const membership = (env: TestEnv) =>
    env.db.$client.query("SELECT link_id AS link, collection_id AS collection FROM link_collections ORDER BY link_id, collection_id").all();

  it("moves links that were only there to the Inbox, takes the others out, and deletes no link", async () => {
    const { env, alice, inbox, doomed, kept, links } = await shelves();
    const linkRows = env.db.$client.query("SELECT * FROM links ORDER BY id").all();
    const response = await deleteAs(env, alice, doomed.id);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["message"]);
    expect(response.body.message).toMatch(/deleted/i);

    // Not a row of links changed: only memberships did.
    expect(env.db.$client.query("SELECT * FROM links ORDER BY id").all()).toEqual(linkRows);
    expect(membership(env)).toEqual([
      { link: links.onlyDoomed.id, collection: inbox },
      { link: links.doomedAndKept.id, collection: kept.id },
      { link: links.doomedAndInbox.id, collection: inbox },
      { link: links.everywhere.id, collection: inbox },
      { link: links.everywhere.id, collection: kept.id },
      { link: links.onlyKept.id, collection: kept.id },
      { link: links.onlyInbox.id, collection: inbox },
    ]);

    const collections = await list(env, alice);
    expect(collections.map((c) => c.id)).toEqual([inbox, kept.id]);
    const [inboxJson, keptJson] = collections;
    // Newest first: a moved link keeps its place by createdAt, it does not jump to the top.
    expect(inboxJson.links.map((l: { name: string }) => l.name)).toEqual(["onlyInbox", "everywhere", "doomedAndInbox", "onlyDoomed"]);
    expect(keptJson.links.map((l: { name: string }) => l.name)).toEqual(["onlyKept", "everywhere", "doomedAndKept"]);
    expect(inboxJson.links.find((l: { name: string }) => l.name === "onlyDoomed").collectionIds).toEqual([inbox]);
    expect(keptJson.links.find((l: { name: string }) => l.name === "everywhere").collectionIds).toEqual([inbox, kept.id]);
  });

  it("does it in one transaction: when the delete fails, no link has moved to the Inbox either", async () => {
    const { env, alice, doomed } = await shelves();
    // The move runs first, the delete after it; make the delete fail.
    env.db.$client.run("CREATE TRIGGER refuse_delete BEFORE DELETE ON collections BEGIN SELECT RAISE(ABORT, 'refused'); END");
    const logged = spyOn(console, "error").mockImplementation(() => {});
    try {
      await refused(env, () => deleteAs(env, alice, doomed.id), 500, "INTERNAL");
    } finally {
      logged.mockRestore();
    }
    env.db.$client.run("DROP TRIGGER refuse_delete");
    expect((await deleteAs(env, alice, doomed.id)).status).toBe(200);
  });

  it("deletes an empty collection and touches nothing else", async () => {
    const { env, alice, inbox } = await setup();
    const link = await createLink(env, alice);
    const empty = await createCollection(env, alice, { name: "Empty" });
    const before = membership(env);
    expect((await deleteAs(env, alice, empty.id)).status).toBe(200);
    expect(membership(env)).toEqual(before);
    expect((await list(env, alice)).map((c) => c.id)).toEqual([inbox]);
    expect((await list(env, alice))[0].links.map((l: { id: number }) => l.id)).toEqual([link.id]);
  });

  it("never moves another user's links, and another user's Inbox is untouched", async () => {
    const { env, alice, doomed } = await shelves();
    const bob = await createUser(env);
    await createLink(env, bob, { name: "Bob's" });
    const bobBefore = (await get(env, "/api/v1/collections", { token: bob.token })).text;
    expect((await deleteAs(env, alice, doomed.id)).status).toBe(200);
    expect((await get(env, "/api/v1/collections", { token: bob.token })).text).toBe(bobBefore);
  });

  it("answers 404 the second time, and for unknown or malformed ids, changing nothing", async () => {
    const { env, alice, doomed } = await shelves();
    expect((await deleteAs(env, alice, doomed.id)).status).toBe(200);
    for (const id of [String(doomed.id), "999999", "0", "-1", "1.5", "abc", "99999999999999999999"]) {
      await refused(env, () => deleteAs(env, alice, id), 404, "NOT_FOUND");
    }
  });
});

describe("GET /api/v1/collections", () => {
  it("lists the Inbox first, then the top level in its order (new ones at the end, not by name)", async () => {
    const { env, alice, inbox } = await setup();
    await updateAs(env, alice, inbox, { name: "zzz last by name", visibility: "PRIVATE" });
    const names = ["banana", "Zeta", "apple", "Cherry", "Apple", "alpha", "Banana", "_under", "10", "9"];
    for (const name of names) await createCollection(env, alice, { name });
    const collections = await list(env, alice);
    expect(collections.map((c) => c.name)).toEqual(["zzz last by name", ...names]);
    expect(collections[0]).toMatchObject({ id: inbox, isDefault: true });
    expect(collections.filter((c) => c.isDefault)).toHaveLength(1);
  });

  it("breaks a tie of equal names by id, whichever was created first", async () => {
    const { env, alice } = await setup();
    const first = await createCollection(env, alice, { name: "same" });
    const second = await createCollection(env, alice, { name: "SAME" });
    const third = await createCollection(env, alice, { name: "Same" });
    // Renaming does not reorder by age: ids decide.
    await updateAs(env, alice, first.id, { name: "Same", visibility: "PRIVATE" });
    expect((await list(env, alice)).slice(1).map((c) => c.id)).toEqual([first.id, second.id, third.id]);
  });

  it("lists links newest first (createdAt, then id for links created in the same millisecond)", async () => {
    const { env, alice, inbox } = await setup();
    const older = await createLink(env, alice, { name: "older" });
    // Three links created at the same instant: the clock is set back before each request.
    const sameInstant: number[] = [];
    const instant = env.clock.now + 1000;
    for (const name of ["same1", "same2", "same3"]) {
      env.clock.now = instant;
      sameInstant.push((await createLink(env, alice, { name })).id);
    }
    env.clock.now = instant + 1000;
    const newest = await createLink(env, alice, { name: "newest" });
    const links = (await list(env, alice)).find((c) => c.id === inbox).links;
    expect(new Set(links.slice(1, 4).map((l: { createdAt: string }) => l.createdAt)).size).toBe(1);
    expect(links.map((l: { id: number }) => l.id)).toEqual([newest.id, ...sameInstant.reverse(), older.id]);
  });

  it("lists a link in each of its collections with the same JSON, and each collection with its author", async () => {
    const { env, alice, inbox } = await setup();
    const a = await createCollection(env, alice, { name: "A" });
    const link = await createLink(env, alice, { collectionIds: [a.id, inbox] });
    const collections = await list(env, alice);
    expect(collections.map((c) => c.links)).toEqual([[link], [link]]);
    for (const collection of collections) {
      expect(Object.keys(collection).sort()).toEqual(COLLECTION_KEYS);
      expect(collection.author).toEqual({ id: alice.user.id, name: "Alice", email: "alice@example.test" });
      expect(collection.authorId).toBe(alice.user.id);
      expect(collection.isOwner).toBe(true);
    }
  });

  describe("runs the same SQL statements at 1 and at 200 collections", () => {
    /**
     * A user with `collections` collections (the Inbox included) and `links` links spread over
     * them, every third link in two collections; then the statements of one request that
     * builds the answer (right after a write) and of one served from the kept answer.
     */
    async function statementsOf(collections: number, links: number) {
      const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" });
      const alice = await createUser(env);
      const ids = [await inboxOf(env, alice)];
      for (let i = 1; i < collections; i++) ids.push((await createCollection(env, alice, { name: `Shelf ${i}` })).id);
      const created: { id: number }[] = [];
      for (let start = 0; start < links; start += 50) {
        const batch = [];
        for (let i = start; i < Math.min(links, start + 50); i++) {
          const home = ids[i % ids.length]!;
          const collectionIds = i % 3 === 0 ? [home, ids[(i + 1) % ids.length]!] : [home];
          batch.push(createLink(env, alice, { name: `Link ${i}`, url: `https://example.com/${i}`, collectionIds }));
        }
        created.push(...(await Promise.all(batch)));
      }
      // A write, so that the next request builds the answer afresh.
      const first = created[0]!;
      expect((await put(env, `/api/v1/links/${first.id}`, { token: alice.token, body: { name: "Renamed", url: "https://example.com/r", favorite: true, collectionIds: [ids[0]!] } })).status).toBe(200);

      env.queries.length = 0;
      const built = await get(env, "/api/v1/collections", { token: alice.token });
      const builtStatements = [...env.queries];
      env.queries.length = 0;
      const kept = await get(env, "/api/v1/collections", { token: alice.token });
      const keptStatements = [...env.queries];

      // The answers are real: every collection, every link where it belongs, the write seen.
      expect(built.status).toBe(200);
      expect(kept.text).toBe(built.text);
      const listed = built.body.collections;
      expect(listed).toHaveLength(collections);
      const memberships = listed.reduce((n: number, c: { links: unknown[] }) => n + c.links.length, 0);
      const expected = env.db.$client.query("SELECT count(*) AS n FROM link_collections").get() as { n: number };
      expect(memberships).toBe(expected.n);
      expect(new Set(listed.flatMap((c: { links: { id: number }[] }) => c.links.map((l) => l.id))).size).toBe(links);
      expect(listed[0].links.find((l: { id: number }) => l.id === first.id).name).toBe("Renamed");
      return { builtStatements, keptStatements };
    }

    it("builds the answer with the same statements for 1 collection and for 200 collections with 1,000 links", async () => {
      const small = await statementsOf(1, 3);
      const large = await statementsOf(200, 1000);
      expect(large.builtStatements).toEqual(small.builtStatements);
      expect(large.keptStatements).toEqual(small.keptStatements);
      // Token, stamp, collections, links, memberships; a kept answer: token and stamp.
      expect(small.builtStatements).toHaveLength(5);
      expect(small.keptStatements).toHaveLength(2);
      expect(small.builtStatements.filter((sql) => /from "collections"/i.test(sql))).toHaveLength(1);
      expect(small.builtStatements.filter((sql) => /from "links"/i.test(sql))).toHaveLength(1);
    }, 60_000);
  });
});
