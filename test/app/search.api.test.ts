/**
 * Full-text search and saved page content, through the HTTP API: `PUT|GET
 * /api/v1/links/:id/content` and `GET /api/v1/search` — the query language, ranking, snippets,
 * paging, limits on both sides, ownership, hostile queries; and the index staying in step with
 * every write of a link.
 */
import { Database } from "bun:sqlite";
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import fc from "fast-check";
import { writeLink } from "../../src/shelf/links";
import { Shelf } from "../../src/shelf/shelf";
import { storeFetchedContent } from "../../src/shelf/contents";
import { RANKING } from "../../src/shelf/search";
import { closeDatabase } from "../../src/db/client";
import { indexPendingLinks } from "../../src/fulltext/index-text";
import { testDir } from "../support/dirs";
import { createCollection, createLink, createUser, del, get, makeEnv, put, snapshot, type TestEnv, type TestUser } from "../support/helpers";

const MIB = 1024 * 1024;

const search = (env: TestEnv, as: TestUser, q: string, extra = "") =>
  get(env, `/api/v1/search?q=${encodeURIComponent(q)}${extra}`, { token: as.token });
/** percentEncoded writes any bytes (not necessarily UTF-8) as a query string value. */
const percentEncoded = (bytes: Uint8Array) => [...bytes].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");
const hitIds = (body: { hits: { link: { id: number } }[] }) => body.hits.map((hit) => hit.link.id);
const saveContent = (env: TestEnv, as: TestUser, id: number, body: unknown) => put(env, `/api/v1/links/${id}/content`, { token: as.token, body });

/** found is the ids of the links a query finds (200 expected). */
async function found(env: TestEnv, as: TestUser, q: string): Promise<number[]> {
  const response = await search(env, as, q);
  expect({ q, status: response.status }).toEqual({ q, status: 200 });
  return hitIds(response.body);
}

/** A user with a few links, some with saved page text. */
async function library(env = makeEnv()) {
  const alice = await createUser(env);
  const bob = await createUser(env);
  const rust = await createLink(env, alice, { name: "The book", url: "https://github.com/rust-lang/book" });
  const cafe = await createLink(env, alice, { name: "Café culture", url: "https://cafes.example/", description: "Where to sit" });
  const article = await createLink(env, alice, { name: "An article", url: "https://news.example/a" });
  await saveContent(env, alice, article.id, { text: "The connections between running systems are open source software, not closed.", title: "Networks" });
  const tokyo = await createLink(env, alice, { name: "旅行メモ", url: "https://travel.example/" });
  await saveContent(env, alice, tokyo.id, { text: "東京都に住んでいます。京都にも行きました。" });
  const bobs = await createLink(env, bob, { name: "Bob's book about running", url: "https://github.com/bob/book" });
  await saveContent(env, bob, bobs.id, { text: "A secret text about open source connections." });
  return { env, alice, bob, rust, cafe, article, tokyo, bobs };
}

