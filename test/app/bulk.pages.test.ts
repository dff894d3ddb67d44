/**
 * The all-links view and the bulk form of the lists through `app.handle`: sorting, filters and
 * pages in the address, a fixed number of queries per page; every bulk action through the one
 * form, all or nothing, a delete asked first, "all matching" up to 1,000; and the emoji picker
 * of the collection form.
 */
import { describe, expect, it } from "bun:test";
import { createUser, makeEnv, snapshot, type TestEnv, type TestUser } from "../support/helpers";
import { attributes, cookieFor, errorOf, open, submit, texts } from "../support/html";
import { Shelf } from "../../src/shelf/shelf";

/** Alice with Reading and Music and five links, named out of creation order; Bob with one link. */
async function world() {
  const env = makeEnv();
  const alice = await createUser(env, { name: "Alice" });
  const bob = await createUser(env, { name: "Bob" });
  const shelf = new Shelf(env.db, alice.user);
  const reading = shelf.collections.create({ name: "Reading", visibility: "PRIVATE", icon: "📚" }, env.clock.now++);
  const music = shelf.collections.create({ name: "Music", visibility: "PRIVATE", icon: "🎵" }, env.clock.now++);
  const inbox = shelf.collections.summaries().find((c) => c.isDefault)!;
  const made = ["delta", "Alpha", "echo", "charlie", "Bravo"].map((name, i) =>
    shelf.links.create({ name, url: `https://${name.toLowerCase()}.example/`, favorite: i % 2 === 0, collectionIds: i < 3 ? [reading.id] : [] }, env.clock.now++));
  const ids = Object.fromEntries(made.map((link) => [link.name, link.id])) as Record<string, number>;
  env.db.$client.run("UPDATE links SET clicks = 7, last_clicked_at = 100 WHERE id = ?", [ids.echo!]);
  env.db.$client.run("UPDATE links SET clicks = 3, last_clicked_at = 900 WHERE id = ?", [ids.Alpha!]);
  env.db.$client.run("INSERT INTO link_health (link_id, state, broken, next_at) VALUES (?, 'gone', 1, 0)", [ids.charlie!]);
  const bobLink = new Shelf(env.db, bob.user).links.create({ name: "Bob's", url: "https://bob.example/", favorite: false }, env.clock.now++);
  return { env, alice, bob, shelf, reading, music, inbox, ids, bobLink, cookie: cookieFor(env, alice) };
}

const titles = (page: string) => texts(page, "li[data-link] a.title");
const notice = (page: string) => texts(page, "[role=status]")[0];

