/**
 * The signed-in web pages through `app.handle`: every page behind the session, every form
 * refused from another site, another user's ids answered 404, the services' validation
 * messages beside the fields with what was typed kept, and the database unchanged by every
 * refusal.
 */
import { describe, expect, it } from "bun:test";
import {
  chars, createCollection, createLink, createUser, get, inboxOf, makeEnv, put, snapshot, type TestEnv, type TestUser,
} from "../support/helpers";
import { attributes, cookieFor, errorOf, open, submit, texts, valueOf, type Fields } from "../support/html";
import { BAD_NAMES, GOOD_NAMES } from "../support/names.fixtures";
import { Shelf } from "../../src/shelf/shelf";

async function twoUsers() {
  const env = makeEnv();
  const alice = await createUser(env, { name: "Alice" });
  const bob = await createUser(env, { name: "Bob" });
  return { env, alice, bob, aliceCookie: cookieFor(env, alice), bobCookie: cookieFor(env, bob) };
}

/** A user with a collection and a link in it, and a second user with their own. */
async function world() {
  const users = await twoUsers();
  const { env, alice, bob } = users;
  const reading = await createCollection(env, alice, { name: "Reading", icon: "📚" });
  const link = await createLink(env, alice, { name: "Bun", url: "https://bun.example/", description: "fast", collectionIds: [reading.id] });
  const bobs = await createCollection(env, bob, { name: "Bob's" });
  const bobLink = await createLink(env, bob, { name: "Bob's link", url: "https://bob.example/", collectionIds: [bobs.id] });
  const bobToken = new Shelf(env.db, bob.user).tokens.create("bob's token", env.clock.now).info;
  return { ...users, reading, link, bobs, bobLink, bobToken, inbox: await inboxOf(env, alice) };
}

type World = Awaited<ReturnType<typeof world>>;

/** Every form of the pages, with valid fields, as the owner would send them. */
const FORMS = (w: World): { name: string; path: string; fields: Fields }[] => [
  { name: "add a link", path: "/links", fields: { name: "New", url: "https://new.example/", collectionIds: String(w.reading.id) } },
  { name: "edit a link", path: `/links/${w.link.id}`, fields: { name: "Renamed", url: "https://bun.example/", collectionIds: String(w.reading.id) } },
  { name: "delete a link", path: `/links/${w.link.id}/delete`, fields: {} },
  { name: "toggle a favorite", path: `/links/${w.link.id}/favorite`, fields: { next: "/" } },
  { name: "create a collection", path: "/collections", fields: { name: "Music", icon: "🎵", visibility: "PRIVATE" } },
  { name: "edit a collection", path: `/collections/${w.reading.id}`, fields: { name: "Books", icon: "📚", visibility: "PUBLIC" } },
  { name: "delete a collection", path: `/collections/${w.reading.id}/delete`, fields: {} },
  { name: "create a token", path: "/account/tokens", fields: { name: "script" } },
  { name: "revoke a token", path: `/account/tokens/${new Shelf(w.env.db, w.alice.user).tokens.list()[0]!.id}/revoke`, fields: {} },
  { name: "change the password", path: "/account/password", fields: { current: w.alice.password, password: "a new passphrase", confirm: "a new passphrase" } },
  { name: "restore from the trash", path: "/trash/restore", fields: { item: `link:${w.link.id}` } },
  { name: "empty the trash", path: "/trash/empty", fields: {} },
];

const PAGES = (w: World) => [
  "/", `/?collection=${w.reading.id}`, "/?view=favorites", "/search?q=bun", "/links/new", `/links/${w.link.id}/edit`,
  `/links/${w.link.id}/delete`, "/collections/new", `/collections/${w.reading.id}/edit`, `/collections/${w.reading.id}/delete`, "/account",
  "/trash", "/trash/empty",
];

