/**
 * Collections as a tree on the web pages, through `app.handle`: the sidebar's tree and its
 * folds, a collection's page (breadcrumbs, sub-collections first, its own order) and the forms
 * that change its order (up, down, A–Z; another user's ids are 404 and change nothing), the
 * parent picker of the collection forms and its refusals, the indented pickers, and a public
 * page that lists its PUBLIC sub-collections only.
 */
import { describe, expect, it } from "bun:test";
import { PARENT_MESSAGES } from "../../src/shelf/order";
import { createCollection, createLink, createUser, get, makeEnv, snapshot, type TestEnv, type TestUser } from "../support/helpers";
import { attributes, cookieFor, errorOf, open, submit, texts } from "../support/html";

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
    // Back to the moved link on the page, not its top.
    expect(moved.headers.get("location")).toBe(`${self}#link-${t.after.id}`);
    // Past the link before it, over the sub-collection between them.
    expect(await orderOf(t.env, t.alice, t.bikes.id)).toEqual([`link:${t.after.id}`, `collection:${t.home.id}`, `link:${t.before.id}`, `collection:${t.road.id}`]);
    await submit(t.env, `/collections/${t.road.id}/shift`, { by: "up", next: self }, t.cookie);
    expect(texts((await open(t.env, self, t.cookie)).text, ".children a")).toEqual(["Road", "Home"]);

    await submit(t.env, `/collections/${t.music.id}/shift`, { by: "up" }, t.cookie);
    expect(texts((await open(t.env, "/", t.cookie)).text, "#sidebar-tree > li > a .name")).toEqual(["Inbox", "Music", "Bikes"]);
    await submit(t.env, `/collections/${t.music.id}/shift`, { by: "up" }, t.cookie);
    expect(texts((await open(t.env, "/", t.cookie)).text, "#sidebar-tree > li > a .name")).toEqual(["Inbox", "Music", "Bikes"]);

    await submit(t.env, `/collections/${t.bikes.id}/sort`, { next: self, confirmed: "yes" }, t.cookie);
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
      [`/collections/${t.bobs.id}/sort`, { confirmed: "yes" }],
      [`/collections/99999/sort`, { confirmed: "yes" }],
      [`/collections/${t.bobs.id}/sort/undo`, {}],
      [`/collections/${t.bobs.id}/place`, { item: `link:${t.bobLink.id}`, after: `link:${t.bobLink.id}` }],
      [`/collections/${t.bikes.id}/links/${t.before.id}/move`, { to: String(t.bobs.id) }],
      [`/collections/${t.bikes.id}/links/${t.bobLink.id}/move`, { to: String(t.music.id) }],
      [`/collections/${t.bobs.id}/move`, { to: String(t.music.id) }],
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

/** script posts as the arranging script does: a form body, asking for no page. */
async function script(env: TestEnv, path: string, fields: Record<string, string>, cookie: string) {
  const response = await env.app.handle(new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", cookie, origin: "http://localhost" },
    body: new URLSearchParams(fields).toString(),
  }));
  return { status: response.status, text: await response.text() };
}

