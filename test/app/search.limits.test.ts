/**
 * No search can hold the server: prefixes are bounded before a search runs, a search that spends
 * its budget of server time answers 422 QUERY_TOO_BROAD (never a part of its answer), and the
 * search page and the browser extension's address-bar suggestions count against the rate limit
 * like the API. The budget runs out here by an injected clock: no test measures time.
 */
import { describe, expect, it } from "bun:test";
import { createOmnibox } from "../../extension/src/omnibox";
import { BREADTH_LIMITS } from "../../src/fulltext/query";
import { TOO_BROAD_MESSAGE } from "../../src/shelf/search";
import { APP_ORIGIN, appFetch, FakeStorage, FakeTabs } from "../support/extension.fakes";
import { cookieFor, submit, texts } from "../support/html";
import { createLink, createUser, get, makeEnv, put, sessionCookie, snapshot, type EnvOptions, type TestEnv, type TestUser } from "../support/helpers";

const search = (env: TestEnv, as: TestUser, q: string) => get(env, `/api/v1/search?q=${encodeURIComponent(q)}`, { token: as.token });
const searchPage = (env: TestEnv, as: TestUser, q: string) =>
  get(env, `/search?q=${encodeURIComponent(q)}`, { headers: { cookie: sessionCookie(env, as.user.id) } });

/** A shelf whose links hold words starting ab, cd, ef, gh, ij (and one of them all). */
async function shelf(env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" })) {
  const alice = await createUser(env);
  const all = await createLink(env, alice, { name: "abacus cdrom effort ghost ijssel", url: "https://all.example/" });
  await createLink(env, alice, { name: "abbey", url: "https://one.example/" });
  await put(env, `/api/v1/links/${all.id}/content`, { token: alice.token, body: { text: "東京都に住んでいます。" } });
  return { env, alice, all };
}

/** refusedAsTooBroad: a 422 QUERY_TOO_BROAD with `message` (a sentence, no field errors), the database unchanged. */
async function refusedAsTooBroad(env: TestEnv, alice: TestUser, q: string, message: string | RegExp) {
  const before = snapshot(env);
  const response = await search(env, alice, q);
  expect({ q, status: response.status, code: response.body.code, errors: response.body.errors }).toEqual({ q, status: 422, code: "QUERY_TOO_BROAD", errors: undefined });
  expect(response.body.message).toMatch(message);
  expect(snapshot(env)).toBe(before);
}

describe("GET /api/v1/search: prefixes are bounded before the search runs", () => {
  it(`needs ${BREADTH_LIMITS.prefixChars} letters or digits before a *`, async () => {
    const { env, alice, all } = await shelf();
    expect(BREADTH_LIMITS.prefixChars).toBe(2);
    expect(hitIdsOf(await search(env, alice, "ab*"))).toContain(all.id);
    expect(hitIdsOf(await search(env, alice, "\"abacus cd\"*"))).toEqual([all.id]);
    expect(hitIdsOf(await search(env, alice, "abacus -cd*"))).toEqual([]);
    const short = /"a\*" is too short a prefix: it would match too many words\. Write at least 2 letters or digits before the \*\./;
    await refusedAsTooBroad(env, alice, "a*", short);
    await refusedAsTooBroad(env, alice, "abacus a*", short);
    await refusedAsTooBroad(env, alice, "abacus -a*", short);
    await refusedAsTooBroad(env, alice, "\"abacus c\"*", /"abacus c\*" is too short a prefix/);
    await refusedAsTooBroad(env, alice, "é*", /"é\*" is too short a prefix/);
  });

  it("lets one CJK character stand alone or as a prefix (it is the start of the pairs it begins)", async () => {
    const { env, alice, all } = await shelf();
    expect(hitIdsOf(await search(env, alice, "京"))).toEqual([all.id]);
    expect(hitIdsOf(await search(env, alice, "京*"))).toEqual([all.id]);
  });

  it(`takes at most ${BREADTH_LIMITS.prefixTerms} prefixes, exclusions and lone CJK characters included`, async () => {
    const { env, alice, all } = await shelf();
    expect(BREADTH_LIMITS.prefixTerms).toBe(4);
    expect(hitIdsOf(await search(env, alice, "ab* cd* ef* gh*"))).toEqual([all.id]);
    expect(hitIdsOf(await search(env, alice, "ab* cd* ef* -zz* ijssel"))).toEqual([all.id]);
    const many = /This search has more than 4 prefixes \(words ending in \*\): each matches many words\. Write some of them out in full\./;
    await refusedAsTooBroad(env, alice, "ab* cd* ef* gh* ij*", many);
    await refusedAsTooBroad(env, alice, "ab* cd* ef* gh* -zz*", many);
    await refusedAsTooBroad(env, alice, "ab* cd* ef* gh* 京", many);
  });
});

/** hitIdsOf: the ids of a 200 answer's hits. */
function hitIdsOf(response: { status: number; body: { hits: { link: { id: number } }[] } }): number[] {
  expect(response.status).toBe(200);
  return response.body.hits.map((hit) => hit.link.id);
}

/** A search budget by a clock that reads `started` first, then `later` at every reading after. */
function budgetOf(millis: number, spent: number): NonNullable<EnvOptions["searchBudget"]> {
  let readings = 0;
  return { millis, clock: () => (readings++ === 0 ? 0 : spent) };
}