describe("the session guard", () => {
  it("sends every page to the sign-in form without a session, with the page as next", async () => {
    const w = await world();
    for (const path of PAGES(w)) {
      const response = await open(w.env, path);
      expect({ path, status: response.status }).toEqual({ path, status: 303 });
      expect(response.headers.get("location")).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });

  it("shows every page to its signed-in owner", async () => {
    const w = await world();
    for (const path of PAGES(w)) {
      const response = await open(w.env, path, w.aliceCookie);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    }
  });

  it("refuses every form without a session (to the sign-in form) and changes nothing", async () => {
    const w = await world();
    for (const form of FORMS(w)) {
      const before = snapshot(w.env);
      const response = await submit(w.env, form.path, form.fields);
      expect({ form: form.name, status: response.status }).toEqual({ form: form.name, status: 303 });
      expect(response.headers.get("location")).toBe("/login?next=%2F");
      expect(snapshot(w.env)).toBe(before);
    }
  });

  it("refuses a session that was ended, as if there were none", async () => {
    const w = await world();
    await submit(w.env, "/logout", {}, w.aliceCookie);
    expect((await open(w.env, "/", w.aliceCookie)).status).toBe(303);
  });
});

describe("forms from another site", () => {
  const crossSite: [string, string | null, Record<string, string>][] = [
    ["another origin", "http://evil.test", {}],
    ["another port", "http://localhost:8080", {}],
    ["another scheme", "https://localhost", {}],
    ["a null origin (sandboxed frame)", "null", {}],
  ];
  for (const [label, origin] of crossSite) {
    it(`refuses every form with ${label}: 403 and nothing changed, even with a valid session`, async () => {
      const w = await world();
      for (const form of FORMS(w)) {
        const before = snapshot(w.env);
        const tokensBefore = new Shelf(w.env.db, w.alice.user).tokens.list();
        const response = await submit(w.env, form.path, form.fields, w.aliceCookie, origin);
        expect({ form: form.name, status: response.status }).toEqual({ form: form.name, status: 403 });
        expect(texts(response.text, "h1")).toEqual(["Request refused"]);
        expect(snapshot(w.env)).toBe(before);
        expect(new Shelf(w.env.db, w.alice.user).tokens.list()).toEqual(tokensBefore);
        expect(response.headers.getSetCookie()).toEqual([]);
      }
    });
  }

  it("refuses by Referer when there is no Origin", async () => {
    const w = await world();
    const before = snapshot(w.env);
    const response = await w.env.app.handle(new Request(`http://localhost/links/${w.link.id}/delete`, {
      method: "POST",
      headers: { cookie: w.aliceCookie, referer: "http://evil.test/page", "content-type": "application/x-www-form-urlencoded" },
      body: "",
    }));
    expect(response.status).toBe(403);
    expect(snapshot(w.env)).toBe(before);
  });
});

describe("another user's ids", () => {
  it("answer 404 on every page and form, the same as unknown ids, and change nothing", async () => {
    const w = await world();
    const foreign = [
      ["GET", `/links/${w.bobLink.id}/edit`], ["GET", `/links/${w.bobLink.id}/delete`],
      ["GET", `/collections/${w.bobs.id}/edit`], ["GET", `/collections/${w.bobs.id}/delete`], ["GET", `/?collection=${w.bobs.id}`],
      ["POST", `/links/${w.bobLink.id}`], ["POST", `/links/${w.bobLink.id}/delete`], ["POST", `/links/${w.bobLink.id}/favorite`],
      ["POST", `/collections/${w.bobs.id}`], ["POST", `/collections/${w.bobs.id}/delete`], ["POST", `/account/tokens/${w.bobToken.id}/revoke`],
    ];
    const unknown = (path: string) => path.replace(/\/(links|collections|tokens)\/\d+/, "/$1/999999").replace(/collection=\d+/, "collection=999999");
    const fields = { name: "Taken", url: "https://evil.example/", icon: "😈", visibility: "PUBLIC", collectionIds: String(w.reading.id) };
    for (const [method, path] of foreign) {
      for (const target of [path!, unknown(path!), path!.replace(/\d+/, "abc")]) {
        const before = snapshot(w.env);
        const response = method === "GET" ? await open(w.env, target, w.aliceCookie) : await submit(w.env, target, fields, w.aliceCookie);
        expect({ target, status: response.status }).toEqual({ target, status: 404 });
        expect(texts(response.text, "h1")).toEqual(["Not found"]);
        expect(response.text).not.toContain("Bob's");
        expect(snapshot(w.env)).toBe(before);
      }
    }
    expect(new Shelf(w.env.db, w.bob.user).tokens.list()).toHaveLength(2);
  });

  it("reads ?collection= on the home page like an id in a path: any other spelling of a real id is the 404 page", async () => {
    const w = await world();
    const id = w.reading.id;
    expect((await open(w.env, `/?collection=${id}`, w.aliceCookie)).status).toBe(200);
    for (const spelling of [`${id}e0`, `${id}.0`, `0x${id.toString(16)}`, `%2B${id}`, `%20${id}`, `${id}%20`, `0${id}`, ""]) {
      const response = await open(w.env, `/?collection=${spelling}`, w.aliceCookie);
      expect({ spelling, status: response.status }).toEqual({ spelling, status: 404 });
      expect(texts(response.text, "h1")).toEqual(["Not found"]);
    }
  });

  it("cannot put a link into another user's collection: the API's message beside the field", async () => {
    const w = await world();
    const before = snapshot(w.env);
    const response = await submit(w.env, "/links", { name: "Mine", url: "https://mine.example/", collectionIds: [String(w.reading.id), String(w.bobs.id)] }, w.aliceCookie);
    expect(response.status).toBe(422);
    expect(errorOf(response.text, "collectionIds")).toBe("Expected ids of your own collections");
    expect(response.text).not.toContain("Bob's");
    expect(snapshot(w.env)).toBe(before);
  });
});

describe("link forms", () => {
  it("adds a link to the ticked collections, favorite when ticked, then 303s back with a notice", async () => {
    const w = await world();
    const music = await createCollection(w.env, w.alice, { name: "Music" });
    const response = await submit(w.env, "/links", {
      name: "  Song ", url: "https://song.example/", description: "la", favorite: "on",
      collectionIds: [String(music.id), String(w.reading.id), String(music.id)], next: `/?collection=${music.id}`,
    }, w.aliceCookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/?collection=${music.id}&done=link-added`);
    const created = (await get(w.env, "/api/v1/links?q=song", { token: w.alice.token })).body.links[0];
    expect(created).toMatchObject({ name: "Song", url: "https://song.example/", description: "la", favorite: true, collectionIds: [w.reading.id, music.id].sort((a, b) => a - b) });
    const page = await open(w.env, response.headers.get("location")!, w.aliceCookie);
    expect(texts(page.text, "[role=status]")).toEqual(["Link added."]);
    expect(texts(page.text, ".links .title")).toEqual(["Song"]);
  });

  it("puts a link with no collection ticked in the Inbox", async () => {
    const w = await world();
    await submit(w.env, "/links", { name: "Loose", url: "https://loose.example/" }, w.aliceCookie);
    const created = (await get(w.env, "/api/v1/links?q=loose", { token: w.alice.token })).body.links[0];
    expect(created).toMatchObject({ favorite: false, collectionIds: [w.inbox] });
  });

  const refusals: { name: string; fields: Fields; errors: Record<string, string> }[] = [
    { name: "an empty name", fields: { name: "   ", url: "https://ok.example/" }, errors: { name: "Expected 1-254 characters" } },
    { name: "a name too long", fields: { name: chars(255, "é"), url: "https://ok.example/" }, errors: { name: "Expected 1-254 characters" } },
    { name: "a javascript: URL", fields: { name: "x", url: "javascript:alert(1)" }, errors: { url: "Expected an absolute http or https URL of at most 2048 characters" } },
    { name: "a relative URL", fields: { name: "x", url: "/relative" }, errors: { url: "Expected an absolute http or https URL of at most 2048 characters" } },
    { name: "a description too long", fields: { name: "x", url: "https://ok.example/", description: chars(301) }, errors: { description: "Expected at most 300 characters" } },
    { name: "a collection id that is not a number", fields: { name: "x", url: "https://ok.example/", collectionIds: "1 OR 1" }, errors: { collectionIds: "Expected ids of your own collections" } },
    { name: "an unknown collection", fields: { name: "x", url: "https://ok.example/", collectionIds: "999999" }, errors: { collectionIds: "Expected ids of your own collections" } },
    {
      name: "everything wrong at once",
      fields: { name: "", url: "data:text/html,hi", description: chars(301), collectionIds: "999999" },
      errors: { name: "Expected 1-254 characters", url: "Expected an absolute http or https URL of at most 2048 characters", description: "Expected at most 300 characters", collectionIds: "Expected ids of your own collections" },
    },
  ];
  for (const target of ["add", "edit"] as const) {
    // A new link left without a name, at a valid URL, is named after its address (test/app/links.new.pages.test.ts).
    for (const refusal of refusals.filter((one) => target === "edit" || one.name !== "an empty name")) {
      it(`${target}: refuses ${refusal.name} with the API's messages beside the fields, keeps what was typed, changes nothing`, async () => {
        const w = await world();
        const path = target === "add" ? "/links" : `/links/${w.link.id}`;
        const before = snapshot(w.env);
        const response = await submit(w.env, path, { ...refusal.fields, favorite: "on", next: "/?view=favorites" }, w.aliceCookie);
        expect(response.status).toBe(422);
        expect(snapshot(w.env)).toBe(before);
        expect(texts(response.text, "[role=alert]")).toEqual([`The link was not saved: check the ${Object.keys(refusal.errors).length === 1 ? "field" : "fields"} marked below.`]);
        for (const [field, message] of Object.entries(refusal.errors)) {
          expect(errorOf(response.text, field)).toBe(message);
          const control = attributes(response.text, field === "collectionIds" ? "fieldset" : `#${field}`)[0]!;
          expect(control["aria-invalid"]).toBe("true");
          expect(control["aria-describedby"]).toContain(`${field}-error`);
        }
        for (const field of ["name", "url", "description"]) {
          if (field in refusal.errors) continue;
          expect(errorOf(response.text, field)).toBeUndefined();
        }
        expect(valueOf(response.text, "name")).toBe(String(refusal.fields.name));
        expect(valueOf(response.text, "url")).toBe(String(refusal.fields.url));
        expect(texts(response.text, "textarea#description")).toEqual([String(refusal.fields.description ?? "")]);
        expect(attributes(response.text, "input[name=favorite]")[0]).toHaveProperty("checked");
        expect(attributes(response.text, "input[name=next]")[0]!.value).toBe("/?view=favorites");
      });
    }
  }

  it("edits a link: fields replaced, 303 to next", async () => {
    const w = await world();
    const response = await submit(w.env, `/links/${w.link.id}`, { name: "Bun docs", url: "https://bun.example/docs", description: "", next: `/?collection=${w.reading.id}` }, w.aliceCookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/?collection=${w.reading.id}&done=link-saved`);
    const saved = (await get(w.env, `/api/v1/links/${w.link.id}`, { token: w.alice.token })).body.link;
    expect(saved).toMatchObject({ name: "Bun docs", url: "https://bun.example/docs", description: "", favorite: false, collectionIds: [w.inbox] });
  });

  it("shows the stored link in the edit form", async () => {
    const w = await world();
    const page = await open(w.env, `/links/${w.link.id}/edit`, w.aliceCookie);
    expect(valueOf(page.text, "name")).toBe("Bun");
    expect(valueOf(page.text, "url")).toBe("https://bun.example/");
    expect(texts(page.text, "textarea#description")).toEqual(["fast"]);
    const ticked = attributes(page.text, "input[name=collectionIds]").filter((box) => "checked" in box).map((box) => Number(box.value));
    expect(ticked).toEqual([w.reading.id]);
  });

  it("never sends a form off this server through next", async () => {
    const w = await world();
    const response = await submit(w.env, "/links", { name: "x", url: "https://x.example/", next: "//evil.test/" }, w.aliceCookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/?done=link-added");
    const refused = await submit(w.env, "/links", { name: "", url: "https://x.example/", next: "javascript:alert(1)" }, w.aliceCookie);
    expect(attributes(refused.text, "input[name=next]")[0]!.value).toBe("/");
  });

  it("toggles a favorite and comes back to the list it was on", async () => {
    const w = await world();
    const first = await submit(w.env, `/links/${w.link.id}/favorite`, { next: "/search?q=bun" }, w.aliceCookie);
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/search?q=bun");
    expect((await get(w.env, `/api/v1/links/${w.link.id}`, { token: w.alice.token })).body.link).toMatchObject({ favorite: true, description: "fast", collectionIds: [w.reading.id] });
    await submit(w.env, `/links/${w.link.id}/favorite`, { next: "/" }, w.aliceCookie);
    expect((await get(w.env, `/api/v1/links/${w.link.id}`, { token: w.alice.token })).body.link.favorite).toBe(false);
  });

  it("deletes a link only through the confirmation form", async () => {
    const w = await world();
    const confirm = await open(w.env, `/links/${w.link.id}/delete`, w.aliceCookie);
    expect(texts(confirm.text, "h1")).toEqual(["Delete this link?"]);
    expect(attributes(confirm.text, "main form")[0]).toMatchObject({ method: "post", action: `/links/${w.link.id}/delete` });
    expect((await get(w.env, `/api/v1/links/${w.link.id}`, { token: w.alice.token })).status).toBe(200);
    const response = await submit(w.env, `/links/${w.link.id}/delete`, { next: `/?collection=${w.reading.id}` }, w.aliceCookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/?collection=${w.reading.id}&done=link-trashed`);
    expect((await get(w.env, `/api/v1/links/${w.link.id}`, { token: w.alice.token })).status).toBe(404);
  });

  it("pre-ticks the collection the form was opened from", async () => {
    const w = await world();
    const page = await open(w.env, `/links/new?collection=${w.reading.id}`, w.aliceCookie);
    const ticked = attributes(page.text, "input[name=collectionIds]").filter((box) => "checked" in box).map((box) => Number(box.value));
    expect(ticked).toEqual([w.reading.id]);
    const foreign = await open(w.env, `/links/new?collection=${w.bobs.id}`, w.aliceCookie);
    expect(attributes(foreign.text, "input[name=collectionIds]").filter((box) => "checked" in box)).toEqual([]);
  });
});

