import { describe, expect, it } from "bun:test";
import {
  createCollection,
  createLink,
  createUser,
  inboxOf,
  makeEnv,
  request,
  snapshot,
  type ApiResponse,
  type TestEnv,
  type TestUser,
} from "../support/helpers";
import { importBookmarks } from "../../src/bookmarks/plan";
import { Shelf } from "../../src/shelf/shelf";
import { recordCheck } from "../../src/shelf/link-checks";
import { surfaceOf } from "../../src/request/surface";

/** The ids a scenario can name: the owner's data, and the other user's own data. */
interface Ids {
  ownerLink: number;
  ownerCollection: number;
  ownerInbox: number;
  otherLink: number;
  otherCollection: number;
  ownerImport: number;
  otherImport: number;
  ownerTrashed: number;
  otherTrashed: number;
}

interface Fixture {
  env: TestEnv;
  owner: TestUser;
  other: TestUser;
  /** A token of the owner's that was revoked. */
  revokedToken: string;
  ids: Ids;
}

type Actor = "guest" | "owner" | "other" | "revoked";
type Body = Record<string, unknown> | string;

interface Scenario {
  name: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** `{ownerLink}` and the other keys of Ids are replaced by the fixture's ids. */
  url: string;
  as: Actor;
  body?: Body | ((ids: Ids) => Body);
  headers?: Record<string, string>;
  expectStatus: number;
  expectCode?: string;
  /** The refusal names where in the body it is (`errors`), as a batch's refusals do whatever their status. */
  named?: boolean;
  /** Further checks on the answer; may send more requests. */
  expect?: (response: ApiResponse, fixture: Fixture) => void | Promise<void>;
}

/** makeFixture: an owner with a favorite link in a collection of theirs, another user with the same, and a revoked token. */
async function makeFixture(): Promise<Fixture> {
  const env = makeEnv();
  const owner = await createUser(env);
  const other = await createUser(env);
  const ownerCollection = await createCollection(env, owner, { name: "Owner's reading" });
  const ownerLink = await createLink(env, owner, { name: "Owner's link", favorite: true, collectionIds: [ownerCollection.id] });
  const otherCollection = await createCollection(env, other, { name: "Other's reading" });
  const otherLink = await createLink(env, other, { name: "Other's link", favorite: true, collectionIds: [otherCollection.id] });
  new Shelf(env.db, owner.user).links.setContent(ownerLink.id, { text: "Owner's page text" }, "browser", env.clock.now++);
  new Shelf(env.db, other.user).links.setContent(otherLink.id, { text: "Other's page text" }, "browser", env.clock.now++);
  // Each link was checked once long ago, and found not checkable, so every user has one link to list.
  for (const id of [ownerLink.id, otherLink.id]) recordCheck(env.db, id, { outcome: "unchecked", status: null, detail: "private address" }, env.clock.now - 86_400_000, env.config.linkCheck);
  // Each imports the URL of their own link again: recorded, though it creates nothing (the scenarios above see no more links).
  const importFile = (url: string) => `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="${url}">Imported</A>\n</DL><p>\n`;
  const ownerImport = await importBookmarks(new Shelf(env.db, owner.user), importFile(ownerLink.url), env.clock.now++, { record: { source: "page", fileName: "owner.html" } });
  const otherImport = await importBookmarks(new Shelf(env.db, other.user), importFile(otherLink.url), env.clock.now++, { record: { source: "cli", fileName: "other.html" } });
  // Each has one link in the trash.
  const trashed = async (as: TestUser, name: string) => {
    const link = await createLink(env, as, { name, url: `https://trashed.example/${as.user.id}` });
    new Shelf(env.db, as.user).links.delete(link.id, env.clock.now++);
    return link.id as number;
  };
  const ownerTrashed = await trashed(owner, "Owner's trashed");
  const otherTrashed = await trashed(other, "Other's trashed");
  const { token: revokedToken, info } = new Shelf(env.db, owner.user).tokens.create("revoked", env.clock.now++);
  new Shelf(env.db, owner.user).tokens.revoke(info.id);
  return {
    env,
    owner,
    other,
    revokedToken,
    ids: {
      ownerLink: ownerLink.id,
      ownerCollection: ownerCollection.id,
      ownerInbox: await inboxOf(env, owner),
      otherLink: otherLink.id,
      otherCollection: otherCollection.id,
      ownerImport: ownerImport.importId!,
      otherImport: otherImport.importId!,
      ownerTrashed,
      otherTrashed,
    },
  };
}

function tokenOf(fixture: Fixture, as: Actor): string | undefined {
  switch (as) {
    case "guest": return undefined;
    case "owner": return fixture.owner.token;
    case "other": return fixture.other.token;
    case "revoked": return fixture.revokedToken;
  }
}

function fillIds(url: string, ids: Ids): string {
  return url.replace(/\{(\w+)\}/g, (_, key: string) => String(ids[key as keyof Ids]));
}

const linkBody = { name: "A page", url: "https://example.org/page", favorite: false };
const collectionBody = { name: "Renamed", visibility: "PUBLIC" };

/** A batch: a sub-collection created in `collection`, then `link` added to it. */
const batchOf = (collection: number, link: number) => ({ operations: [
  { op: "createCollection", ref: "sub", name: "Sub", parent: { id: collection } },
  { op: "updateLink", id: link, add: [{ ref: "sub" }] },
] });

