/**
 * `POST /api/v1/links/bulk` through `app.handle`: every action, its rules (422 with paths), and
 * all or nothing: a refused request (another user's link or collection, the Inbox) leaves the
 * database byte for byte as it was. The number of statements does not grow with the ids.
 */
import { describe, expect, it } from "bun:test";
import { writeLink } from "../../src/shelf/links";
import { createCollection, createLink, createUser, get, inboxOf, makeEnv, post, refused, shelfFor, START, type TestEnv, type TestUser } from "../support/helpers";

const bulk = (env: TestEnv, as: TestUser, body: unknown) => post(env, "/api/v1/links/bulk", { token: as.token, body });

/** bulkRefused sends one bulk request that must be refused with status and code (on 422, errors at exactly `paths`) and changes nothing. */
const bulkRefused = (env: TestEnv, as: TestUser, body: unknown, status: number, code: string, paths?: string[]) =>
  refused(env, () => bulk(env, as, body), status, code, paths);

/** linksOf writes `n` links for a user through the shelf in one transaction (fast), in the Inbox unless collections are given. */
function linksOf(env: TestEnv, as: TestUser, n: number, collectionIds?: number[]): number[] {
  const shelf = shelfFor(env, as);
  return env.db.transaction(() => Array.from({ length: n }, (_, at) =>
    writeLink(shelf, { name: `Page ${at}`, url: `https://example.org/${at}`, favorite: false, collectionIds }, START + at).id));
}

async function setup() {
  const env = makeEnv();
  const alice = await createUser(env);
  const bob = await createUser(env);
  const reading = await createCollection(env, alice, { name: "Reading" });
  const work = await createCollection(env, alice, { name: "Work" });
  const inbox = await inboxOf(env, alice);
  const one = await createLink(env, alice, { name: "One", url: "https://example.org/one", collectionIds: [reading.id, work.id] });
  const two = await createLink(env, alice, { name: "Two", url: "https://example.org/two", collectionIds: [reading.id] });
  const three = await createLink(env, alice, { name: "Three", url: "https://example.org/three" });
  const bobs = await createLink(env, bob, { name: "Bob's", url: "https://example.org/bob" });
  const bobsCollection = await createCollection(env, bob, { name: "Bob's reading" });
  return { env, alice, bob, reading: reading.id, work: work.id, inbox, one: one.id, two: two.id, three: three.id, bobs: bobs.id, bobsCollection: bobsCollection.id };
}

/** linkOf reads one link through the API. */
const linkOf = async (env: TestEnv, as: TestUser, id: number) => (await get(env, `/api/v1/links/${id}`, { token: as.token })).body.link;

