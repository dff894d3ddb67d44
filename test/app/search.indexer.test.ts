/**
 * The server's background search indexer (src/search/indexer.ts): links and saved pages are
 * indexed soon after they are stored, however they were stored, without a search asking; many
 * at once in short transactions with the event loop running between them; a failure is logged,
 * keeps the marks and is tried again by a later write; stopping leaves what is marked to the
 * next start. (Without an indexer, as in the other tests, the next search indexes; see
 * search.api.)
 */
import { afterEach, describe, expect, it } from "bun:test";
import { INDEXER_TIMING, SearchIndexer } from "../../src/search/indexer";
import { indexPendingLinks } from "../../src/fulltext/index-text";
import { writeLink } from "../../src/shelf/links";
import { createLink, createUser, get, makeEnv, put, sessionCookie, shelfFor, submitForm, type TestEnv, type TestUser } from "../support/helpers";

const TIMING = { ...INDEXER_TIMING, delayMillis: 5, retryMillis: 200 };

const running: SearchIndexer[] = [];
afterEach(async () => {
  for (const indexer of running.splice(0)) await indexer.stop();
});

function watched(timing = TIMING): { env: TestEnv; indexer: SearchIndexer; logged: string[] } {
  const env = makeEnv();
  const logged: string[] = [];
  const indexer = new SearchIndexer(env.db, (line) => logged.push(line), timing);
  running.push(indexer);
  return { env, indexer, logged };
}

/** The users' indexes that exist. */
const indexes = (env: TestEnv) => env.db.$client.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all()
  .map((row) => row.name).filter((name) => /^link_search_\d+$/.test(name));

const counts = (env: TestEnv) => {
  const { links, pending } = env.db.$client
    .query("SELECT (SELECT count(*) FROM links) AS links, (SELECT count(*) FROM link_search_pending) AS pending")
    .get() as { links: number; pending: number };
  const indexed = indexes(env).reduce((n, table) => n + env.db.$client.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n, 0);
  return { links, indexed, pending };
};

/** indexedIds reads which links the indexes find for a word, straight from them (no search, which would index first). */
const indexedIds = (env: TestEnv, word: string) => indexes(env)
  .flatMap((table) => env.db.$client.query<{ rowid: number }, [string]>(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`).all(word).map((row) => row.rowid))
  .sort((a, b) => a - b);

/** manyLinks stores `n` links in one transaction, as a large import's chunk would. */
function manyLinks(env: TestEnv, as: TestUser, n: number): void {
  const shelf = shelfFor(env, as);
  env.db.transaction(() => {
    for (let i = 0; i < n; i++) writeLink(shelf, { name: `Filler ${i}`, url: `https://filler.example/${i}`, favorite: false }, env.clock.now);
  });
}

/**
 * pendingSeenUntilSettled reads how many links are still marked at every turn of the event loop
 * until the indexer has settled: the distinct counts seen, largest first.
 */