/** Every route of the API as each kind of requester. */
const scenarios: Scenario[] = [
  // GET /api/v1/collections
  { name: "GET /collections: a guest is refused", method: "GET", url: "/api/v1/collections", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /collections: a revoked token is refused", method: "GET", url: "/api/v1/collections", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /collections: the owner sees their own collections and links",
    method: "GET", url: "/api/v1/collections", as: "owner", expectStatus: 200,
    expect: (response, { ids, owner }) => {
      expect(response.body.collections.map((c: { id: number }) => c.id).sort()).toEqual([ids.ownerInbox, ids.ownerCollection].sort());
      const reading = response.body.collections.find((c: { id: number }) => c.id === ids.ownerCollection);
      expect(reading.links.map((l: { id: number }) => l.id)).toEqual([ids.ownerLink]);
      expect(reading.authorId).toBe(owner.user.id);
      expect(reading.isOwner).toBe(true);
    },
  },
  {
    name: "GET /collections: another user sees only their own collections, never the owner's",
    method: "GET", url: "/api/v1/collections", as: "other", expectStatus: 200,
    expect: (response, { ids, other, owner }) => {
      const collections: { id: number; authorId: number; author: { id: number; email: string }; links: { id: number; authorId: number }[] }[] = response.body.collections;
      expect(collections.length).toBe(2);
      for (const collection of collections) {
        expect(collection.authorId).toBe(other.user.id);
        expect(collection.author.id).toBe(other.user.id);
        for (const link of collection.links) expect(link.authorId).toBe(other.user.id);
      }
      const ids_ = collections.map((c) => c.id);
      expect(ids_).not.toContain(ids.ownerCollection);
      expect(ids_).not.toContain(ids.ownerInbox);
      expect(collections.flatMap((c) => c.links.map((l) => l.id))).toEqual([ids.otherLink]);
      expect(response.text).not.toContain(owner.user.email);
      expect(response.text).not.toContain("Owner's");
    },
  },

  // POST /api/v1/collections
  { name: "POST /collections: a guest is refused", method: "POST", url: "/api/v1/collections", as: "guest", body: collectionBody, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "POST /collections: a revoked token is refused", method: "POST", url: "/api/v1/collections", as: "revoked", body: collectionBody, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "POST /collections: the owner creates a collection of their own",
    method: "POST", url: "/api/v1/collections", as: "owner", body: collectionBody, expectStatus: 201,
    expect: (response, { owner }) => {
      expect(response.body.collection.authorId).toBe(owner.user.id);
      expect(response.body.collection.isOwner).toBe(true);
    },
  },

  // PUT /api/v1/collections/:id
  { name: "PUT /collections/:id: a guest is refused", method: "PUT", url: "/api/v1/collections/{ownerCollection}", as: "guest", body: collectionBody, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "PUT /collections/:id: a revoked token is refused", method: "PUT", url: "/api/v1/collections/{ownerCollection}", as: "revoked", body: collectionBody, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "PUT /collections/:id: the owner updates their collection",
    method: "PUT", url: "/api/v1/collections/{ownerCollection}", as: "owner", body: collectionBody, expectStatus: 200,
    expect: async (_, { env, owner, ids }) => {
      const list = await request(env, "GET", "/api/v1/collections", { token: owner.token });
      const updated = list.body.collections.find((c: { id: number }) => c.id === ids.ownerCollection);
      expect(updated.name).toBe("Renamed");
      expect(updated.visibility).toBe("PUBLIC");
    },
  },
  {
    name: "PUT /collections/:id: another user gets 404 for the owner's collection, as for an id that does not exist",
    method: "PUT", url: "/api/v1/collections/{ownerCollection}", as: "other", body: collectionBody, expectStatus: 404, expectCode: "NOT_FOUND",
    expect: async (response, { env, other }) => {
      const missing = await request(env, "PUT", "/api/v1/collections/999999", { token: other.token, body: collectionBody });
      expect(response.body).toEqual(missing.body);
    },
  },
  { name: "PUT /collections/:id: another user gets 404 for the owner's Inbox", method: "PUT", url: "/api/v1/collections/{ownerInbox}", as: "other", body: collectionBody, expectStatus: 404, expectCode: "NOT_FOUND" },

  {
    name: "PUT /collections/:id: the owner cannot move their collection into another user's (422 at /parentId, as for an unknown id)",
    method: "PUT", url: "/api/v1/collections/{ownerCollection}", as: "owner", body: (ids) => ({ ...collectionBody, parentId: ids.otherCollection }),
    expectStatus: 422, expectCode: "VALIDATION_FAILED",
    expect: async (response, { env, owner, ids }) => {
      const unknown = await request(env, "PUT", `/api/v1/collections/${ids.ownerCollection}`, { token: owner.token, body: { ...collectionBody, parentId: 999999 } });
      expect(response.body).toEqual(unknown.body);
      expect(response.body.errors).toEqual([{ path: "/parentId", message: expect.any(String) }]);
      const list = await request(env, "GET", "/api/v1/collections", { token: owner.token });
      expect(list.body.collections.find((c: { id: number }) => c.id === ids.ownerCollection).parentId).toBeNull();
    },
  },

  // PUT /api/v1/collections/:id/order
  { name: "PUT /collections/:id/order: a guest is refused", method: "PUT", url: "/api/v1/collections/{ownerCollection}/order", as: "guest", body: { order: [] }, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "PUT /collections/:id/order: a revoked token is refused", method: "PUT", url: "/api/v1/collections/{ownerCollection}/order", as: "revoked", body: { order: [] }, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "PUT /collections/:id/order: the owner sets the order of their collection",
    method: "PUT", url: "/api/v1/collections/{ownerCollection}/order", as: "owner", body: (ids) => ({ order: [{ kind: "link", id: ids.ownerLink }] }), expectStatus: 200,
    expect: async (_, { env, owner, ids }) => {
      const read = await request(env, "GET", `/api/v1/collections/${ids.ownerCollection}`, { token: owner.token });
      expect(read.body.collection.order).toEqual([{ kind: "link", id: ids.ownerLink }]);
    },
  },
  {
    name: "PUT /collections/:id/order: another user gets 404 for the owner's collection, as for an id that does not exist",
    method: "PUT", url: "/api/v1/collections/{ownerCollection}/order", as: "other", body: (ids) => ({ order: [{ kind: "link", id: ids.ownerLink }] }), expectStatus: 404, expectCode: "NOT_FOUND",
    expect: async (response, { env, other, ids }) => {
      const missing = await request(env, "PUT", "/api/v1/collections/999999/order", { token: other.token, body: { order: [{ kind: "link", id: ids.ownerLink }] } });
      expect(response.body).toEqual(missing.body);
    },
  },

  // DELETE /api/v1/collections/:id
  { name: "DELETE /collections/:id: a guest is refused", method: "DELETE", url: "/api/v1/collections/{ownerCollection}", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "DELETE /collections/:id: a revoked token is refused", method: "DELETE", url: "/api/v1/collections/{ownerCollection}", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "DELETE /collections/:id: the owner deletes their collection",
    method: "DELETE", url: "/api/v1/collections/{ownerCollection}", as: "owner", expectStatus: 200,
    expect: async (_, { env, owner, ids }) => {
      const list = await request(env, "GET", "/api/v1/collections", { token: owner.token });
      expect(list.body.collections.map((c: { id: number }) => c.id)).toEqual([ids.ownerInbox]);
    },
  },
  {
    name: "DELETE /collections/:id: another user gets 404 for the owner's collection, as for an id that does not exist",
    method: "DELETE", url: "/api/v1/collections/{ownerCollection}", as: "other", expectStatus: 404, expectCode: "NOT_FOUND",
    expect: async (response, { env, other }) => {
      const missing = await request(env, "DELETE", "/api/v1/collections/999999", { token: other.token });
      expect(response.body).toEqual(missing.body);
    },
  },
  // 409 here would tell the other user that the id is someone's Inbox.
  { name: "DELETE /collections/:id: another user gets 404, not 409, for the owner's Inbox", method: "DELETE", url: "/api/v1/collections/{ownerInbox}", as: "other", expectStatus: 404, expectCode: "NOT_FOUND" },

  // POST /api/v1/links
  { name: "POST /links: a guest is refused", method: "POST", url: "/api/v1/links", as: "guest", body: linkBody, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "POST /links: a revoked token is refused", method: "POST", url: "/api/v1/links", as: "revoked", body: linkBody, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "POST /links: the owner creates a link in their own collection",
    method: "POST", url: "/api/v1/links", as: "owner", body: (ids) => ({ ...linkBody, collectionIds: [ids.ownerCollection] }), expectStatus: 201,
    expect: (response, { owner, ids }) => {
      expect(response.body.link.authorId).toBe(owner.user.id);
      expect(response.body.link.collectionIds).toEqual([ids.ownerCollection]);
    },
  },
  {
    name: "POST /links: another user naming the owner's collection gets the same 422 as for an unknown id",
    method: "POST", url: "/api/v1/links", as: "other", body: (ids) => ({ ...linkBody, collectionIds: [ids.ownerCollection] }),
    expectStatus: 422, expectCode: "VALIDATION_FAILED",
    expect: async (response, { env, other }) => {
      const unknown = await request(env, "POST", "/api/v1/links", { token: other.token, body: { ...linkBody, collectionIds: [999999] } });
      expect(unknown.status).toBe(422);
      expect(response.body).toEqual(unknown.body);
      expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(["/collectionIds"]);
    },
  },
  {
    name: "POST /links: another user naming the owner's collection among their own is still refused",
    method: "POST", url: "/api/v1/links", as: "other", body: (ids) => ({ ...linkBody, collectionIds: [ids.otherCollection, ids.ownerCollection] }),
    expectStatus: 422, expectCode: "VALIDATION_FAILED",
  },
  {
    name: "POST /links: another user naming the owner's Inbox gets 422",
    method: "POST", url: "/api/v1/links", as: "other", body: (ids) => ({ ...linkBody, collectionIds: [ids.ownerInbox] }),
    expectStatus: 422, expectCode: "VALIDATION_FAILED",
  },

  // PUT /api/v1/links/:id
  { name: "PUT /links/:id: a guest is refused", method: "PUT", url: "/api/v1/links/{ownerLink}", as: "guest", body: { ...linkBody, collectionIds: [] }, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "PUT /links/:id: a revoked token is refused", method: "PUT", url: "/api/v1/links/{ownerLink}", as: "revoked", body: { ...linkBody, collectionIds: [] }, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "PUT /links/:id: the owner updates their link",
    method: "PUT", url: "/api/v1/links/{ownerLink}", as: "owner", body: (ids) => ({ ...linkBody, collectionIds: [ids.ownerCollection] }), expectStatus: 200,
    expect: async (_, { env, owner, ids }) => {
      const list = await request(env, "GET", "/api/v1/collections", { token: owner.token });
      const reading = list.body.collections.find((c: { id: number }) => c.id === ids.ownerCollection);
      expect(reading.links[0].name).toBe("A page");
    },
  },
  {
    name: "PUT /links/:id: another user gets 404 for the owner's link, as for an id that does not exist",
    method: "PUT", url: "/api/v1/links/{ownerLink}", as: "other", body: (ids) => ({ ...linkBody, collectionIds: [ids.otherCollection] }),
    expectStatus: 404, expectCode: "NOT_FOUND",
    expect: async (response, { env, other, ids }) => {
      const missing = await request(env, "PUT", "/api/v1/links/999999", { token: other.token, body: { ...linkBody, collectionIds: [ids.otherCollection] } });
      expect(response.body).toEqual(missing.body);
    },
  },
  {
    name: "PUT /links/:id: another user gets 404 for the owner's link even when naming the owner's collection",
    method: "PUT", url: "/api/v1/links/{ownerLink}", as: "other", body: (ids) => ({ ...linkBody, collectionIds: [ids.ownerCollection] }),
    expectStatus: 404, expectCode: "NOT_FOUND",
  },
  {
    name: "PUT /links/:id: another user moving their own link into the owner's collection gets the same 422 as for an unknown id",
    method: "PUT", url: "/api/v1/links/{otherLink}", as: "other", body: (ids) => ({ ...linkBody, collectionIds: [ids.ownerCollection] }),
    expectStatus: 422, expectCode: "VALIDATION_FAILED",
    expect: async (response, { env, other, ids }) => {
      const unknown = await request(env, "PUT", `/api/v1/links/${ids.otherLink}`, { token: other.token, body: { ...linkBody, collectionIds: [999999] } });
      expect(unknown.status).toBe(422);
      expect(response.body).toEqual(unknown.body);
    },
  },

  // DELETE /api/v1/links/:id
  { name: "DELETE /links/:id: a guest is refused", method: "DELETE", url: "/api/v1/links/{ownerLink}", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "DELETE /links/:id: a revoked token is refused", method: "DELETE", url: "/api/v1/links/{ownerLink}", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "DELETE /links/:id: the owner deletes their link",
    method: "DELETE", url: "/api/v1/links/{ownerLink}", as: "owner", expectStatus: 200,
    expect: async (_, { env, owner }) => {
      const favorites = await request(env, "GET", "/api/v1/links/favorites", { token: owner.token });
      expect(favorites.body).toEqual([]);
    },
  },
  {
    name: "DELETE /links/:id: another user gets 404 for the owner's link, as for an id that does not exist",
    method: "DELETE", url: "/api/v1/links/{ownerLink}", as: "other", expectStatus: 404, expectCode: "NOT_FOUND",
    expect: async (response, { env, other }) => {
      const missing = await request(env, "DELETE", "/api/v1/links/999999", { token: other.token });
      expect(response.body).toEqual(missing.body);
    },
  },

  // POST /api/v1/links/bulk
  { name: "POST /links/bulk: a guest is refused", method: "POST", url: "/api/v1/links/bulk", as: "guest", body: (ids) => ({ ids: [ids.ownerLink], action: "delete" }), expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "POST /links/bulk: a revoked token is refused", method: "POST", url: "/api/v1/links/bulk", as: "revoked", body: (ids) => ({ ids: [ids.ownerLink], action: "delete" }), expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "POST /links/bulk: the owner moves their link to their collection",
    method: "POST", url: "/api/v1/links/bulk", as: "owner", body: (ids) => ({ ids: [ids.ownerLink], action: "move", collectionId: ids.ownerInbox }), expectStatus: 200,
    expect: async (response, { env, owner, ids }) => {
      expect(response.body.count).toBe(1);
      const link = await request(env, "GET", `/api/v1/links/${ids.ownerLink}`, { token: owner.token });
      expect(link.body.link.collectionIds).toEqual([ids.ownerInbox]);
    },
  },
  {
    name: "POST /links/bulk: another user gets 404 for the owner's link among their own, as for an id that does not exist",
    method: "POST", url: "/api/v1/links/bulk", as: "other", body: (ids) => ({ ids: [ids.otherLink, ids.ownerLink], action: "delete" }), expectStatus: 404, expectCode: "NOT_FOUND",
    expect: async (response, { env, other, ids }) => {
      const missing = await request(env, "POST", "/api/v1/links/bulk", { token: other.token, body: { ids: [ids.otherLink, 999999], action: "delete" } });
      expect(response.body).toEqual(missing.body);
    },
  },
  {
    name: "POST /links/bulk: another user gets 404 for the owner's collection with their own link",
    method: "POST", url: "/api/v1/links/bulk", as: "other", body: (ids) => ({ ids: [ids.otherLink], action: "add", collectionId: ids.ownerCollection }), expectStatus: 404, expectCode: "NOT_FOUND",
  },

  // GET /api/v1/imports
  { name: "GET /imports: a guest is refused", method: "GET", url: "/api/v1/imports", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /imports: a revoked token is refused", method: "GET", url: "/api/v1/imports", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /imports: the owner sees their own imports",
    method: "GET", url: "/api/v1/imports", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => expect(response.body.imports.map((i: { id: number }) => i.id)).toEqual([ids.ownerImport]),
  },
  {
    name: "GET /imports: another user sees only their own imports, never the owner's",
    method: "GET", url: "/api/v1/imports", as: "other", expectStatus: 200,
    expect: (response, { ids }) => {
      expect(response.body.imports.map((i: { id: number }) => i.id)).toEqual([ids.otherImport]);
      expect(response.text).not.toContain("owner.html");
    },
  },

  // GET /api/v1/trash
  { name: "GET /trash: a guest is refused", method: "GET", url: "/api/v1/trash", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /trash: a revoked token is refused", method: "GET", url: "/api/v1/trash", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /trash: the owner sees their own trash",
    method: "GET", url: "/api/v1/trash", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => expect(response.body.items.map((i: { id: number }) => i.id)).toEqual([ids.ownerTrashed]),
  },
  {
    name: "GET /trash: another user sees only their own trash, never the owner's",
    method: "GET", url: "/api/v1/trash", as: "other", expectStatus: 200,
    expect: (response, { ids }) => {
      expect(response.body.items.map((i: { id: number }) => i.id)).toEqual([ids.otherTrashed]);
      expect(response.text).not.toContain("Owner's");
    },
  },

  // POST /api/v1/trash/restore
  { name: "POST /trash/restore: a guest is refused", method: "POST", url: "/api/v1/trash/restore", as: "guest", body: (ids) => ({ links: [ids.ownerTrashed] }), expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "POST /trash/restore: a revoked token is refused", method: "POST", url: "/api/v1/trash/restore", as: "revoked", body: (ids) => ({ links: [ids.ownerTrashed] }), expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "POST /trash/restore: the owner restores their link",
    method: "POST", url: "/api/v1/trash/restore", as: "owner", body: (ids) => ({ links: [ids.ownerTrashed] }), expectStatus: 200,
    expect: async (_, { env, owner, ids }) => {
      expect((await request(env, "GET", `/api/v1/links/${ids.ownerTrashed}`, { token: owner.token })).status).toBe(200);
    },
  },
  {
    name: "POST /trash/restore: another user gets 404 for the owner's trashed link, as for an unknown id, and it stays in the owner's trash",
    method: "POST", url: "/api/v1/trash/restore", as: "other", body: (ids) => ({ links: [ids.ownerTrashed] }), expectStatus: 404, expectCode: "NOT_FOUND",
    expect: async (response, { env, other, owner, ids }) => {
      const missing = await request(env, "POST", "/api/v1/trash/restore", { token: other.token, body: { links: [999999] } });
      expect(response.body).toEqual(missing.body);
      const trash = await request(env, "GET", "/api/v1/trash", { token: owner.token });
      expect(trash.body.items.map((i: { id: number }) => i.id)).toEqual([ids.ownerTrashed]);
    },
  },

  // DELETE /api/v1/trash
  { name: "DELETE /trash: a guest is refused", method: "DELETE", url: "/api/v1/trash", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "DELETE /trash: a revoked token is refused", method: "DELETE", url: "/api/v1/trash", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "DELETE /trash: the owner empties their own trash, never another user's",
    method: "DELETE", url: "/api/v1/trash", as: "owner", expectStatus: 200,
    expect: async (response, { env, other, ids }) => {
      expect(response.body.items).toBe(1);
      const theirs = await request(env, "GET", "/api/v1/trash", { token: other.token });
      expect(theirs.body.items.map((i: { id: number }) => i.id)).toEqual([ids.otherTrashed]);
    },
  },
  {
    name: "DELETE /trash: another user empties only their own trash",
    method: "DELETE", url: "/api/v1/trash", as: "other", expectStatus: 200,
    expect: async (_, { env, owner, ids }) => {
      const mine = await request(env, "GET", "/api/v1/trash", { token: owner.token });
      expect(mine.body.items.map((i: { id: number }) => i.id)).toEqual([ids.ownerTrashed]);
    },
  },

  // GET /api/v1/changes
  { name: "GET /changes: a guest is refused", method: "GET", url: "/api/v1/changes", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /changes: a revoked token is refused", method: "GET", url: "/api/v1/changes", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /changes: the owner reads the changes of their own links and collections",
    method: "GET", url: "/api/v1/changes?limit=1000", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => {
      const named = response.body.changes.map((c: { kind: string; id: number }) => `${c.kind} ${c.id}`);
      expect(named).toContain(`link ${ids.ownerLink}`);
      expect(named).toContain(`link ${ids.ownerTrashed}`);
      expect(named).not.toContain(`link ${ids.otherLink}`);
      expect(named).not.toContain(`collection ${ids.otherCollection}`);
    },
  },
  {
    name: "GET /changes: another user reads only their own, never the owner's",
    method: "GET", url: "/api/v1/changes?limit=1000", as: "other", expectStatus: 200,
    expect: (response, { ids }) => {
      const named = response.body.changes.map((c: { kind: string; id: number }) => `${c.kind} ${c.id}`);
      expect(named).not.toContain(`link ${ids.ownerLink}`);
      expect(named).not.toContain(`link ${ids.ownerTrashed}`);
      expect(named).not.toContain(`collection ${ids.ownerCollection}`);
      expect(response.text).not.toContain("Owner's");
    },
  },

  // GET /api/v1/changes/cursor
  { name: "GET /changes/cursor: a guest is refused", method: "GET", url: "/api/v1/changes/cursor", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /changes/cursor: a revoked token is refused", method: "GET", url: "/api/v1/changes/cursor", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /changes/cursor: the owner's cursor is the end of their own feed",
    method: "GET", url: "/api/v1/changes/cursor", as: "owner", expectStatus: 200,
    expect: async (response, { env, owner }) => {
      const feed = await request(env, "GET", "/api/v1/changes?limit=1000", { token: owner.token });
      expect(response.body).toEqual({ cursor: feed.body.cursor });
    },
  },
  {
    name: "GET /changes/cursor: another user's is the end of theirs, which the owner's changes do not move",
    method: "GET", url: "/api/v1/changes/cursor", as: "other", expectStatus: 200,
    expect: async (response, { env, other }) => {
      const feed = await request(env, "GET", "/api/v1/changes?limit=1000", { token: other.token });
      expect(response.body).toEqual({ cursor: feed.body.cursor });
    },
  },

  // GET /api/v1/collections?under=
  {
    name: "GET /collections?under=: the owner reads the subtree of their collection",
    method: "GET", url: "/api/v1/collections?under={ownerCollection}", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => {
      expect(response.body.collections.map((c: { id: number }) => c.id)).toEqual([ids.ownerCollection]);
      expect(response.body.collections[0].links.map((l: { id: number }) => l.id)).toEqual([ids.ownerLink]);
    },
  },
  {
    name: "GET /collections?under=: another user gets 404 for the owner's collection, as for an id that does not exist",
    method: "GET", url: "/api/v1/collections?under={ownerCollection}", as: "other", expectStatus: 404, expectCode: "NOT_FOUND",
    expect: async (response, { env, other }) => {
      const missing = await request(env, "GET", "/api/v1/collections?under=999999", { token: other.token });
      expect(missing.status).toBe(404);
      expect(response.text).toBe(missing.text);
    },
  },

  // POST /api/v1/batch
  { name: "POST /batch: a guest is refused", method: "POST", url: "/api/v1/batch", as: "guest", body: (ids) => batchOf(ids.ownerCollection, ids.ownerLink), expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "POST /batch: a revoked token is refused", method: "POST", url: "/api/v1/batch", as: "revoked", body: (ids) => batchOf(ids.ownerCollection, ids.ownerLink), expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "POST /batch: the owner writes in their own collections and links",
    method: "POST", url: "/api/v1/batch", as: "owner", body: (ids) => batchOf(ids.ownerCollection, ids.ownerLink), expectStatus: 200,
    expect: async (response, { env, owner, ids }) => {
      const created = response.body.refs.sub as number;
      const read = await request(env, "GET", `/api/v1/collections?under=${ids.ownerCollection}`, { token: owner.token });
      expect(read.body.collections.map((c: { id: number; name: string }) => `${c.id} ${c.name}`)).toEqual([`${ids.ownerCollection} Owner's reading`, `${created} Sub`]);
      expect((await request(env, "GET", `/api/v1/links/${ids.ownerLink}`, { token: owner.token })).body.link.collectionIds).toEqual([ids.ownerCollection, created]);
    },
  },
  {
    name: "POST /batch: another user gets 404 for the owner's collection and link, as for ids that do not exist, and nothing is written",
    method: "POST", url: "/api/v1/batch", as: "other", body: (ids) => batchOf(ids.ownerCollection, ids.otherLink), expectStatus: 404, expectCode: "NOT_FOUND", named: true,
    expect: async (response, { env, other, ids }) => {
      expect(response.body.errors).toEqual([{ path: "/operations/0/parent/id", message: "Expected the id of one of your collections" }]);
      const missing = await request(env, "POST", "/api/v1/batch", { token: other.token, body: batchOf(999999, ids.otherLink) });
      expect(missing.text).toBe(response.text);
      const link = await request(env, "POST", "/api/v1/batch", { token: other.token, body: batchOf(ids.otherCollection, ids.ownerLink) });
      expect({ status: link.status, errors: link.body.errors }).toEqual({ status: 404, errors: [{ path: "/operations/1/id", message: "Expected the id of one of your links" }] });
    },
  },

  // DELETE /api/v1/imports/:id
  { name: "DELETE /imports/:id: a guest is refused", method: "DELETE", url: "/api/v1/imports/{ownerImport}", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "DELETE /imports/:id: a revoked token is refused", method: "DELETE", url: "/api/v1/imports/{ownerImport}", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "DELETE /imports/:id: the owner undoes their import, which never touches the link they had before it",
    method: "DELETE", url: "/api/v1/imports/{ownerImport}", as: "owner", expectStatus: 200,
    expect: async (response, { env, owner, ids }) => {
      expect(response.body).toEqual({ message: "Import undone.", links: 0, collections: 0 });
      const links = await request(env, "GET", "/api/v1/links", { token: owner.token });
      expect(links.body.links.map((l: { id: number }) => l.id)).toEqual([ids.ownerLink]);
    },
  },
  {
    name: "DELETE /imports/:id: another user gets 404 for the owner's import, as for an id that does not exist",
    method: "DELETE", url: "/api/v1/imports/{ownerImport}", as: "other", expectStatus: 404, expectCode: "NOT_FOUND",
    expect: async (response, { env, other }) => {
      const missing = await request(env, "DELETE", "/api/v1/imports/999999", { token: other.token });
      expect(response.body).toEqual(missing.body);
    },
  },

  // GET /api/v1/links
  { name: "GET /links: a guest is refused", method: "GET", url: "/api/v1/links", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /links: a revoked token is refused", method: "GET", url: "/api/v1/links", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /links: the owner finds their own link",
    method: "GET", url: "/api/v1/links", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => expect(response.body.links.map((l: { id: number }) => l.id)).toEqual([ids.ownerLink]),
  },
  {
    name: "GET /links: another user finds only their own links, and the owner's collection is a 404",
    method: "GET", url: "/api/v1/links", as: "other", expectStatus: 200,
    expect: async (response, { env, other, ids }) => {
      expect(response.body.links.map((l: { id: number }) => l.id)).toEqual([ids.otherLink]);
      const filtered = await request(env, "GET", `/api/v1/links?collectionId=${ids.ownerCollection}`, { token: other.token });
      expect(filtered.status).toBe(404);
    },
  },

  // GET /api/v1/links/:id
  { name: "GET /links/:id: a guest is refused", method: "GET", url: "/api/v1/links/{ownerLink}", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /links/:id: a revoked token is refused", method: "GET", url: "/api/v1/links/{ownerLink}", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /links/:id: the owner reads their link",
    method: "GET", url: "/api/v1/links/{ownerLink}", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => expect(response.body.link.id).toBe(ids.ownerLink),
  },
  { name: "GET /links/:id: another user gets 404 for the owner's link", method: "GET", url: "/api/v1/links/{ownerLink}", as: "other", expectStatus: 404, expectCode: "NOT_FOUND" },

  // GET /api/v1/collections/:id
  { name: "GET /collections/:id: a guest is refused", method: "GET", url: "/api/v1/collections/{ownerCollection}", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /collections/:id: a revoked token is refused", method: "GET", url: "/api/v1/collections/{ownerCollection}", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /collections/:id: the owner reads their collection",
    method: "GET", url: "/api/v1/collections/{ownerCollection}", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => expect(response.body.collection.id).toBe(ids.ownerCollection),
  },
  { name: "GET /collections/:id: another user gets 404 for the owner's collection", method: "GET", url: "/api/v1/collections/{ownerCollection}", as: "other", expectStatus: 404, expectCode: "NOT_FOUND" },

  // GET /api/v1/links/favorites
  { name: "GET /links/favorites: a guest is refused", method: "GET", url: "/api/v1/links/favorites", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /links/favorites: a revoked token is refused", method: "GET", url: "/api/v1/links/favorites", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /links/favorites: the owner sees their favorite",
    method: "GET", url: "/api/v1/links/favorites", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => expect(response.body.map((l: { id: number }) => l.id)).toEqual([ids.ownerLink]),
  },
  {
    name: "GET /links/favorites: another user sees only their own favorites, never the owner's",
    method: "GET", url: "/api/v1/links/favorites", as: "other", expectStatus: 200,
    expect: (response, { ids, other }) => {
      expect(response.body.map((l: { id: number }) => l.id)).toEqual([ids.otherLink]);
      expect(response.body[0].authorId).toBe(other.user.id);
      expect(response.text).not.toContain("Owner's");
    },
  },

  // Authentication is decided before the body is looked at.
  {
    name: "a guest sending malformed JSON gets 401, not 400",
    method: "POST", url: "/api/v1/links", as: "guest", body: "{not json", headers: { "content-type": "application/json" },
    expectStatus: 401, expectCode: "UNAUTHORIZED",
  },
  {
    name: "a guest sending a body of the wrong media type gets 401, not 415",
    method: "POST", url: "/api/v1/collections", as: "guest", body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" },
    expectStatus: 401, expectCode: "UNAUTHORIZED",
  },
  {
    name: "a guest sending an invalid body gets 401, not 422",
    method: "PUT", url: "/api/v1/links/{ownerLink}", as: "guest", body: { name: "" },
    expectStatus: 401, expectCode: "UNAUTHORIZED",
  },
  {
    name: "a revoked token sending malformed JSON gets 401, not 400",
    method: "PUT", url: "/api/v1/collections/{ownerCollection}", as: "revoked", body: "{", headers: { "content-type": "application/json" },
    expectStatus: 401, expectCode: "UNAUTHORIZED",
  },
  {
    name: "a guest asking for an id that is not a number gets 401, not 404",
    method: "DELETE", url: "/api/v1/links/abc", as: "guest",
    expectStatus: 401, expectCode: "UNAUTHORIZED",
  },

  // PUT /api/v1/links/:id/content
  { name: "PUT /links/:id/content: a guest is refused", method: "PUT", url: "/api/v1/links/{ownerLink}/content", as: "guest", body: { text: "x" }, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "PUT /links/:id/content: a revoked token is refused", method: "PUT", url: "/api/v1/links/{ownerLink}/content", as: "revoked", body: { text: "x" }, expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "PUT /links/:id/content: the owner saves their link's page text",
    method: "PUT", url: "/api/v1/links/{ownerLink}/content", as: "owner", body: { text: "Replaced text" }, expectStatus: 200,
    expect: async (response, { env, ids, owner }) => {
      expect(response.body).toEqual({ message: "Content saved.", truncated: false });
      const read = await request(env, "GET", `/api/v1/links/${ids.ownerLink}/content`, { token: owner.token });
      expect(read.body.content.text).toBe("Replaced text");
    },
  },
  { name: "PUT /links/:id/content: another user gets 404 for the owner's link", method: "PUT", url: "/api/v1/links/{ownerLink}/content", as: "other", body: { text: "x" }, expectStatus: 404, expectCode: "NOT_FOUND" },

  // PUT, GET, DELETE /api/v1/links/:id/copy
  ...(["PUT", "GET", "DELETE"] as const).flatMap((method): Scenario[] => {
    const html = method === "PUT" ? { body: "<p>kept</p>", headers: { "content-type": "text/html" } } : {};
    return [
      { name: `${method} /links/:id/copy: a guest is refused`, method, url: "/api/v1/links/{ownerLink}/copy", as: "guest", ...html, expectStatus: 401, expectCode: "UNAUTHORIZED" },
      { name: `${method} /links/:id/copy: a revoked token is refused`, method, url: "/api/v1/links/{ownerLink}/copy", as: "revoked", ...html, expectStatus: 401, expectCode: "UNAUTHORIZED" },
      { name: `${method} /links/:id/copy: another user gets 404 for the owner's link`, method, url: "/api/v1/links/{ownerLink}/copy", as: "other", ...html, expectStatus: 404, expectCode: "NOT_FOUND" },
    ];
  }),
  {
    name: "PUT /links/:id/copy: the owner keeps a copy of their link's page, reads it back and deletes it",
    method: "PUT", url: "/api/v1/links/{ownerLink}/copy", as: "owner", body: "<p>kept</p>", headers: { "content-type": "text/html" }, expectStatus: 200,
    expect: async (response, { env, ids, owner }) => {
      expect(response.body.copy.bytes).toBe(11);
      expect((await request(env, "GET", `/api/v1/links/${ids.ownerLink}/copy`, { token: owner.token, headers: { "accept-encoding": "identity" } })).text).toBe("<p>kept</p>");
      expect((await request(env, "DELETE", `/api/v1/links/${ids.ownerLink}/copy`, { token: owner.token })).status).toBe(200);
    },
  },
  { name: "GET /links/:id/copy: the owner hears that their link has no copy", method: "GET", url: "/api/v1/links/{ownerLink}/copy", as: "owner", expectStatus: 404, expectCode: "NOT_FOUND" },
  { name: "DELETE /links/:id/copy: the owner hears that their link has no copy", method: "DELETE", url: "/api/v1/links/{ownerLink}/copy", as: "owner", expectStatus: 404, expectCode: "NOT_FOUND" },

  // GET /api/v1/links/:id/content
  { name: "GET /links/:id/content: a guest is refused", method: "GET", url: "/api/v1/links/{ownerLink}/content", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /links/:id/content: a revoked token is refused", method: "GET", url: "/api/v1/links/{ownerLink}/content", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /links/:id/content: the owner reads their link's page text",
    method: "GET", url: "/api/v1/links/{ownerLink}/content", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => expect(response.body.content).toMatchObject({ linkId: ids.ownerLink, text: "Owner's page text", source: "browser" }),
  },
  { name: "GET /links/:id/content: another user gets 404 for the owner's link", method: "GET", url: "/api/v1/links/{ownerLink}/content", as: "other", expectStatus: 404, expectCode: "NOT_FOUND" },

  // GET /api/v1/search
  { name: "GET /search: a guest is refused", method: "GET", url: "/api/v1/search?q=page", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /search: a revoked token is refused", method: "GET", url: "/api/v1/search?q=page", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /search: the owner finds their own link by its page text",
    method: "GET", url: "/api/v1/search?q=page", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => expect(response.body.hits.map((hit: { link: { id: number } }) => hit.link.id)).toEqual([ids.ownerLink]),
  },
  {
    name: "GET /search: another user finds only their own links, never the owner's text",
    method: "GET", url: "/api/v1/search?q=page", as: "other", expectStatus: 200,
    expect: (response, { ids }) => {
      expect(response.body.hits.map((hit: { link: { id: number } }) => hit.link.id)).toEqual([ids.otherLink]);
      expect(response.text).not.toContain("Owner's");
    },
  },

  // GET /api/v1/links/health
  { name: "GET /links/health: a guest is refused", method: "GET", url: "/api/v1/links/health?state=broken", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "GET /links/health: a revoked token is refused", method: "GET", url: "/api/v1/links/health?state=broken", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "GET /links/health: the owner lists their own links not checked",
    method: "GET", url: "/api/v1/links/health?state=unchecked", as: "owner", expectStatus: 200,
    expect: (response, { ids }) => expect(response.body.links.map((item: { link: { id: number } }) => item.link.id)).toEqual([ids.ownerLink]),
  },
  {
    name: "GET /links/health: another user lists only their own links",
    method: "GET", url: "/api/v1/links/health?state=unchecked", as: "other", expectStatus: 200,
    expect: (response, { ids }) => expect(response.body.links.map((item: { link: { id: number } }) => item.link.id)).toEqual([ids.otherLink]),
  },

  // POST /api/v1/links/:id/check
  { name: "POST /links/:id/check: a guest is refused", method: "POST", url: "/api/v1/links/{ownerLink}/check", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "POST /links/:id/check: a revoked token is refused", method: "POST", url: "/api/v1/links/{ownerLink}/check", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "POST /links/:id/check: the owner checks their link (this app checks nothing: not checked)",
    method: "POST", url: "/api/v1/links/{ownerLink}/check", as: "owner", expectStatus: 200,
    expect: (response) => expect(response.body.health).toMatchObject({ state: "unchecked", broken: false, checks: [{ outcome: "unchecked", detail: "this server checks no links" }, { detail: "private address" }] }),
  },
  { name: "POST /links/:id/check: another user gets 404 for the owner's link", method: "POST", url: "/api/v1/links/{ownerLink}/check", as: "other", expectStatus: 404, expectCode: "NOT_FOUND" },

  // POST and DELETE /api/v1/links/:id/health/ignore
  { name: "POST /links/:id/health/ignore: a guest is refused", method: "POST", url: "/api/v1/links/{ownerLink}/health/ignore", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "POST /links/:id/health/ignore: a revoked token is refused", method: "POST", url: "/api/v1/links/{ownerLink}/health/ignore", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "POST /links/:id/health/ignore: the owner ignores their link",
    method: "POST", url: "/api/v1/links/{ownerLink}/health/ignore", as: "owner", expectStatus: 200,
    expect: (response) => expect(response.body.health).toMatchObject({ ignored: true, broken: false }),
  },
  { name: "POST /links/:id/health/ignore: another user gets 404 for the owner's link", method: "POST", url: "/api/v1/links/{ownerLink}/health/ignore", as: "other", expectStatus: 404, expectCode: "NOT_FOUND" },
  { name: "DELETE /links/:id/health/ignore: a guest is refused", method: "DELETE", url: "/api/v1/links/{ownerLink}/health/ignore", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "DELETE /links/:id/health/ignore: a revoked token is refused", method: "DELETE", url: "/api/v1/links/{ownerLink}/health/ignore", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "DELETE /links/:id/health/ignore: the owner flags their link again",
    method: "DELETE", url: "/api/v1/links/{ownerLink}/health/ignore", as: "owner", expectStatus: 200,
    expect: (response) => expect(response.body.health).toMatchObject({ ignored: false }),
  },
  { name: "DELETE /links/:id/health/ignore: another user gets 404 for the owner's link", method: "DELETE", url: "/api/v1/links/{ownerLink}/health/ignore", as: "other", expectStatus: 404, expectCode: "NOT_FOUND" },

  // DELETE /api/v1/tokens/current
  { name: "DELETE /tokens/current: a guest is refused", method: "DELETE", url: "/api/v1/tokens/current", as: "guest", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  { name: "DELETE /tokens/current: a revoked token is refused", method: "DELETE", url: "/api/v1/tokens/current", as: "revoked", expectStatus: 401, expectCode: "UNAUTHORIZED" },
  {
    name: "DELETE /tokens/current: the owner revokes the token they sent, and it is refused afterwards",
    method: "DELETE", url: "/api/v1/tokens/current", as: "owner", expectStatus: 200,
    expect: async (response, { env, owner, other }) => {
      expect(response.body).toEqual({ message: "Token revoked." });
      expect((await request(env, "GET", "/api/v1/links", { token: owner.token })).status).toBe(401);
      expect((await request(env, "GET", "/api/v1/links", { token: other.token })).status).toBe(200);
    },
  },
  {
    name: "DELETE /tokens/current: another user revokes only their own token, never the owner's",
    method: "DELETE", url: "/api/v1/tokens/current", as: "other", expectStatus: 200,
    expect: async (_, { env, owner, other }) => {
      expect((await request(env, "GET", "/api/v1/links", { token: other.token })).status).toBe(401);
      expect((await request(env, "GET", "/api/v1/links", { token: owner.token })).status).toBe(200);
    },
  },
];

/** Keys and ETags: another user's are invisible, and another user's item is 404 whatever its If-Match says. */
scenarios.push(
  {
    name: "POST /links with a key: another user's same key and body is their own request, and never replays the owner's answer",
    method: "POST", url: "/api/v1/links", as: "other", body: linkBody, headers: { "idempotency-key": "shared" }, expectStatus: 201,
    expect: async (response, { env, owner, other }) => {
      const keyed = (token: string) => request(env, "POST", "/api/v1/links", { token, body: linkBody, headers: { "idempotency-key": "shared" } });
      const owners = await keyed(owner.token);
      expect({ status: owners.status, replayed: owners.headers.get("idempotent-replayed") }).toEqual({ status: 201, replayed: null });
      expect(owners.body.link.id).not.toBe(response.body.link.id);
      expect((await keyed(other.token)).body.link.id).toBe(response.body.link.id);
    },
  },
  {
    name: "PUT /links/:id with If-Match: another user gets 404, never 412",
    method: "PUT", url: "/api/v1/links/{ownerLink}", as: "other", body: { ...linkBody, collectionIds: [] }, headers: { "if-match": "\"stale\"" },
    expectStatus: 404, expectCode: "NOT_FOUND",
  },
  { name: "DELETE /links/:id with If-Match: another user gets 404, never 412", method: "DELETE", url: "/api/v1/links/{ownerLink}", as: "other", headers: { "if-match": "\"stale\"" }, expectStatus: 404, expectCode: "NOT_FOUND" },
  {
    name: "PUT /collections/:id/order with If-Match: another user gets 404, never 412",
    method: "PUT", url: "/api/v1/collections/{ownerCollection}/order", as: "other", body: { order: [] }, headers: { "if-match": "\"stale\"" }, expectStatus: 404, expectCode: "NOT_FOUND",
  },
  { name: "DELETE /collections/:id with If-Match: another user gets 404, never 412", method: "DELETE", url: "/api/v1/collections/{ownerCollection}", as: "other", headers: { "if-match": "*" }, expectStatus: 404, expectCode: "NOT_FOUND" },
  { name: "GET /links/:id with If-None-Match *: another user gets 404, never 304", method: "GET", url: "/api/v1/links/{ownerLink}", as: "other", headers: { "if-none-match": "*" }, expectStatus: 404, expectCode: "NOT_FOUND" },
);

describe("permissions", () => {
  it("covers every API route with a guest, the owner, another user and a revoked token", () => {
    // The API routes are those declared callable with a bearer token (src/request/surface.ts), read from the app itself.
    const routes = makeEnv().app.routes
      .filter((route) => { const callers = surfaceOf(route)?.callers; return callers !== undefined && callers !== false && callers.includes("bearer") && route.path.startsWith("/api/"); })
      .map((route) => `${route.method} ${route.path.replace(/\/$/, "")}`);
    expect(routes.length).toBeGreaterThan(10);
    // POST /collections names nothing of the owner's, so "another user" has nothing to try there.
    const actorsOf = (route: string): Actor[] => (route === "POST /api/v1/collections" ? ["guest", "revoked", "owner"] : ["guest", "revoked", "owner", "other"]);
    const covered = new Set(scenarios.map((s) => `${s.method} ${s.url.replace(/\{\w+\}/, ":id").replace(/\?.*$/, "")} ${s.as}`));
    for (const route of routes) {
      for (const actor of actorsOf(route)) expect(`${route} ${actor}: ${covered.has(`${route} ${actor}`)}`).toBe(`${route} ${actor}: true`);
    }
  });

  for (const s of scenarios) {
    it(s.name, async () => {
      const fixture = await makeFixture();
      const { env, ids } = fixture;
      const before = snapshot(env);
      const body = typeof s.body === "function" ? s.body(ids) : s.body;
      const response = await request(env, s.method, fillIds(s.url, ids), { token: tokenOf(fixture, s.as), body, headers: s.headers });

      expect(response.status).toBe(s.expectStatus);
      if (s.expectCode !== undefined) expect(response.body.code).toBe(s.expectCode);
      if (s.expectStatus >= 400) {
        expect(Object.keys(response.body).sort()).toEqual(s.expectStatus === 422 || s.named ? ["code", "errors", "message"] : ["code", "message"]);
        expect(snapshot(env)).toBe(before);
      }
      if (s.expectStatus === 401) expect(response.headers.get("www-authenticate")).toBe("Bearer");
      else expect(response.headers.get("www-authenticate")).toBeNull();
      if (s.method === "GET") expect(snapshot(env)).toBe(before);
      await s.expect?.(response, fixture);
    });
  }
});
