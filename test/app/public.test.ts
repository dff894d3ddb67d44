/**
 * `GET /c/:id` and `GET /c/:id/feed`: a PUBLIC collection for anyone, read-only, its links
 * through `/l/:id`; a private collection answers exactly like an unknown id.
 */
import { describe, expect, it } from "bun:test";
import { createSession } from "../../src/auth/sessions";
import { escapeXml } from "../../src/public/atom";
import { FEED_ENTRIES } from "../../src/public/public-pages";
import { createCollection, createLink, createUser, get, makeEnv, put, type TestEnv } from "../support/helpers";

async function fetchPage(env: TestEnv, path: string, headers: Record<string, string> = {}) {
  const response = await env.app.handle(new Request(`http://localhost${path}`, { headers: { accept: "text/html", ...headers } }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** attributes collects the attributes of every element matching a selector. */
function attributes(page: string, selector: string): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  new HTMLRewriter().on(selector, { element: (element) => void found.push(Object.fromEntries(element.attributes)) }).transform(page);
  return found;
}

async function shelf() {
  const env = makeEnv();
  const owner = await createUser(env, { name: "Olive Owner", email: "olive@example.test" });
  const open = await createCollection(env, owner, { name: "Open shelf", visibility: "PUBLIC", icon: "🌍", description: "Things worth sharing" });
  const closed = await createCollection(env, owner, { name: "Secret shelf", visibility: "PRIVATE" });
  const first = await createLink(env, owner, { name: "First", url: "https://first.example/", description: "one", collectionIds: [open.id] });
  const second = await createLink(env, owner, { name: "Second", url: "https://second.example/", collectionIds: [open.id, closed.id] });
  const hidden = await createLink(env, owner, { name: "Hidden", url: "https://hidden.example/", collectionIds: [closed.id] });
  return { env, owner, open, closed, first, second, hidden };
}

describe("GET /c/:id", () => {
  it("shows a public collection to anyone: name, icon, description, author's name, links through /l/:id, newest first", async () => {
    const { env, open, first, second } = await shelf();
    const page = await fetchPage(env, `/c/${open.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.text).toContain("Open shelf");
    expect(page.text).toContain("🌍");
    expect(page.text).toContain("Things worth sharing");
    expect(page.text).toContain("A public collection by Olive Owner.");
    expect(page.text).not.toContain("olive@example.test");
    expect(attributes(page.text, ".links a.title").map((a) => a.href)).toEqual([`/l/${second.id}`, `/l/${first.id}`]);
    expect(attributes(page.text, 'link[rel="alternate"]')[0]).toMatchObject({ type: "application/atom+xml", href: `/c/${open.id}/feed` });
  });

  it("is read-only: no forms, no edit links, no click counts, no account bar", async () => {
    const { env, open } = await shelf();
    const page = await fetchPage(env, `/c/${open.id}`);
    expect(attributes(page.text, "form")).toEqual([]);
    expect(attributes(page.text, "button")).toEqual([]);
    expect(page.text).not.toContain("/edit");
    expect(page.text).not.toContain("clicks");
    expect(page.text).not.toContain("/account");
  });

  it("answers a private, an unknown and a malformed id with the same 404 page, signed in or not", async () => {
    const { env, owner, closed } = await shelf();
    const cookie = `linkshelf_session=${createSession(env.db, owner.user.id, env.clock.now).id}`;
    const pages = [
      await fetchPage(env, `/c/${closed.id}`),
      await fetchPage(env, `/c/${closed.id}`, { cookie }),
      await fetchPage(env, "/c/999999"),
      await fetchPage(env, "/c/abc"),
      await fetchPage(env, "/c/99999999999999999999"),
      await fetchPage(env, `/c/${closed.id}/feed`),
      await fetchPage(env, "/c/999999/feed"),
    ];
    for (const page of pages) {
      expect(page.status).toBe(404);
      expect(page.text).toBe(pages[0]!.text);
      expect(page.text).not.toContain("Secret");
    }
  });

  it("stops showing a collection made private, page and feed", async () => {
    const { env, owner, open } = await shelf();
    expect((await fetchPage(env, `/c/${open.id}`)).status).toBe(200);
    await put(env, `/api/v1/collections/${open.id}`, { token: owner.token, body: { name: "Open shelf", visibility: "PRIVATE" } });
    expect((await fetchPage(env, `/c/${open.id}`)).status).toBe(404);
    expect((await fetchPage(env, `/c/${open.id}/feed`)).status).toBe(404);
  });

  it("lets an anonymous visitor open a link, and the click counts", async () => {
    const { env, owner, first } = await shelf();
    const response = await env.app.handle(new Request(`http://localhost/l/${first.id}`));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("https://first.example/");
    expect((await get(env, `/api/v1/links/${first.id}`, { token: owner.token })).body.link.clicks).toBe(1);
  });

  it("pages a big public collection 50 at a time", async () => {
    const { env, owner, open } = await shelf();
    for (let i = 0; i < 60; i++) await createLink(env, owner, { name: `L${i}`, url: `https://l${i}.example/`, collectionIds: [open.id] });
    const first = await fetchPage(env, `/c/${open.id}`);
    expect(attributes(first.text, ".links a.title")).toHaveLength(50);
    const older = attributes(first.text, ".pager a").find((a) => a.href!.includes("cursor="))!.href!;
    expect(older).toStartWith(`/c/${open.id}?cursor=`);
    const second = await fetchPage(env, older.replaceAll("&amp;", "&"));
    expect(attributes(second.text, ".links a.title")).toHaveLength(12);
    expect((await fetchPage(env, `/c/${open.id}?cursor=nonsense`)).status).toBe(404);
  });
});

describe("GET /c/:id/feed", () => {
  it("is Atom 1.0 with the collection's links newest first, each through /l/:id", async () => {
    const { env, open, first, second } = await shelf();
    const response = await env.app.handle(new Request(`http://localhost/c/${open.id}/feed`));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    const xml = await response.text();
    expect(xml).toStartWith('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">');
    expect(xml).toContain(`<id>http://localhost/c/${open.id}</id>`);
    expect(xml).toContain(`<link rel="self" type="application/atom+xml" href="http://localhost/c/${open.id}/feed"/>`);
    expect(xml).toContain("<author><name>Olive Owner</name></author>");
    const entryIds = [...xml.matchAll(/<entry>\n<id>([^<]+)<\/id>/g)].map((match) => match[1]);
    expect(entryIds).toEqual([`http://localhost/l/${second.id}`, `http://localhost/l/${first.id}`]);
    expect(xml).not.toContain("Hidden");
    expect(xml).toContain('<summary type="text">one</summary>');
  });

  it("uses the address the client used (and the forwarded scheme behind a trusted proxy)", async () => {
    const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1" });
    const owner = await createUser(env);
    const open = await createCollection(env, owner, { name: "Open", visibility: "PUBLIC" });
    const response = await env.app.handle(new Request(`http://localhost/c/${open.id}/feed`, { headers: { host: "shelf.lan:3000", "x-forwarded-proto": "https" } }));
    expect(await response.text()).toContain(`<id>https://shelf.lan:3000/c/${open.id}</id>`);
  });

  it("escapes markup and drops characters XML cannot carry", async () => {
    const env = makeEnv();
    const owner = await createUser(env, { name: "A & B <co>" });
    const open = await createCollection(env, owner, { name: "Tom & \"Jerry\" <3 ]]>", visibility: "PUBLIC", description: "it's <b>bold</b>" });
    const link = await createLink(env, owner, { name: "bell", url: "https://x.example/?a=1&b=2", description: "5 > 3 & 'quotes' 🎉", collectionIds: [open.id] });
    // Names refuse control characters now; one stored before that rule still must not break the XML.
    env.db.$client.run("UPDATE links SET name = ? WHERE id = ?", ["bell\u0007 and\u0000 null <script>", link.id]);
    const xml = await (await env.app.handle(new Request(`http://localhost/c/${open.id}/feed`))).text();
    expect(xml).toContain('<title type="text">Tom &amp; &quot;Jerry&quot; &lt;3 ]]&gt;</title>');
    expect(xml).toContain('<subtitle type="text">it&apos;s &lt;b&gt;bold&lt;/b&gt;</subtitle>');
    expect(xml).toContain("<name>A &amp; B &lt;co&gt;</name>");
    expect(xml).toContain('<title type="text">bell and null &lt;script&gt;</title>');
    expect(xml).toContain('<summary type="text">5 &gt; 3 &amp; &apos;quotes&apos; 🎉</summary>');
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
    expect(xml).not.toContain("<script>");
  });

  it(`carries the ${FEED_ENTRIES} newest links`, async () => {
    const { env, owner, open } = await shelf();
    for (let i = 0; i < FEED_ENTRIES + 5; i++) await createLink(env, owner, { name: `L${i}`, url: `https://l${i}.example/`, collectionIds: [open.id] });
    const xml = await (await env.app.handle(new Request(`http://localhost/c/${open.id}/feed`))).text();
    const titles = [...xml.matchAll(/<entry>\n<id>[^<]+<\/id>\n<title type="text">([^<]+)<\/title>/g)].map((match) => match[1]);
    expect(titles).toHaveLength(FEED_ENTRIES);
    expect(titles[0]).toBe(`L${FEED_ENTRIES + 4}`);
  });

  it("answers 304 to a feed reader that has the current version, and a new ETag after a change", async () => {
    const { env, owner, open } = await shelf();
    const first = await env.app.handle(new Request(`http://localhost/c/${open.id}/feed`));
    const etag = first.headers.get("etag")!;
    expect(first.headers.get("cache-control")).toBe("no-cache");
    const again = await env.app.handle(new Request(`http://localhost/c/${open.id}/feed`, { headers: { "if-none-match": etag } }));
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    await createLink(env, owner, { name: "Newer", url: "https://newer.example/", collectionIds: [open.id] });
    const changed = await env.app.handle(new Request(`http://localhost/c/${open.id}/feed`, { headers: { "if-none-match": etag } }));
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
  });
});

describe("escapeXml", () => {
  it("keeps emoji and astral characters, drops lone surrogates and U+FFFE/U+FFFF", () => {
    expect(escapeXml("a😀b")).toBe("a😀b");
    expect(escapeXml("x\uD800y\uDC00z\uFFFE\uFFFF")).toBe("xyz");
    expect(escapeXml("tab\tnew\nline\rret")).toBe("tab\tnew\nline\rret");
  });
});