async function pendingSeenUntilSettled(env: TestEnv, indexer: SearchIndexer): Promise<number[]> {
  const seen = new Set<number>();
  let settled = false;
  const settling = indexer.settled().then(() => {
    settled = true;
  });
  while (!settled) {
    seen.add(counts(env).pending);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await settling;
  seen.add(counts(env).pending);
  return [...seen].sort((a, b) => b - a);
}

describe("the background search indexer", () => {
  it("indexes a link stored through the API, one from the web form and a saved page soon after, with no search asking", async () => {
    const { env, indexer } = watched();
    const alice = await createUser(env);
    const api = await createLink(env, alice, { name: "Pangolin facts", url: "https://p.example/" });
    const form = await submitForm(env, "/links", { name: "Okapi notes", url: "https://o.example/" }, { headers: { cookie: sessionCookie(env, alice.user.id), origin: "http://localhost" } });
    expect(form.status).toBe(303);
    expect((await put(env, `/api/v1/links/${api.id}/content`, { token: alice.token, body: { text: "Scales of keratin." } })).status).toBe(200);
    expect(counts(env).pending).toBeGreaterThan(0);

    await indexer.settled();
    expect(counts(env)).toEqual({ links: 2, indexed: 2, pending: 0 });
    expect(indexedIds(env, "pangolin")).toEqual([api.id]);
    expect(indexedIds(env, "keratin")).toEqual([api.id]);
    expect(indexedIds(env, "okapi")).toHaveLength(1);
    // And a search finds them with nothing left to index.
    expect(indexPendingLinks(env.db)).toBe(0);
    const found = await get(env, "/api/v1/search?q=okapi", { token: alice.token });
    expect(found.body.hits.map((hit: { link: { name: string } }) => hit.link.name)).toEqual(["Okapi notes"]);
  });

  it("waits `delayMillis` after the first mark, so a burst is indexed together, in one transaction", async () => {
    const { env, indexer } = watched({ ...TIMING, delayMillis: 500 });
    const alice = await createUser(env);
    await createLink(env, alice, { name: "First" });
    await Bun.sleep(10);
    await createLink(env, alice, { name: "Second" });
    // Both marks went at once: no turn of the event loop saw one of them left.
    expect(await pendingSeenUntilSettled(env, indexer)).toEqual([2, 0]);
    expect(counts(env)).toEqual({ links: 2, indexed: 2, pending: 0 });
  });

  it("under a steady stream of writes, takes all the marks made since its last transaction in one, not a write's at a time", async () => {
    const { env, indexer } = watched({ ...TIMING, delayMillis: 30 });
    const alice = await createUser(env);
    const shelf = shelfFor(env, alice);
    // One link per turn of the event loop for 300 ms; a drop of what is marked is a transaction of the indexer.
    let written = 0;
    let drops = 0;
    let marked = 0;
    const until = performance.now() + 300;
    while (performance.now() < until) {
      shelf.links.create({ name: `Stream ${written}`, url: `https://stream.example/${written}`, favorite: false }, env.clock.now);
      written++;
      const now = counts(env).pending;
      if (now <= marked) drops++;
      marked = now;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await indexer.settled();
    expect(counts(env)).toEqual({ links: written, indexed: written, pending: 0 });
    expect(written).toBeGreaterThan(100);
    expect(drops).toBeGreaterThan(0);
    expect(drops).toBeLessThan(written / 10);
  });

  it("indexes thousands of marks in transactions of at most sliceLinks, with the event loop running between them", async () => {
    const { env, indexer } = watched({ ...TIMING, sliceLinks: 100, sliceMillis: 1000 });
    const alice = await createUser(env);
    manyLinks(env, alice, 1000);
    const seen = await pendingSeenUntilSettled(env, indexer);
    expect(counts(env)).toEqual({ links: 1000, indexed: 1000, pending: 0 });
    // Every slice's end was seen: 1,000, 900, ..., 100, 0 and nothing between.
    expect(seen).toEqual(Array.from({ length: 11 }, (_, i) => 1000 - 100 * i));
  });

  it("ends a transaction once sliceMillis have passed, having indexed at least one link", async () => {
    const { env, indexer } = watched({ ...TIMING, sliceLinks: 1000, sliceMillis: 0 });
    const alice = await createUser(env);
    manyLinks(env, alice, 5);
    expect(await pendingSeenUntilSettled(env, indexer)).toEqual([5, 4, 3, 2, 1, 0]);
  });

  it("logs a failure once, keeps the marks and the index as they were, and indexes them at a later write after retryMillis", async () => {
    const { env, indexer, logged } = watched();
    const alice = await createUser(env);
    env.db.$client.run("CREATE TRIGGER full_disk BEFORE DELETE ON link_search_pending BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
    const beforeFailure = performance.now();
    const first = await createLink(env, alice, { name: "Aardvark" });
    await indexer.settled();
    expect(counts(env)).toEqual({ links: 1, indexed: 0, pending: 1 });
    expect(logged).toEqual([`linkshelf: indexing saved links for search failed (database or disk is full); the next write tries again, ${TIMING.retryMillis / 1000} s from now at the earliest`]);

    env.db.$client.run("DROP TRIGGER full_disk");
    const second = await createLink(env, alice, { name: "Aardwolf" });
    await indexer.settled();
    // The retry waited retryMillis after the failure; then both links were indexed, and nothing more was logged.
    expect(performance.now() - beforeFailure).toBeGreaterThanOrEqual(TIMING.retryMillis);
    expect(counts(env)).toEqual({ links: 2, indexed: 2, pending: 0 });
    expect(indexedIds(env, "aardvark")).toEqual([first.id]);
    expect(indexedIds(env, "aardwolf")).toEqual([second.id]);
    expect(logged).toHaveLength(1);
  });

  it("stops: a pass that is due does not run, what is marked stays marked, later marks wake nothing", async () => {
    const { env, indexer } = watched({ ...TIMING, delayMillis: 50 });
    const alice = await createUser(env);
    await createLink(env, alice, { name: "Due" });
    await indexer.stop();
    await createLink(env, alice, { name: "After" });
    await Bun.sleep(100);
    expect(counts(env)).toEqual({ links: 2, indexed: 0, pending: 2 });
    // Another indexer may watch the database now (the next start's would).
    const next = new SearchIndexer(env.db, () => {}, TIMING);
    running.push(next);
    await createLink(env, alice, { name: "Third" });
    await next.settled();
    expect(counts(env)).toEqual({ links: 3, indexed: 3, pending: 0 });
  });

  it("stops after the transaction it is in when stopped during a pass", async () => {
    const { env, indexer } = watched({ ...TIMING, sliceLinks: 100, sliceMillis: Infinity });
    const alice = await createUser(env);
    manyLinks(env, alice, 1000);
    // Stopped as soon as the first slice has committed.
    while (counts(env).pending === 1000) await new Promise((resolve) => setImmediate(resolve));
    await indexer.stop();
    const after = counts(env);
    expect(after.indexed + after.pending).toBe(1000);
    expect(after.pending).toBeGreaterThan(0);
    expect(after.indexed % 100).toBe(0);
  });

  it("refuses a second indexer on a database that one watches; an indexer stopped twice leaves the next one watching", async () => {
    const { env, indexer } = watched();
    expect(() => new SearchIndexer(env.db, () => {})).toThrow("this database is watched already");
    await indexer.stop();
    const next = new SearchIndexer(env.db, () => {}, TIMING);
    running.push(next);
    // Its first pass (what was marked before it) is over: only a wake can index the link below.
    await next.settled();
    await indexer.stop();
    const alice = await createUser(env);
    await createLink(env, alice, { name: "Still watched" });
    await next.settled();
    expect(counts(env)).toEqual({ links: 1, indexed: 1, pending: 0 });
  });

  it("keeps working when its log cannot be written", async () => {
    const env = makeEnv();
    const indexer = new SearchIndexer(env.db, () => {
      throw new Error("stderr closed");
    }, TIMING);
    running.push(indexer);
    const alice = await createUser(env);
    env.db.$client.run("CREATE TRIGGER full_disk BEFORE DELETE ON link_search_pending BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
    await createLink(env, alice, { name: "Unlogged" });
    await indexer.settled();
    env.db.$client.run("DROP TRIGGER full_disk");
    await createLink(env, alice, { name: "Later" });
    await indexer.settled();
    expect(counts(env)).toEqual({ links: 2, indexed: 2, pending: 0 });
  });
});