describe("the all-links view", () => {
  it("lists every link of the user across collections, newest first, and none of another user's", async () => {
    const w = await world();
    const page = await open(w.env, "/links", w.cookie);
    expect(page.status).toBe(200);
    expect(titles(page.text)).toEqual(["Bravo", "charlie", "echo", "Alpha", "delta"]);
    expect(texts(page.text, "h1 .badge")).toEqual(["5 links"]);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
  });

  it.each([
    ["oldest", ["delta", "Alpha", "echo", "charlie", "Bravo"]],
    ["clicks", ["echo", "Alpha", "Bravo", "charlie", "delta"]],
    ["recent", ["Alpha", "echo", "Bravo", "charlie", "delta"]],
    ["name", ["Alpha", "Bravo", "charlie", "delta", "echo"]],
  ])("sorts by %s, the sort kept selected in the view's form", async (sort, expected) => {
    const w = await world();
    const page = await open(w.env, `/links?sort=${sort}`, w.cookie);
    expect(titles(page.text)).toEqual(expected);
    expect(attributes(page.text, "#sort option[selected]").map((option) => option.value)).toEqual([sort]);
  });

  it("filters by favorites, by collection and by broken links, together too", async () => {
    const w = await world();
    expect(titles((await open(w.env, "/links?favorites=on&sort=name", w.cookie)).text)).toEqual(["Bravo", "delta", "echo"]);
    expect(titles((await open(w.env, `/links?collection=${w.reading.id}&sort=name`, w.cookie)).text)).toEqual(["Alpha", "delta", "echo"]);
    expect(titles((await open(w.env, "/links?broken=on", w.cookie)).text)).toEqual(["charlie"]);
    expect(titles((await open(w.env, `/links?collection=${w.reading.id}&favorites=on&sort=name`, w.cookie)).text)).toEqual(["delta", "echo"]);
  });

  it("answers another user's collection as not found", async () => {
    const w = await world();
    const bobs = new Shelf(w.env.db, w.bob.user).collections.summaries()[0]!;
    expect((await open(w.env, `/links?collection=${bobs.id}`, w.cookie)).status).toBe(404);
  });

  it("pages through 120 links 50 at a time, the view kept in every page's address", async () => {
    const w = await world();
    for (let i = 0; i < 115; i++) w.shelf.links.create({ name: `L${String(i).padStart(3, "0")}`, url: `https://l${i}.example/`, favorite: false }, w.env.clock.now++);
    const seen: string[] = [];
    let path: string | undefined = "/links?sort=name";
    const sizes: number[] = [];
    while (path) {
      const page = await open(w.env, path, w.cookie);
      sizes.push(titles(page.text).length);
      seen.push(...titles(page.text));
      path = attributes(page.text, ".pager a").find((a) => a.href!.includes("page="))?.href;
      if (path && seen.length >= 120) path = undefined;
    }
    expect(sizes).toEqual([50, 50, 20]);
    expect(new Set(seen).size).toBe(120);
    expect(seen.slice(0, 5)).toEqual(["Alpha", "Bravo", "charlie", "delta", "echo"]);
  });

  it("shows where each page stands, with the previous and next pages, and the first once it is not the previous", async () => {
    const w = await world();
    for (let i = 0; i < 2_280; i++) w.shelf.links.create({ name: `L${i}`, url: `https://l${i}.example/`, favorite: false }, w.env.clock.now++);
    const pagerOf = async (path: string) => {
      const page = await open(w.env, path, w.cookie);
      const words = texts(page.text, ".pager a");
      return { range: texts(page.text, ".pager .range"), links: attributes(page.text, ".pager a").map((a, i) => [words[i], a.href]) };
    };
    expect(await pagerOf("/links?sort=name")).toEqual({ range: ["1–50 of 2,285"], links: [["Next page →", "/links?sort=name&page=2"]] });
    expect(await pagerOf("/links?sort=name&page=2")).toEqual({
      range: ["51–100 of 2,285"], links: [["← Previous page", "/links?sort=name"], ["Next page →", "/links?sort=name&page=3"]],
    });
    expect(await pagerOf("/links?sort=name&page=46")).toEqual({
      range: ["2,251–2,285 of 2,285"], links: [["« First page", "/links?sort=name"], ["← Previous page", "/links?sort=name&page=45"]],
    });
    expect((await pagerOf("/links?sort=name&page=47")).range).toEqual([]);
  });

  it("runs a fixed number of queries however many links and collections there are", async () => {
    const counts: number[] = [];
    for (const size of [1, 40]) {
      const w = await world();
      for (let i = 0; i < size; i++) {
        const c = w.shelf.collections.create({ name: `C${i}`, visibility: "PRIVATE" }, w.env.clock.now++);
        for (let j = 0; j < 3; j++) w.shelf.links.create({ name: `L${i}-${j}`, url: `https://l${i}-${j}.example/`, favorite: true, collectionIds: [c.id, w.reading.id] }, w.env.clock.now++);
      }
      w.env.queries.length = 0;
      await open(w.env, `/links?sort=clicks&favorites=on&collection=${w.reading.id}`, w.cookie);
      counts.push(w.env.queries.length);
    }
    expect(counts[0]).toBeGreaterThan(1);
    expect(counts[1]).toBe(counts[0]!);
  });
});

/** bulk posts the bulk form as the list at `next` would send it. */
function bulk(w: Awaited<ReturnType<typeof world>>, fields: Record<string, string | string[]>, origin?: string) {
  return submit(w.env, "/links/bulk", { next: "/links", scope: "selected", ...fields }, w.cookie, origin);
}

