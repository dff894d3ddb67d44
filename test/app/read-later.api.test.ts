/**
 * Read later through `app.handle`: a link's `toRead` and `archived` flags on the API (POST's
 * defaults, PUT keeping what it was not sent, the batch's updateLink, the filters of
 * `GET /api/v1/links`, search's `is:unread` and `is:archived`, the change feed), and on the pages
 * (the To read view and its count in the top bar, the buttons of every row and of the link's
 * page, answered as a redirect for a plain form and as JSON for the pages' script). Every refused
 * write leaves the database as it was.
 */
import { describe, expect, it } from "bun:test";
import { aliceWithInbox, createLink, createUser, del, get, post, put, refused, snapshot, type TestEnv, type TestUser } from "../support/helpers";
import { attributes, cookieFor, open, submit, texts } from "../support/html";

const linkOf = async (env: TestEnv, as: TestUser, id: number) => (await get(env, `/api/v1/links/${id}`, { token: as.token })).body.link;
const idsOf = (links: { id: number }[]) => links.map((link) => link.id).sort((a, b) => a - b);

describe("toRead and archived on the links API", () => {
  it("are false on a new link unless sent, and stored as sent", async () => {
    const { env, alice } = await aliceWithInbox();
    const plain = await createLink(env, alice);
    expect({ toRead: plain.toRead, archived: plain.archived }).toEqual({ toRead: false, archived: false });
    const later = await createLink(env, alice, { toRead: true, archived: true });
    expect({ toRead: later.toRead, archived: later.archived }).toEqual({ toRead: true, archived: true });
    expect(await linkOf(env, alice, later.id)).toEqual(later);
  });

  it("PUT sets them when sent and keeps them when omitted", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const link = await createLink(env, alice, { toRead: true });
    const fields = { name: "Renamed", url: link.url, favorite: false, collectionIds: [inbox] };
    expect((await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: fields })).status).toBe(200);
    expect(await linkOf(env, alice, link.id)).toMatchObject({ name: "Renamed", toRead: true, archived: false });
    await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: { ...fields, toRead: false, archived: true } });
    expect(await linkOf(env, alice, link.id)).toMatchObject({ toRead: false, archived: true });
  });

  it("refuses a flag that is not a boolean, changing nothing", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const link = await createLink(env, alice);
    await refused(env, () => put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: { name: "x", url: link.url, favorite: false, collectionIds: [inbox], toRead: "yes" } }), 422, "VALIDATION_FAILED");
    await refused(env, () => post(env, "/api/v1/links", { token: alice.token, body: { name: "x", url: link.url, favorite: false, archived: 1 } }), 422, "VALIDATION_FAILED");
  });

  it("GET /api/v1/links?toRead=true and ?archived=true list only those links, =false the others", async () => {
    const { env, alice } = await aliceWithInbox();
    const toRead = await createLink(env, alice, { toRead: true });
    const archived = await createLink(env, alice, { archived: true });
    const both = await createLink(env, alice, { toRead: true, archived: true });
    const neither = await createLink(env, alice);
    const list = async (query: string) => idsOf((await get(env, `/api/v1/links?${query}`, { token: alice.token })).body.links);
    expect(await list("toRead=true")).toEqual(idsOf([toRead, both]));
    expect(await list("toRead=false")).toEqual(idsOf([archived, neither]));
    expect(await list("archived=true")).toEqual(idsOf([archived, both]));
    expect(await list("toRead=true&archived=false")).toEqual([toRead.id]);
    expect(await list("")).toEqual(idsOf([toRead, archived, both, neither]));
  });

  it("the batch's updateLink sets them and keeps the ones it does not name", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice, { toRead: true });
    const batch = (operation: Record<string, unknown>) => post(env, "/api/v1/batch", { token: alice.token, body: { operations: [{ op: "updateLink", id: link.id, ...operation }] } });
    expect((await batch({ archived: true })).status).toBe(200);
    expect(await linkOf(env, alice, link.id)).toMatchObject({ toRead: true, archived: true });
    expect((await batch({ toRead: false, name: "Read" })).status).toBe(200);
    expect(await linkOf(env, alice, link.id)).toMatchObject({ name: "Read", toRead: false, archived: true });
  });

  it("the change feed gives a link whose flag changed, with its flags", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const link = await createLink(env, alice);
    const cursor = (await get(env, "/api/v1/changes", { token: alice.token })).body.cursor;
    await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: { name: link.name, url: link.url, favorite: false, collectionIds: [inbox], toRead: true } });
    const changes = (await get(env, `/api/v1/changes?since=${cursor}`, { token: alice.token })).body.changes;
    expect(changes).toEqual([{ kind: "link", id: link.id, deleted: false, link: await linkOf(env, alice, link.id) }]);
    expect(changes[0].link.toRead).toBe(true);
  });

  it("the change feed marks a flag changed by itself, without updatedAt moving (the trigger watches both columns)", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice);
    const cursor = (await get(env, "/api/v1/changes", { token: alice.token })).body.cursor;
    env.db.$client.run("UPDATE links SET archived = 1 WHERE id = ?", [link.id]);
    const changes = (await get(env, `/api/v1/changes?since=${cursor}`, { token: alice.token })).body.changes;
    expect(changes.map((change: { id: number; link: { archived: boolean } }) => [change.id, change.link.archived])).toEqual([[link.id, true]]);
  });
});

