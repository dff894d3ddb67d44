/**
 * The links API through `app.handle`: every field,
 * default and limit on both sides of its boundary, `PUT` keeping what it was not sent,
 * `collectionIds` folding, the favorites ranking, and for every refused write proof that the
 * database did not change. Ownership across users is in permissions.api.test.ts, the error
 * shapes of 400/401/413/415 in http.api.test.ts.
 */
import { describe, expect, it } from "bun:test";
import {
  ISO,
  aliceWithInbox,
  chars,
  createCollection,
  createLink,
  createUser,
  del,
  get,
  post,
  put,
  refused,
  type TestEnv,
  type TestUser,
} from "../support/helpers";

const LINK_KEYS = ["archived", "authorId", "clicks", "collectionIds", "copy", "createdAt", "description", "favorite", "id", "lastClickedAt", "name", "toRead", "updatedAt", "url"];
const valid = { name: "A page", url: "https://example.org/page", favorite: false };
/** A URL of exactly `n` characters. */
const urlOf = (n: number) => {
  const head = "https://example.com/";
  return head + "a".repeat(n - head.length);
};

const createAs = (env: TestEnv, as: TestUser, body: unknown) => post(env, "/api/v1/links", { token: as.token, body });
const updateAs = (env: TestEnv, as: TestUser, id: number | string, body: unknown) => put(env, `/api/v1/links/${id}`, { token: as.token, body });

/** allLinks reads every link of a user as GET /api/v1/collections lists them, by id. */
async function allLinks(env: TestEnv, as: TestUser): Promise<Map<number, any>> {
  const response = await get(env, "/api/v1/collections", { token: as.token });
  const found = new Map<number, any>();
  for (const collection of response.body.collections) for (const link of collection.links) found.set(link.id, link);
  return found;
}

/** linksIn returns the ids of the links GET /api/v1/collections lists in one collection, in order. */
async function linksIn(env: TestEnv, as: TestUser, collectionId: number): Promise<number[]> {
  const response = await get(env, "/api/v1/collections", { token: as.token });
  return response.body.collections.find((c: { id: number }) => c.id === collectionId).links.map((l: { id: number }) => l.id);
}