describe("the bulk form", () => {
  it("puts every row of every list in one form, each with a checkbox named for its link", async () => {
    const w = await world();
    for (const path of ["/links", `/?collection=${w.reading.id}`, "/search?q=example"]) {
      const page = await open(w.env, path, w.cookie);
      expect({ path, forms: attributes(page.text, "form#bulk").length }).toEqual({ path, forms: 1 });
      const boxes = attributes(page.text, "form#bulk li input[type=checkbox][name=ids]");
      expect(boxes.length).toBeGreaterThan(0);
      for (const box of boxes) expect(box["aria-label"]).toMatch(/^Select \S/);
      expect(page.text).not.toMatch(/<form[^>]*>(?:(?!<\/form>)[\s\S])*<form/);
    }
  });

  it("offers removing from this collection on a collection's list, not on the Inbox's", async () => {
    const w = await world();
    const options = async (path: string) => attributes((await open(w.env, path, w.cookie)).text, "#bulk-action option").map((o) => o.value);
    expect(await options(`/?collection=${w.reading.id}`)).toContain("remove");
    expect(await options(`/?collection=${w.inbox.id}`)).not.toContain("remove");
  });

  it("favorites and unfavorites the selected links, and says so on the list", async () => {
    const w = await world();
    const done = await bulk(w, { action: "favorite", ids: [String(w.ids.Alpha), String(w.ids.charlie)] });
    expect(done.status).toBe(303);
    const list = await open(w.env, done.headers.get("location")!, w.cookie);
    expect(notice(list.text)).toBe("2 links marked as favorites.");
    expect(w.shelf.links.get(w.ids.Alpha!).favorite).toBe(true);
    expect(w.shelf.links.get(w.ids.charlie!).favorite).toBe(true);
    await bulk(w, { action: "unfavorite", ids: String(w.ids.Alpha) });
    expect(w.shelf.links.get(w.ids.Alpha!).favorite).toBe(false);
  });

  it("moves links to a collection, with the collection named in the notice", async () => {
    const w = await world();
    const done = await bulk(w, { action: "move", collectionId: String(w.music.id), ids: [String(w.ids.Alpha), String(w.ids.Bravo)] });
    const list = await open(w.env, done.headers.get("location")!, w.cookie);
    expect(notice(list.text)).toBe("2 links moved to 🎵 Music.");
    expect(w.shelf.links.get(w.ids.Alpha!).collectionIds).toEqual([w.music.id]);
    expect(w.shelf.links.get(w.ids.Bravo!).collectionIds).toEqual([w.music.id]);
  });

  it("adds links to a collection and removes them from the list's collection", async () => {
    const w = await world();
    await bulk(w, { action: "add", collectionId: String(w.music.id), ids: String(w.ids.Alpha) });
    expect(w.shelf.links.get(w.ids.Alpha!).collectionIds).toEqual([w.reading.id, w.music.id].sort((a, b) => a - b));
    const done = await bulk(w, { next: `/?collection=${w.reading.id}`, action: "remove", here: String(w.reading.id), ids: String(w.ids.Alpha) });
    expect(done.headers.get("location")).toStartWith(`/?collection=${w.reading.id}&done=bulk-remove`);
    expect(w.shelf.links.get(w.ids.Alpha!).collectionIds).toEqual([w.music.id]);
  });

  it("shows the shelf's refusal to remove links from the Inbox on the list, changing nothing", async () => {
    const w = await world();
    const before = snapshot(w.env);
    const page = await bulk(w, { next: `/?collection=${w.inbox.id}`, action: "remove", here: String(w.inbox.id), ids: String(w.ids.charlie) });
    expect(page.status).toBe(409);
    expect(texts(page.text, "#bulk-error")).toEqual(["Links cannot be removed from the Inbox collection: move them to another collection instead."]);
    expect(titles(page.text)).toContain("charlie");
    expect(snapshot(w.env)).toBe(before);
  });

  it("shows a refusal sent from the search page on the search results again, changing nothing", async () => {
    const w = await world();
    const before = snapshot(w.env);
    const page = await bulk(w, { next: "/search?q=example", action: "move", collectionId: String(w.music.id) });
    expect(page.status).toBe(422);
    expect(texts(page.text, "#bulk-error")).toEqual(["Select at least one link first."]);
    expect(texts(page.text, "h1")).toEqual(["Search: “example”"]);
    expect(titles(page.text).sort()).toEqual(["Alpha", "Bravo", "charlie", "delta", "echo"]);
    expect(snapshot(w.env)).toBe(before);
  });

  it("asks before deleting, with the count, and deletes the links the confirmation carries", async () => {
    const w = await world();
    const before = snapshot(w.env);
    const asked = await bulk(w, { action: "delete", ids: [String(w.ids.Alpha), String(w.ids.Bravo)] });
    expect(asked.status).toBe(200);
    expect(texts(asked.text, "h1")).toEqual(["Delete 2 links?"]);
    expect(snapshot(w.env)).toBe(before);
    const carried = attributes(asked.text, "form input[type=hidden]");
    const fields: Record<string, string[]> = {};
    for (const input of carried) (fields[input.name!] ??= []).push(input.value!);
    expect(fields.ids).toEqual([String(w.ids.Alpha), String(w.ids.Bravo)]);
    const done = await submit(w.env, "/links/bulk", { ...fields, scope: "selected" }, w.cookie);
    expect(done.status).toBe(303);
    expect(notice((await open(w.env, done.headers.get("location")!, w.cookie)).text)).toBe("2 links deleted.");
    expect(titles((await open(w.env, "/links", w.cookie)).text)).toEqual(["charlie", "echo", "delta"]);
  });

  it("acts on nothing when one posted id is another user's: the 404 page, the database unchanged", async () => {
    const w = await world();
    const before = snapshot(w.env);
    const page = await bulk(w, { action: "favorite", ids: [String(w.ids.Alpha), String(w.bobLink.id)] });
    expect(page.status).toBe(404);
    expect(snapshot(w.env)).toBe(before);
    const moved = await bulk(w, { action: "move", collectionId: String(new Shelf(w.env.db, w.bob.user).collections.summaries()[0]!.id), ids: String(w.ids.Alpha) });
    expect(moved.status).toBe(404);
    expect(snapshot(w.env)).toBe(before);
  });

  it("refuses a bulk form from another site, changing nothing", async () => {
    const w = await world();
    const before = snapshot(w.env);
    const page = await bulk(w, { action: "delete", confirmed: "yes", ids: String(w.ids.Alpha) }, "https://evil.example");
    expect(page.status).toBe(403);
    expect(snapshot(w.env)).toBe(before);
  });

  it("says to select a link first when none is ticked", async () => {
    const w = await world();
    const page = await bulk(w, { action: "favorite" });
    expect(page.status).toBe(422);
    expect(texts(page.text, "#bulk-error")).toEqual(["Select at least one link first."]);
  });

  it("applies to every link on the page with the second button", async () => {
    const w = await world();
    await bulk(w, { action: "favorite", scope: "page", "page-ids": [w.ids.Alpha, w.ids.charlie].join(",") });
    expect(w.shelf.links.list({ sort: "name", favorite: true }).links.map((l) => l.name)).toEqual(["Alpha", "Bravo", "charlie", "delta", "echo"]);
  });

  it("applies to all links the view matches, resolved from the view's query", async () => {
    const w = await world();
    const page = await open(w.env, `/links?collection=${w.reading.id}`, w.cookie);
    const view = Object.fromEntries(attributes(page.text, "input[type=hidden][name^=view-]").map((input) => [input.name!, input.value!]));
    expect(view).toEqual({ "view-sort": "newest", "view-collection": String(w.reading.id) });
    const done = await bulk(w, { action: "add", collectionId: String(w.music.id), scope: "all", ...view });
    expect(notice((await open(w.env, done.headers.get("location")!, w.cookie)).text)).toBe("3 links added to 🎵 Music.");
    expect(w.shelf.links.list({ sort: "name", collectionId: w.music.id }).links.map((l) => l.name)).toEqual(["Alpha", "delta", "echo"]);
  });

  it("refuses all matching when the view holds more than 1,000 links, and acts on exactly 1,000", async () => {
    const w = await world();
    for (let i = 0; i < 995; i++) w.shelf.links.create({ name: `L${i}`, url: `https://l${i}.example/`, favorite: false }, w.env.clock.now++);
    const done = await bulk(w, { action: "favorite", scope: "all", "view-sort": "newest" });
    expect(done.status).toBe(303);
    expect(w.shelf.links.list({ sort: "newest", favorite: true }).total).toBe(1000);
    w.shelf.links.create({ name: "one more", url: "https://more.example/", favorite: false }, w.env.clock.now++);
    const before = snapshot(w.env);
    const refused = await bulk(w, { action: "delete", confirmed: "yes", scope: "all", "view-sort": "newest" });
    expect(refused.status).toBe(422);
    expect(texts(refused.text, "#bulk-error")[0]).toBe("More than 1,000 links match, and one action changes at most 1,000: narrow the view (a collection, favorites, broken links or search words), or act on a page at a time. Nothing was changed.");
    expect(snapshot(w.env)).toBe(before);
  });
  it("offers all matching only up to 1,000 links, and past that says how to narrow the view", async () => {
    const w = await world();
    for (let i = 0; i < 995; i++) w.shelf.links.create({ name: `L${i}`, url: `https://l${i}.example/`, favorite: false }, w.env.clock.now++);
    const atLimit = await open(w.env, "/links", w.cookie);
    expect(texts(atLimit.text, "button[name=scope][value=all]")).toEqual(["Apply to all 1,000 matching"]);
    expect(texts(atLimit.text, "form#bulk p.hint")).toEqual([]);
    w.shelf.links.create({ name: "one more", url: "https://more.example/", favorite: false }, w.env.clock.now++);
    const past = await open(w.env, "/links", w.cookie);
    expect(texts(past.text, "button[name=scope][value=all]")).toEqual([]);
    expect(texts(past.text, "form#bulk p.hint")).toEqual([
      "1,001 links match, more than the 1,000 one action may change: choose a collection, favorites or broken links above (or search) to act on all of them at once, or act on a page at a time.",
    ]);
    expect(texts(past.text, "h1 .badge")).toEqual(["1,001 links"]);
  });

  it("starts move and add with no collection chosen, and refuses them until one is, changing nothing", async () => {
    const w = await world();
    const page = await open(w.env, "/links", w.cookie);
    const options = attributes(page.text, "#bulk-collection option");
    expect(options[0]).toMatchObject({ value: "", selected: "" });
    expect(options.filter((option) => option.selected !== undefined)).toHaveLength(1);
    for (const action of ["move", "add"]) {
      const before = snapshot(w.env);
      const refused = await bulk(w, { action, ids: [String(w.ids.Alpha)], collectionId: "" });
      expect(refused.status).toBe(422);
      expect(texts(refused.text, "#bulk-error")).toEqual([`Choose the collection to ${action} the links to first. Nothing was changed.`]);
      expect(snapshot(w.env)).toBe(before);
    }
    const done = await bulk(w, { action: "move", ids: [String(w.ids.Alpha)], collectionId: String(w.music.id) });
    expect(done.status).toBe(303);
  });

  it("applies to all search results, on every page of them, and to no other link", async () => {
    const w = await world();
    for (let i = 0; i < 45; i++) w.shelf.links.create({ name: `Tide pool ${i}`, url: `https://tides.example/${i}`, favorite: false }, w.env.clock.now++);
    const page = await open(w.env, "/search?q=tide", w.cookie);
    expect(texts(page.text, "button[name=scope][value=all]")).toEqual(["Apply to all matching"]);
    const view = Object.fromEntries(attributes(page.text, "input[type=hidden][name^=view-]").map((input) => [input.name!, input.value!]));
    expect(view).toEqual({ "view-q": "tide" });
    const done = await bulk(w, { next: "/search?q=tide", action: "move", collectionId: String(w.music.id), scope: "all", ...view });
    expect(done.status).toBe(303);
    const inMusic = w.shelf.links.list({ sort: "name", collectionId: w.music.id }).links.map((l) => l.name);
    expect(inMusic).toHaveLength(45);
    expect(inMusic.every((name) => name.startsWith("Tide pool"))).toBe(true);
  });

  it("refuses all search results when they are more than 1,000, changing nothing", async () => {
    const w = await world();
    for (let i = 0; i < 1001; i++) w.shelf.links.create({ name: `Reef ${i}`, url: `https://reef.example/${i}`, favorite: false }, w.env.clock.now++);
    const before = snapshot(w.env);
    const refused = await bulk(w, { next: "/search?q=reef", action: "favorite", scope: "all", "view-q": "reef" });
    expect(refused.status).toBe(422);
    expect(texts(refused.text, "#bulk-error")[0]).toBe("More than 1,000 links match, and one action changes at most 1,000: narrow the view (a collection, favorites, broken links or search words), or act on a page at a time. Nothing was changed.");
    expect(texts(refused.text, "h1")).toEqual(["Search: “reef”"]);
    expect(snapshot(w.env)).toBe(before);
  });
});