describe("GET /api/v1/search: the query language", () => {
  it("needs every word to match, in any field", async () => {
    const { env, alice, article, rust } = await library();
    expect(await found(env, alice, "open software")).toEqual([article.id]);
    expect(await found(env, alice, "open book")).toEqual([]);
    expect(await found(env, alice, "book")).toEqual([rust.id]);
    expect(await found(env, alice, "networks")).toEqual([article.id]);
  });

  it("finds an exact phrase only with its words next to each other, in order", async () => {
    const { env, alice, article } = await library();
    expect(await found(env, alice, "\"open source\"")).toEqual([article.id]);
    expect(await found(env, alice, "\"source open\"")).toEqual([]);
    expect(await found(env, alice, "\"open software\"")).toEqual([]);
  });

  it("leaves out links holding an excluded word or phrase", async () => {
    const { env, alice, rust, article } = await library();
    const both = await createLink(env, alice, { name: "Open book", url: "https://open.example/" });
    expect((await found(env, alice, "book")).sort()).toEqual([rust.id, both.id].sort());
    expect(await found(env, alice, "book -open")).toEqual([rust.id]);
    expect(await found(env, alice, "book -\"open book\"")).toEqual([rust.id]);
    expect(await found(env, alice, "open -book")).toEqual([article.id]);
  });

  it("finds words by prefix*", async () => {
    const { env, alice, article } = await library();
    expect(await found(env, alice, "conn*")).toEqual([article.id]);
    expect(await found(env, alice, "softw*")).toEqual([article.id]);
    expect(await found(env, alice, "softz*")).toEqual([]);
  });

  it("ignores case and diacritics, both ways", async () => {
    const { env, alice, cafe } = await library();
    for (const q of ["cafe", "CAFÉ", "café", "Cafe\u0301", "CULTURE"]) expect(await found(env, alice, q)).toEqual([cafe.id]);
    const naive = await createLink(env, alice, { name: "naive", url: "https://n.example/" });
    expect(await found(env, alice, "naïve")).toEqual([naive.id]);
  });

  it("finds English words by their stem", async () => {
    const { env, alice, article } = await library();
    for (const q of ["connecting", "connection", "run", "runs", "systems", "system"]) expect(await found(env, alice, q)).toEqual([article.id]);
  });

  it("finds CJK text by any substring of two or more characters, in the content and in names", async () => {
    const { env, alice, tokyo } = await library();
    for (const q of ["東京", "京都", "東京都", "都に", "住んで", "東京都に住んでいます", "行きました", "メモ", "旅行"]) expect(await found(env, alice, q)).toEqual([tokyo.id]);
    expect(await found(env, alice, "京東")).toEqual([]);
    expect(await found(env, alice, "大阪")).toEqual([]);
    // One character finds every place it occurs.
    expect(await found(env, alice, "都")).toEqual([tokyo.id]);
    // Phrases run on from CJK into other words, with or without a space.
    const tower = await createLink(env, alice, { name: "東京タワー tower 東京 タワー", url: "https://t.example/" });
    for (const q of ["\"東京 タワー\"", "\"タワー tower\"", "タワーtower", "\"東京タワー\""]) expect({ q, found: await found(env, alice, q) }).toEqual({ q, found: [tower.id] });
    expect(await found(env, alice, "\"タワー 東京タワー\"")).toEqual([]);
  });

  it("finds parts of URLs: host names, path words, hyphenated words", async () => {
    const { env, alice, rust } = await library();
    for (const q of ["github", "rust-lang", "rust", "lang", "github.com/rust-lang"]) expect(await found(env, alice, q)).toEqual([rust.id]);
    const wiki = await createLink(env, alice, { name: "Wiki", url: "https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC%E5%A4%A7%E5%AD%A6" });
    expect(await found(env, alice, "東京大学")).toEqual([wiki.id]);
  });

  it("keeps GET /api/v1/links?q= a plain substring search of names, URLs and descriptions", async () => {
    const { env, alice, rust, article } = await library();
    const substring = await get(env, "/api/v1/links?q=ust-la", { token: alice.token });
    expect(substring.body.links.map((link: { id: number }) => link.id)).toEqual([rust.id]);
    expect(await found(env, alice, "ust-la")).toEqual([]);
    // Saved page text is for full-text search only.
    expect((await get(env, "/api/v1/links?q=connections", { token: alice.token })).body.links).toEqual([]);
    expect(await found(env, alice, "connections")).toEqual([article.id]);
  });

  it("filters by collection and favorite", async () => {
    const { env, alice, rust } = await library();
    const reading = await createCollection(env, alice, { name: "Reading" });
    const kept = await createLink(env, alice, { name: "Another book", url: "https://x.example/", favorite: true, collectionIds: [reading.id] });
    expect((await search(env, alice, "book", `&collectionId=${reading.id}`)).body.hits.map((hit: { link: { id: number } }) => hit.link.id)).toEqual([kept.id]);
    expect(hitIds((await search(env, alice, "book", "&favorite=true")).body)).toEqual([kept.id]);
    expect(hitIds((await search(env, alice, "book", "&favorite=false")).body)).toEqual([rust.id]);
  });
});

