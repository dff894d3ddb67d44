/**
 * The To read view's one-time offer, through `app.handle`: links that earlier imports put in
 * collections named "To read" and "Archive" stay there until the person says so. The offer shows
 * while such collections (made by an import) hold links and it is unanswered; accepted, it marks
 * those links to read / archived and leaves the collections; "No thanks" changes nothing else;
 * either answer hides it for good. Another user's collections, and collections the person made,
 * never count; a POST from another site is refused with the database unchanged.
 */
import { describe, expect, it } from "bun:test";
import { importBookmarks } from "../../src/bookmarks/plan";
import { TO_READ_VIEW } from "../../src/pages/shell";
import { aliceWithInbox, createCollection, createLink, createUser, get, shelfFor, snapshot, type TestEnv, type TestUser } from "../support/helpers";
import { cookieFor, open, submit, texts } from "../support/html";

/** A bookmark file as the importers used to lay out a service's reading list and archive. */
const EARLIER = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<DL><p>
<DT><H3>To read</H3>
<DL><p>
<DT><A HREF="https://read.example/one">One</A>
<DT><A HREF="https://read.example/two">Two</A>
<DT><A HREF="https://both.example/">Both</A>
</DL><p>
<DT><H3>Archive</H3>
<DL><p>
<DT><A HREF="https://done.example/">Done</A>
<DT><A HREF="https://both.example/">Both</A>
</DL><p>
<DT><H3>Other</H3>
<DL><p>
<DT><A HREF="https://other.example/">Other</A>
</DL><p>
</DL><p>`;

/** earlierImport imports EARLIER as a recorded import (its collections carry the import's id, as the earlier importers' did). */
async function earlierImport(env: TestEnv, as: TestUser) {
  await importBookmarks(shelfFor(env, as), EARLIER, env.clock.now, { record: { source: "page", fileName: "pocket.csv" } });
}

/** flagsOf is every link of a user as `url: toRead/archived`, through the API. */
async function flagsOf(env: TestEnv, as: TestUser): Promise<Record<string, string>> {
  const response = await get(env, "/api/v1/links?limit=100", { token: as.token });
  expect(response.status).toBe(200);
  return Object.fromEntries(response.body.links.map((link: { url: string; toRead: boolean; archived: boolean }) =>
    [link.url, `${link.toRead ? "to read" : "-"}/${link.archived ? "archived" : "-"}`]));
}

const offerOf = async (env: TestEnv, cookie: string) => texts((await open(env, TO_READ_VIEW, cookie)).text, "#reading-offer-heading");
const OFFER = "Your earlier imports put 4 links in collections named To read and Archive. Mark them to read / archived instead?";

describe("the To read view's offer to turn earlier imports' To read and Archive collections into flags", () => {
  it("shows the offer with the number of links; accepting marks them, keeps the collections, and hides the offer for good", async () => {
    const { env, alice } = await aliceWithInbox();
    await earlierImport(env, alice);
    const cookie = cookieFor(env, alice);
    expect(await offerOf(env, cookie)).toEqual([OFFER]);
    // Only the To read view offers it.
    expect(texts((await open(env, "/links?sort=newest", cookie)).text, "#reading-offer-heading")).toEqual([]);

    const answered = await submit(env, "/links/reading-offer", { answer: "accept" }, cookie);
    expect(answered.status).toBe(303);
    expect(answered.headers.get("location")).toBe(`${TO_READ_VIEW}&done=reading-offer-accepted`);
    expect(await flagsOf(env, alice)).toEqual({
      "https://read.example/one": "to read/-", "https://read.example/two": "to read/-", "https://both.example/": "to read/archived",
      "https://done.example/": "-/archived", "https://other.example/": "-/-",
    });
    const page = await open(env, answered.headers.get("location")!, cookie);
    expect(texts(page.text, "[role=status]")[0]).toContain("The collections are still there with their links");
    expect(texts(page.text, "#reading-offer-heading")).toEqual([]);
    // The collections and their links stay.
    const names = (await get(env, "/api/v1/collections", { token: alice.token })).body.collections.map((c: { name: string; links: unknown[] }) => `${c.name}:${c.links.length}`);
    expect(names).toContain("To read:3");
    expect(names).toContain("Archive:2");
    // Answered once: not shown again, and a second accept changes nothing.
    expect(await offerOf(env, cookie)).toEqual([]);
    await shelfFor(env, alice).links.setFlags((await get(env, "/api/v1/links?limit=100", { token: alice.token })).body.links.find((l: { url: string }) => l.url === "https://done.example/").id, { archived: false }, env.clock.now);
    const before = snapshot(env);
    expect((await submit(env, "/links/reading-offer", { answer: "accept" }, cookie)).status).toBe(303);
    expect(snapshot(env)).toBe(before);
  });

  it("No thanks changes no link and hides the offer for good", async () => {
    const { env, alice } = await aliceWithInbox();
    await earlierImport(env, alice);
    const cookie = cookieFor(env, alice);
    const flags = await flagsOf(env, alice);
    const answered = await submit(env, "/links/reading-offer", { answer: "decline" }, cookie);
    expect(answered.status).toBe(303);
    expect(answered.headers.get("location")).toBe(`${TO_READ_VIEW}&done=reading-offer-declined`);
    expect(await flagsOf(env, alice)).toEqual(flags);
    expect(Object.values(flags).every((value) => value === "-/-")).toBe(true);
    expect(await offerOf(env, cookie)).toEqual([]);
    // A later accept does nothing: the answer was given.
    const before = snapshot(env);
    await submit(env, "/links/reading-offer", { answer: "accept" }, cookie);
    expect(snapshot(env)).toBe(before);
    expect(await offerOf(env, cookie)).toEqual([]);
  });

  it("counts only the person's own collections an import made: not another user's, not ones the person named so", async () => {
    const { env, alice } = await aliceWithInbox();
    const bob = await createUser(env, { email: "bob@example.test" });
    await earlierImport(env, bob);
    const cookie = cookieFor(env, alice);
    // Alice's own collections of those names, with links: not an import's.
    const own = await createCollection(env, alice, { name: "To read" });
    await createLink(env, alice, { url: "https://mine.example/", collectionIds: [own.id] });
    expect(await offerOf(env, cookie)).toEqual([]);
    // Accepting anyway marks nothing of Alice's and nothing of Bob's.
    const before = await flagsOf(env, bob);
    await submit(env, "/links/reading-offer", { answer: "accept" }, cookie);
    expect(await flagsOf(env, alice)).toEqual({ "https://mine.example/": "-/-" });
    expect(await flagsOf(env, bob)).toEqual(before);
    // Bob still has his offer, with his own count.
    expect(await offerOf(env, cookieFor(env, bob))).toEqual([OFFER]);
  });

  it("is not shown when the import's collections hold no link", async () => {
    const { env, alice } = await aliceWithInbox();
    await importBookmarks(shelfFor(env, alice), "<!DOCTYPE NETSCAPE-Bookmark-file-1><DL><p><DT><H3>To read</H3><DL><p></DL><p><DT><A HREF=\"https://x.example/\">X</A></DL><p>", env.clock.now, { record: { source: "page", fileName: "x.html" } });
    expect(await offerOf(env, cookieFor(env, alice))).toEqual([]);
  });

  it("refuses an answer from another site, or without a session, with the database unchanged", async () => {
    const { env, alice } = await aliceWithInbox();
    await earlierImport(env, alice);
    const cookie = cookieFor(env, alice);
    const before = snapshot(env);
    const offers = () => env.db.$client.query("SELECT count(*) AS n FROM reading_offers").get();
    const crossSite = await submit(env, "/links/reading-offer", { answer: "accept" }, cookie, "https://evil.example");
    expect(crossSite.status).toBe(403);
    const signedOut = await submit(env, "/links/reading-offer", { answer: "accept" });
    // Sent to sign in, nothing done.
    expect(signedOut.headers.get("location") ?? "").not.toContain("done=reading-offer");
    expect(snapshot(env)).toBe(before);
    expect(offers()).toEqual({ n: 0 });
    expect(await offerOf(env, cookie)).toEqual([OFFER]);
  });
});