describe("toRead and archived through the trash", () => {
  it("a link restored from the trash keeps its flags, alone and inside a restored collection", async () => {
    const { env, alice } = await aliceWithInbox();
    const alone = await createLink(env, alice, { toRead: true, archived: true });
    const holder = (await post(env, "/api/v1/collections", { token: alice.token, body: { name: "Reading", visibility: "PRIVATE" } })).body.collection;
    const inside = await createLink(env, alice, { toRead: true, collectionIds: [holder.id] });
    expect((await del(env, `/api/v1/links/${alone.id}`, { token: alice.token })).status).toBe(200);
    expect((await del(env, `/api/v1/collections/${holder.id}?contents=1`, { token: alice.token })).status).toBe(200);
    const restored = await post(env, "/api/v1/trash/restore", { token: alice.token, body: { links: [alone.id], collections: [holder.id] } });
    expect(restored.status).toBe(200);
    expect(await linkOf(env, alice, alone.id)).toMatchObject({ toRead: true, archived: true });
    expect(await linkOf(env, alice, inside.id)).toMatchObject({ toRead: true, archived: false });
  });
});

describe("search: is:unread and is:archived", () => {
  async function shelf() {
    const { env, alice } = await aliceWithInbox();
    const unread = await createLink(env, alice, { name: "Tides unread", toRead: true });
    const archived = await createLink(env, alice, { name: "Tides archived", archived: true });
    const plain = await createLink(env, alice, { name: "Tides plain" });
    const search = (q: string) => get(env, `/api/v1/search?${new URLSearchParams({ q })}`, { token: alice.token });
    const found = async (q: string) => {
      const response = await search(q);
      expect(response.status).toBe(200);
      return idsOf(response.body.hits.map((hit: { link: { id: number } }) => hit.link));
    };
    return { env, alice, unread, archived, plain, search, found };
  }

  it("narrow a search to the reading list or the archive, and -is: to the others", async () => {
    const { unread, archived, plain, found } = await shelf();
    expect(await found("tides")).toEqual(idsOf([unread, archived, plain]));
    expect(await found("tides is:unread")).toEqual([unread.id]);
    expect(await found("IS:ARCHIVED tides")).toEqual([archived.id]);
    expect(await found("tides -is:unread")).toEqual(idsOf([archived, plain]));
    expect(await found("tides -is:unread -is:archived")).toEqual([plain.id]);
    // Inside quotation marks it is text, not a filter.
    expect(await found("\"is:unread\"")).toEqual([]);
  });

  it("the request's toRead and archived filter as is: does", async () => {
    const { env, alice, unread, archived } = await shelf();
    const hits = async (query: string) => idsOf((await get(env, `/api/v1/search?q=tides&${query}`, { token: alice.token })).body.hits.map((hit: { link: { id: number } }) => hit.link));
    expect(await hits("toRead=true")).toEqual([unread.id]);
    expect(await hits("archived=true")).toEqual([archived.id]);
  });

  it("refuses an unknown is:, one asked both ways, and is: without a word, with a sentence at /q", async () => {
    const { search } = await shelf();
    for (const [q, message] of [
      ["tides is:starred", /is: takes unread or archived/],
      ["tides is:unread -is:unread", /both ways/],
      ["is:unread", /besides is:.*To read view/],
    ] as const) {
      const response = await search(q);
      expect({ status: response.status, code: response.body.code, path: response.body.errors?.[0]?.path }).toEqual({ status: 422, code: "VALIDATION_FAILED", path: "/q" });
      expect(response.body.errors[0].message).toMatch(message);
    }
  });
});

