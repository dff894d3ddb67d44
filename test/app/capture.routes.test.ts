/**
 * Where links are queued for the background capture, through `app.handle`: the links API
 * (create, and update when the URL changes), the link form (which also names an unnamed link
 * after its page's title) and a confirmed import. Pages are served by a fake origin on
 * 127.0.0.1 under made-up names; another user's link is never queued.
 */
import { afterEach, describe, expect, it } from "bun:test";
import type { CapturedContent } from "../../src/shelf/types";
import type { ContentCapture } from "../../src/capture/fetcher";
import { htmlPage } from "../support/capture.fixtures";
import { capturingSite, type CapturingSite } from "../support/capture.site";
import type { FakeOrigin } from "../support/favicon.fixtures";
import { aliceWithInbox, createLink, createUser, makeEnv, post, put, sessionCookie, snapshot, type TestEnv, type TestUser } from "../support/helpers";
import { attributes, cookieFor, open, texts } from "../support/html";

const running: CapturingSite[] = [];
afterEach(async () => {
  for (const site of running.splice(0)) await site.stop();
});

interface World {
  env: TestEnv;
  site: FakeOrigin;
  /** `http://site.test:<port>` */
  base: string;
  capture: ContentCapture;
  stored: { linkId: number; userId: number; content: CapturedContent }[];
  alice: TestUser;
  bob: TestUser;
  /** Each user's session cookie, made before any test's snapshot. */
  cookies: Map<TestUser, string>;
  settle: () => Promise<void>;
}

const LONG_TITLE = `A\u0007 title\u202e with ${"x".repeat(400)}`;

/** world: an app whose capture reaches a fake origin serving a few pages, and two users. */
async function world(vars: Record<string, string> = {}): Promise<World> {
  const env = { LINKSHELF_RATE_LIMIT: "off", ...vars };
  const stored: World["stored"] = [];
  const capturing = capturingSite({
    "/article": () => htmlPage("The Article", "Article text."),
    "/other": () => htmlPage("Other Page", "Other text."),
    "/long": () => htmlPage(LONG_TITLE, "Long title."),
    "/untitled": () => new Response("<p>no title</p><p>and no heading</p>", { headers: { "content-type": "text/html" } }),
    "/image": () => new Response("GIF89a", { headers: { "content-type": "image/gif" } }),
    "/blank": () => new Response("<!doctype html><html><body></body></html>", { headers: { "content-type": "text/html" } }),
  }, env, (linkId, userId, content) => void stored.push({ linkId, userId, content }));
  running.push(capturing);
  const app = makeEnv(env, { capture: capturing.capture });
  const alice = await createUser(app);
  const bob = await createUser(app);
  const cookies = new Map([alice, bob].map((as) => [as, sessionCookie(app, as.user.id)] as const));
  const { site, base, capture, settle } = capturing;
  return { env: app, site, base, capture, stored, alice, bob, cookies, settle };
}

const form = (w: World, as: TestUser, path: string, fields: Record<string, string>) =>
  post(w.env, path, {
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost", cookie: w.cookies.get(as)!, accept: "text/html" },
    body: new URLSearchParams(fields).toString(),
  });

const linkNames = (env: TestEnv) => env.db.$client.query("SELECT id, name, url FROM links ORDER BY id").all() as { id: number; name: string; url: string }[];

