/**
 * The add-link form through `app.handle`, on a server that reads no pages: a link left without
 * a name is named after its host and path (never refused for its name), and the page that
 * follows says so; a URL already on the shelf is said, with when and where it was saved, and
 * added only by the form's second button; another user's link with the same URL is not theirs
 * to mention.
 */
import { describe, expect, it } from "bun:test";
import { createCollection, createLink, createUser, makeEnv, snapshot, START } from "../support/helpers";
import { attributes, cookieFor, open, submit, texts } from "../support/html";

const urlsOf = (env: ReturnType<typeof makeEnv>) =>
  (env.db.$client.query("SELECT name, url FROM links ORDER BY id").all() as { name: string; url: string }[]);

async function world() {
  const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" });
  const alice = await createUser(env, { name: "Alice" });
  const bob = await createUser(env, { name: "Bob" });
  const reading = await createCollection(env, alice, { name: "Reading", icon: "📚" });
  return { env, alice, bob, reading, cookie: cookieFor(env, alice) };
}

describe("a link added without a name", () => {
  it("is named after its host and path, and the page that follows says so", async () => {
    const w = await world();
    const added = await submit(w.env, "/links", { name: "  ", url: "https://news.example/2026/12/a%20story?ref=feed#top", next: "/" }, w.cookie);
    expect(added.status).toBe(303);
    expect(added.headers.get("location")).toBe("/?done=link-added-address");
    expect(urlsOf(w.env)).toEqual([{ name: "news.example/2026/12/a story", url: "https://news.example/2026/12/a%20story?ref=feed#top" }]);
    const next = await open(w.env, added.headers.get("location")!, w.cookie);
    expect(texts(next.text, "[role=status]")[0]).toBe("Link added, named after its address: its page's title could not be read. Edit it to give it another name.");
    // A bare host is its own name.
    await submit(w.env, "/links", { name: "", url: "http://plain.example/" }, w.cookie);
    expect(urlsOf(w.env).at(-1)!.name).toBe("plain.example");
  });

  it("is still refused when its URL is not one, with nothing stored", async () => {
    const w = await world();
    const before = snapshot(w.env);
    const refused = await submit(w.env, "/links", { name: "", url: "not a url" }, w.cookie);
    expect(refused.status).toBe(422);
    expect(texts(refused.text, "#url-error")).toHaveLength(1);
    expect(snapshot(w.env)).toBe(before);
  });
});

describe("a URL already saved", () => {
  it("is said, with the day and the collections, and added only with “Add anyway”", async () => {
    const w = await world();
    const first = await createLink(w.env, w.alice, { name: "The story", url: "https://news.example/story", collectionIds: [w.reading.id] });
    const before = snapshot(w.env);
    const asked = await submit(w.env, "/links", { name: "Again", url: "  https://news.example/story ", next: `/?collection=${w.reading.id}` }, w.cookie);
    expect(asked.status).toBe(409);
    expect(snapshot(w.env)).toBe(before);
    const day = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" }).format(START);
    expect(texts(asked.text, "#saved-before p")[0]).toBe(`Already saved on ${day} in 📚 Reading — add anyway?`);
    expect(attributes(asked.text, "#saved-before a").map((a) => a.href)).toEqual([`/?collection=${w.reading.id}#link-${first.id}`, `/links/${first.id}`]);
    // The form keeps what was typed, and offers the second button.
    expect(attributes(asked.text, "input#name")[0]!.value).toBe("Again");
    expect(attributes(asked.text, "button[name=anyway]")).toEqual([expect.objectContaining({ value: "yes", type: "submit" })]);
    expect(texts(asked.text, "button[name=anyway]")).toEqual(["Add anyway"]);

    const anyway = await submit(w.env, "/links", { name: "Again", url: "https://news.example/story", anyway: "yes", next: "/" }, w.cookie);
    expect(anyway.status).toBe(303);
    expect(urlsOf(w.env).map((link) => link.name)).toEqual(["The story", "Again"]);
  });

  it("is not said for another user's link with the same URL", async () => {
    const w = await world();
    await createLink(w.env, w.bob, { name: "Bob's story", url: "https://news.example/story" });
    const added = await submit(w.env, "/links", { name: "Mine", url: "https://news.example/story" }, w.cookie);
    expect(added.status).toBe(303);
    expect(urlsOf(w.env).map((link) => link.name)).toEqual(["Bob's story", "Mine"]);
  });
});