describe("arranging a collection", () => {
  it("places an item before or after another in one request, answering the script 204 and a form at the item", async () => {
    const t = await tree();
    const self = `/?collection=${t.bikes.id}`;
    // Bikes: Zebra, Home, Apex, Road.
    const placed = await script(t.env, `/collections/${t.bikes.id}/place`, { item: `link:${t.after.id}`, before: `link:${t.before.id}` }, t.cookie);
    expect(placed).toEqual({ status: 204, text: "" });
    expect(await orderOf(t.env, t.alice, t.bikes.id)).toEqual([`link:${t.after.id}`, `link:${t.before.id}`, `collection:${t.home.id}`, `collection:${t.road.id}`]);
    expect(await script(t.env, `/collections/${t.bikes.id}/place`, { item: `collection:${t.home.id}`, after: `collection:${t.road.id}` }, t.cookie)).toEqual({ status: 204, text: "" });
    expect(await orderOf(t.env, t.alice, t.bikes.id)).toEqual([`link:${t.after.id}`, `link:${t.before.id}`, `collection:${t.road.id}`, `collection:${t.home.id}`]);
    const form = await submit(t.env, `/collections/${t.bikes.id}/place`, { item: `collection:${t.road.id}`, after: `collection:${t.home.id}`, next: self }, t.cookie);
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe(`${self}#collection-${t.road.id}`);
    // The ↑ ↓ forms answer the script too.
    expect(await script(t.env, `/collections/${t.bikes.id}/links/${t.before.id}/shift`, { by: "up" }, t.cookie)).toEqual({ status: 204, text: "" });
    expect(await orderOf(t.env, t.alice, t.bikes.id)).toEqual([`link:${t.before.id}`, `link:${t.after.id}`, `collection:${t.home.id}`, `collection:${t.road.id}`]);
    // The page marks its lists as arrangeable and loads the script; each item has its anchor.
    const page = await open(t.env, self, t.cookie);
    expect(attributes(page.text, "[data-arrange]").map((list) => list["data-arrange"])).toEqual([String(t.bikes.id), String(t.bikes.id)]);
    expect(attributes(page.text, "script[src='/assets/arrange.js']")).toHaveLength(1);
    expect(attributes(page.text, ".links > li").map((li) => li.id)).toEqual([`link-${t.before.id}`, `link-${t.after.id}`]);
    // In another sort there is no order to arrange.
    expect(attributes((await open(t.env, `${self}&sort=name`, t.cookie)).text, "[data-arrange]")).toHaveLength(1);
  });

  it("refuses a place that names no item of the collection, changing nothing", async () => {
    const t = await tree();
    const before = snapshot(t.env);
    for (const [fields, status] of [
      [{ item: `link:${t.after.id}`, before: `collection:${t.music.id}` }, 422],
      [{ item: `link:${t.after.id}` }, 422],
      [{ item: "frame:1", before: `link:${t.before.id}` }, 422],
      // An item of another collection (or another user's link): the order would no longer name exactly the collection's items.
      [{ item: `collection:${t.music.id}`, before: `link:${t.before.id}` }, 409],
      [{ item: `link:${t.bobLink.id}`, before: `link:${t.before.id}` }, 409],
    ] as const) {
      const response = await script(t.env, `/collections/${t.bikes.id}/place`, fields, t.cookie);
      expect({ fields, status: response.status }).toEqual({ fields, status });
    }
    expect(snapshot(t.env)).toBe(before);
  });

  it("moves a link onto another collection and a sub-collection inside another, as a drop on the sidebar does", async () => {
    const t = await tree();
    expect(await script(t.env, `/collections/${t.bikes.id}/links/${t.after.id}/move`, { to: String(t.music.id) }, t.cookie)).toEqual({ status: 204, text: "" });
    expect(await orderOf(t.env, t.alice, t.bikes.id)).toEqual([`link:${t.before.id}`, `collection:${t.home.id}`, `collection:${t.road.id}`]);
    expect(await orderOf(t.env, t.alice, t.music.id)).toEqual([`link:${t.after.id}`]);
    expect(await script(t.env, `/collections/${t.road.id}/move`, { to: String(t.music.id) }, t.cookie)).toEqual({ status: 204, text: "" });
    expect(await orderOf(t.env, t.alice, t.music.id)).toEqual([`link:${t.after.id}`, `collection:${t.road.id}`]);
    // A collection cannot go inside its own sub-collection: refused, nothing changed.
    const before = snapshot(t.env);
    expect((await script(t.env, `/collections/${t.bikes.id}/move`, { to: String(t.tools.id) }, t.cookie)).status).toBe(422);
    // Nor inside another user's collection (the parent rules of the collection form).
    expect((await script(t.env, `/collections/${t.home.id}/move`, { to: String(t.bobs.id) }, t.cookie)).status).toBe(422);
    expect(snapshot(t.env)).toBe(before);
  });
});