describe("POST /api/v1/links", () => {
  it("creates a link with 201 {message, link}: clicks 0, lastClickedAt null, description \"\", in the Inbox", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const response = await createAs(env, alice, valid);
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["link", "message"]);
    expect(response.body.message).toMatch(/created/i);
    const link = response.body.link;
    expect(Object.keys(link).sort()).toEqual(LINK_KEYS);
    expect(link).toEqual({
      id: expect.any(Number), name: "A page", description: "", url: "https://example.org/page", favorite: false, toRead: false, archived: false, copy: null,
      clicks: 0, lastClickedAt: null, collectionIds: [inbox], authorId: alice.user.id,
      createdAt: expect.stringMatching(ISO), updatedAt: link.createdAt,
    });
    expect((await allLinks(env, alice)).get(link.id)).toEqual(link);
  });

  it("stores favorite as sent, and a favorite is listed in /links/favorites", async () => {
    const { env, alice } = await aliceWithInbox();
    const favorite = (await createAs(env, alice, { ...valid, favorite: true })).body.link;
    const plain = (await createAs(env, alice, { ...valid, favorite: false })).body.link;
    expect(favorite.favorite).toBe(true);
    expect(plain.favorite).toBe(false);
    const favorites = await get(env, "/api/v1/links/favorites", { token: alice.token });
    expect(favorites.body.map((l: { id: number }) => l.id)).toEqual([favorite.id]);
  });

  it("requires name, url and favorite (favorite has no default: the interface makes it required)", async () => {
    const { env, alice } = await aliceWithInbox();
    for (const field of ["name", "url", "favorite"] as const) {
      const body: Record<string, unknown> = { ...valid };
      delete body[field];
      await refused(env, () => createAs(env, alice, body), 422, "VALIDATION_FAILED", [`/${field}`]);
    }
  });

  it("refuses fields of the wrong type with 422, numbers and booleans in strings included", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 5 }, "/name"],
      [{ name: null }, "/name"],
      [{ url: 5 }, "/url"],
      [{ favorite: "true" }, "/favorite"],
      [{ favorite: 1 }, "/favorite"],
      [{ favorite: null }, "/favorite"],
      [{ description: null }, "/description"],
      [{ description: 5 }, "/description"],
      [{ collectionIds: String(inbox) }, "/collectionIds"],
      [{ collectionIds: [String(inbox)] }, "/collectionIds/0"],
      [{ collectionIds: [inbox + 0.5] }, "/collectionIds/0"],
      [{ collectionIds: null }, "/collectionIds"],
      [{ collectionIds: { 0: inbox } }, "/collectionIds"],
    ];
    for (const [change, path] of cases) {
      const response = await refused(env, () => createAs(env, alice, { ...valid, ...change }), 422, "VALIDATION_FAILED");
      expect({ change, paths: response.body.errors.map((e: { path: string }) => e.path) }).toEqual({ change, paths: expect.arrayContaining([path]) });
    }
  });

  it("accepts a name of 254 code points and refuses 255, counting astral and combining characters as code points", async () => {
    const { env, alice } = await aliceWithInbox();
    for (const name of [chars(254), chars(254, "😀"), "e\u0301".repeat(127), chars(253) + "𝄞"]) {
      const response = await createAs(env, alice, { ...valid, name });
      expect(response.status).toBe(201);
      expect(response.body.link.name).toBe(name);
    }
    for (const name of [chars(255), chars(255, "😀"), "e\u0301".repeat(127) + "e", chars(254) + "𝄞"]) {
      await refused(env, () => createAs(env, alice, { ...valid, name }), 422, "VALIDATION_FAILED", ["/name"]);
    }
  });

  it("trims the name before counting and stores it trimmed; an empty or blank name is refused", async () => {
    const { env, alice } = await aliceWithInbox();
    const response = await createAs(env, alice, { ...valid, name: ` \t\n${chars(254)}\u3000 ` });
    expect(response.status).toBe(201);
    expect(response.body.link.name).toBe(chars(254));
    for (const name of ["", " ", "\t\n ", "\u00a0\u3000"]) {
      await refused(env, () => createAs(env, alice, { ...valid, name }), 422, "VALIDATION_FAILED", ["/name"]);
    }
  });

  it("accepts a description of 300 code points and refuses 301; it is trimmed and may be empty", async () => {
    const { env, alice } = await aliceWithInbox();
    for (const description of [chars(300), chars(300, "😀"), `  ${chars(300)}  `, "", "   "]) {
      const response = await createAs(env, alice, { ...valid, description });
      expect(response.status).toBe(201);
      expect(response.body.link.description).toBe(description.trim());
    }
    for (const description of [chars(301), chars(301, "😀"), `${chars(300)} x`]) {
      await refused(env, () => createAs(env, alice, { ...valid, description }), 422, "VALIDATION_FAILED", ["/description"]);
    }
  });

  it("accepts absolute http and https URLs up to 2048 characters, stored as typed after trimming", async () => {
    const { env, alice } = await aliceWithInbox();
    const accepted = [
      "http://example.com",
      "https://example.com/path?q=1#frag",
      "HTTPS://EXAMPLE.COM/",
      "http://127.0.0.1:8080/",
      "http://192.168.1.20:3000/l/1",
      "https://[::1]/",
      "https://bücher.example/straße",
      urlOf(2048),
    ];
    for (const url of accepted) {
      const response = await createAs(env, alice, { ...valid, url });
      expect({ url, status: response.status }).toEqual({ url, status: 201 });
      expect(response.body.link.url).toBe(url);
    }
    expect(urlOf(2048)).toHaveLength(2048);
    const padded = await createAs(env, alice, { ...valid, url: "  https://example.com/x \n" });
    expect(padded.body.link.url).toBe("https://example.com/x");
  });

  it("refuses javascript:, data:, other schemes, relative URLs, garbage and 2049 characters with 422", async () => {
    const { env, alice } = await aliceWithInbox();
    const refusedUrls = [
      "javascript:alert(1)",
      "JavaScript:alert(document.cookie)",
      "data:text/html,<script>alert(1)</script>",
      "data:image/png;base64,AAAA",
      "file:///etc/passwd",
      "ftp://example.com/",
      "mailto:someone@example.com",
      "/relative/path",
      "relative/path",
      "example.com",
      "//example.com/path",
      "http:example.com",
      "https://",
      "http://",
      "",
      "   ",
      "not a url",
      "https://exa mple.com/",
      "https://example.com/\nLocation: evil",
      "https://example.com/\u0000",
      urlOf(2049),
    ];
    expect(urlOf(2049)).toHaveLength(2049);
    for (const url of refusedUrls) {
      await refused(env, () => createAs(env, alice, { ...valid, url }), 422, "VALIDATION_FAILED", ["/url"]);
    }
  });

  it("reports every rule a body breaks at once", async () => {
    const { env, alice } = await aliceWithInbox();
    const body = { name: " ", description: chars(301), url: "javascript:x", favorite: true, collectionIds: [999999] };
    const response = await refused(env, () => createAs(env, alice, body), 422, "VALIDATION_FAILED");
    expect(response.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["/collectionIds", "/description", "/name", "/url"]);
  });

  it("puts a link in the Inbox when collectionIds is omitted or empty", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    expect((await createAs(env, alice, valid)).body.link.collectionIds).toEqual([inbox]);
    expect((await createAs(env, alice, { ...valid, collectionIds: [] })).body.link.collectionIds).toEqual([inbox]);
  });

  it("folds duplicate collectionIds and sorts them ascending, in the answer and in the store", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const a = await createCollection(env, alice, { name: "A" });
    const b = await createCollection(env, alice, { name: "B" });
    const link = (await createAs(env, alice, { ...valid, collectionIds: [b.id, a.id, b.id, inbox, a.id, b.id] })).body.link;
    expect(link.collectionIds).toEqual([inbox, a.id, b.id]);
    expect(env.db.$client.query("SELECT collection_id FROM link_collections WHERE link_id = ? ORDER BY collection_id").all(link.id))
      .toEqual([{ collection_id: inbox }, { collection_id: a.id }, { collection_id: b.id }]);
    for (const id of [inbox, a.id, b.id]) expect(await linksIn(env, alice, id)).toEqual([link.id]);
    // Named collections only: the Inbox is no fallback once something is named.
    expect((await createAs(env, alice, { ...valid, collectionIds: [b.id, b.id] })).body.link.collectionIds).toEqual([b.id]);
  });

  it("refuses collectionIds that name nothing (0, negative, unknown, huge) with 422 /collectionIds", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    for (const ids of [[0], [-1], [999999], [1e15], [1e300], [inbox, 999999], [Number.MAX_SAFE_INTEGER]]) {
      await refused(env, () => createAs(env, alice, { ...valid, collectionIds: ids }), 422, "VALIDATION_FAILED", ["/collectionIds"]);
    }
  });

  it("allows two links with the same URL", async () => {
    const { env, alice } = await aliceWithInbox();
    const first = (await createAs(env, alice, valid)).body.link;
    const second = (await createAs(env, alice, valid)).body.link;
    expect(second.id).not.toBe(first.id);
    expect(second.url).toBe(first.url);
  });
});