describe("collection forms", () => {
  it("creates a collection with an emoji icon and visibility, then shows it", async () => {
    const w = await world();
    const response = await submit(w.env, "/collections", { name: "Music", description: "tunes", icon: "🎵", visibility: "PUBLIC" }, w.aliceCookie);
    expect(response.status).toBe(303);
    const id = Number(/collection=(\d+)/.exec(response.headers.get("location")!)![1]);
    expect(response.headers.get("location")).toBe(`/?collection=${id}&done=collection-created`);
    const stored = (await get(w.env, `/api/v1/collections/${id}`, { token: w.alice.token })).body.collection;
    expect(stored).toMatchObject({ name: "Music", description: "tunes", icon: "🎵", visibility: "PUBLIC", isDefault: false });
  });

  it("gives an empty icon the default icon", async () => {
    const w = await world();
    const response = await submit(w.env, "/collections", { name: "Plain", icon: "", visibility: "PRIVATE" }, w.aliceCookie);
    const id = Number(/collection=(\d+)/.exec(response.headers.get("location")!)![1]);
    expect((await get(w.env, `/api/v1/collections/${id}`, { token: w.alice.token })).body.collection.icon).toBe("📁");
  });

  const refusals: { name: string; fields: Fields; errors: Record<string, string> }[] = [
    { name: "an empty name", fields: { name: "", icon: "🎵", visibility: "PRIVATE" }, errors: { name: "Expected 1-254 characters" } },
    { name: "two emoji", fields: { name: "x", icon: "🎵🎵", visibility: "PRIVATE" }, errors: { icon: "Expected one emoji" } },
    { name: "a letter for an icon", fields: { name: "x", icon: "M", visibility: "PRIVATE" }, errors: { icon: "Expected one emoji" } },
    { name: "a description too long", fields: { name: "x", description: chars(255), visibility: "PUBLIC" }, errors: { description: "Expected at most 254 characters" } },
    { name: "an unknown visibility", fields: { name: "x", visibility: "SECRET" }, errors: { visibility: "Expected PUBLIC or PRIVATE" } },
    { name: "no visibility", fields: { name: "x" }, errors: { visibility: "Expected PUBLIC or PRIVATE" } },
    { name: "name and icon wrong at once", fields: { name: " ", icon: "abc", visibility: "PUBLIC" }, errors: { name: "Expected 1-254 characters", icon: "Expected one emoji" } },
  ];
  for (const target of ["create", "edit"] as const) {
    for (const refusal of refusals) {
      it(`${target}: refuses ${refusal.name} with the API's messages, keeps what was typed, changes nothing`, async () => {
        const w = await world();
        const path = target === "create" ? "/collections" : `/collections/${w.reading.id}`;
        const before = snapshot(w.env);
        const response = await submit(w.env, path, refusal.fields, w.aliceCookie);
        expect(response.status).toBe(422);
        expect(snapshot(w.env)).toBe(before);
        for (const [field, message] of Object.entries(refusal.errors)) expect(errorOf(response.text, field)).toBe(message);
        expect(valueOf(response.text, "name")).toBe(String(refusal.fields.name));
        expect(valueOf(response.text, "icon")).toBe(String(refusal.fields.icon ?? ""));
        expect(texts(response.text, "textarea#description")).toEqual([String(refusal.fields.description ?? "")]);
        const checked = attributes(response.text, "input[name=visibility]").filter((radio) => "checked" in radio).map((radio) => radio.value);
        expect(checked).toEqual(refusal.fields.visibility === "PUBLIC" || refusal.fields.visibility === "PRIVATE" ? [refusal.fields.visibility] : []);
      });
    }
  }

  it("edits a collection and clears its description", async () => {
    const w = await world();
    const response = await submit(w.env, `/collections/${w.reading.id}`, { name: "Books", description: "", icon: "📖", visibility: "PUBLIC" }, w.aliceCookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/?collection=${w.reading.id}&done=collection-saved`);
    expect((await get(w.env, `/api/v1/collections/${w.reading.id}`, { token: w.alice.token })).body.collection)
      .toMatchObject({ name: "Books", description: null, icon: "📖", visibility: "PUBLIC" });
  });

  it("deletes a collection through the confirmation form; its only-there links move to the Inbox", async () => {
    const w = await world();
    const confirm = await open(w.env, `/collections/${w.reading.id}/delete`, w.aliceCookie);
    expect(texts(confirm.text, "h1")).toEqual(["Delete this collection?"]);
    expect(confirm.text).toContain("Its 1 link stay");
    const response = await submit(w.env, `/collections/${w.reading.id}/delete`, {}, w.aliceCookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/?done=collection-trashed");
    expect((await get(w.env, `/api/v1/collections/${w.reading.id}`, { token: w.alice.token })).status).toBe(404);
    expect((await get(w.env, `/api/v1/links/${w.link.id}`, { token: w.alice.token })).body.link.collectionIds).toEqual([w.inbox]);
  });

  it("refuses to delete the Inbox (409) and offers no delete link for it", async () => {
    const w = await world();
    const edit = await open(w.env, `/collections/${w.inbox}/edit`, w.aliceCookie);
    expect(attributes(edit.text, `a[href="/collections/${w.inbox}/delete"]`)).toEqual([]);
    expect((await open(w.env, `/collections/${w.inbox}/delete`, w.aliceCookie)).status).toBe(409);
    const before = snapshot(w.env);
    const response = await submit(w.env, `/collections/${w.inbox}/delete`, {}, w.aliceCookie);
    expect(response.status).toBe(409);
    expect(texts(response.text, "p")).toContain("The Inbox collection cannot be deleted.");
    expect(snapshot(w.env)).toBe(before);
  });
});

describe("the home page", () => {
  it("lists the collections with icon, name, visibility and link count, Inbox first", async () => {
    const w = await world();
    await createCollection(w.env, w.alice, { name: "art", icon: "🎨", visibility: "PUBLIC" });
    const page = await open(w.env, "/", w.aliceCookie);
    const items = texts(page.text, ".sidebar a.item").map((text) => text.replace(/\s+/g, " "));
    expect(items).toEqual([
      "☰All links",
      "★Favorites",
      "📥 Inbox private, links: 0",
      "📚 Reading private, links: 1",
      "🎨 art Public links: 0",
    ]);
    expect(attributes(page.text, "a.item[aria-current=page]")[0]!.href).toBe(`/?collection=${w.inbox}`);
  });

  it("shows a link with its favicon (through /favicon, lazy), name through /l/:id, host, description, clicks and last click", async () => {
    const w = await world();
    await w.env.app.handle(new Request(`http://localhost/l/${w.link.id}`, { headers: { cookie: w.aliceCookie } }));
    const page = await open(w.env, `/?collection=${w.reading.id}`, w.aliceCookie);
    expect(attributes(page.text, ".links img")).toEqual([expect.objectContaining({ src: "/favicon?url=https%3A%2F%2Fbun.example", loading: "lazy", alt: "" })]);
    expect(attributes(page.text, ".links a.title")[0]!.href).toBe(`/l/${w.link.id}`);
    expect(texts(page.text, ".links .host")).toEqual(["bun.example"]);
    expect(texts(page.text, ".links .description")).toEqual(["fast"]);
    expect(texts(page.text, ".links .meta")[0]).toMatch(/^1 click · last click Nov 22, 2026$/);
    expect(attributes(page.text, ".links time")[0]!.datetime).toMatch(/^2026-11-22T05:52:24\.\d{3}Z$/);
  });

  it("escapes whatever a link or collection is called", async () => {
    const w = await world();
    await createCollection(w.env, w.alice, { name: "<img src=x onerror=alert(1)>" });
    await createLink(w.env, w.alice, { name: "<script>alert('x')</script>", url: "https://x.example/?a=1&b=\"2\"", description: "<b>bold</b>" });
    const page = await open(w.env, "/", w.aliceCookie);
    expect(page.text).not.toContain("<script>alert");
    expect(page.text).not.toContain("<img src=x");
    expect(page.text).not.toContain("<b>bold");
    expect(texts(page.text, ".links .title")).toEqual(["<script>alert('x')</script>"]);
  });

  it("ranks the favorites exactly as the extension pins them", async () => {
    const w = await world();
    const a = await createLink(w.env, w.alice, { name: "A", url: "https://a.example/", favorite: true });
    const b = await createLink(w.env, w.alice, { name: "B", url: "https://b.example/", favorite: true });
    await createLink(w.env, w.alice, { name: "C", url: "https://c.example/", favorite: false });
    const d = await createLink(w.env, w.alice, { name: "D", url: "https://d.example/", favorite: true });
    for (const id of [b.id, b.id, d.id]) await w.env.app.handle(new Request(`http://localhost/l/${id}`, { headers: { cookie: w.aliceCookie } }));
    const pinned = (await get(w.env, "/api/v1/links/favorites", { token: w.alice.token })).body.map((link: { name: string }) => link.name);
    expect(pinned).toEqual(["B", "D", "A"]);
    expect(a.id).toBeLessThan(d.id);
    const page = await open(w.env, "/?view=favorites", w.aliceCookie);
    expect(texts(page.text, ".links .title")).toEqual(pinned);
  });

  it("sends a search at the home page's address (earlier versions' search box) to the search page", async () => {
    const w = await world();
    const page = await open(w.env, "/?q=%20zebra%20%26%20co%20", w.aliceCookie);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/search?q=zebra+%26+co");
    expect(attributes((await open(w.env, "/", w.aliceCookie)).text, "form[role=search]")).toEqual([expect.objectContaining({ action: "/search", method: "get" })]);
  });

  it("pages a big collection 50 at a time, in its own order by default or newest first, without gaps or repeats", async () => {
    const w = await world();
    for (let i = 0; i < 119; i++) await createLink(w.env, w.alice, { name: `L${i}`, url: `https://l${i}.example/`, collectionIds: [w.reading.id] });
    const read = async (start: string) => {
      const seen: string[] = [];
      const sizes: number[] = [];
      for (let path: string | undefined = start; path;) {
        const page = await open(w.env, path, w.aliceCookie);
        const names = texts(page.text, ".links .title");
        sizes.push(names.length);
        seen.push(...names);
        path = attributes(page.text, ".pager a[rel=next]")[0]?.href;
      }
      return { sizes, seen };
    };
    const inOrder = ["Bun", ...Array.from({ length: 119 }, (_, i) => `L${i}`)];
    expect(await read(`/?collection=${w.reading.id}`)).toEqual({ sizes: [50, 50, 20], seen: inOrder });
    expect(await read(`/?collection=${w.reading.id}&sort=newest`)).toEqual({ sizes: [50, 50, 20], seen: inOrder.toReversed() });
  });

  it("runs a fixed number of queries however many collections and links there are", async () => {
    const counts: Record<string, number[]> = {};
    for (const size of [1, 30]) {
      const w = await world();
      await put(w.env, `/api/v1/collections/${w.reading.id}`, { token: w.alice.token, body: { name: "Reading", visibility: "PUBLIC" } });
      const extra = [];
      for (let i = 0; i < size; i++) extra.push(await createCollection(w.env, w.alice, { name: `C${i}` }));
      for (let i = 0; i < size * 3; i++) {
        await createLink(w.env, w.alice, { name: `L${i}`, url: `https://l${i}.example/`, favorite: i % 2 === 0, collectionIds: [w.reading.id, extra[i % size].id] });
      }
      for (const path of ["/", `/?collection=${w.reading.id}`, "/?view=favorites", "/search?q=example", `/links/${w.link.id}/edit`, `/c/${w.reading.id}`]) {
        w.env.queries.length = 0;
        await open(w.env, path, w.aliceCookie);
        (counts[path.replace(/\d+/g, "N")] ??= []).push(w.env.queries.length);
      }
    }
    for (const [path, [small, large]] of Object.entries(counts)) {
      expect(small).toBeGreaterThan(1);
      expect({ path, large }).toEqual({ path, large: small! });
    }
  });

  it("reads a tampered page number as the first page, and says so past the end", async () => {
    const w = await world();
    const garbage = await open(w.env, `/?collection=${w.reading.id}&page=garbage&sort=nonsense`, w.aliceCookie);
    expect(texts(garbage.text, ".links .title")).toEqual(["Bun"]);
    expect(attributes(garbage.text, "#sort option[selected]").map((option) => option.value)).toEqual(["order"]);
    const past = await open(w.env, `/?collection=${w.reading.id}&page=9`, w.aliceCookie);
    expect(texts(past.text, ".empty")).toEqual(["No more links: this page is past the end."]);
  });

  it("shows only notices it knows (the text never comes from the address)", async () => {
    const w = await world();
    const page = await open(w.env, "/?done=Your%20account%20is%20locked", w.aliceCookie);
    expect(texts(page.text, "[role=status]")).toEqual([]);
    expect(page.text).not.toContain("locked");
  });
});

describe("the account page", () => {
  it("creates a token and shows it once, to its owner only", async () => {
    const w = await world();
    const response = await submit(w.env, "/account/tokens", { name: " laptop " }, w.aliceCookie);
    expect(response.status).toBe(303);
    const location = response.headers.get("location")!;
    expect(location).toMatch(/^\/account\?token=[0-9a-f-]{36}$/);
    expect(location).not.toContain("lks_");
    const bobTries = await open(w.env, location, w.bobCookie);
    expect(bobTries.text).not.toContain("lks_");
    const shown = await open(w.env, location, w.aliceCookie);
    const token = valueOf(shown.text, "new-token")!;
    expect(token).toMatch(/^lks_[A-Za-z0-9_-]{43}$/);
    expect(attributes(shown.text, "button[data-copy=new-token]")).toHaveLength(1);
    expect(shown.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect((await get(w.env, "/api/v1/links", { token })).status).toBe(200);
    expect(new Shelf(w.env.db, w.alice.user).tokens.list().map((t) => t.name)).toContain("laptop");
    const again = await open(w.env, location, w.aliceCookie);
    expect(again.text).not.toContain(token);
    expect(again.text).not.toContain("lks_");
  });

  it("refuses an empty or too long token name, keeps what was typed, mints nothing", async () => {
    const w = await world();
    for (const name of ["  ", chars(101)]) {
      const before = new Shelf(w.env.db, w.alice.user).tokens.list();
      const response = await submit(w.env, "/account/tokens", { name }, w.aliceCookie);
      expect(response.status).toBe(422);
      expect(errorOf(response.text, "token-name")).toBe("Expected 1-100 characters");
      expect(valueOf(response.text, "token-name")).toBe(name);
      expect(new Shelf(w.env.db, w.alice.user).tokens.list()).toEqual(before);
    }
  });

  it("lists tokens without the secret and revokes one", async () => {
    const w = await world();
    const page = await open(w.env, "/account", w.aliceCookie);
    expect(texts(page.text, "tbody td:first-child")).toEqual(["test"]);
    expect(page.text).not.toContain(w.alice.token);
    const id = new Shelf(w.env.db, w.alice.user).tokens.list()[0]!.id;
    const response = await submit(w.env, `/account/tokens/${id}/revoke`, {}, w.aliceCookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/account?done=token-revoked");
    expect(new Shelf(w.env.db, w.alice.user).tokens.list()).toEqual([]);
    expect((await get(w.env, "/api/v1/links", { token: w.alice.token })).status).toBe(401);
  });

  it("changes the password: other sessions end, this browser gets a new session, the new password signs in", async () => {
    const w = await world();
    const otherDevice = cookieFor(w.env, w.alice);
    const response = await submit(w.env, "/account/password", { current: w.alice.password, password: "a brand new passphrase", confirm: "a brand new passphrase" }, w.aliceCookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/account?done=password-changed");
    const fresh = response.headers.getSetCookie().find((line) => line.startsWith("linkshelf_session="))!.split(";")[0]!;
    expect((await open(w.env, "/account", otherDevice)).status).toBe(303);
    expect((await open(w.env, "/account", w.aliceCookie)).status).toBe(303);
    const after = await open(w.env, "/account?done=password-changed", fresh);
    expect(after.status).toBe(200);
    expect(texts(after.text, "[role=status]")).toEqual(["Password changed. Every other browser and device was signed out."]);
    expect((await open(w.env, "/", w.bobCookie)).status).toBe(200);
    const signIn = await submit(w.env, "/login", { email: w.alice.user.email, password: "a brand new passphrase" });
    expect(signIn.status).toBe(303);
  });

  const passwordRefusals: { name: string; fields: Fields; errors: Record<string, string> }[] = [
    { name: "a wrong current password", fields: { current: "not it at all", password: "a new passphrase", confirm: "a new passphrase" }, errors: { current: "The current password is not right" } },
    { name: "a short new password", fields: { current: "correct horse battery", password: "tiny7ch", confirm: "tiny7ch" }, errors: { password: "Expected at least 8 characters" } },
    { name: "a confirmation that differs", fields: { current: "correct horse battery", password: "a new passphrase", confirm: "a new passphrasf" }, errors: { confirm: "The two new passwords differ" } },
    { name: "everything wrong", fields: { current: "", password: "x", confirm: "y" }, errors: { current: "The current password is not right", password: "Expected at least 8 characters", confirm: "The two new passwords differ" } },
  ];
  for (const refusal of passwordRefusals) {
    it(`refuses ${refusal.name}, never echoes a password, changes nothing`, async () => {
      const w = await world();
      const before = snapshot(w.env);
      const response = await submit(w.env, "/account/password", refusal.fields, w.aliceCookie);
      expect(response.status).toBe(422);
      for (const [field, message] of Object.entries(refusal.errors)) expect(errorOf(response.text, field)).toBe(message);
      for (const id of ["current", "password", "confirm"]) expect(valueOf(response.text, id)).toBe("");
      for (const typed of Object.values(refusal.fields)) if (String(typed).length > 2) expect(response.text).not.toContain(String(typed));
      expect(snapshot(w.env)).toBe(before);
      expect(response.headers.getSetCookie()).toEqual([]);
    });
  }

  it("locks the password form for 15 minutes after 10 wrong current passwords, even for the right one", async () => {
    const w = await world();
    const wrong = { current: "not the password", password: "a brand new passphrase", confirm: "a brand new passphrase" };
    for (let i = 0; i < 10; i++) expect((await submit(w.env, "/account/password", wrong, w.aliceCookie)).status).toBe(422);
    const before = snapshot(w.env);
    const right = { ...wrong, current: w.alice.password };
    const locked = await submit(w.env, "/account/password", right, w.aliceCookie);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(snapshot(w.env)).toBe(before);
    // The address is spent too: it shares sign-in's budget of 10 per address (other addresses: test/app/throttle.test.ts).
    const bobs = await submit(w.env, "/account/password", { ...right, current: w.bob.password }, w.bobCookie);
    expect(bobs.status).toBe(429);
    w.env.clock.now += 15 * 60 * 1000;
    const fresh = cookieFor(w.env, w.alice);
    expect((await submit(w.env, "/account/password", right, fresh)).status).toBe(303);
  });

  it("serves the copy script as JavaScript from this server", async () => {
    const env = makeEnv();
    const response = await env.app.handle(new Request("http://localhost/assets/account.js"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await response.text()).toContain("data-copy");
  });
});

describe("names on the forms", () => {
  // A form field cannot carry a lone surrogate (the browser sends U+FFFD), so the forms test the rest.
  const refused = BAD_NAMES.filter(([label]) => label !== "a lone surrogate");

  it.each(refused)("refuses a link, collection or token name with %s: the API's message beside the field, nothing stored", async (_label, name, message) => {
    const w = await world();
    const forms: { path: string; fields: Fields; field: string }[] = [
      { path: "/links", fields: { name, url: "https://new.example/" }, field: "name" },
      { path: `/links/${w.link.id}`, fields: { name, url: "https://bun.example/" }, field: "name" },
      { path: "/collections", fields: { name, visibility: "PRIVATE" }, field: "name" },
      { path: `/collections/${w.reading.id}`, fields: { name, visibility: "PRIVATE" }, field: "name" },
      { path: "/account/tokens", fields: { name }, field: "token-name" },
    ];
    for (const form of forms) {
      const before = snapshot(w.env);
      const response = await submit(w.env, form.path, form.fields, w.aliceCookie);
      expect({ path: form.path, status: response.status }).toEqual({ path: form.path, status: 422 });
      expect(errorOf(response.text, form.field)).toBe(message);
      expect(snapshot(w.env)).toBe(before);
    }
  });

  it.each(Object.entries(GOOD_NAMES))("saves a link, collection and token named with %s", async (_label, name) => {
    const w = await world();
    expect((await submit(w.env, "/links", { name, url: "https://new.example/" }, w.aliceCookie)).status).toBe(303);
    expect((await submit(w.env, "/collections", { name, visibility: "PRIVATE" }, w.aliceCookie)).status).toBe(303);
    expect((await submit(w.env, "/account/tokens", { name }, w.aliceCookie)).status).toBe(303);
    expect(new Shelf(w.env.db, w.alice.user).tokens.list().map((token) => token.name)).toContain(name.trim());
  });
});
