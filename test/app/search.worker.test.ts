/**
 * The server's searches on a worker thread (WorkerSearcher): the same answers as on the
 * caller's thread, byte for byte, refusals included; a search is timed from when its worker is
 * ready; a search its worker does not answer in time is answered 422 QUERY_TOO_BROAD, and the
 * next search gets a new worker.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { closeDatabase } from "../../src/db/client";
import { AppError } from "../../src/common/errors";
import { inlineSearcher, WorkerSearcher } from "../../src/search/searcher";
import { TOO_BROAD_MESSAGE } from "../../src/shelf/search";
import { testDir } from "../support/dirs";
import { createLink, createUser, makeEnv, put, shelfFor, type TestEnv } from "../support/helpers";

const WORKER = new URL("../../src/search/worker.ts", import.meta.url);
const started: WorkerSearcher[] = [];
const opened: TestEnv[] = [];
afterEach(async () => {
  for (const searcher of started.splice(0)) await searcher.stop();
  for (const env of opened.splice(0)) closeDatabase(env.db);
});

/** A database file with two users' links, some with page text. */
async function library(name: string) {
  const path = join(testDir(name), "linkshelf.db");
  const env = makeEnv({ LINKSHELF_RATE_LIMIT: "off" }, { path });
  opened.push(env);
  const alice = await createUser(env);
  const bob = await createUser(env);
  for (let i = 0; i < 30; i++) {
    const link = await createLink(env, i % 3 ? alice : bob, { name: `Otter note ${i}`, url: `https://otters.example/${i}`, description: i % 2 ? "river kayak" : "" });
    if (i % 4 === 0) await put(env, `/api/v1/links/${link.id}/content`, { token: (i % 3 ? alice : bob).token, body: { text: `Otters and rivers, page ${i}.` } });
  }
  return { env, alice, bob, path };
}

/** outcome is what a search gives, as JSON: its results, or its refusal's status, code, message and errors. */
async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify(await run());
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return JSON.stringify({ status: error.status, code: error.code, message: error.message, errors: error.errors, kind: error.constructor.name });
  }
}

describe("searches on the worker thread", () => {
  it("answer exactly what a search on the caller's thread answers, refusals included", async () => {
    const { env, alice, path } = await library("search-worker-same");
    const searcher = new WorkerSearcher(WORKER, path);
    started.push(searcher);
    const inline = inlineSearcher();
    const shelf = shelfFor(env, alice);
    const now = Date.parse("2026-12-01T00:00:00.000Z");
    const asked = [
      { q: "otter" }, { q: "otter", limit: 3 }, { q: "river kayak", favorite: false }, { q: "ott*" }, { q: "\"otters and\"" },
      { q: "o*" }, { q: "\"open" }, { q: "otter", collectionId: 999_999 }, { q: "otter", cursor: "nonsense" },
    ];
    for (const input of asked) {
      const there = await outcome(() => searcher.find(shelf, input, now));
      expect({ input, there }).toEqual({ input, there: await outcome(() => inline.find(shelf, input, now)) });
    }
    // A link stored a moment ago (still marked for the index) is found on the worker too.
    const fresh = await createLink(env, alice, { name: "Walrus", url: "https://walrus.example/" });
    const found = await searcher.find(shelf, { q: "walrus" }, now);
    expect(found.hits.map((hit) => hit.link.id)).toEqual([fresh.id]);
  });

  it("times a search from when its worker is ready: a worker slow to start does not make its first search too broad", async () => {
    const { env, alice, path } = await library("search-worker-slow-start");
    // A budget and grace (350 ms) shorter than the worker's start (500 ms).
    const slow = new WorkerSearcher(new URL("../fixtures/slow-start-search-worker.ts", import.meta.url), path, { clock: () => performance.now(), millis: 100 });
    started.push(slow);
    const shelf = shelfFor(env, alice);
    const now = Date.parse("2026-12-01T00:00:00.000Z");
    expect(await outcome(() => slow.find(shelf, { q: "otter" }, now))).toBe(await outcome(() => inlineSearcher().find(shelf, { q: "otter" }, now)));
  });

  it("answers 422 QUERY_TOO_BROAD for a search its worker does not answer in time, and starts a new worker for the next", async () => {
    const { env, alice, path } = await library("search-worker-silent");
    const silent = new WorkerSearcher(new URL("../fixtures/silent-search-worker.ts", import.meta.url), path, { clock: () => 0, millis: -200 });
    started.push(silent);
    const shelf = shelfFor(env, alice);
    for (let i = 0; i < 2; i++) {
      expect(await outcome(() => silent.find(shelf, { q: "otter" }, 0)))
        .toBe(JSON.stringify({ status: 422, code: "QUERY_TOO_BROAD", message: TOO_BROAD_MESSAGE, kind: "QueryTooBroad" }));
    }
  });
});