describe("PUT /api/v1/links/:id", () => {
  /** A link in a collection, clicked once, with a description. */
  async function clickedLink() {
    const { env, alice, inbox } = await aliceWithInbox();
    const reading = await createCollection(env, alice, { name: "Reading" });
    const link = await createLink(env, alice, { name: "Before", description: "Kept", url: "https://before.example/", favorite: false, collectionIds: [reading.id] });
    expect((await get(env, `/l/${link.id}`, { token: alice.token })).status).toBe(302);
    const stored = (await allLinks(env, alice)).get(link.id);
    expect(stored.clicks).toBe(1);
    return { env, alice, inbox, reading, link: stored };
  }

  it("replaces name, url, favorite and collections, answers {message} only, and moves updatedAt but not createdAt or the clicks", async () => {
    const { env, alice, inbox, link } = await clickedLink();
    const other = await createCollection(env, alice, { name: "Other" });
    const response = await updateAs(env, alice, link.id, { name: " After ", url: "https://after.example/", favorite: true, collectionIds: [other.id, inbox] });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["message"]);
    expect(response.body.message).toMatch(/updated/i);
    const after = (await allLinks(env, alice)).get(link.id);
    expect(after).toEqual({
      ...link, name: "After", url: "https://after.example/", favorite: true, collectionIds: [inbox, other.id],
      updatedAt: expect.stringMatching(ISO),
    });
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(link.updatedAt));
    expect(after.createdAt).toBe(link.createdAt);
    expect(after.clicks).toBe(1);
    expect(after.lastClickedAt).toBe(link.lastClickedAt);
  });

  it("keeps the stored description when it is omitted, and clears it with \"\"", async () => {
    const { env, alice, reading, link } = await clickedLink();
    const body = { name: "Before", url: "https://before.example/", favorite: false, collectionIds: [reading.id] };
    expect((await updateAs(env, alice, link.id, body)).status).toBe(200);
    expect((await allLinks(env, alice)).get(link.id).description).toBe("Kept");
    expect((await updateAs(env, alice, link.id, { ...body, description: " New " })).status).toBe(200);
    expect((await allLinks(env, alice)).get(link.id).description).toBe("New");
    expect((await updateAs(env, alice, link.id, { ...body, description: "" })).status).toBe(200);
    expect((await allLinks(env, alice)).get(link.id).description).toBe("");
  });

  it("requires collectionIds (the interface makes it required on PUT), and an empty array moves the link to the Inbox", async () => {
    const { env, alice, inbox, reading, link } = await clickedLink();
    const body = { name: "Before", url: "https://before.example/", favorite: false };
    await refused(env, () => updateAs(env, alice, link.id, body), 422, "VALIDATION_FAILED", ["/collectionIds"]);
    expect((await updateAs(env, alice, link.id, { ...body, collectionIds: [] })).status).toBe(200);
    expect((await allLinks(env, alice)).get(link.id).collectionIds).toEqual([inbox]);
    expect(await linksIn(env, alice, reading.id)).toEqual([]);
    expect(await linksIn(env, alice, inbox)).toEqual([link.id]);
  });

  it("requires name, url and favorite like POST", async () => {
    const { env, alice, link } = await clickedLink();
    for (const field of ["name", "url", "favorite"] as const) {
      const body: Record<string, unknown> = { ...valid, collectionIds: [] };
      delete body[field];
      await refused(env, () => updateAs(env, alice, link.id, body), 422, "VALIDATION_FAILED", [`/${field}`]);
    }
  });

  it("folds duplicate collectionIds and sorts them", async () => {
    const { env, alice, inbox, reading, link } = await clickedLink();
    const response = await updateAs(env, alice, link.id, { ...valid, collectionIds: [reading.id, inbox, reading.id, inbox] });
    expect(response.status).toBe(200);
    expect((await allLinks(env, alice)).get(link.id).collectionIds).toEqual([inbox, reading.id]);
    expect(env.db.$client.query("SELECT count(*) AS n FROM link_collections WHERE link_id = ?").get(link.id)).toEqual({ n: 2 });
  });

  it("takes the same limits as POST on both sides of each boundary", async () => {
    const { env, alice, reading, link } = await clickedLink();
    const body = { ...valid, collectionIds: [reading.id] };
    for (const change of [{ name: chars(254, "😀") }, { description: chars(300) }, { url: urlOf(2048) }]) {
      expect({ change, status: (await updateAs(env, alice, link.id, { ...body, ...change })).status }).toEqual({ change, status: 200 });
    }
    const cases: [Record<string, unknown>, string][] = [
      [{ name: chars(255) }, "/name"],
      [{ name: "  " }, "/name"],
      [{ description: chars(301) }, "/description"],
      [{ url: urlOf(2049) }, "/url"],
      [{ url: "javascript:alert(1)" }, "/url"],
      [{ url: "data:text/html,x" }, "/url"],
      [{ url: "/relative" }, "/url"],
      [{ collectionIds: [999999] }, "/collectionIds"],
      [{ favorite: "false" }, "/favorite"],
    ];
    for (const [change, path] of cases) {
      await refused(env, () => updateAs(env, alice, link.id, { ...body, ...change }), 422, "VALIDATION_FAILED", [path]);
    }
  });

  it("refuses a mix of own and another user's collectionIds with the same 422 as an unknown id, changing nothing", async () => {
    const { env, alice, reading, link } = await clickedLink();
    const bob = await createUser(env);
    const bobs = await createCollection(env, bob, { name: "Bob's" });
    const foreign = await refused(env, () => updateAs(env, alice, link.id, { ...valid, collectionIds: [reading.id, bobs.id] }), 422, "VALIDATION_FAILED", ["/collectionIds"]);
    const unknown = await refused(env, () => updateAs(env, alice, link.id, { ...valid, collectionIds: [reading.id, 999999] }), 422, "VALIDATION_FAILED");
    expect(foreign.body).toEqual(unknown.body);
  });

  it("answers 404 for an unknown, deleted or malformed id, changing nothing", async () => {
    const { env, alice, link } = await clickedLink();
    const body = { ...valid, collectionIds: [] };
    for (const id of ["999999", "0", "-1", "1.5", "01", "1e3", "abc", "%20", "99999999999999999999"]) {
      await refused(env, () => updateAs(env, alice, id, body), 404, "NOT_FOUND");
    }
    expect((await del(env, `/api/v1/links/${link.id}`, { token: alice.token })).status).toBe(200);
    await refused(env, () => updateAs(env, alice, link.id, body), 404, "NOT_FOUND");
  });

  it("does not change updatedAt when the link is clicked", async () => {
    const { env, alice, link } = await clickedLink();
    expect((await get(env, `/l/${link.id}`, { token: alice.token })).status).toBe(302);
    const after = (await allLinks(env, alice)).get(link.id);
    expect(after.clicks).toBe(2);
    expect(after.updatedAt).toBe(link.updatedAt);
  });
});