describe("sorting a collection A–Z", () => {
  it("asks first, saying how many items and that synced browsers follow, and changes nothing until confirmed", async () => {
    const t = await tree();
    const self = `/?collection=${t.bikes.id}`;
    const page = await open(t.env, self, t.cookie);
    expect(attributes(page.text, ".arrange a.button").map((a) => a.href)).toEqual([`/collections/${t.bikes.id}/sort?next=${encodeURIComponent(self)}`]);
    const before = snapshot(t.env);
    const asked = await open(t.env, `/collections/${t.bikes.id}/sort?next=${encodeURIComponent(self)}`, t.cookie);
    expect(asked.status).toBe(200);
    expect(texts(asked.text, "h1")).toEqual(["Sort 4 items of Bikes A–Z?"]);
    expect(asked.text).toContain("This changes the order in synced browsers too.");
    expect(attributes(asked.text, "form[action$='/sort'] input[name=confirmed]")).toEqual([expect.objectContaining({ value: "yes" })]);
    // A form posted without the confirmation (an older page) is asked too.
    const unconfirmed = await submit(t.env, `/collections/${t.bikes.id}/sort`, { next: self }, t.cookie);
    expect(unconfirmed.status).toBe(200);
    expect(texts(unconfirmed.text, "h1")).toEqual(["Sort 4 items of Bikes A–Z?"]);
    expect(snapshot(t.env)).toBe(before);
  });

  it("undoes a sort once from the page that follows, while the order is still the sorted one", async () => {
    const t = await tree();
    const self = `/?collection=${t.bikes.id}`;
    const original = await orderOf(t.env, t.alice, t.bikes.id);
    const sorted = await submit(t.env, `/collections/${t.bikes.id}/sort`, { next: self, confirmed: "yes" }, t.cookie);
    expect(sorted.headers.get("location")).toBe(`${self}&done=sorted`);
    expect(await orderOf(t.env, t.alice, t.bikes.id)).not.toEqual(original);
    const after = await open(t.env, sorted.headers.get("location")!, t.cookie);
    expect(texts(after.text, "[role=status]")[0]).toStartWith("Sorted A–Z.");
    expect(attributes(after.text, "[role=status] form").map((form) => form.action)).toEqual([`/collections/${t.bikes.id}/sort/undo`]);
    const undone = await submit(t.env, `/collections/${t.bikes.id}/sort/undo`, { next: self }, t.cookie);
    expect(undone.headers.get("location")).toBe(`${self}&done=sort-undone`);
    expect(await orderOf(t.env, t.alice, t.bikes.id)).toEqual(original);
    expect(texts((await open(t.env, undone.headers.get("location")!, t.cookie)).text, "[role=status]")[0]).toBe("Sort undone: the order is as it was before.");
    // Once only.
    const before = snapshot(t.env);
    const again = await submit(t.env, `/collections/${t.bikes.id}/sort/undo`, { next: self }, t.cookie);
    expect(again.headers.get("location")).toBe(`${self}&done=sort-gone`);
    expect(snapshot(t.env)).toBe(before);
  });

  it("keeps an order changed since the sort: the Undo says so and restores nothing", async () => {
    const t = await tree();
    const self = `/?collection=${t.bikes.id}`;
    await submit(t.env, `/collections/${t.bikes.id}/sort`, { next: self, confirmed: "yes" }, t.cookie);
    await submit(t.env, `/collections/${t.bikes.id}/links/${t.before.id}/shift`, { by: "up", next: self }, t.cookie);
    const moved = await orderOf(t.env, t.alice, t.bikes.id);
    const before = snapshot(t.env);
    const stale = await submit(t.env, `/collections/${t.bikes.id}/sort/undo`, { next: self }, t.cookie);
    expect(stale.headers.get("location")).toBe(`${self}&done=sort-stale`);
    expect(await orderOf(t.env, t.alice, t.bikes.id)).toEqual(moved);
    expect(snapshot(t.env)).toBe(before);
    expect(texts((await open(t.env, stale.headers.get("location")!, t.cookie)).text, "[role=status]")[0]).toBe("Not undone: the order has changed since it was sorted, so it stays as it is.");
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