describe("the links API", () => {
  it("queues a created link: its page is fetched and stored for that link and its owner", async () => {
    const w = await world();
    const link = await createLink(w.env, w.alice, { url: `${w.base}/article` });
    await w.settle();
    expect(w.stored).toEqual([{ linkId: link.id, userId: w.alice.user.id, content: expect.objectContaining({ title: "The Article", text: "Article text." }) }]);
    expect(w.site.hits).toEqual(["/article"]);
  });

  it("queues nothing for a refused create", async () => {
    const w = await world();
    const response = await post(w.env, "/api/v1/links", { token: w.alice.token, body: { name: "", url: `${w.base}/article`, favorite: false } });
    expect(response.status).toBe(422);
    await w.settle();
    expect(w.site.hits).toEqual([]);
  });

  it("queues an updated link when its URL changed, and only then", async () => {
    const w = await world();
    const link = await createLink(w.env, w.alice, { url: `${w.base}/article` });
    await w.settle();
    const update = (fields: Record<string, unknown>) =>
      put(w.env, `/api/v1/links/${link.id}`, { token: w.alice.token, body: { name: "Example", url: `${w.base}/article`, favorite: false, collectionIds: link.collectionIds, ...fields } });
    expect((await update({ name: "Renamed" })).status).toBe(200);
    expect((await update({ url: `  ${w.base}/article ` })).status).toBe(200);
    await w.settle();
    expect(w.site.hits).toEqual(["/article"]);
    expect((await update({ url: `${w.base}/other` })).status).toBe(200);
    await w.settle();
    expect(w.site.hits).toEqual(["/article", "/other"]);
    expect(w.stored.at(-1)).toMatchObject({ linkId: link.id, userId: w.alice.user.id, content: { title: "Other Page" } });
  });

  it("queues nothing when another user updates (404) or an update is refused (422)", async () => {
    const w = await world();
    const link = await createLink(w.env, w.alice, { url: `${w.base}/article` });
    await w.settle();
    const before = snapshot(w.env);
    const body = { name: "Mine now", url: `${w.base}/other`, favorite: false, collectionIds: link.collectionIds };
    expect((await put(w.env, `/api/v1/links/${link.id}`, { token: w.bob.token, body })).status).toBe(404);
    expect((await put(w.env, `/api/v1/links/${link.id}`, { token: w.alice.token, body: { ...body, name: "" } })).status).toBe(422);
    await w.settle();
    expect(snapshot(w.env)).toBe(before);
    expect(w.site.hits).toEqual(["/article"]);
  });
});