describe("DELETE /api/v1/links/:id", () => {
  it("deletes the link from every collection and favorites with {message}, and leaves everything else", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const reading = await createCollection(env, alice, { name: "Reading" });
    const doomed = await createLink(env, alice, { favorite: true, collectionIds: [inbox, reading.id] });
    const kept = await createLink(env, alice, { favorite: true, collectionIds: [reading.id] });
    const response = await del(env, `/api/v1/links/${doomed.id}`, { token: alice.token });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["message"]);
    expect(response.body.message).toMatch(/deleted/i);
    expect([...(await allLinks(env, alice)).keys()]).toEqual([kept.id]);
    expect(await linksIn(env, alice, inbox)).toEqual([]);
    expect(await linksIn(env, alice, reading.id)).toEqual([kept.id]);
    expect((await get(env, "/api/v1/links/favorites", { token: alice.token })).body.map((l: { id: number }) => l.id)).toEqual([kept.id]);
    expect(env.db.$client.query("SELECT count(*) AS n FROM link_collections WHERE link_id = ?").get(doomed.id)).toEqual({ n: 0 });
    expect(env.db.$client.query("SELECT count(*) AS n FROM collections").get()).toEqual({ n: 2 });
  });

  it("answers 404 the second time, and for unknown or malformed ids, changing nothing", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice);
    await createLink(env, alice);
    expect((await del(env, `/api/v1/links/${link.id}`, { token: alice.token })).status).toBe(200);
    for (const id of [String(link.id), "999999", "0", "-5", "x", "1.0"]) {
      await refused(env, () => del(env, `/api/v1/links/${id}`, { token: alice.token }), 404, "NOT_FOUND");
    }
  });
});