describe("GET /api/v1/search: hostile and impossible queries", () => {
  const refused: [string, string][] = [
    ["\"", "closing quotation mark"],
    ["\"open source", "closing quotation mark"],
    ["AND(", "Parentheses"],
    ["(open OR book)", "Parentheses"],
    ["*", "letters or digits before it"],
    ["open *", "letters or digits before it"],
    ["co*nn", "end of a word"],
    ["\"open\"source", "space after"],
    ["ope\"n", "around a whole phrase"],
    ["-", "word to leave out"],
    ["book -", "word to leave out"],
    ["-book", "besides the ones to leave out"],
    ["-book -\"open source\"", "besides the ones to leave out"],
    ["&& || --", "letters or digits"],
    ["   ", "Expected words"],
    ["", "Expected words"],
    ["a".repeat(201), "1-200 characters"],
    [Array.from({ length: 33 }, (_, i) => `w${i}`).join(" "), "at most 32"],
  ];
  for (const [q, message] of refused) {
    it(`refuses ${JSON.stringify(q.length > 40 ? `${q.slice(0, 20)}…` : q)} with a 422 at /q that says why`, async () => {
      const { env, alice } = await library();
      const response = await search(env, alice, q);
      expect(response.status).toBe(422);
      expect(response.body.code).toBe("VALIDATION_FAILED");
      expect(response.body.errors).toHaveLength(1);
      expect(response.body.errors[0].path).toBe("/q");
      expect(response.body.errors[0].message).toContain(message);
    });
  }

  it("refuses a missing q with a 422 at /q", async () => {
    const { env, alice } = await library();
    const response = await get(env, "/api/v1/search", { token: alice.token });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([{ path: "/q", message: "Expected words to search for" }]);
  });

  it("reads FTS5's operators and syntax characters as plain words", async () => {
    const { env, alice, article, rust } = await library();
    const and = await createLink(env, alice, { name: "Rock AND roll NOT jazz OR NEAR", url: "https://music.example/" });
    for (const q of ["AND", "OR", "NEAR", "and roll", "NOT jazz", "jazz OR"]) expect(await found(env, alice, q)).toEqual([and.id]);
    for (const q of ["open:source", "^open", "{open}", "open+source", "open;", "open\\", "'open'", "open/source", "open\u0000source", "[open]", "open~", "open?"]) {
      expect({ q, found: await found(env, alice, q) }).toEqual({ q, found: [article.id] });
    }
    expect(await found(env, alice, "book ^ & !")).toEqual([rust.id]);
    expect(await found(env, alice, "\"\" book \"!\"")).toEqual([rust.id]);
  });

  it("answers 200 or 422, never anything else, for random queries (property)", async () => {
    const { env, alice } = await library(makeEnv({ LINKSHELF_RATE_LIMIT: "off" }));
    const syntax = fc.constantFrom("\"", "*", "-", "(", ")", "^", ":", "{", "}", "AND", "OR", "NOT", "NEAR", " ", "+", "\\", "'", "\u0000", "😀", "東京", "e\u0301", "\uD800", "open", "book");
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "binary", maxLength: 40 }), fc.array(syntax, { maxLength: 12 }).map((parts) => parts.join("")));
    // Any bytes at all: lone surrogates, invalid UTF-8, NUL.
    const query = fc.oneof(text.map((q) => percentEncoded(Buffer.from(q))), fc.uint8Array({ maxLength: 40 }).map(percentEncoded));
    const before = snapshot(env);
    await fc.assert(fc.asyncProperty(query, async (q) => {
      const response = await get(env, `/api/v1/search?q=${q}`, { token: alice.token });
      expect([200, 422]).toContain(response.status);
      if (response.status === 422) expect(response.body.errors[0].path).toBe("/q");
    }), { seed: 20261125, numRuns: 400 });
    expect(snapshot(env)).toBe(before);
  });
});

describe("GET /api/v1/search: ranking", () => {
  it("ranks a name match above a match in the page text only", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const inText = await createLink(env, alice, { name: "Something", url: "https://a.example/" });
    await saveContent(env, alice, inText.id, { text: "A long page that mentions zeppelins once among many other words of text." });
    const inName = await createLink(env, alice, { name: "Zeppelins", url: "https://b.example/" });
    const inDescription = await createLink(env, alice, { name: "Other", url: "https://c.example/", description: "zeppelins" });
    const inUrl = await createLink(env, alice, { name: "Third", url: "https://zeppelins.example/" });
    const hits = (await search(env, alice, "zeppelins")).body.hits;
    expect(hits.map((hit: { link: { id: number } }) => hit.link.id)).toEqual([inName.id, inDescription.id, inUrl.id, inText.id]);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
  });

  it("ranks, of two links matching equally, the one opened more first", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const first = await createLink(env, alice, { name: "Guide to gardens", url: "https://a.example/" });
    const second = await createLink(env, alice, { name: "Guide to gardens", url: "https://a.example/" });
    expect(await found(env, alice, "gardens")).toEqual([second.id, first.id]);
    for (let i = 0; i < 3; i++) expect((await get(env, `/l/${first.id}`, { token: alice.token })).status).toBe(302);
    expect((await get(env, `/l/${second.id}`, { token: alice.token })).status).toBe(302);
    expect(await found(env, alice, "gardens")).toEqual([first.id, second.id]);
  });

  it("ranks, of two links matching equally and opened as often, the one opened more recently first", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const older = await createLink(env, alice, { name: "Guide to gardens", url: "https://a.example/" });
    const newer = await createLink(env, alice, { name: "Guide to gardens", url: "https://a.example/" });
    await get(env, `/l/${newer.id}`, { token: alice.token });
    env.clock.now += 60 * 86_400_000;
    await get(env, `/l/${older.id}`, { token: alice.token });
    expect(await found(env, alice, "gardens")).toEqual([older.id, newer.id]);
  });

  it("orders equal scores newest first, and says so in equal scores", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const links = [];
    for (let i = 0; i < 3; i++) links.push(await createLink(env, alice, { name: "Same words", url: "https://a.example/" }));
    const hits = (await search(env, alice, "same")).body.hits;
    expect(hits.map((hit: { link: { id: number } }) => hit.link.id)).toEqual(links.map((link) => link.id).reverse());
    expect(new Set(hits.map((hit: { score: number }) => hit.score)).size).toBe(1);
  });
});