describe("the add-link form", () => {
  it("says the name may be left empty: the page's title when the server reads pages, else the address", async () => {
    const w = await world();
    const page = await open(w.env, "/links/new", cookieFor(w.env, w.alice));
    expect(texts(page.text, "label[for=name]")).toEqual(["Name (optional)"]);
    expect(texts(page.text, "#name-hint")).toEqual(["Leave it empty to use the page's title (its address when the title cannot be read)"]);
    const plain = await aliceWithInbox();
    const without = await open(plain.env, "/links/new", cookieFor(plain.env, plain.alice));
    expect(texts(without.text, "label[for=name]")).toEqual(["Name (optional)"]);
    expect(texts(without.text, "#name-hint")).toEqual(["Leave it empty to name it after its address"]);
    expect(attributes(without.text, "input#name")[0]).not.toHaveProperty("required");
  });

  it("names a link left without a name after its page's title, fetching the page once", async () => {
    const w = await world();
    const response = await form(w, w.alice, "/links", { name: "  ", url: `${w.base}/article` });
    expect(response.status).toBe(303);
    const [link] = linkNames(w.env);
    expect(link).toMatchObject({ name: "The Article", url: `${w.base}/article` });
    await w.settle();
    // The page read for the title is the link's captured content: no second fetch.
    expect(w.site.hits).toEqual(["/article"]);
    expect(w.stored).toEqual([{ linkId: link!.id, userId: w.alice.user.id, content: expect.objectContaining({ title: "The Article" }) }]);
  });

  it("makes a title a valid name: controls and bidi overrides out, cut to 254 code points", async () => {
    const w = await world();
    expect((await form(w, w.alice, "/links", { name: "", url: `${w.base}/long` })).status).toBe(303);
    const name = linkNames(w.env)[0]!.name;
    expect([...name]).toHaveLength(254);
    expect(name).toStartWith("A title with xxx");
  });

  it.each([
    ["a page without a title", "/untitled"],
    ["an answer that is not a page", "/image"],
    ["a page that does not exist", "/missing"],
  ])("names the link after its host and path when %s gives no title, and says so", async (_, path) => {
    const w = await world();
    const response = await form(w, w.alice, "/links", { name: "", url: `${w.base}${path}` });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/?done=link-added-address");
    expect(linkNames(w.env)).toEqual([expect.objectContaining({ name: `${new URL(w.base).host}${path}`, url: `${w.base}${path}` })]);
    const next = await open(w.env, response.headers.get("location")!, w.cookies.get(w.alice)!);
    expect(texts(next.text, "[role=status]")[0]).toBe("Link added, named after its address: its page's title could not be read. Edit it to give it another name.");
    await w.settle();
  });

  it("fetches nothing for an unnamed link whose URL is not valid, nor one on a private address (named after its address)", async () => {
    const w = await world();
    const before = snapshot(w.env);
    expect((await form(w, w.alice, "/links", { name: "", url: "javascript:alert(1)" })).status).toBe(422);
    expect(snapshot(w.env)).toBe(before);
    expect((await form(w, w.alice, "/links", { name: "", url: "http://127.0.0.1:1/" })).status).toBe(303);
    expect(linkNames(w.env).map((link) => link.name)).toEqual(["127.0.0.1:1"]);
    expect(w.site.hits).toEqual([]);
  });

  it("keeps a typed name and fetches the page in the background", async () => {
    const w = await world();
    expect((await form(w, w.alice, "/links", { name: "My name", url: `${w.base}/article` })).status).toBe(303);
    expect(linkNames(w.env)[0]!.name).toBe("My name");
    await w.settle();
    expect(w.site.hits).toEqual(["/article"]);
    expect(w.stored).toHaveLength(1);
  });

  it("queues an edited link when its URL changed, not otherwise, and never another user's", async () => {
    const w = await world();
    const link = await createLink(w.env, w.alice, { url: `${w.base}/article` });
    await w.settle();
    expect((await form(w, w.alice, `/links/${link.id}`, { name: "Renamed", url: `${w.base}/article` })).status).toBe(303);
    expect((await form(w, w.bob, `/links/${link.id}`, { name: "Bob's", url: `${w.base}/other` })).status).toBe(404);
    await w.settle();
    expect(w.site.hits).toEqual(["/article"]);
    expect((await form(w, w.alice, `/links/${link.id}`, { name: "Renamed", url: `${w.base}/other` })).status).toBe(303);
    await w.settle();
    expect(w.site.hits).toEqual(["/article", "/other"]);
    expect(w.stored.map((entry) => entry.userId)).toEqual([w.alice.user.id, w.alice.user.id]);
  });
});

/** importFile uploads a bookmarks file on the import page; `confirm` then imports it. */
async function importFile(w: World, as: TestUser, text: string) {
  const cookie = w.cookies.get(as)!;
  const body = new FormData();
  body.append("file", new File([text], "bookmarks.html", { type: "text/html" }));
  const headers = { cookie, origin: "http://localhost", accept: "text/html" };
  const uploaded = await w.env.app.handle(new Request("http://localhost/import", { method: "POST", body, headers }));
  expect(uploaded.status).toBe(303);
  const preview = uploaded.headers.get("location")!;
  return {
    confirm: () => w.env.app.handle(new Request(`http://localhost${preview}/confirm`, {
      method: "POST", headers: { ...headers, "content-type": "application/x-www-form-urlencoded" }, body: "",
    })),
  };
}

