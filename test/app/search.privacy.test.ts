/**
 * A search answers from the asker's links alone: each user has an index of their own, so what
 * another user stores (names, URLs, descriptions, page text) moves nothing of an answer (hits,
 * order, scores, snippets, cursors), and no search reads another user's index.
 */
import { describe, expect, it } from "bun:test";
import { createLink, createUser, del, get, makeEnv, put, type TestEnv, type TestUser } from "../support/helpers";

/** Alice's shelf: words that Bob's private text will hold too, in every field. */
async function aliceAndBob() {
  const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" });
  const alice = await createUser(env);
  const bob = await createUser(env);
  const mine = [
    await createLink(env, alice, { name: "Otter habitats", url: "https://rivers.example/otter", description: "Where otters live" }),
    await createLink(env, alice, { name: "Memo on rivers", url: "https://memo.example/budget", description: "Budget of the river trust", favorite: true }),
    await createLink(env, alice, { name: "Salary review", url: "https://hr.example/otter-review", description: "" }),
    await createLink(env, alice, { name: "Kayak trip", url: "https://kayak.example/", description: "Otter spotting by kayak" }),
  ];
  await put(env, `/api/v1/links/${mine[0]!.id}/content`, { token: alice.token, body: { text: "Otters build dens by rivers. A budget memo about otters and kayaks." } });
  await put(env, `/api/v1/links/${mine[3]!.id}/content`, { token: alice.token, body: { text: "The salary of a river guide. Otter, otter, otter." } });
  return { env, alice, bob };
}

/** Alice's searches: words Bob's text holds (in each field), a phrase, a prefix, an exclusion, a filter, a second page. */
const QUERIES = ["otter", "memo", "budget", "salary", "river", "kayak", "\"otter spotting\"", "ott*", "otter -salary", "rivers otter"];

/**
 * answers is the raw bytes of every answer of Alice's searches, following each one's cursor to
 * its last page, asked at the same moment each time (a cursor carries the time of its first page).
 */
async function answers(env: TestEnv, alice: TestUser): Promise<string[]> {
  env.clock.now = Date.parse("2026-12-01T00:00:00.000Z");
  const bodies: string[] = [];
  for (const q of QUERIES) {
    for (const extra of ["&limit=2", "&favorite=true", ""]) {
      let cursor = "";
      for (let page = 0; page < 5; page++) {
        const response = await get(env, `/api/v1/search?q=${encodeURIComponent(q)}${extra}${cursor}`, { token: alice.token });
        expect({ q, status: response.status }).toEqual({ q, status: 200 });
        bodies.push(`${q}${extra}${cursor} ${response.text}`);
        if (!response.body.nextCursor) break;
        cursor = `&cursor=${response.body.nextCursor}`;
      }
    }
  }
  return bodies;
}

/** bobsPrivateText stores links of Bob's holding Alice's words in every field, many times over; returns their ids. */
async function bobsPrivateText(env: TestEnv, bob: TestUser): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < 12; i++) {
    const link = await createLink(env, bob, {
      name: `Private memo ${i}: salary otter budget`, url: `https://secret.example/otter/${i}/budget`,
      description: i % 2 ? "kayak river memo otter" : "",
    });
    await put(env, `/api/v1/links/${link.id}/content`, { token: bob.token, body: { text: `Otter spotting memo. ${"salary budget river otter ".repeat(i + 1)}` } });
    ids.push(link.id);
  }
  return ids;
}

describe("search answers depend on the asker's links only", () => {
  it("gives Alice the same bytes before, while and after Bob stores private text holding her words", async () => {
    const { env, alice, bob } = await aliceAndBob();
    const before = await answers(env, alice);
    expect(before.some((body) => body.includes("\"nextCursor\":\"") )).toBe(true);

    const bobs = await bobsPrivateText(env, bob);
    expect((await get(env, "/api/v1/search?q=otter", { token: bob.token })).body.hits).toHaveLength(12);
    expect(await answers(env, alice)).toEqual(before);

    // Bob edits his links (a rewrite of their index rows), then deletes them.
    for (const id of bobs.slice(0, 6)) {
      expect((await put(env, `/api/v1/links/${id}`, { token: bob.token, body: { name: "Otter otter memo", url: "https://secret.example/kayak", favorite: false, description: "salary", collectionIds: [] } })).status).toBe(200);
    }
    expect(await answers(env, alice)).toEqual(before);
    for (const id of bobs) expect((await del(env, `/api/v1/links/${id}`, { token: bob.token })).status).toBe(200);
    expect(await answers(env, alice)).toEqual(before);
  });

  it("never reads another user's index: with Bob's index gone, Alice's answers are the same", async () => {
    const { env, alice, bob } = await aliceAndBob();
    await bobsPrivateText(env, bob);
    const before = await answers(env, alice);
    env.db.$client.run(`DROP TABLE link_search_${bob.user.id}`);
    expect(await answers(env, alice)).toEqual(before);
  });

  it("answers a user whose links were never indexed with no hits", async () => {
    const { env } = await aliceAndBob();
    const carol = await createUser(env);
    const response = await get(env, "/api/v1/search?q=otter", { token: carol.token });
    expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: "{\"hits\":[],\"nextCursor\":null}" });
  });
});