/**
 * The ranking as the documentation defines it, computed here for every match of `q` (the
 * owner's, favorites only when asked): each match's bm25 times its use multiplier, best first,
 * equal scores newest first. The search must give exactly this, however little it reads.
 */
function everyMatchRanked(env: TestEnv, as: TestUser, q: string, now: number, favorite?: boolean): [number, number][] {
  const index = `link_search_${as.user.id}`;
  return env.db.$client.query<{ id: number; score: number }, [string, number, number, number | null]>(`
    SELECT l.id, -bm25(${index}, 8.0, 4.0, 2.0, 1.0) * (1 + 0.2 * ln(1 + l.clicks)
      + 0.3 * CASE WHEN l.last_clicked_at IS NULL THEN 0 ELSE pow(0.5, max(0, ?3 - l.last_clicked_at) / 2592000000.0) END) AS score
    FROM ${index} JOIN links l ON l.id = ${index}.rowid
    WHERE ${index} MATCH ?1 AND l.user_id = ?2 AND (?4 IS NULL OR l.favorite = ?4)
    ORDER BY score DESC, l.id DESC`).all(`"${q}"`, as.user.id, now, favorite === undefined ? null : Number(favorite)).map((row) => [row.id, row.score]);
}

describe("GET /api/v1/search: ranking many matches", () => {
  /** 150 links of Alice's holding "otter" in one field or another, used very unevenly; Bob's, used more. */
  async function usedShelf(path?: string) {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" }, path === undefined ? {} : { path });
    const alice = await createUser(env);
    const bob = await createUser(env);
    const sqlite = env.db.$client;
    let heavy = 0;
    for (const [who, count] of [[alice, 150], [bob, 30]] as const) {
      const shelf = new Shelf(env.db, who.user);
      for (let i = 0; i < count; i++) {
        const field = i % 5;
        const link = writeLink(shelf, {
          name: field === 0 ? `Otter ${"notes ".repeat(i % 7)}${i}` : `Link ${i}`, url: field === 1 ? `https://otter.example/${i}` : `https://a.example/${i}`,
          description: field === 2 ? `About otters and ${"rivers ".repeat(i % 4)}` : "", favorite: i % 3 === 0,
        }, env.clock.now++);
        if (field >= 3) shelf.links.setContent(link.id, { text: `${"Words of filler text. ".repeat(1 + (i % 40))}${"otter ".repeat(1 + (i % 3))}` }, "browser", env.clock.now++);
        // Most links are never opened; some a few times; one in the page text only, a great many.
        const clicks = who === bob ? 100_000 : i === 148 ? 5_000 : i % 4 === 0 ? i % 13 : 0;
        if (clicks === 5_000) heavy = link.id;
        // Last clicked after "now" (the full 30 %) or a century ago (nothing): scores that do not
        // move with the millisecond each request is answered at, so they can be compared here.
        const last = i % 8 === 0 ? env.clock.now - 36_500 * 86_400_000 : env.clock.now + 86_400_000;
        if (clicks > 0) sqlite.run("UPDATE links SET clicks = ?, last_clicked_at = ? WHERE id = ?", [clicks, last, link.id]);
      }
    }
    indexPendingLinks(env.db);
    return { env, alice, bob, heavy };
  }

  it("gives exactly the ranking of scoring every match, page after page, with and without filters", async () => {
    const { env, alice, heavy } = await usedShelf();
    const now = env.clock.now;
    const kept = RANKING.firstCandidates;
    // Also with fewer matches kept at first than a page needs (the search runs again over all of them), or just enough.
    for (const firstCandidates of [kept, 4, 60]) {
      RANKING.firstCandidates = firstCandidates;
      try {
        await expectEveryMatchRanking(env, alice, now);
      } finally {
        RANKING.firstCandidates = kept;
      }
    }
    // The link found only in its page text but opened 5,000 times is lifted to the first page.
    const place = everyMatchRanked(env, alice, "otter", now).findIndex(([id]) => id === heavy);
    expect(place).toBeGreaterThanOrEqual(0);
    expect(place).toBeLessThan(20);
  });

  /** expectEveryMatchRanking pages through "otter" at several page sizes, with and without filters, and compares with everyMatchRanked. */
  async function expectEveryMatchRanking(env: TestEnv, alice: TestUser, now: number) {
    for (const favorite of [undefined, true, false]) {
      const expected = everyMatchRanked(env, alice, "otter", now, favorite);
      expect(expected.length).toBeGreaterThan(favorite === undefined ? 100 : 30);
      for (const limit of [3, 20, 100]) {
        const seen: [number, number][] = [];
        let cursor: string | null = null;
        do {
          const extra: string = `&limit=${limit}${favorite === undefined ? "" : `&favorite=${favorite}`}${cursor ? `&cursor=${cursor}` : ""}`;
          const page: { status: number; body: { hits: { link: { id: number }; score: number }[]; nextCursor: string | null } } = await search(env, alice, "otter", extra);
          expect(page.status).toBe(200);
          seen.push(...page.body.hits.map((hit): [number, number] => [hit.link.id, hit.score]));
          cursor = page.body.nextCursor;
        } while (cursor);
        expect({ firstCandidates: RANKING.firstCandidates, favorite, limit, seen }).toEqual({ firstCandidates: RANKING.firstCandidates, favorite, limit, seen: expected });
      }
    }
  }

  it("leaves no read open when it stops before the last match (the WAL can be checkpointed)", async () => {
    const path = join(testDir("search-early-stop"), "linkshelf.db");
    const { env, alice } = await usedShelf(path);
    expect((await search(env, alice, "otter", "&limit=3")).body.hits).toHaveLength(3);
    const other = new Database(path, { strict: true });
    other.run("UPDATE links SET name = name WHERE id = 1");
    expect(other.query("PRAGMA wal_checkpoint(TRUNCATE)").get()).toMatchObject({ busy: 0 });
    other.close();
    closeDatabase(env.db);
  });
});

