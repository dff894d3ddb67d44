/**
 * The search page, `/search?q=`, through `app.handle`: the shelf's full-text search (the one the
 * API answers with) drawn as a page: hits in the API's order, matched words highlighted and the
 * page's own text escaped, each hit's collections, where its snippet came from, paging, filters,
 * a refused query beside the box, and never another user's links.
 */
import { describe, expect, it } from "bun:test";
import { createCollection, createLink, createUser, get, inboxOf, makeEnv, put, snapshot, type TestEnv, type TestUser } from "../support/helpers";
import { attributes, cookieFor, open, texts, valueOf } from "../support/html";

async function twoUsers() {
  const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" });
  const alice = await createUser(env, { name: "Alice" });
  const bob = await createUser(env, { name: "Bob" });
  return { env, alice, bob, aliceCookie: cookieFor(env, alice), bobCookie: cookieFor(env, bob) };
}

/** saveText stores a link's page text as the browser extension does. */
async function saveText(env: TestEnv, as: TestUser, linkId: number, text: string, title?: string) {
  const response = await put(env, `/api/v1/links/${linkId}/content`, { token: as.token, body: { text, title } });
  expect(response.status).toBe(200);
}

/** The raw markup of every snippet paragraph of a page (the label's badge included). */
const snippetMarkup = (page: string) => [...page.matchAll(/<p class="snippet">([\s\S]*?)<\/p>/g)].map((match) => match[1]!);