describe("GET /api/v1/links/favorites", () => {
  it("ranks by clicks, then most recently clicked, then id, and leaves out links that are not favorites", async () => {
    const { env, alice } = await aliceWithInbox();
    const make = (name: string, favorite = true) => createLink(env, alice, { name, favorite, url: `https://example.com/${name}` });
    const neverA = await make("neverA");
    const twiceEarly = await make("twiceEarly");
    const notFavorite = await make("notFavorite", false);
    const twiceLate = await make("twiceLate");
    const once = await make("once");
    const neverB = await make("neverB");
    const tieLow = await make("tieLow");
    const tieHigh = await make("tieHigh");
    const click = async (link: { id: number }) => expect((await get(env, `/l/${link.id}`, { token: alice.token })).status).toBe(302);

    for (let i = 0; i < 5; i++) await click(notFavorite);
    await click(twiceEarly);
    await click(twiceEarly);
    await click(once);
    await click(twiceLate);
    await click(twiceLate);
    // Clicked in the same turn of the event loop, so one commit gives both the same lastClickedAt: only the id decides.
    await Promise.all([click(tieHigh), click(tieLow)]);
    await Promise.all([click(tieHigh), click(tieLow)]);

    const response = await get(env, "/api/v1/links/favorites", { token: alice.token });
    expect(response.status).toBe(200);
    const byName = new Map<string, any>(response.body.map((l: { name: string }) => [l.name, l]));
    expect(byName.get("tieLow").lastClickedAt).toBe(byName.get("tieHigh").lastClickedAt);
    expect(Date.parse(byName.get("twiceLate").lastClickedAt)).toBeGreaterThan(Date.parse(byName.get("twiceEarly").lastClickedAt));
    expect(Date.parse(byName.get("tieLow").lastClickedAt)).toBeGreaterThan(Date.parse(byName.get("twiceLate").lastClickedAt));
    // tieLow/tieHigh were clicked last of all, so "most recent first" alone would put them before twiceLate: they
    // share 2 clicks with it, and lastClickedAt decides, then the id.
    expect(response.body.map((l: { name: string }) => l.name)).toEqual(["tieLow", "tieHigh", "twiceLate", "twiceEarly", "once", "neverA", "neverB"]);
    expect([tieLow.id, neverA.id]).toEqual([Math.min(tieLow.id, tieHigh.id), Math.min(neverA.id, neverB.id)]);
    for (const link of response.body) {
      expect(Object.keys(link).sort()).toEqual(LINK_KEYS);
      expect(link.favorite).toBe(true);
    }
    expect(byName.get("neverA").lastClickedAt).toBeNull();
    expect(byName.get("once")).toEqual((await allLinks(env, alice)).get(once.id));
  });

  it("drops a link whose favorite is turned off, and adds one turned on", async () => {
    const { env, alice } = await aliceWithInbox();
    const a = await createLink(env, alice, { favorite: true });
    const b = await createLink(env, alice, { favorite: false });
    await updateAs(env, alice, a.id, { ...valid, favorite: false, collectionIds: [] });
    await updateAs(env, alice, b.id, { ...valid, favorite: true, collectionIds: [] });
    const favorites = await get(env, "/api/v1/links/favorites", { token: alice.token });
    expect(favorites.body.map((l: { id: number }) => l.id)).toEqual([b.id]);
  });

  it("answers [] when there is no favorite", async () => {
    const { env, alice } = await aliceWithInbox();
    await createLink(env, alice, { favorite: false });
    const response = await get(env, "/api/v1/links/favorites", { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });
});
