/**
 * What follows a shelf's writes (its AfterWrite, the server's page capture): every write of
 * links that gives a link a new page tells it once per link, after the write is committed, and
 * a refused write tells nothing. A route holds no part of it: a route that writes through the
 * shelf the guards give it reaches it without naming it.
 */
import { declarationsOf } from "../../src/request/surface";
import { describe, expect, it } from "bun:test";
import { guards } from "../../src/auth/requester";
import { importBookmarks } from "../../src/bookmarks/plan";
import { Shelf } from "../../src/shelf/shelf";
import type { AfterWrite, CapturedContent } from "../../src/shelf/types";
import { pageGuard } from "../../src/web/guard";
import { createCollection, createUser, makeEnv, sessionCookie, type TestEnv, type TestUser } from "../support/helpers";

interface Told {
  linkId: number;
  userId: number;
  url: string;
  page?: CapturedContent | null;
  /** Whether a transaction was open when it was told: never, if it waited for the commit. */
  inTransaction: boolean;
}

/** recorder is an AfterWrite that writes down what it is told. */
function recorder(env: TestEnv): AfterWrite & { told: Told[] } {
  const told: Told[] = [];
  return {
    told,
    linkSaved: (linkId, userId, url, page) => void told.push({ linkId, userId, url, page, inTransaction: env.db.$client.inTransaction }),
  };
}

async function setup() {
  const env = makeEnv();
  const alice = await createUser(env);
  const after = recorder(env);
  return { env, alice, after, shelf: new Shelf(env.db, alice.user, after) };
}

const PAGE: CapturedContent = { title: "A page", text: "Its text.", excerpt: "", byline: "", lang: "en" };
const FILE = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<DL><p>
<DT><H3>Reading</H3>
<DL><p><DT><A HREF="https://a.example/">A</A></DL><p>
<DT><A HREF="https://b.example/">B</A>
</DL><p>`;

describe("a shelf's writes of links tell its AfterWrite", () => {
  it("create, create in the group commit, an update to a new URL and an import: once per link, after the commit", async () => {
    const { env, alice, after, shelf } = await setup();
    const userId = alice.user.id;
    const one = shelf.links.create({ name: "One", url: "https://one.example/", favorite: false }, env.clock.now++);
    const two = shelf.links.create({ name: "Two", url: "https://two.example/", favorite: false }, env.clock.now++, PAGE);
    shelf.links.update(one.id, { name: "One", url: "https://one.example/moved", favorite: false, collectionIds: [] }, env.clock.now++);
    const { importId } = await importBookmarks(shelf, FILE, env.clock.now++, { record: { source: "page", fileName: "b.html" } });
    const imported = env.db.$client.query("SELECT id, url FROM links WHERE import_id = ? ORDER BY id").all(importId!) as { id: number; url: string }[];
    expect(imported.map((link) => link.url)).toEqual(["https://a.example/", "https://b.example/"]);
    expect(after.told).toEqual([
      { linkId: one.id, userId, url: "https://one.example/", page: undefined, inTransaction: false },
      { linkId: two.id, userId, url: "https://two.example/", page: PAGE, inTransaction: false },
      { linkId: one.id, userId, url: "https://one.example/moved", page: undefined, inTransaction: false },
      ...imported.map((link) => ({ linkId: link.id, userId, url: link.url, page: undefined, inTransaction: false })),
    ]);
  });

  it("a write that gives no link a new page tells nothing: an update keeping the URL, bulk actions, the favorite toggle, deletes, a dry run", async () => {
    const { env, alice, after, shelf } = await setup();
    const reading = await createCollection(env, alice, { name: "Reading" });
    const link = shelf.links.create({ name: "One", url: "https://one.example/", favorite: false }, env.clock.now++);
    const other = shelf.links.create({ name: "Other", url: "https://other.example/", favorite: false }, env.clock.now++);
    after.told.length = 0;
    shelf.links.update(link.id, { name: "Renamed", url: "https://one.example/", favorite: true, collectionIds: [reading.id] }, env.clock.now++);
    shelf.links.bulk({ ids: [link.id, other.id], action: "move", collectionId: reading.id }, env.clock.now++);
    shelf.links.bulk({ ids: [link.id], action: "favorite" }, env.clock.now++);
    shelf.links.toggleFavorite(link.id, env.clock.now++);
    shelf.links.delete(other.id, env.clock.now++);
    await importBookmarks(shelf, FILE, env.clock.now++, { dryRun: true });
    expect(after.told).toEqual([]);
  });

  it("a refused write tells nothing, in the group commit too", async () => {
    const { env, after, shelf } = await setup();
    const bob = await createUser(env);
    const bobs = new Shelf(env.db, bob.user).links.create({ name: "Bob's", url: "https://bob.example/", favorite: false }, env.clock.now++);
    expect(() => shelf.links.create({ name: "", url: "https://one.example/", favorite: false }, env.clock.now++)).toThrow();
    expect(() => shelf.links.update(bobs.id, { name: "Mine", url: "https://mine.example/", favorite: false, collectionIds: [] }, env.clock.now++)).toThrow();
    expect(after.told).toEqual([]);
  });
});

describe("a route reaches the AfterWrite without naming it", () => {
  /** The app's parts a new route would be given, with `after` as the app's capture. */
  const partsOf = (env: TestEnv, after: AfterWrite) =>
    ({ db: env.db, config: env.config, clock: () => env.clock.now++, peerAddress: () => "127.0.0.1", capture: after, declared: declarationsOf(() => []) });

  it("an API route that creates a link through its shelf", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const after = recorder(env);
    const route = guards(partsOf(env, after)).apiRoutes("/new")
      .post("/", ({ shelf }) => shelf.links.create({ name: "New", url: "https://new.example/", favorite: false }, env.clock.now++));
    const response = await route.handle(new Request("http://localhost/new", { method: "POST", headers: { authorization: `Bearer ${alice.token}` } }));
    const link = (await response.json()) as { id: number };
    expect(after.told).toEqual([{ linkId: link.id, userId: alice.user.id, url: "https://new.example/", page: undefined, inTransaction: false }]);
  });

  it("a page form that moves a link to a new URL through its shelf", async () => {
    const env = makeEnv();
    const alice: TestUser = await createUser(env);
    const after = recorder(env);
    const link = new Shelf(env.db, alice.user).links.create({ name: "Old", url: "https://old.example/", favorite: false }, env.clock.now++);
    const parts = partsOf(env, after);
    const pages = pageGuard(parts, guards(parts).limit);
    const request = new Request("http://localhost/move", { method: "POST", headers: { cookie: sessionCookie(env, alice.user.id), origin: "http://localhost" } });
    await pages.form(request, (shelf) => {
      shelf.links.update(link.id, { name: "Old", url: "https://new.example/", favorite: false, collectionIds: [] }, env.clock.now++);
      return new Response(null, { status: 204 });
    });
    expect(after.told).toEqual([{ linkId: link.id, userId: alice.user.id, url: "https://new.example/", page: undefined, inTransaction: false }]);
  });
});
