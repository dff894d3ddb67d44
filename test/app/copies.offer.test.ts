/**
 * A page copy offered when its link dies, through `app.handle`: once link health calls a link
 * broken, its row in the lists, its page and the health page offer "Open the copy of <day>"
 * (not before, and not for a link without a copy); a public page and its Atom feed never name a
 * copy. A copy's readable text is what search finds of a link without saved page text, and
 * never replaces the text the extension or the server saved.
 */
import { describe, expect, it } from "bun:test";
import { recordCheck } from "../../src/shelf/link-checks";
import { aliceWithInbox, createCollection, createLink, get, type TestEnv } from "../support/helpers";
import { attributes, cookieFor, open } from "../support/html";

const putCopy = (env: TestEnv, token: string, id: number, html: string) =>
  env.app.handle(new Request(`http://localhost/api/v1/links/${id}/copy`, {
    method: "PUT", body: html, headers: { authorization: `Bearer ${token}`, "content-type": "text/html" },
  }));

/** breakLink records the failures that make the link checker call a link broken. */
function breakLink(env: TestEnv, id: number): void {
  for (const day of [9, 5, 1]) recordCheck(env.db, id, { outcome: "gone", status: 404, detail: "HTTP 404" }, env.clock.now - day * 86_400_000, env.config.linkCheck);
}

describe("a copy offered when its link dies", () => {
  async function world() {
    const { env, alice } = await aliceWithInbox();
    const shared = await createCollection(env, alice, { name: "Shared", visibility: "PUBLIC" });
    const kept = await createLink(env, alice, { name: "Kept", url: "https://kept.example/", collectionIds: [shared.id] });
    const bare = await createLink(env, alice, { name: "Bare", url: "https://bare.example/", collectionIds: [shared.id] });
    expect((await putCopy(env, alice.token, kept.id, "<p>As it was.</p>")).status).toBe(200);
    return { env, alice, shared, kept, bare, cookie: cookieFor(env, alice) };
  }
  const offers = (page: string) => attributes(page, "a.copy-offer").map((offer) => offer.href);

  it("offers nothing while the link is alive", async () => {
    const { env, cookie } = await world();
    expect(offers((await open(env, "/links", cookie)).text)).toEqual([]);
    expect(offers((await open(env, "/health", cookie)).text)).toEqual([]);
  });

  it("once broken: its row, its page and the health page offer the copy of its day; a broken link without a copy offers none", async () => {
    const { env, kept, bare, cookie } = await world();
    breakLink(env, kept.id);
    breakLink(env, bare.id);
    const row = (await open(env, "/links?broken=on", cookie)).text;
    expect(offers(row)).toEqual([`/links/${kept.id}/copy`]);
    expect(row).toMatch(/Open the copy of <time datetime="[^"]+" title="[^"]+">[A-Z][a-z]{2} \d{1,2}, \d{4}<\/time>/);
    const page = (await open(env, `/links/${kept.id}`, cookie)).text;
    expect(attributes(page, "#copy-offer a.copy-offer").map((offer) => offer.href)).toEqual([`/links/${kept.id}/copy`]);
    expect(attributes((await open(env, `/links/${bare.id}`, cookie)).text, "#copy-offer")).toEqual([]);
    expect(offers((await open(env, "/health", cookie)).text)).toEqual([`/links/${kept.id}/copy`]);
  });

  it("a public page and its feed never name a copy, opt-in or not", async () => {
    const { env, alice, shared, kept } = await world();
    breakLink(env, kept.id);
    for (const copiesPublic of [false, true]) {
      await env.app.handle(new Request(`http://localhost/api/v1/collections/${shared.id}`, {
        method: "PUT", headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Shared", visibility: "PUBLIC", copiesPublic }),
      }));
      for (const path of [`/c/${shared.id}`, `/c/${shared.id}/feed`]) expect((await get(env, path)).text).not.toContain("/copy");
    }
  });
});

describe("search and a copy's text", () => {
  it("finds a link without saved text by its copy's readable text", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice, { name: "Untitled", url: "https://gone.example/" });
    await putCopy(env, alice.token, link.id, "<html><body><article><p>Bioluminescent plankton glow along the shore at night.</p></article></body></html>");
    const hits = (await get(env, "/api/v1/search?q=bioluminescent", { token: alice.token })).body.hits;
    expect(hits.map((hit: { link: { id: number } }) => hit.link.id)).toEqual([link.id]);
    expect(hits[0].snippet.text).toContain("Bioluminescent plankton");
  });

  it("never replaces the text saved before: the saved text is what search finds", async () => {
    const { env, alice } = await aliceWithInbox();
    const link = await createLink(env, alice, { name: "Untitled", url: "https://kept.example/" });
    await env.app.handle(new Request(`http://localhost/api/v1/links/${link.id}/content`, {
      method: "PUT", headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" }, body: JSON.stringify({ text: "Saved words about tides." }),
    }));
    await putCopy(env, alice.token, link.id, "<p>Copied words about plankton.</p>");
    const found = async (q: string) => (await get(env, `/api/v1/search?q=${q}`, { token: alice.token })).body.hits.length;
    expect(await found("tides")).toBe(1);
    expect(await found("plankton")).toBe(0);
  });
});