describe("the search page", () => {
  it("shows the hits in the API's order: a name match above a description match above a match in page text only", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    const inText = await createLink(env, alice, { name: "Kitchen notes", url: "https://notes.example/" });
    await saveText(env, alice, inText.id, "How to warm a teapot before the tea goes in.");
    await createLink(env, alice, { name: "Shop", url: "https://shop.example/", description: "Sells a teapot or two" });
    await createLink(env, alice, { name: "Teapot museum", url: "https://museum.example/" });
    await createLink(env, alice, { name: "Unrelated", url: "https://other.example/" });

    const page = await open(env, "/search?q=teapot", aliceCookie);
    expect(page.status).toBe(200);
    expect(texts(page.text, "h1")).toEqual(["Search: “teapot”"]);
    expect(texts(page.text, "ol.links > li .title")).toEqual(["Teapot museum", "Shop", "Kitchen notes"]);
    const api = await get(env, "/api/v1/search?q=teapot", { token: alice.token });
    expect(texts(page.text, "ol.links > li .title")).toEqual(api.body.hits.map((hit: { link: { name: string } }) => hit.link.name));
    // Each name opens the page through /l/:id (a counted click); each hit has its own page and edit form.
    expect(attributes(page.text, "ol.links > li .title").map((a) => a.href)).toEqual(api.body.hits.map((hit: { link: { id: number } }) => `/l/${hit.link.id}`));
    expect(attributes(page.text, "ol.links .row-actions a").map((a) => a.href)).toContain(`/links/${inText.id}`);
    expect(texts(page.text, "ol.links .host")).toEqual(["https://museum.example/", "https://shop.example/", "https://notes.example/"]);
    // Both search boxes hold the words.
    expect(valueOf(page.text, "search")).toBe("teapot");
    expect(valueOf(page.text, "q")).toBe("teapot");
  });

  it("marks the matched words, and shows the page's own markup and entities as text", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    const link = await createLink(env, alice, { name: "A <b>bold</b> & name", url: "https://hostile.example/?a=1&b=<x>" });
    await saveText(env, alice, link.id, `<script>alert("teapot")</script> the teapot &lt;i&gt; "quoted" 'single'`);

    const page = await open(env, "/search?q=teapot", aliceCookie);
    const [snippet] = snippetMarkup(page.text);
    expect(snippet).toBe(`<span class="badge from">in page text</span>&lt;script&gt;alert(&quot;<mark>teapot</mark>&quot;)&lt;/script&gt; the <mark>teapot</mark> &amp;lt;i&amp;gt; &quot;quoted&quot; &#39;single&#39;`);
    expect(texts(page.text, ".snippet mark")).toEqual(["teapot", "teapot"]);
    expect(texts(page.text, ".snippet")).toEqual([`in page text<script>alert("teapot")</script> the teapot &lt;i&gt; "quoted" 'single'`]);
    expect(page.text).not.toContain("<script>");
    expect(page.text).not.toContain("<b>bold");
    expect(texts(page.text, "ol.links .title")).toEqual(["A <b>bold</b> & name"]);
    expect(texts(page.text, "ol.links .host")).toEqual(["https://hostile.example/?a=1&b=<x>"]);
  });

  it("highlights a match in the name or the URL there, and one in the description in the description", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    await createLink(env, alice, { name: "Zebra crossing", url: "https://a.example/" });
    await createLink(env, alice, { name: "Stripes", url: "https://zebra.example/" });
    await createLink(env, alice, { name: "Savanna", url: "https://c.example/", description: "A <zebra> herd" });

    const page = await open(env, "/search?q=zebra", aliceCookie);
    expect(texts(page.text, "ol.links .title mark")).toEqual(["Zebra"]);
    expect(texts(page.text, "ol.links .host mark")).toEqual(["zebra"]);
    expect(texts(page.text, "ol.links .description mark")).toEqual(["zebra"]);
    expect(texts(page.text, "ol.links .description")).toEqual(["A <zebra> herd"]);
    // Nothing came from saved page text: no snippet paragraph, no "in page text".
    expect(snippetMarkup(page.text)).toEqual([]);
    expect(page.text).not.toContain("in page text");
  });

  it("says \"in page text\" only for a hit whose snippet came from the saved page text", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    const byText = await createLink(env, alice, { name: "Recipes", url: "https://recipes.example/" });
    await saveText(env, alice, byText.id, "Brew the oolong for three minutes.");
    const byName = await createLink(env, alice, { name: "Oolong shop", url: "https://shop.example/" });
    // Page text saved, but the match is in the name: the name shows it, not the page text.
    await saveText(env, alice, byName.id, "Green and black teas, shipped weekly.");

    const page = await open(env, "/search?q=oolong", aliceCookie);
    const items = texts(page.text, "ol.links > li");
    expect(items).toHaveLength(2);
    const recipes = items.find((item) => item.includes("Recipes"))!;
    const shop = items.find((item) => item.includes("Oolong shop"))!;
    expect(recipes).toContain("in page text");
    expect(shop).not.toContain("in page text");
    expect(texts(page.text, ".from")).toEqual(["in page text"]);
    expect(texts(page.text, ".snippet mark")).toEqual(["oolong"]);
  });

  it("shows the collections each hit is in, with their icons, linking to them", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    const reading = await createCollection(env, alice, { name: "Reading", icon: "📚" });
    const music = await createCollection(env, alice, { name: "Music <3", icon: "🎵" });
    await createLink(env, alice, { name: "Harpsichord", url: "https://harpsichord.example/", collectionIds: [reading.id, music.id] });
    await createLink(env, alice, { name: "Harpsichord tuning", url: "https://tuning.example/" });

    const page = await open(env, "/search?q=harpsichord", aliceCookie);
    const inbox = await inboxOf(env, alice);
    const inboxIcon = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections.find((c: { id: number }) => c.id === inbox).icon;
    expect(texts(page.text, "ol.links .in")).toEqual(["📚 Reading, 🎵 Music <3", `${inboxIcon} Inbox`]);
    expect(attributes(page.text, "ol.links .in a").map((a) => a.href)).toEqual([`/?collection=${reading.id}`, `/?collection=${music.id}`, `/?collection=${inbox}`]);
  });

  it("pages through many hits with More results, without gaps or repeats", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    for (let i = 0; i < 45; i++) await createLink(env, alice, { name: `Walrus ${i}`, url: `https://w${i}.example/` });
    const seen: string[] = [];
    const sizes: number[] = [];
    let path: string | undefined = "/search?q=walrus";
    while (path) {
      const page = await open(env, path, aliceCookie);
      expect(page.status).toBe(200);
      const names = texts(page.text, "ol.links .title");
      sizes.push(names.length);
      seen.push(...names);
      const more = attributes(page.text, ".pager a").find((a) => a.href!.includes("cursor="));
      if (more) expect(texts(page.text, ".pager a").at(-1)).toBe("More results →");
      path = more?.href;
    }
    expect(sizes).toEqual([20, 20, 5]);
    expect(new Set(seen).size).toBe(45);
  });

  it("filters by collection and by favorites, and keeps the filters on the next pages", async () => {
    const { env, alice, aliceCookie } = await twoUsers();
    const reading = await createCollection(env, alice, { name: "Reading" });
    await createLink(env, alice, { name: "Otter in reading", url: "https://a.example/", collectionIds: [reading.id] });
    await createLink(env, alice, { name: "Otter favorite", url: "https://b.example/", favorite: true });
    await createLink(env, alice, { name: "Otter plain", url: "https://c.example/" });
    for (let i = 0; i < 21; i++) await createLink(env, alice, { name: `Otter fav ${i}`, url: `https://f${i}.example/`, favorite: true });

    const inReading = await open(env, `/search?q=otter&collection=${reading.id}`, aliceCookie);
    expect(texts(inReading.text, "ol.links .title")).toEqual(["Otter in reading"]);
    expect(attributes(inReading.text, `#collection option[value="${reading.id}"]`)[0]).toHaveProperty("selected");

    const favorites = await open(env, "/search?q=otter&favorites=on", aliceCookie);
    expect(texts(favorites.text, "ol.links .title")).toHaveLength(20);
    expect(texts(favorites.text, "ol.links .title")).not.toContain("Otter plain");
    const more = attributes(favorites.text, ".pager a").find((a) => a.href!.includes("cursor="))!.href!;
    expect(new URL(more, "http://localhost").searchParams.get("favorites")).toBe("on");
    const second = await open(env, more, aliceCookie);
    expect(texts(second.text, "ol.links .title")).toHaveLength(2);
    expect(texts(second.text, "ol.links .title")).not.toContain("Otter plain");
  });

  it.each([
    ["an unclosed quote", '"borrow checker', "missing its closing quotation mark"],
    ["a star alone", "*", "*"],
    ["parentheses", "AND(", "parenthes"],
    ["only exclusions", "-draft", "besides the ones to leave out"],
    ["more than 200 characters", "z".repeat(201), "200"],
  ])("shows the language's refusal of %s beside the box, as a 422 page, changing nothing", async (_, q, says) => {
    const { env, alice, aliceCookie } = await twoUsers();
    await createLink(env, alice, { name: "Borrow checker", url: "https://rust.example/" });
    const before = snapshot(env);
    const page = await open(env, `/search?${new URLSearchParams({ q })}`, aliceCookie);
    expect(page.status).toBe(422);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const error = texts(page.text, "#q-error")[0]!;
    expect(error.toLowerCase()).toContain(says.toLowerCase());
    // The API's own sentence, as one sentence.
    expect(error).toBe((await get(env, `/api/v1/search?${new URLSearchParams({ q })}`, { token: alice.token })).body.errors[0].message.replace(/(?<![.?!])$/, "."));
    expect(attributes(page.text, "#q")[0]).toMatchObject({ value: q.trim(), "aria-invalid": "true" });
    expect(texts(page.text, "ol.links > li")).toEqual([]);
    expect(snapshot(env)).toBe(before);
  });

  it("says so when a page address was tampered with", async () => {
    const { env, aliceCookie } = await twoUsers();
    const page = await open(env, "/search?q=walrus&cursor=garbage", aliceCookie);
    expect(page.status).toBe(422);
    expect(texts(page.text, "[role=status]")).toEqual(["That page of results does not exist: start again from the best results."]);
    expect(texts(page.text, "#q-error")).toEqual([]);
  });

  it("shows the box and no results when nothing is asked", async () => {
    const { env, aliceCookie } = await twoUsers();
    for (const path of ["/search", "/search?q=", "/search?q=%20%20"]) {
      const page = await open(env, path, aliceCookie);
      expect(page.status).toBe(200);
      expect(texts(page.text, "h1")).toEqual(["Search"]);
      expect(texts(page.text, "ol.links, .empty")).toEqual([]);
    }
  });

  it("never shows another user's links, and answers another user's collection with the 404 page", async () => {
    const { env, alice, bob, aliceCookie } = await twoUsers();
    await createLink(env, alice, { name: "Alice's narwhal", url: "https://a.example/" });
    const bobs = await createCollection(env, bob, { name: "Bob's" });
    const bobLink = await createLink(env, bob, { name: "Bob's narwhal", url: "https://narwhal.example/", collectionIds: [bobs.id] });
    await saveText(env, bob, bobLink.id, "narwhal narwhal narwhal");

    const page = await open(env, "/search?q=narwhal", aliceCookie);
    expect(texts(page.text, "ol.links .title")).toEqual(["Alice's narwhal"]);
    expect(page.text).not.toContain("Bob");
    const theirs = await open(env, `/search?q=narwhal&collection=${bobs.id}`, aliceCookie);
    expect(theirs.status).toBe(404);
    expect(theirs.text).not.toContain("Bob's narwhal");
    expect((await open(env, "/search?q=narwhal&collection=nope", aliceCookie)).status).toBe(404);
  });

  it("sends a visitor without a session to sign in, and back to the search", async () => {
    const { env } = await twoUsers();
    const page = await open(env, "/search?q=narwhal");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`/login?next=${encodeURIComponent("/search?q=narwhal")}`);
  });

  it("leaves the API's hits as documented: link, score and snippet only", async () => {
    const { env, alice } = await twoUsers();
    const link = await createLink(env, alice, { name: "Quokka", url: "https://q.example/" });
    await saveText(env, alice, link.id, "A quokka smiles.");
    const api = await get(env, "/api/v1/search?q=quokka", { token: alice.token });
    expect(api.body.hits.map((hit: object) => Object.keys(hit).sort())).toEqual([["link", "score", "snippet"]]);
    expect(Object.keys(api.body).sort()).toEqual(["hits", "nextCursor"]);
  });
});
