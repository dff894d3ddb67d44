/**
 * One link's page, `/links/:id`, and its "Capture again" form, through `app.handle`: the
 * owner's link with its fields, collections, clicks and saved page; another user's or an
 * unknown id is the 404 page; "Capture again" queues that link with the server's real
 * background fetcher (pages served by a fake origin on 127.0.0.1 under a made-up name, kept
 * by the server's own store), and is neither offered nor accepted over a browser capture or
 * with `LINKSHELF_FETCH_CONTENT=off`.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { storeFetchedContent } from "../../src/capture/store";
import type { Db } from "../../src/db/client";
import { htmlPage } from "../support/capture.fixtures";
import { capturingSite, type CapturingSite } from "../support/capture.site";
import { createCollection, createUser, makeEnv, shelfFor, snapshot, START, type TestEnv, type TestUser } from "../support/helpers";
import { attributes, cookieFor, open, submit, texts } from "../support/html";

const running: CapturingSite[] = [];
afterEach(async () => {
  for (const site of running.splice(0)) await site.stop();
});

interface World extends CapturingSite {
  env: TestEnv;
  alice: TestUser;
  bob: TestUser;
  aliceCookie: string;
  bobCookie: string;
}

/** world: an app whose capture fetches from a fake origin and keeps pages with the server's store; two users. */
async function world(vars: Record<string, string> = {}): Promise<World> {
  const env = { LINKSHELF_RATE_LIMIT: "off", ...vars };
  let db: Db | undefined;
  const capturing = capturingSite({
    "/article": () => htmlPage("The Article", "Article text about tides."),
    "/other": () => htmlPage("Other Page", "Other text."),
  }, env, (linkId, userId, content, now) => storeFetchedContent(db!)(linkId, userId, content, now));
  running.push(capturing);
  const app = makeEnv(env, { capture: capturing.capture });
  db = app.db;
  const alice = await createUser(app, { name: "Alice" });
  const bob = await createUser(app, { name: "Bob" });
  return { ...capturing, env: app, alice, bob, aliceCookie: cookieFor(app, alice), bobCookie: cookieFor(app, bob) };
}

/** addLink stores a link through the owner's shelf (nothing is queued: the tests queue it themselves). */
function addLink(w: World, as: TestUser, fields: { name: string; url: string; description?: string; collectionIds?: number[]; favorite?: boolean }) {
  return shelfFor(w.env, as).links.create({ description: "", favorite: false, ...fields }, w.env.clock.now++);
}

/** facts reads a page's description lists as term → text. */
function facts(page: string): Record<string, string> {
  const terms = texts(page, ".facts dt");
  const values = texts(page, ".facts dd");
  return Object.fromEntries(terms.map((term, i) => [term, values[i]!]));
}