describe("GET /api/v1/search: snippets", () => {
  it("gives ranges that are JavaScript string indices, past emoji and combining marks", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice, { name: "Notes", url: "https://a.example/" });
    const text = "😀👨‍👩‍👧 🇫🇷 Cafe\u0301 e\u0301te\u0301 𝒳 coffee 😀 cafés";
    await saveContent(env, alice, link.id, { text });
    const snippet = (await search(env, alice, "café été")).body.hits[0].snippet;
    expect(snippet.text).toBe(text);
    expect(snippet.matches.map(([start, end]: [number, number]) => snippet.text.slice(start, end))).toEqual(["Cafe\u0301", "e\u0301te\u0301", "cafés"]);
  });

  it("cuts a window around the best match of a long text, never inside a character", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice, { name: "Long", url: "https://a.example/" });
    for (const filler of ["😀", "e\u0301", "x"]) {
      const text = `${filler.repeat(3000)} first needle here ${filler.repeat(500)} needle haystack together ${filler.repeat(3000)}`;
      await saveContent(env, alice, link.id, { text });
      const snippet = (await search(env, alice, "needle haystack")).body.hits[0].snippet;
      expect(snippet.text.length).toBeLessThanOrEqual(212);
      expect(snippet.text.isWellFormed()).toBe(true);
      expect(snippet.text).toStartWith("…");
      expect(snippet.text).toEndWith("…");
      const inner = snippet.text.slice(1, -1);
      expect(/^\p{M}/u.test(inner)).toBe(false);
      expect(text.includes(inner)).toBe(true);
      // The window holding both words wins over the earlier one with one word.
      expect(snippet.matches.map(([start, end]: [number, number]) => snippet.text.slice(start, end))).toEqual(["needle", "haystack"]);
    }
  });

  it("starts and ends snippets between words, with … where the text was cut; CJK text is cut between characters", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const prose = await createLink(env, alice, { name: "Prose", url: "https://a.example/" });
    const words = Array.from({ length: 120 }, (_, i) => `word${i}lengthy`);
    words[60] = "lighthouse";
    await saveContent(env, alice, prose.id, { text: words.join(" ") });
    const snippet = (await search(env, alice, "lighthouse")).body.hits[0].snippet;
    expect(snippet.text).toMatch(/^…word\d+lengthy .* word\d+lengthy…$/);
    expect(words.join(" ").includes(snippet.text.slice(1, -1))).toBe(true);
    expect(snippet.matches.map(([start, end]: [number, number]) => snippet.text.slice(start, end))).toEqual(["lighthouse"]);

    const cjk = await createLink(env, alice, { name: "CJK", url: "https://b.example/" });
    const text = `${"東京の天気は晴れです。".repeat(20)}灯台${"大阪の天気は雨です。".repeat(20)}`;
    await saveContent(env, alice, cjk.id, { text });
    const cut = (await search(env, alice, "灯台")).body.hits.find((hit: { link: { id: number } }) => hit.link.id === cjk.id).snippet;
    expect(cut.text).toStartWith("…");
    expect(cut.text).toEndWith("…");
    expect(text.includes(cut.text.slice(1, -1))).toBe(true);
    expect(cut.text.length).toBeGreaterThan(150);
    expect(cut.matches.map(([start, end]: [number, number]) => cut.text.slice(start, end))).toEqual(["灯台"]);

    const short = await createLink(env, alice, { name: "Short", url: "https://c.example/" });
    await saveContent(env, alice, short.id, { text: "A short note about a beacon." });
    expect((await search(env, alice, "beacon")).body.hits[0].snippet).toEqual({ text: "A short note about a beacon.", matches: [[21, 27]] });
  });

  it("takes the snippet from the description, the name or the URL when the page text does not match", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const described = await createLink(env, alice, { name: "Plain", url: "https://a.example/", description: "All about teapots" });
    await saveContent(env, alice, described.id, { text: "Nothing relevant here." });
    const named = await createLink(env, alice, { name: "Teapots of the world", url: "https://b.example/" });
    const located = await createLink(env, alice, { name: "Third", url: "https://teapots.example/" });
    const snippets = new Map((await search(env, alice, "teapot")).body.hits.map((hit: { link: { id: number }; snippet: unknown }) => [hit.link.id, hit.snippet]));
    expect(snippets.get(described.id)).toEqual({ text: "All about teapots", matches: [[10, 17]] });
    expect(snippets.get(named.id)).toEqual({ text: "Teapots of the world", matches: [[0, 7]] });
    expect(snippets.get(located.id)).toEqual({ text: "https://teapots.example/", matches: [[8, 15]] });
  });

  it("highlights whole phrases, prefixes and CJK substrings, never excluded words", async () => {
    const { env, alice, article, tokyo } = await library();
    const phrase = (await search(env, alice, "\"open source\" -closed")).body;
    expect(phrase.hits).toEqual([]);
    const hit = (await search(env, alice, "\"open source\" conn*")).body.hits[0];
    expect(hit.link.id).toBe(article.id);
    expect(hit.snippet.matches.map(([s, e]: [number, number]) => hit.snippet.text.slice(s, e))).toEqual(["connections", "open source"]);
    const cjk = (await search(env, alice, "京都")).body.hits[0];
    expect(cjk.link.id).toBe(tokyo.id);
    expect(cjk.snippet.matches.map(([s, e]: [number, number]) => cjk.snippet.text.slice(s, e))).toEqual(["京都", "京都"]);
  });
});