describe("a link's page, when the server's fetch stored nothing", () => {
  const problemOn = async (w: World, linkId: number) =>
    texts((await open(w.env, `/links/${linkId}`, w.cookies.get(w.alice)!)).text, "#capture-problem")[0]?.replace(/^Last try, [^:]+: /, "");

  it("says a private address was not fetched, and which setting allows it; nothing is sent there", async () => {
    const w = await world();
    const link = await createLink(w.env, w.alice, { url: `http://127.0.0.1:${w.site.port}/article` });
    await w.settle();
    expect(await problemOn(w, link.id)).toBe("not fetched: a private address (this machine); set LINKSHELF_FETCH_PRIVATE=1 to allow pages on private addresses, then capture again.");
    expect(w.site.hits).toEqual([]);
    expect(w.stored).toEqual([]);
  });

  it.each([
    ["an error status", "/missing", "not fetched: HTTP 404."],
    ["an answer that is not a page", "/image", "not fetched: the address answers with image/gif, not a web page."],
    ["a page without readable text", "/blank", "fetched, but the page has no readable text."],
  ])("says so for %s, and forgets it once a fetch stores the page", async (_, path, expected) => {
    const w = await world();
    const link = await createLink(w.env, w.alice, { url: `${w.base}${path}` });
    await w.settle();
    expect(await problemOn(w, link.id)).toBe(expected);
    await put(w.env, `/api/v1/links/${link.id}`, { token: w.alice.token, body: { name: link.name, url: `${w.base}/article`, favorite: false, collectionIds: link.collectionIds } });
    await w.settle();
    expect(await problemOn(w, link.id)).toBeUndefined();
    expect(w.stored.map((s) => s.linkId)).toEqual([link.id]);
  });

  it("is not shown to another user, and a stored page shows no problem", async () => {
    const w = await world();
    const link = await createLink(w.env, w.alice, { url: `${w.base}/article` });
    await w.settle();
    expect(await problemOn(w, link.id)).toBeUndefined();
    expect((await open(w.env, `/links/${link.id}`, w.cookies.get(w.bob)!)).status).toBe(404);
  });
});

describe("the import", () => {
  const file = (base: string) => `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<DL><p>
<DT><A HREF="${base}/article">One</A>
<DT><A HREF="${base}/other">Two</A>
<DT><A HREF="${base}/article">One again</A>
<DT><A HREF="ftp://files.example/x">Skipped</A>
</DL><p>`;

  it("queues every link a confirmed import created, once, and nothing for the preview", async () => {
    const w = await world();
    const upload = await importFile(w, w.alice, file(w.base));
    await w.settle();
    expect(w.site.hits).toEqual([]);
    expect((await upload.confirm()).status).toBe(303);
    await w.settle();
    expect(w.site.hits.sort()).toEqual(["/article", "/other"]);
    const ids = linkNames(w.env).map((link) => link.id);
    expect(w.stored.map((entry) => entry.linkId).sort()).toEqual(ids);
    expect(new Set(w.stored.map((entry) => entry.userId))).toEqual(new Set([w.alice.user.id]));
  });
});

describe("LINKSHELF_FETCH_CONTENT=off", () => {
  it("makes no request from the API, the form or an import, and names an unnamed link after its address", async () => {
    const w = await world({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_FAVICON_ALLOW_PRIVATE: "1" });
    await createLink(w.env, w.alice, { url: `${w.site.url}/article` });
    expect((await form(w, w.alice, "/links", { name: "Named", url: `${w.site.url}/named` })).status).toBe(303);
    const unnamed = await form(w, w.alice, "/links", { name: "", url: `${w.site.url}/third` });
    expect(unnamed.headers.get("location")).toBe("/?done=link-added-address");
    expect(linkNames(w.env).at(-1)!.name).toBe(`${new URL(w.site.url).host}/third`);
    const upload = await (await importFile(w, w.alice, `<!DOCTYPE NETSCAPE-Bookmark-file-1><DL><p><DT><A HREF="${w.site.url}/other">Two</A></DL>`)).confirm();
    expect(upload.status).toBe(303);
    expect(linkNames(w.env)).toHaveLength(4);
    expect(w.site.hits).toEqual([]);
    expect(w.stored).toEqual([]);
  });
});