describe("read later on the pages", () => {
  async function world() {
    const { env, alice } = await aliceWithInbox();
    const cookie = cookieFor(env, alice);
    return { env, alice, cookie };
  }

  it("the top bar names the To read view with its count, and the view lists only the links to read, newest first", async () => {
    const { env, alice, cookie } = await world();
    const first = await createLink(env, alice, { name: "First to read", toRead: true });
    await createLink(env, alice, { name: "Not on the list" });
    const second = await createLink(env, alice, { name: "Second to read", toRead: true });
    const home = await open(env, "/", cookie);
    expect(texts(home.text, "#to-read-count")).toEqual(["2"]);
    const href = attributes(home.text, "#to-read-nav")[0]!.href!;
    const view = await open(env, href, cookie);
    expect(view.status).toBe(200);
    expect(texts(view.text, "h1#list-heading")[0]).toMatch(/^To read/);
    expect(texts(view.text, "li[data-link] a.title")).toEqual([second.name, first.name]);
    // Nothing left to read: no count.
    await put(env, `/api/v1/links/${first.id}`, { token: alice.token, body: { name: first.name, url: first.url, favorite: false, collectionIds: first.collectionIds, toRead: false } });
    await put(env, `/api/v1/links/${second.id}`, { token: alice.token, body: { name: second.name, url: second.url, favorite: false, collectionIds: second.collectionIds, toRead: false } });
    expect(texts((await open(env, "/", cookie)).text, "#to-read-count")).toEqual([]);
  });

  it("every row and the link's page carry Mark read (or Read later) and Archive (or Unarchive) buttons posting one flag", async () => {
    const { env, alice, cookie } = await world();
    const link = await createLink(env, alice, { name: "On the list", toRead: true });
    const row = attributes((await open(env, "/links", cookie)).text, `li[data-link="${link.id}"] button[data-flag]`);
    expect(row.map(({ name, value, formaction }) => ({ name, value, formaction }))).toEqual([
      { name: "toRead", value: "false", formaction: `/links/${link.id}/flags` },
      { name: "archived", value: "true", formaction: `/links/${link.id}/flags` },
    ]);
    const page = (await open(env, `/links/${link.id}`, cookie)).text;
    expect(texts(page, "form.flags button")).toEqual(["Mark read", "Archive"]);
    expect(attributes(page, "form.flags")[0]).toMatchObject({ method: "post", action: `/links/${link.id}/flags` });
  });

  it("a plain form sets the one flag it names and returns to next; the link's updatedAt moves", async () => {
    const { env, alice, cookie } = await world();
    const link = await createLink(env, alice, { toRead: true });
    env.clock.now += 1000;
    const done = await submit(env, `/links/${link.id}/flags`, { toRead: "false", next: `/links/${link.id}` }, cookie);
    expect({ status: done.status, location: done.headers.get("location") }).toEqual({ status: 303, location: `/links/${link.id}` });
    const after = await linkOf(env, alice, link.id);
    expect({ toRead: after.toRead, archived: after.archived }).toEqual({ toRead: false, archived: false });
    expect(after.updatedAt).not.toBe(link.updatedAt);
    await submit(env, `/links/${link.id}/flags`, { archived: "true", next: "/" }, cookie);
    expect(await linkOf(env, alice, link.id)).toMatchObject({ toRead: false, archived: true });
    expect(texts((await open(env, `/links/${link.id}`, cookie)).text, "form.flags button")).toEqual(["Read later", "Unarchive"]);
  });

  it("the pages' script gets JSON: the flags, the count and the buttons drawn anew", async () => {
    const { env, alice, cookie } = await world();
    const link = await createLink(env, alice, { name: "Script" });
    const response = await env.app.handle(new Request(`http://localhost/links/${link.id}/flags`, {
      method: "POST", body: "toRead=true",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", origin: "http://localhost", cookie },
    }));
    expect(response.status).toBe(200);
    const answer = await response.json() as { link: unknown; toRead: number; toReadLabel: string; buttons: string };
    expect({ link: answer.link, toRead: answer.toRead, toReadLabel: answer.toReadLabel }).toEqual({ link: { id: link.id, toRead: true, archived: false }, toRead: 1, toReadLabel: "1" });
    expect(texts(answer.buttons, "button[data-flag]")).toEqual(["Mark read", "Archive"]);
  });

  it("refuses another user's link (404) and a form from another site, changing nothing", async () => {
    const { env, alice, cookie } = await world();
    const bob = await createUser(env, { email: "bob@example.test" });
    const bobs = await createLink(env, bob, { toRead: true });
    const own = await createLink(env, alice, { toRead: true });
    const before = snapshot(env);
    expect((await submit(env, `/links/${bobs.id}/flags`, { toRead: "false", next: "/" }, cookie)).status).toBe(404);
    expect((await submit(env, `/links/${own.id}/flags`, { toRead: "false", next: "/" }, cookie, "https://evil.example")).status).toBe(403);
    expect(snapshot(env)).toBe(before);
  });
});