describe("the link page", () => {
  it("shows the owner's link: name, URL, description, collections, clicks, last click, and no saved page yet", async () => {
    const w = await world();
    const reading = await createCollection(w.env, w.alice, { name: "Reading <list>", icon: "📚" });
    const link = addLink(w, w.alice, { name: "Tide <tables>", url: `${w.base}/article`, description: "When the sea & the moon agree", collectionIds: [reading.id], favorite: true });
    w.env.db.$client.run("UPDATE links SET clicks = 7, last_clicked_at = ? WHERE id = ?", [START, link.id]);

    const page = await open(w.env, `/links/${link.id}`, w.aliceCookie);
    expect(page.status).toBe(200);
    expect(texts(page.text, "h1")).toEqual(["Tide <tables>"]);
    expect(page.text).not.toContain("<tables>");
    expect(facts(page.text)).toMatchObject({
      URL: `${w.base}/article`,
      Description: "When the sea & the moon agree",
      Collections: "📚 Reading <list>",
      Favorite: "Yes",
      Clicks: "7",
      "Last click": "Nov 22, 2026",
    });
    expect(attributes(page.text, ".facts a").map((a) => a.href)).toEqual([`/l/${link.id}`, `/?collection=${reading.id}`]);
    expect(texts(page.text, "#captured")).toEqual(["No page text saved yet."]);
    expect(texts(page.text, "#recapture button")).toEqual(["Capture the page"]);
    expect(attributes(page.text, "#recapture")[0]).toMatchObject({ method: "post", action: `/links/${link.id}/capture` });
    expect(attributes(page.text, ".actions a").map((a) => a.href)).toEqual([`/l/${link.id}`, `/links/${link.id}/edit?next=${encodeURIComponent(`/links/${link.id}`)}`, `/links/${link.id}/delete`]);
  });

  it("says the page was captured by the browser, with its title, author, language and excerpt, and offers no server capture", async () => {
    const w = await world();
    const link = addLink(w, w.alice, { name: "Tides", url: `${w.base}/article` });
    shelfFor(w.env, w.alice).links.setContent(link.id, { text: "As I saw it.", title: "Tides <as seen>", byline: "R. Carson", lang: "en", excerpt: "The sea, signed in." }, "browser", Date.parse("2026-03-04T10:00:00Z"));

    const page = await open(w.env, `/links/${link.id}`, w.aliceCookie);
    expect(texts(page.text, "#captured")).toEqual(["Captured by your browser on Mar 4, 2026."]);
    expect(facts(page.text)).toMatchObject({ Title: "Tides <as seen>", Author: "R. Carson", Language: "en", Excerpt: "The sea, signed in." });
    expect(texts(page.text, "#recapture")).toEqual(["To capture it again, open the page and save it with the browser extension: the server never replaces what your browser captured."]);
    expect(attributes(page.text, "form#recapture, #recapture button")).toEqual([]);
  });

  it("says the page was fetched by the server, and offers to capture it again", async () => {
    const w = await world();
    const link = addLink(w, w.alice, { name: "Tides", url: `${w.base}/article` });
    shelfFor(w.env, w.alice).links.setContent(link.id, { text: "Fetched.", title: "Fetched title" }, "server", Date.parse("2026-05-06T10:00:00Z"));
    const page = await open(w.env, `/links/${link.id}`, w.aliceCookie);
    expect(texts(page.text, "#captured")).toEqual(["Fetched by the server on May 6, 2026."]);
    expect(facts(page.text)).toMatchObject({ Title: "Fetched title", Author: "None", Language: "None", Excerpt: "None" });
    expect(texts(page.text, "#recapture button")).toEqual(["Capture again"]);
  });

  it("answers another user's link and an unknown id with the 404 page", async () => {
    const w = await world();
    const link = addLink(w, w.alice, { name: "Alice's secret", url: `${w.base}/article` });
    for (const path of [`/links/${link.id}`, "/links/999999", "/links/abc"]) {
      const page = await open(w.env, path, w.bobCookie);
      expect({ path, status: page.status }).toEqual({ path, status: 404 });
      expect(page.text).not.toContain("Alice's secret");
    }
  });

  it("sends a visitor without a session to sign in, and back to the link", async () => {
    const w = await world();
    const link = addLink(w, w.alice, { name: "Tides", url: `${w.base}/article` });
    const page = await open(w.env, `/links/${link.id}`);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`/login?next=${encodeURIComponent(`/links/${link.id}`)}`);
  });

  it("is linked from the lists and from the edit form", async () => {
    const w = await world();
    const link = addLink(w, w.alice, { name: "Tides", url: `${w.base}/article` });
    const home = await open(w.env, "/", w.aliceCookie);
    expect(attributes(home.text, ".links .row-actions a").map((a) => a.href)).toContain(`/links/${link.id}`);
    const edit = await open(w.env, `/links/${link.id}/edit`, w.aliceCookie);
    expect(attributes(edit.text, ".form-actions a").map((a) => a.href)).toContain(`/links/${link.id}`);
  });
});