describe("GET /api/v1/search: pages", () => {
  it("pages with an opaque cursor, 20 by default, 1 to 100, without repeating or skipping a hit", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const ids: number[] = [];
    for (let i = 0; i < 45; i++) ids.push((await createLink(env, alice, { name: `Walrus ${"walrus ".repeat(i % 4)}${i}`, url: "https://a.example/" })).id);
    const first = await search(env, alice, "walrus");
    expect(first.body.hits).toHaveLength(20);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { hits: { link: { id: number }; score: number }[]; nextCursor: string | null } } =
        await search(env, alice, "walrus", `&limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      seen.push(...hitIds(page.body));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.length).toBe(45);
    expect([...seen].sort((a, b) => a - b)).toEqual(ids);
    expect(hitIds((await search(env, alice, "walrus", "&limit=100")).body)).toEqual(seen);
    expect((await search(env, alice, "walrus", "&limit=1")).body.hits).toHaveLength(1);
  });

  for (const [extra, path] of [["&limit=0", "/limit"], ["&limit=101", "/limit"], ["&limit=1e2", "/limit"], ["&cursor=nonsense", "/cursor"],
    [`&cursor=${Buffer.from("[1,2]").toString("base64url")}`, "/cursor"], [`&cursor=${Buffer.from("[1e999,2,3]").toString("base64url")}`, "/cursor"],
    ["&collectionId=abc", "/collectionId"]] as const) {
    it(`refuses ${extra} with a 422 at ${path}`, async () => {
      const { env, alice } = await library();
      const response = await search(env, alice, "book", extra);
      expect(response.status).toBe(422);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual([path]);
    });
  }
});

describe("PUT and GET /api/v1/links/:id/content", () => {
  it("stores the content, answers it back, and makes the link findable by it at once", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    expect((await get(env, `/api/v1/links/${link.id}/content`, { token: alice.token })).status).toBe(404);
    const saved = await saveContent(env, alice, link.id, { text: "  Quokkas are happy.  ", title: " A title ", excerpt: "", byline: null, lang: "en-AU" });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ message: "Content saved.", truncated: false });
    const read = await get(env, `/api/v1/links/${link.id}/content`, { token: alice.token });
    expect(read.body.content).toEqual({
      linkId: link.id, title: "A title", text: "  Quokkas are happy.  ", excerpt: null, byline: null, lang: "en-AU", source: "browser",
      capturedAt: expect.stringMatching(/Z$/),
    });
    expect(await found(env, alice, "quokka")).toEqual([link.id]);
    // A new capture replaces the old one, in the index too.
    await saveContent(env, alice, link.id, { text: "Wombats instead." });
    expect(await found(env, alice, "quokka")).toEqual([]);
    expect(await found(env, alice, "wombat")).toEqual([link.id]);
    // The Link itself keeps its shape.
    expect(Object.keys((await get(env, `/api/v1/links/${link.id}`, { token: alice.token })).body.link).sort()).toEqual(Object.keys(link).sort());
  });

  it("keeps the text up to 1 MiB of UTF-8, cut between characters", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const stored = async () => (await get(env, `/api/v1/links/${link.id}/content`, { token: alice.token })).body.content.text as string;
    expect((await saveContent(env, alice, link.id, { text: "a".repeat(MIB) })).body.truncated).toBe(false);
    expect((await stored()).length).toBe(MIB);
    expect((await saveContent(env, alice, link.id, { text: "a".repeat(MIB + 1) })).body.truncated).toBe(true);
    expect(await stored()).toBe("a".repeat(MIB));
    // 😀 is 4 bytes: 262,144 of them are exactly 1 MiB; one byte less keeps 262,143.
    expect((await saveContent(env, alice, link.id, { text: "😀".repeat(MIB / 4) })).body.truncated).toBe(false);
    expect((await saveContent(env, alice, link.id, { text: `a${"😀".repeat(MIB / 4)}` })).body.truncated).toBe(true);
    expect(await stored()).toBe(`a${"😀".repeat(MIB / 4 - 1)}`);
    expect((await saveContent(env, alice, link.id, { text: "é".repeat(MIB / 2 + 1) })).body.truncated).toBe(true);
    expect(await stored()).toBe("é".repeat(MIB / 2));
  });

  it("takes a body up to 2 MiB, refuses a larger one with 413 and changes nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    // Larger than the 1 MiB of the API's other bodies.
    const big = JSON.stringify({ text: "b".repeat(2 * MIB - 20) });
    expect(big.length).toBeLessThanOrEqual(2 * MIB);
    expect((await put(env, `/api/v1/links/${link.id}/content`, { token: alice.token, body: big, headers: { "content-type": "application/json" } })).status).toBe(200);
    const before = snapshot(env);
    const tooBig = JSON.stringify({ text: "c".repeat(2 * MIB) });
    const refused = await put(env, `/api/v1/links/${link.id}/content`, { token: alice.token, body: tooBig, headers: { "content-type": "application/json" } });
    expect(refused.status).toBe(413);
    expect(refused.body.code).toBe("PAYLOAD_TOO_LARGE");
    expect(snapshot(env)).toBe(before);
    // The other routes keep their 1 MiB.
    const link2 = await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: { name: "x".repeat(MIB + 10), url: "https://a.example/", favorite: false, collectionIds: [] } });
    expect(link2.status).toBe(413);
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["no text", { title: "x" }, "/text"],
    ["a text that is not a string", { text: 5 }, "/text"],
    ["a title over 1000 characters", { text: "x", title: "t".repeat(1001) }, "/title"],
    ["an excerpt over 2000 characters", { text: "x", excerpt: "e".repeat(2001) }, "/excerpt"],
    ["a byline over 500 characters", { text: "x", byline: "b".repeat(501) }, "/byline"],
    ["a malformed language tag", { text: "x", lang: "english please" }, "/lang"],
  ];
  for (const [what, body, path] of invalid) {
    it(`refuses ${what} with a 422 at ${path} and changes nothing`, async () => {
      const env = makeEnv();
      const alice = await createUser(env);
      const link = await createLink(env, alice);
      await saveContent(env, alice, link.id, { text: "kept" });
      const before = snapshot(env);
      const response = await saveContent(env, alice, link.id, body);
      expect(response.status).toBe(422);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual([path]);
      expect(snapshot(env)).toBe(before);
    });
  }

  it("takes fields at their limits", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const response = await saveContent(env, alice, link.id, { text: "", title: "t".repeat(1000), excerpt: "e".repeat(2000), byline: "😀".repeat(500), lang: "zh-Hant-TW" });
    expect(response.status).toBe(200);
  });

  it("never lets another user read, write or find a link's content (404, nothing changed)", async () => {
    const { env, alice, bob, article, bobs } = await library();
    const before = snapshot(env);
    expect((await get(env, `/api/v1/links/${article.id}/content`, { token: bob.token })).status).toBe(404);
    const write = await saveContent(env, bob, article.id, { text: "overwritten" });
    expect(write.status).toBe(404);
    expect(write.body).toEqual({ message: "There is nothing here.", code: "NOT_FOUND" });
    expect((await saveContent(env, bob, 999999, { text: "x" })).status).toBe(404);
    expect((await get(env, "/api/v1/links/abc/content", { token: bob.token })).status).toBe(404);
    expect(snapshot(env)).toBe(before);
    // Bob's words are in Alice's texts and the other way round: each finds only their own.
    expect(await found(env, bob, "networks")).toEqual([]);
    expect(await found(env, bob, "connections")).toEqual([bobs.id]);
    expect(await found(env, alice, "secret")).toEqual([]);
    expect(await found(env, alice, "running")).toEqual([article.id]);
    const reading = await createCollection(env, alice, { name: "Reading" });
    expect((await search(env, bob, "book", `&collectionId=${reading.id}`)).status).toBe(404);
    expect((await get(env, "/api/v1/search?q=book")).status).toBe(401);
  });
});

describe("the index stays in step with the links", () => {
  it("follows renames, new URLs and descriptions, and forgets deleted links and their content", async () => {
    const { env, alice, rust, article } = await library();
    await put(env, `/api/v1/links/${rust.id}`, { token: alice.token, body: { name: "Manual", url: "https://docs.example/manual", favorite: false, description: "guide", collectionIds: [] } });
    expect(await found(env, alice, "book")).toEqual([]);
    expect(await found(env, alice, "github")).toEqual([]);
    for (const q of ["manual", "docs", "guide"]) expect(await found(env, alice, q)).toEqual([rust.id]);
    expect((await del(env, `/api/v1/links/${article.id}`, { token: alice.token })).status).toBe(200);
    expect(await found(env, alice, "connections")).toEqual([]);
    expect(env.db.$client.query("SELECT count(*) AS n FROM link_contents WHERE link_id = ?").all(article.id)).toEqual([{ n: 0 }]);
    expect(env.db.$client.query(`SELECT count(*) AS n FROM link_search_${alice.user.id} WHERE rowid = ?`).all(article.id)).toEqual([{ n: 0 }]);
  });

  it("keeps the content searchable when the link is edited", async () => {
    const { env, alice, article } = await library();
    await put(env, `/api/v1/links/${article.id}`, { token: alice.token, body: { name: "Renamed", url: "https://news.example/a", favorite: true, collectionIds: [] } });
    expect(await found(env, alice, "connections renamed")).toEqual([article.id]);
  });

  it("forgets links deleted many at once", async () => {
    const { env, alice, rust, cafe } = await library();
    new Shelf(env.db, alice.user).links.deleteMany([rust.id, cafe.id]);
    expect(await found(env, alice, "book")).toEqual([]);
    expect(await found(env, alice, "cafe")).toEqual([]);
  });

  it("marks new links and saved pages, however they were stored, and indexes them all at the next search, one index row per link", async () => {
    const { env, alice } = await library();
    const sqlite = env.db.$client;
    const indexes = () => sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((row) => row.name).filter((name) => /^link_search_\d+$/.test(name));
    const counts = () => ({
      ...sqlite.query<{ links: number; pending: number }, []>("SELECT (SELECT count(*) FROM links) AS links, (SELECT count(*) FROM link_search_pending) AS pending").get()!,
      indexed: indexes().reduce((n, table) => n + sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n, 0),
    });
    // Through the API (the group commit), then straight through the shelf (as the web pages and an import write).
    expect(counts()).toEqual({ links: 5, indexed: 0, pending: 5 });
    const link = new Shelf(env.db, alice.user).links.create({ name: "Pangolin facts", url: "https://p.example/", favorite: false }, env.clock.now++);
    expect(counts()).toEqual({ links: 6, indexed: 0, pending: 6 });
    expect(await found(env, alice, "pangolin")).toEqual([link.id]);
    expect(counts()).toEqual({ links: 6, indexed: 6, pending: 0 });
  });
});

describe("storeFetchedContent (the server-side fetcher's call)", () => {
  it("stores a fetch, replaces an earlier fetch, never replaces a browser capture", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const owner = { linkId: link.id, userId: alice.user.id };
    expect(storeFetchedContent(env.db, owner, { text: "first fetch" }, 1)).toBe("stored");
    expect(storeFetchedContent(env.db, owner, { text: "second fetch" }, 2)).toBe("stored");
    expect((await get(env, `/api/v1/links/${link.id}/content`, { token: alice.token })).body.content).toMatchObject({ text: "second fetch", source: "server" });
    await saveContent(env, alice, link.id, { text: "what the browser saw" });
    const before = snapshot(env);
    expect(storeFetchedContent(env.db, owner, { text: "third fetch" }, 3)).toBe("kept");
    expect(snapshot(env)).toBe(before);
    expect((await get(env, `/api/v1/links/${link.id}/content`, { token: alice.token })).body.content).toMatchObject({ text: "what the browser saw", source: "browser" });
    expect(await found(env, alice, "fetch")).toEqual([]);
    // The shelf method follows the same rule.
    expect(new Shelf(env.db, alice.user).links.setContent(link.id, { text: "again" }, "server", 4)).toEqual({ stored: false, truncated: false });
  });

  it("is gone for a deleted link or a link of another user, and stores nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const link = await createLink(env, alice);
    const before = snapshot(env);
    expect(storeFetchedContent(env.db, { linkId: link.id, userId: bob.user.id }, { text: "x" }, 1)).toBe("gone");
    expect(storeFetchedContent(env.db, { linkId: link.id, userId: 999999 }, { text: "x" }, 1)).toBe("gone");
    expect(storeFetchedContent(env.db, { linkId: 999999, userId: alice.user.id }, { text: "x" }, 1)).toBe("gone");
    expect(snapshot(env)).toBe(before);
  });
});
