/**
 * Collections as a tree on the web pages, through `app.handle`: the sidebar's tree and its
 * folds, a collection's page (breadcrumbs, sub-collections first, its own order) and the forms
 * that change its order (up, down, A–Z; another user's ids are 404 and change nothing), the
 * parent picker of the collection forms and its refusals, the indented pickers, and a public
 * page that lists its PUBLIC sub-collections only.
 */
import { describe, expect, it } from "bun:test";
import { PARENT_MESSAGES } from "../src/shelf/order";
import { createCollection, createLink, createUser, get, makeEnv, snapshot, type TestEnv, type TestUser } from "./helpers";
import { attributes, cookieFor, errorOf, open, submit, texts } from "./html";

const NBSP = "\u00a0";

/**
 * Alice's tree: Inbox, Bikes › Home › Tools › Spanners, Bikes › Road, Music; a link before
 * and a link after Home in Bikes; Bob with a collection and a link of his own.
 */
async function tree() {
  const env = makeEnv();
  const alice = await createUser(env, { name: "Alice" });
  const bob = await createUser(env, { name: "Bob" });
  const bikes = await createCollection(env, alice, { name: "Bikes", icon: "🚲" });
  const before = await createLink(env, alice, { name: "Zebra wheels", url: "https://zebra.example/", collectionIds: [bikes.id] });
  const home = await createCollection(env, alice, { name: "Home", icon: "🏠", parentId: bikes.id });
  const after = await createLink(env, alice, { name: "Apex frames", url: "https://apex.example/", collectionIds: [bikes.id] });
  const tools = await createCollection(env, alice, { name: "Tools", icon: "🛠️", parentId: home.id });
  const spanners = await createCollection(env, alice, { name: "Spanners", parentId: tools.id });
  const road = await createCollection(env, alice, { name: "Road", parentId: bikes.id });
  const music = await createCollection(env, alice, { name: "Music", icon: "🎵" });
  const bobs = await createCollection(env, bob, { name: "Bob's" });
  const bobLink = await createLink(env, bob, { name: "Bob's link", url: "https://bob.example/", collectionIds: [bobs.id] });
  return { env, alice, bob, cookie: cookieFor(env, alice), bikes, home, tools, spanners, road, music, before, after, bobs, bobLink };
}

/** labelsOf is the text of a select's options as written, their leading indentation kept (texts() trims it). */
function labelsOf(page: string, select: string): string[] {
  const found: string[] = [];
  new HTMLRewriter().on(`${select} option`, {
    element: () => void found.push(""),
    text: (chunk) => void (found[found.length - 1] += chunk.text),
  }).transform(page);
  return found.map((label) => label.replaceAll("&amp;", "&").replace(/\s+$/, ""));
}

const orderOf = async (env: TestEnv, as: TestUser, id: number) =>
  (await get(env, `/api/v1/collections/${id}`, { token: as.token })).body.collection.order.map((item: { kind: string; id: number }) => `${item.kind}:${item.id}`);

describe("the sidebar", () => {
  it("nests the collections in their order, folds what is below the second level, and opens the shown collection's branch", async () => {
    const t = await tree();
    const closed = await open(t.env, `/?collection=${t.music.id}`, t.cookie);
    expect(texts(closed.text, "#sidebar-tree > li > a .name")).toEqual(["Inbox", "Bikes", "Music"]);
    expect(texts(closed.text, "#sidebar-tree > li > ul > li > a .name")).toEqual(["Home", "Road"]);
    expect(texts(closed.text, "#sidebar-tree > li > ul > li > details > ul > li > a .name")).toEqual(["Tools"]);
    expect(texts(closed.text, "#sidebar-tree > li > ul > li > details > ul > li > details > ul > li > a .name")).toEqual(["Spanners"]);
    expect(attributes(closed.text, "#sidebar-tree details")).toEqual([{}, {}]);
    expect(texts(closed.text, "#sidebar-tree summary")).toEqual(["1 collection in Home", "1 collection in Tools"]);

    const shown = await open(t.env, `/?collection=${t.tools.id}`, t.cookie);
    expect(attributes(shown.text, "#sidebar-tree details")).toEqual([{ open: "" }, { open: "" }]);
    expect(texts(shown.text, "#sidebar-tree a[aria-current=page] .name")).toEqual(["Tools"]);
    const inHome = await open(t.env, `/?collection=${t.home.id}`, t.cookie);
    expect(attributes(inHome.text, "#sidebar-tree details")).toEqual([{ open: "" }, {}]);
  });

  it("offers a filter box only once there are more than 20 collections", async () => {
    const t = await tree();
    // Alice has 7 collections with her Inbox.
    for (let i = 0; i < 13; i++) await createCollection(t.env, t.alice, { name: `Extra ${i}` });
    const twenty = await open(t.env, "/", t.cookie);
    expect(attributes(twenty.text, "[data-filter=sidebar-tree]")).toEqual([]);
    await createCollection(t.env, t.alice, { name: "One more" });
    const more = await open(t.env, "/", t.cookie);
    expect(attributes(more.text, "[data-filter=sidebar-tree]")).toEqual([expect.objectContaining({ type: "search", id: "sidebar-tree-filter" })]);
    expect(texts(more.text, "label[for=sidebar-tree-filter]")).toEqual(["Filter collections"]);
    expect(attributes(more.text, "#sidebar-tree li[data-name]")).toHaveLength(21);
  });
});