describe("capture again", () => {
  it("queues exactly that link: its page is fetched, kept as the server's capture, and the link page says so", async () => {
    const w = await world();
    const link = addLink(w, w.alice, { name: "Tides", url: `${w.base}/article` });
    addLink(w, w.alice, { name: "Other", url: `${w.base}/other` });
    addLink(w, w.bob, { name: "Bob's", url: `${w.base}/other` });

    const response = await submit(w.env, `/links/${link.id}/capture`, {}, w.aliceCookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/links/${link.id}?done=capture-queued`);
    await w.settle();
    expect(w.site.hits).toEqual(["/article"]);
    const stored = w.env.db.$client.query("SELECT link_id, title, source FROM link_contents").all();
    expect(stored).toEqual([{ link_id: link.id, title: "The Article", source: "server" }]);

    const page = await open(w.env, `/links/${link.id}?done=capture-queued`, w.aliceCookie);
    expect(texts(page.text, "[role=status]")).toEqual(["The page will be fetched in the background: reload this page in a moment to see what was saved."]);
    expect(texts(page.text, "#captured")[0]).toStartWith("Fetched by the server on ");
    expect(facts(page.text).Title).toBe("The Article");
  });

  it("refuses a form sent from another site: nothing queued, nothing changed", async () => {
    const w = await world();
    const link = addLink(w, w.alice, { name: "Tides", url: `${w.base}/article` });
    const before = snapshot(w.env);
    const response = await submit(w.env, `/links/${link.id}/capture`, {}, w.aliceCookie, "https://evil.example");
    expect(response.status).toBe(403);
    await w.settle();
    expect(w.site.hits).toEqual([]);
    expect(snapshot(w.env)).toBe(before);
  });

  it("answers another user's link and an unknown id with 404: nothing queued, nothing changed", async () => {
    const w = await world();
    const link = addLink(w, w.alice, { name: "Tides", url: `${w.base}/article` });
    const before = snapshot(w.env);
    expect((await submit(w.env, `/links/${link.id}/capture`, {}, w.bobCookie)).status).toBe(404);
    expect((await submit(w.env, "/links/999999/capture", {}, w.aliceCookie)).status).toBe(404);
    await w.settle();
    expect(w.site.hits).toEqual([]);
    expect(snapshot(w.env)).toBe(before);
  });

  it("sends a visitor without a session to sign in, queueing nothing", async () => {
    const w = await world();
    const link = addLink(w, w.alice, { name: "Tides", url: `${w.base}/article` });
    const response = await submit(w.env, `/links/${link.id}/capture`, {});
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toStartWith("/login");
    await w.settle();
    expect(w.site.hits).toEqual([]);
  });

  it("refuses a link the browser captured, saying how to capture it again: nothing queued, the capture kept", async () => {
    const w = await world();
    const link = addLink(w, w.alice, { name: "Tides", url: `${w.base}/article` });
    shelfFor(w.env, w.alice).links.setContent(link.id, { text: "As I saw it." }, "browser", START);
    const before = snapshot(w.env);
    const response = await submit(w.env, `/links/${link.id}/capture`, {}, w.aliceCookie);
    expect(response.status).toBe(409);
    expect(texts(response.text, "main p")[0]).toBe("Your browser captured this page, and the server never replaces that: open the page and save it with the extension to capture it again.");
    await w.settle();
    expect(w.site.hits).toEqual([]);
    expect(snapshot(w.env)).toBe(before);
  });

  it("is neither offered nor accepted when the server fetches no pages (LINKSHELF_FETCH_CONTENT=off)", async () => {
    const w = await world({ LINKSHELF_FETCH_CONTENT: "off" });
    const link = addLink(w, w.alice, { name: "Tides", url: `${w.base}/article` });
    const page = await open(w.env, `/links/${link.id}`, w.aliceCookie);
    expect(texts(page.text, "#recapture")).toEqual(["This server does not fetch pages (LINKSHELF_FETCH_CONTENT=off)."]);
    expect(attributes(page.text, "#recapture button")).toEqual([]);

    const before = snapshot(w.env);
    const response = await submit(w.env, `/links/${link.id}/capture`, {}, w.aliceCookie);
    expect(response.status).toBe(409);
    expect(texts(response.text, "main p")[0]).toBe("This server does not fetch pages: LINKSHELF_FETCH_CONTENT is off.");
    await w.settle();
    expect(w.site.hits).toEqual([]);
    expect(snapshot(w.env)).toBe(before);
  });
});