describe("POST /api/v1/links/bulk", () => {
  it("marks links favorite and not favorite, moving their updatedAt, and the kept collection list shows it", async () => {
    const { env, alice, one, two } = await setup();
    const listed = await get(env, "/api/v1/collections", { token: alice.token });
    expect(listed.body.collections.flatMap((c: { links: { favorite: boolean }[] }) => c.links).some((l: { favorite: boolean }) => l.favorite)).toBe(false);
    const before = await linkOf(env, alice, one);
    const response = await bulk(env, alice, { ids: [one, two], action: "favorite" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: "2 links marked favorite.", count: 2 });
    const after = await linkOf(env, alice, one);
    expect(after.favorite).toBe(true);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect((await linkOf(env, alice, two)).favorite).toBe(true);
    const relisted = await get(env, "/api/v1/collections", { token: alice.token });
    const favorites = new Set(relisted.body.collections.flatMap((c: { links: { id: number; favorite: boolean }[] }) => c.links.filter((l) => l.favorite).map((l) => l.id)));
    expect([...favorites].sort()).toEqual([one, two].sort());

    expect((await bulk(env, alice, { ids: [two], action: "unfavorite" })).body.count).toBe(1);
    expect((await linkOf(env, alice, two)).favorite).toBe(false);
    expect((await linkOf(env, alice, one)).favorite).toBe(true);
  });

  it("moves links into exactly one collection, out of all others", async () => {
    const { env, alice, one, three, work } = await setup();
    const response = await bulk(env, alice, { ids: [one, three], action: "move", collectionId: work });
    expect(response.body).toEqual({ message: "2 links moved to the collection.", count: 2 });
    expect((await linkOf(env, alice, one)).collectionIds).toEqual([work]);
    expect((await linkOf(env, alice, three)).collectionIds).toEqual([work]);
  });

  it("adds links to a collection, keeping the ones they are in, and a link already there stays once", async () => {
    const { env, alice, one, two, three, work, reading, inbox } = await setup();
    expect((await bulk(env, alice, { ids: [one, two, three], action: "add", collectionId: work })).body.count).toBe(3);
    expect((await linkOf(env, alice, one)).collectionIds).toEqual([reading, work]);
    expect((await linkOf(env, alice, two)).collectionIds).toEqual([reading, work]);
    expect((await linkOf(env, alice, three)).collectionIds).toEqual([inbox, work].sort((a, b) => a - b));
  });

  it("removes links from a collection; a link left in none goes to the Inbox, one elsewhere too just leaves", async () => {
    const { env, alice, one, two, reading, work, inbox } = await setup();
    expect((await bulk(env, alice, { ids: [one, two], action: "remove", collectionId: reading })).body.count).toBe(2);
    expect((await linkOf(env, alice, one)).collectionIds).toEqual([work]);
    expect((await linkOf(env, alice, two)).collectionIds).toEqual([inbox]);
  });

  it("refuses to remove links from the Inbox with 409 DEFAULT_COLLECTION, changing nothing", async () => {
    const { env, alice, three, inbox } = await setup();
    const response = await bulkRefused(env, alice, { ids: [three], action: "remove", collectionId: inbox }, 409, "DEFAULT_COLLECTION");
    expect(response.body.message).toContain("Inbox");
  });

  it("deletes links with their memberships, saved content and search rows", async () => {
    const { env, alice, one, two, three } = await setup();
    shelfFor(env, alice).links.setContent(one, { text: "Zebrafish husbandry notes" }, "browser", env.clock.now++);
    expect((await get(env, "/api/v1/search?q=zebrafish", { token: alice.token })).body.hits).toHaveLength(1);
    const response = await bulk(env, alice, { ids: [one, two], action: "delete" });
    expect(response.body).toEqual({ message: "2 links deleted.", count: 2 });
    expect((await get(env, `/api/v1/links/${one}`, { token: alice.token })).status).toBe(404);
    expect((await get(env, `/api/v1/links/${three}`, { token: alice.token })).status).toBe(200);
    const client = env.db.$client;
    expect(client.query("SELECT count(*) AS n FROM link_contents").get()).toEqual({ n: 0 });
    expect(client.query("SELECT count(*) AS n FROM link_collections WHERE link_id IN (?, ?)").get(one, two)).toEqual({ n: 0 });
    expect(client.query(`SELECT count(*) AS n FROM link_search_${alice.user.id} WHERE rowid IN (?, ?)`).get(one, two)).toEqual({ n: 0 });
    expect((await get(env, "/api/v1/search?q=zebrafish", { token: alice.token })).body.hits).toHaveLength(0);
  });

  it("answers 404 and changes nothing when one id is another user's or unknown, whatever the action", async () => {
    const { env, alice, one, two, bobs, work } = await setup();
    for (const body of [
      { ids: [one, bobs, two], action: "delete" },
      { ids: [one, 999999], action: "favorite" },
      { ids: [one, bobs], action: "move", collectionId: work },
    ]) {
      const response = await bulkRefused(env, alice, body, 404, "NOT_FOUND");
      const unknown = await bulk(env, alice, { ids: [999998], action: "delete" });
      expect(response.body).toEqual(unknown.body);
    }
  });

  it("answers 404 and changes nothing when the collection is another user's or unknown", async () => {
    const { env, alice, one, bobsCollection } = await setup();
    await bulkRefused(env, alice, { ids: [one], action: "add", collectionId: bobsCollection }, 404, "NOT_FOUND");
    await bulkRefused(env, alice, { ids: [one], action: "move", collectionId: 999999 }, 404, "NOT_FOUND");
  });

  it("takes 1,000 ids in a bounded number of statements and refuses 1,001", async () => {
    const { env, alice, work } = await setup();
    const ids = linksOf(env, alice, 1001);
    await bulkRefused(env, alice, { ids, action: "favorite" }, 422, "VALIDATION_FAILED", ["/ids"]);
    for (const [action, collectionId] of [["favorite", undefined], ["move", work], ["add", work], ["remove", work], ["delete", undefined]] as const) {
      env.queries.length = 0;
      const response = await bulk(env, alice, { ids: ids.slice(0, 1000), action, collectionId });
      expect({ action, status: response.status, count: response.body.count }).toEqual({ action, status: 200, count: 1000 });
      // The token check, the ownership count, the collection, then one statement per step of the action;
      // a delete also reads what the trash keeps (the links, their memberships, texts and health) and writes it in one.
      const bound = action === "delete" ? 12 : 8;
      expect({ action, statements: env.queries.length <= bound }).toEqual({ action, statements: true });
    }
    expect((await linkOf(env, alice, ids[1000]!)).name).toBe("Page 1000");
    expect((await get(env, `/api/v1/links/${ids[999]}`, { token: alice.token })).status).toBe(404);
  });

  it("refuses an empty list, duplicates and ids that are not positive whole numbers, at their paths", async () => {
    const { env, alice, one, two } = await setup();
    await bulkRefused(env, alice, { ids: [], action: "delete" }, 422, "VALIDATION_FAILED", ["/ids"]);
    await bulkRefused(env, alice, { ids: [one, two, one, two], action: "delete" }, 422, "VALIDATION_FAILED", ["/ids/2", "/ids/3"]);
    await bulkRefused(env, alice, { ids: [one, 0, -4], action: "favorite" }, 422, "VALIDATION_FAILED", ["/ids/1", "/ids/2"]);
    const fraction = await bulkRefused(env, alice, { ids: [one, 2.5], action: "favorite" }, 422, "VALIDATION_FAILED");
    expect(fraction.body.errors.map((e: { path: string }) => e.path)).toContain("/ids/1");
    const text = await bulkRefused(env, alice, { ids: [String(one)], action: "favorite" }, 422, "VALIDATION_FAILED");
    expect(text.body.errors.map((e: { path: string }) => e.path)).toContain("/ids/0");
  });

  it("requires a collectionId for move, add and remove, refuses one with the other actions, and refuses an unknown action", async () => {
    const { env, alice, one, work } = await setup();
    for (const action of ["move", "add", "remove"]) await bulkRefused(env, alice, { ids: [one], action }, 422, "VALIDATION_FAILED", ["/collectionId"]);
    for (const action of ["favorite", "unfavorite", "delete"]) await bulkRefused(env, alice, { ids: [one], action, collectionId: work }, 422, "VALIDATION_FAILED", ["/collectionId"]);
    const unknown = await bulkRefused(env, alice, { ids: [one], action: "archive" }, 422, "VALIDATION_FAILED");
    expect(unknown.body.errors.map((e: { path: string }) => e.path)).toContain("/action");
  });

  it("is rate-limited like the rest of the API", async () => {
    const { env, alice, one } = await setup();
    const response = await bulk(env, alice, { ids: [one], action: "favorite" });
    expect(response.headers.get("ratelimit-limit")).not.toBeNull();
    expect(response.headers.get("ratelimit-remaining")).not.toBeNull();
  });
});