describe("a collection's page", () => {
  it("shows its breadcrumbs, its sub-collections first, then its links in its order", async () => {
    const t = await tree();
    const page = await open(t.env, `/?collection=${t.tools.id}`, t.cookie);
    expect(texts(page.text, "nav.crumbs li")).toEqual(["Bikes", "Home", "Tools"]);
    expect(attributes(page.text, "nav.crumbs a").map((a) => a.href)).toEqual([`/?collection=${t.bikes.id}`, `/?collection=${t.home.id}`, `/?collection=${t.tools.id}`]);
    expect(texts((await open(t.env, `/?collection=${t.bikes.id}`, t.cookie)).text, "nav.crumbs")).toEqual([]);

    const bikes = await open(t.env, `/?collection=${t.bikes.id}`, t.cookie);
    expect(texts(bikes.text, ".children a")).toEqual(["Home", "Road"]);
    expect(texts(bikes.text, ".links .title")).toEqual(["Zebra wheels", "Apex frames"]);
    expect(attributes(bikes.text, "#sort option[selected]").map((option) => option.value)).toEqual(["order"]);
    const byName = await open(t.env, `/?collection=${t.bikes.id}&sort=name`, t.cookie);
    expect(texts(byName.text, ".links .title")).toEqual(["Apex frames", "Zebra wheels"]);
    expect(attributes(byName.text, ".links button.move")).toEqual([]);
    const view = await open(t.env, `/links?sort=order&collection=${t.bikes.id}`, t.cookie);
    expect(texts(view.text, ".links .title")).toEqual(["Zebra wheels", "Apex frames"]);
    expect(texts((await open(t.env, "/links?sort=order", t.cookie)).text, "#sort option[selected]")).toEqual(["Newest first"]);
  });

  it("moves links and sub-collections up and down, and sorts them A–Z, without scripts", async () => {
    const t = await tree();
    const page = await open(t.env, `/?collection=${t.bikes.id}`, t.cookie);
    expect(attributes(page.text, `.links button.move`).map((b) => `${b.formaction} ${b.value}`)).toEqual([
      `/collections/${t.bikes.id}/links/${t.before.id}/shift down`,
      `/collections/${t.bikes.id}/links/${t.after.id}/shift up`,
    ]);
    expect(attributes(page.text, ".children form").map((form) => form.action)).toEqual([`/collections/${t.home.id}/shift`, `/collections/${t.road.id}/shift`]);

    const self = `/?collection=${t.bikes.id}`;
    const moved = await submit(t.env, `/collections/${t.bikes.id}/links/${t.after.id}/shift`, { by: "up", next: self }, t.cookie);
    expect(moved.status).toBe(303);
    expect(moved.headers.get("location")).toBe(self);
    // Past the link before it, over the sub-collection between them.
    expect(await orderOf(t.env, t.alice, t.bikes.id)).toEqual([`link:${t.after.id}`, `collection:${t.home.id}`, `link:${t.before.id}`, `collection:${t.road.id}`]);
    await submit(t.env, `/collections/${t.road.id}/shift`, { by: "up", next: self }, t.cookie);
    expect(texts((await open(t.env, self, t.cookie)).text, ".children a")).toEqual(["Road", "Home"]);

    await submit(t.env, `/collections/${t.music.id}/shift`, { by: "up" }, t.cookie);
    expect(texts((await open(t.env, "/", t.cookie)).text, "#sidebar-tree > li > a .name")).toEqual(["Inbox", "Music", "Bikes"]);
    await submit(t.env, `/collections/${t.music.id}/shift`, { by: "up" }, t.cookie);
    expect(texts((await open(t.env, "/", t.cookie)).text, "#sidebar-tree > li > a .name")).toEqual(["Inbox", "Music", "Bikes"]);

    await submit(t.env, `/collections/${t.bikes.id}/sort`, { next: self }, t.cookie);
    expect(await orderOf(t.env, t.alice, t.bikes.id)).toEqual([`collection:${t.home.id}`, `collection:${t.road.id}`, `link:${t.after.id}`, `link:${t.before.id}`]);
    const sorted = await open(t.env, self, t.cookie);
    expect(texts(sorted.text, ".links .title")).toEqual(["Apex frames", "Zebra wheels"]);
  });

  it("answers 404 for another user's ids in the order's forms, changing nothing", async () => {
    const t = await tree();
    const before = snapshot(t.env);
    for (const [path, fields] of [
      [`/collections/${t.bobs.id}/shift`, { by: "up" }],
      [`/collections/${t.bobs.id}/links/${t.bobLink.id}/shift`, { by: "up" }],
      [`/collections/${t.bikes.id}/links/${t.bobLink.id}/shift`, { by: "down" }],
      [`/collections/${t.bobs.id}/sort`, {}],
      [`/collections/99999/sort`, {}],
    ] as const) {
      const response = await submit(t.env, path, fields, t.cookie);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
    expect((await submit(t.env, `/collections/${t.bikes.id}/links/${t.after.id}/shift`, { by: "sideways" }, t.cookie)).status).toBe(422);
    expect(snapshot(t.env)).toBe(before);
  });

  it("refuses the order's forms from another site, changing nothing", async () => {
    const t = await tree();
    const before = snapshot(t.env);
    expect((await submit(t.env, `/collections/${t.bikes.id}/sort`, {}, t.cookie, "https://evil.test")).status).toBe(403);
    expect((await submit(t.env, `/collections/${t.road.id}/shift`, { by: "up" }, t.cookie, "https://evil.test")).status).toBe(403);
    expect(snapshot(t.env)).toBe(before);
  });
});

describe("the parent picker", () => {
  it("offers the tree, indented, without the Inbox nor (editing) the collection and its sub-collections", async () => {
    const t = await tree();
    const create = await open(t.env, `/collections/new?parent=${t.home.id}`, t.cookie);
    expect(labelsOf(create.text, "#parentId")).toEqual([
      "Top level", "🚲 Bikes", `${NBSP.repeat(3)}🏠 Home`, `${NBSP.repeat(6)}🛠️ Tools`, `${NBSP.repeat(9)}📁 Spanners`, `${NBSP.repeat(3)}📁 Road`, "🎵 Music",
    ]);
    expect(attributes(create.text, "#parentId option[selected]").map((option) => option.value)).toEqual([String(t.home.id)]);
    const edit = await open(t.env, `/collections/${t.home.id}/edit`, t.cookie);
    expect(labelsOf(edit.text, "#parentId")).toEqual(["Top level", "🚲 Bikes", `${NBSP.repeat(3)}📁 Road`, "🎵 Music"]);
    expect(attributes(edit.text, "#parentId option[selected]").map((option) => option.value)).toEqual([String(t.bikes.id)]);
    const inbox = await open(t.env, `/collections/${(await get(t.env, "/api/v1/collections", { token: t.alice.token })).body.collections[0].id}/edit`, t.cookie);
    expect(attributes(inbox.text, "#parentId")).toEqual([]);
  });

  it("creates a collection inside another and moves one to another parent, keeping it in place when the field is left as it is", async () => {
    const t = await tree();
    const created = await submit(t.env, "/collections", { name: "Gravel", icon: "", visibility: "PRIVATE", parentId: String(t.bikes.id) }, t.cookie);
    expect(created.status).toBe(303);
    const page = await open(t.env, created.headers.get("location")!, t.cookie);
    expect(texts(page.text, "nav.crumbs li")).toEqual(["Bikes", "Gravel"]);
    await submit(t.env, `/collections/${t.tools.id}`, { name: "Tools", icon: "🛠️", visibility: "PRIVATE", parentId: String(t.music.id) }, t.cookie);
    expect(texts((await open(t.env, `/?collection=${t.spanners.id}`, t.cookie)).text, "nav.crumbs li")).toEqual(["Music", "Tools", "Spanners"]);
    await submit(t.env, `/collections/${t.tools.id}`, { name: "Tools", icon: "🛠️", visibility: "PRIVATE", parentId: "" }, t.cookie);
    expect(texts((await open(t.env, `/?collection=${t.spanners.id}`, t.cookie)).text, "nav.crumbs li")).toEqual(["Tools", "Spanners"]);
  });

  for (const [name, parent, message] of [
    ["another user's collection", (t: Awaited<ReturnType<typeof tree>>) => t.bobs.id, PARENT_MESSAGES.notYours],
    ["one of its own sub-collections", (t: Awaited<ReturnType<typeof tree>>) => t.spanners.id, PARENT_MESSAGES.cycle],
    ["an id that is not one", () => "first", PARENT_MESSAGES.notYours],
  ] as const) {
    it(`refuses ${name} with the API's message beside the field, keeps what was typed, changes nothing`, async () => {
      const t = await tree();
      const before = snapshot(t.env);
      const response = await submit(t.env, `/collections/${t.home.id}`, { name: "Kept name", icon: "", visibility: "PRIVATE", parentId: String(parent(t)) }, t.cookie);
      expect(response.status).toBe(422);
      expect(errorOf(response.text, "parentId")).toBe(message);
      expect(attributes(response.text, "#parentId")).toEqual([expect.objectContaining({ "aria-invalid": "true", "aria-describedby": "parentId-error" })]);
      expect(attributes(response.text, "#name")[0]!.value).toBe("Kept name");
      expect(snapshot(t.env)).toBe(before);
    });
  }
});

describe("the collection pickers", () => {
  it("show the tree in its order, indented: link form, bulk form and the all-links view", async () => {
    const t = await tree();
    const indented = ["📥 Inbox", "🚲 Bikes", `${NBSP.repeat(3)}🏠 Home`, `${NBSP.repeat(6)}🛠️ Tools`, `${NBSP.repeat(9)}📁 Spanners`, `${NBSP.repeat(3)}📁 Road`, "🎵 Music"];
    const home = await open(t.env, `/?collection=${t.bikes.id}`, t.cookie);
    expect(labelsOf(home.text, "#bulk-collection").slice(1)).toEqual(indented);
    const all = await open(t.env, "/links", t.cookie);
    expect(labelsOf(all.text, "#collection").slice(1)).toEqual(indented);
    const form = await open(t.env, "/links/new", t.cookie);
    expect(texts(form.text, "#collection-choices label")).toEqual(indented.map((label) => label.replaceAll(NBSP, "")));
    expect(attributes(form.text, "#collection-choices label").map((label) => label.style)).toEqual(["--depth: 1", "--depth: 1", "--depth: 2", "--depth: 3", "--depth: 4", "--depth: 2", "--depth: 1"]);
  });
});

describe("a public collection's page", () => {
  it("lists its PUBLIC sub-collections as links to their pages and never names a PRIVATE one; its feed covers its own links", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const shared = await createCollection(env, alice, { name: "Shared", visibility: "PUBLIC" });
    const open1 = await createCollection(env, alice, { name: "Open inside", visibility: "PUBLIC", parentId: shared.id });
    const secret = await createCollection(env, alice, { name: "Hidden inside", visibility: "PRIVATE", parentId: shared.id });
    await createCollection(env, alice, { name: "Deeper open", visibility: "PUBLIC", parentId: secret.id });
    await createLink(env, alice, { name: "Own link", url: "https://own.example/", collectionIds: [shared.id] });
    await createLink(env, alice, { name: "Secret link", url: "https://secret.example/", collectionIds: [secret.id] });
    const page = await open(env, `/c/${shared.id}`);
    expect(texts(page.text, ".children a")).toEqual(["Open inside"]);
    expect(attributes(page.text, ".children a").map((a) => a.href)).toEqual([`/c/${open1.id}`]);
    expect(page.text).not.toContain("Hidden inside");
    expect(page.text).not.toContain("Deeper open");
    expect(texts(page.text, ".links .title")).toEqual(["Own link"]);
    const feed = await (await env.app.handle(new Request(`http://localhost/c/${shared.id}/feed`))).text();
    expect(feed).toContain("Own link");
    expect(feed).not.toContain("Secret link");
    expect(feed).not.toContain("Hidden inside");
    expect((await open(env, `/c/${secret.id}`)).status).toBe(404);
  });
});