describe("a search's budget of server time", () => {
  it("answers a search that used its whole budget, and refuses one a moment past it with 422 QUERY_TOO_BROAD", async () => {
    for (const [spent, status] of [[1000, 200], [1000.001, 422]] as const) {
      const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" }, { searchBudget: budgetOf(1000, spent) });
      const { alice } = await shelf(env);
      const before = snapshot(env);
      const response = await search(env, alice, "abacus");
      expect({ spent, status: response.status }).toEqual({ spent, status });
      if (status === 422) {
        expect(response.body).toEqual({ message: TOO_BROAD_MESSAGE, code: "QUERY_TOO_BROAD" });
        expect(TOO_BROAD_MESSAGE).toBe("This search matches too much to rank within a second: add a word, make a prefix* longer, or use fewer prefixes.");
      }
      expect(snapshot(env)).toBe(before);
    }
  });

  it("stops while reading the matches, however many there are, and answers nothing of them", async () => {
    // The clock passes the budget at its fourth reading: within the ranking of the matches.
    let readings = 0;
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" }, { searchBudget: { millis: 1000, clock: () => (readings++ < 3 ? 0 : 5000) } });
    const { alice } = await shelf(env);
    for (let i = 0; i < 30; i++) await createLink(env, alice, { name: `abbot ${i}`, url: `https://many.example/${i}` });
    const response = await search(env, alice, "ab*");
    expect({ status: response.status, body: response.body }).toEqual({ status: 422, body: { message: TOO_BROAD_MESSAGE, code: "QUERY_TOO_BROAD" } });
    expect(readings).toBe(4);
  });

  it("shows the search page again with the reason beside the box, 422, and no hits", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" }, { searchBudget: budgetOf(1000, 2000) });
    const { alice } = await shelf(env);
    const response = await searchPage(env, alice, "abacus");
    expect(response.status).toBe(422);
    const page = texts(response.text, "body")[0]!;
    expect(page).toContain(TOO_BROAD_MESSAGE);
    expect(page).not.toContain("abacus cdrom effort");
    const short = await searchPage(env, alice, "a*");
    expect(short.status).toBe(422);
    expect(texts(short.text, "body")[0]).toContain("\"a*\" is too short a prefix");
  });
});

describe("a bulk action on every hit of a search that runs out of its budget", () => {
  it("shows the search page again with the reason beside the box, 422, and changes nothing", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" }, { searchBudget: budgetOf(1000, 2000) });
    const { alice } = await shelf(env);
    const cookie = cookieFor(env, alice);
    const before = snapshot(env);
    const response = await submit(env, "/links/bulk", { next: "/search?q=abacus", action: "favorite", scope: "all", "view-q": "abacus" }, cookie);
    expect(response.status).toBe(422);
    expect(texts(response.text, "h1")).toEqual(["Search: “abacus”"]);
    expect(texts(response.text, "body")[0]).toContain(TOO_BROAD_MESSAGE);
    expect(snapshot(env)).toBe(before);
  });
});

describe("searching from the web pages and the address bar is rate-limited like the API", () => {
  const remainingOf = (response: { headers: Headers }) => Number(response.headers.get("ratelimit-remaining"));

  it("counts each search page against the user's limit, shared with the API, and answers 429 past it", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "4/60" });
    const { alice } = await shelf(env);
    env.clock.now += 61_000;
    const first = await searchPage(env, alice, "abacus");
    expect({ status: first.status, limit: first.headers.get("ratelimit-limit"), remaining: remainingOf(first) }).toEqual({ status: 200, limit: "4", remaining: 3 });
    expect(remainingOf(await search(env, alice, "abacus"))).toBe(2);
    // A refused query is counted too, and its page carries the headers.
    const refusedPage = await searchPage(env, alice, "a*");
    expect({ status: refusedPage.status, remaining: remainingOf(refusedPage) }).toEqual({ status: 422, remaining: 1 });
    expect(remainingOf(await searchPage(env, alice, ""))).toBe(0);
    const over = await searchPage(env, alice, "abacus");
    expect({ status: over.status, retryAfter: Number(over.headers.get("retry-after")) > 0 }).toEqual({ status: 429, retryAfter: true });
    expect(over.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect((await search(env, alice, "abacus")).status).toBe(429);
  });

  it("counts a search page asked without a session against the address, on its way to sign in", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "2/60" });
    const ask = () => get(env, "/search?q=abacus");
    const first = await ask();
    expect({ status: first.status, remaining: remainingOf(first) }).toEqual({ status: 303, remaining: 1 });
    expect((await ask()).status).toBe(303);
    expect((await ask()).status).toBe(429);
  });

  it("counts the extension's address-bar suggestions against the user's limit", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "3/60" });
    const { alice } = await shelf(env);
    env.clock.now += 61_000;
    const storage = new FakeStorage();
    await storage.set({ server: APP_ORIGIN, token: alice.token });
    const seen: Request[] = [];
    const omnibox = createOmnibox({ storage, tabs: new FakeTabs(), flavor: "firefox", fetch: appFetch(env, seen), debounceMs: 0, openOptionsPage: async () => {} });
    for (const text of ["abacus", "abbey"]) await omnibox.inputChanged(text, () => {});
    expect(seen.map((request) => new URL(request.url).pathname)).toEqual(["/api/v1/search", "/api/v1/search"]);
    const third = await search(env, alice, "abacus");
    expect(remainingOf(third)).toBe(0);
    expect((await search(env, alice, "abacus")).status).toBe(429);
  });
});