describe("the keyboard shortcuts", () => {
  it("load on every signed-in page, with their help dialog and a CSP that lets this server's scripts run; never on pages without a user", async () => {
    const w = await world();
    for (const path of ["/", "/links", "/search?q=alpha", "/account", "/health", "/links/new", `/links/${w.ids.Alpha}`, "/collections/new", "/import", "/links/999999"]) {
      const page = await open(w.env, path, w.cookie);
      expect([path, page.text.includes('<script src="/assets/shortcuts.js" defer>'), texts(page.text, "dialog#shortcuts h2")]).toEqual([path, true, ["Keyboard shortcuts"]]);
      expect([path, page.headers.get("content-security-policy")]).toEqual([path, expect.stringContaining("script-src 'self'")]);
    }
    for (const path of ["/login", `/c/${w.reading.id}`]) {
      const page = await open(w.env, path);
      expect([path, page.text.includes("<script"), page.headers.get("content-security-policy")?.includes("script-src")]).toEqual([path, false, false]);
    }
  });
});

describe("the collection form's emoji picker", () => {
  async function created(env: TestEnv, as: TestUser, cookie: string, fields: Record<string, string>) {
    const response = await submit(env, "/collections", { name: "Picked", visibility: "PRIVATE", ...fields }, cookie);
    return { response, icon: new Shelf(env.db, as.user).collections.summaries().find((c) => c.name === "Picked")?.icon };
  }

  it("offers about 30 emoji as radio buttons beside the free field", async () => {
    const w = await world();
    const page = await open(w.env, "/collections/new", w.cookie);
    expect(attributes(page.text, "input[type=radio][name=icon-choice]").length).toBe(30);
    expect(attributes(page.text, "input#icon").length).toBe(1);
  });

  it("saves the chosen emoji", async () => {
    const w = await world();
    expect((await created(w.env, w.alice, w.cookie, { "icon-choice": "🎮" })).icon).toBe("🎮");
  });

  it("lets the typed icon win over the chosen one", async () => {
    const w = await world();
    expect((await created(w.env, w.alice, w.cookie, { "icon-choice": "🎮", icon: "🇫🇷" })).icon).toBe("🇫🇷");
  });

  it("refuses an icon that is not one emoji, with the message beside the field", async () => {
    const w = await world();
    const before = snapshot(w.env);
    const { response } = await created(w.env, w.alice, w.cookie, { "icon-choice": "🎮", icon: "abc" });
    expect(response.status).toBe(422);
    expect(errorOf(response.text, "icon")).toBeTruthy();
    expect(snapshot(w.env)).toBe(before);
  });
});
