/**
 * The reading view, `/links/:id/read`, through `app.handle`: the saved text as paragraphs under
 * the link's name, site, date and reading time, in one column of at most 70 characters; "Mark
 * read and next" takes the link off the reading list and opens the next one (the reading list
 * after the last); the owner's only, behind the session.
 */
import { describe, expect, it } from "bun:test";
import { readingMinutes, WORDS_PER_MINUTE } from "../../src/pages/reading";
import { TO_READ_VIEW } from "../../src/pages/shell";
import { aliceWithInbox, createLink, createUser, shelfFor, snapshot } from "../support/helpers";
import { attributes, cookieFor, open, submit, texts } from "../support/html";

async function world() {
  const { env, alice } = await aliceWithInbox();
  const cookie = cookieFor(env, alice);
  const save = (id: number, text: string, extra: Record<string, string> = {}) =>
    shelfFor(env, alice).links.setContent(id, { text, title: null, excerpt: null, byline: null, lang: null, ...extra }, "browser", env.clock.now);
  return { env, alice, cookie, save };
}

describe("GET /links/:id/read", () => {
  it("shows the saved text as paragraphs under the name, site, date and reading time, in a measure under 70 characters", async () => {
    const { env, alice, cookie, save } = await world();
    const link = await createLink(env, alice, { name: "On tides", url: "https://sea.example/tides" });
    const words = Array.from({ length: WORDS_PER_MINUTE * 3 }, (_, i) => `word${i}`).join(" ");
    save(link.id, `First paragraph <script>alert(1)</script>.\n${words}\n\nLast paragraph.`, { byline: "A. Writer", lang: "en" });
    const page = await open(env, `/links/${link.id}/read`, cookie);
    expect(page.status).toBe(200);
    expect(texts(page.text, "#reading-title")).toEqual(["On tides"]);
    const facts = texts(page.text, "#reading-facts")[0]!;
    expect(facts).toContain("sea.example");
    expect(facts).toContain("A. Writer");
    expect(texts(page.text, "#reading-time")).toEqual(["3 min read"]);
    expect(texts(page.text, "#reading-text p")).toEqual(["First paragraph <script>alert(1)</script>.", words, "Last paragraph."]);
    expect(page.text).not.toContain("<script>alert");
    expect(attributes(page.text, "#reading-text")[0]).toEqual({ class: "text", id: "reading-text", lang: "en" });
    const measure = /\.reading \{ max-width: (\d+)ch/.exec(page.text);
    expect(Number(measure?.[1])).toBeLessThanOrEqual(70);
  });

  it("says when no text is saved", async () => {
    const { env, alice, cookie } = await world();
    const link = await createLink(env, alice);
    const page = await open(env, `/links/${link.id}/read`, cookie);
    expect(page.status).toBe(200);
    expect(texts(page.text, "#no-text")[0]).toMatch(/No text of this page is saved yet/);
    expect(texts(page.text, "#reading-time")).toEqual([]);
  });

  it("Mark read and next: off the reading list, on to the next link to read, and to the reading list after the last", async () => {
    const { env, alice, cookie, save } = await world();
    const older = await createLink(env, alice, { name: "Older", toRead: true });
    env.clock.now += 1000;
    const newer = await createLink(env, alice, { name: "Newer", toRead: true });
    save(newer.id, "Newer text.");
    const page = (await open(env, `/links/${newer.id}/read`, cookie)).text;
    expect(texts(page, "#read-next")).toEqual(["Mark read and next"]);
    const fields = Object.fromEntries(attributes(page, "form[action$='/flags'] input").map((input) => [input.name!, input.value!]));
    expect(fields).toEqual({ toRead: "false", next: `/links/${older.id}/read` });
    const done = await submit(env, `/links/${newer.id}/flags`, fields, cookie);
    expect({ status: done.status, location: done.headers.get("location") }).toEqual({ status: 303, location: `/links/${older.id}/read` });
    expect(shelfFor(env, alice).links.get(newer.id).toRead).toBe(false);
    // The last one on the list: back to the (now empty) reading list.
    const last = (await open(env, `/links/${older.id}/read`, cookie)).text;
    expect(texts(last, "#read-next")).toEqual(["Mark read"]);
    expect(attributes(last, "form[action$='/flags'] input[name=next]")[0]!.value).toBe(TO_READ_VIEW);
  });

  it("is the owner's only: another user's link is the 404 page, and without a session it asks to sign in", async () => {
    const { env, cookie } = await world();
    const bob = await createUser(env, { email: "bob@example.test" });
    const bobs = await createLink(env, bob, { toRead: true });
    const before = snapshot(env);
    expect((await open(env, `/links/${bobs.id}/read`, cookie)).status).toBe(404);
    const anonymous = await open(env, `/links/${bobs.id}/read`);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toStartWith("/login");
    expect(snapshot(env)).toBe(before);
  });

  it("readingMinutes rounds to whole minutes, at least one", () => {
    expect(readingMinutes("")).toBe(1);
    expect(readingMinutes("one two")).toBe(1);
    expect(readingMinutes(Array(WORDS_PER_MINUTE * 10).fill("w").join(" "))).toBe(10);
  });
});
