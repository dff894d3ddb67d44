/**
 * A big restore from the trash (more than RESTORE_APART_LINKS links) on the restore worker,
 * through `app.handle` over a database file, as the server runs it: the same answer and the same
 * rows as on the caller's thread, none of its writes on the server's connection; its idempotency
 * key kept in its transaction and its change feed written; a refusal restores nothing; the
 * server's own writes meanwhile (a new link, a click) wait for its commit and succeed; the trash
 * page's form restores through it too.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RESTORE_APART_LINKS } from "../../src/shelf/restorer";
import { contents, createCollection, createUser, del, get, makeEnv, post, sessionCookie, snapshot, submitForm, type TestEnv, type TestUser } from "../support/helpers";

const dir = mkdtempSync(join(tmpdir(), "linkshelf-restore-worker-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** LINKS links in a collection's sub-collections: more than the worker's threshold. */
const LINKS = RESTORE_APART_LINKS + 200;
const PER_BATCH = 400;

/** trashedTree makes an env over a new file (the worker's when `worker`), alice, and a collection of 3 sub-collections holding LINKS links (one also in the Inbox), deleted with its contents. */
async function trashedTree(worker: boolean): Promise<{ env: TestEnv; alice: TestUser; root: number; cursor: string }> {
  const env = makeEnv({ LINKSHELF_FETCH_CONTENT: "off", LINKSHELF_LINK_CHECK: "off", LINKSHELF_RATE_LIMIT: "off" }, { path: join(dir, `shelf-${++files}.sqlite`), restoreWorker: worker });
  const alice = await createUser(env, { email: "alice@example.test", name: "Alice" });
  const root = (await createCollection(env, alice, { name: "Root" })).id;
  const subs: number[] = [];
  for (let i = 0; i < LINKS / PER_BATCH; i++) subs.push((await createCollection(env, alice, { name: `Sub ${i}`, parentId: root })).id);
  for (const [i, sub] of subs.entries()) {
    const operations = Array.from({ length: PER_BATCH }, (_, j) => ({ op: "createLink", ref: `l${j}`, name: `L${i}.${j}`, url: `https://l${i}-${j}.example/`, collections: [{ id: sub }] }));
    const made = await post(env, "/api/v1/batch", { token: alice.token, body: { operations } });
    expect({ status: made.status, body: made.status === 200 ? null : made.body }).toEqual({ status: 200, body: null });
  }
  expect((await del(env, `/api/v1/collections/${root}?contents=1`, { token: alice.token })).status).toBe(200);
  const cursor = (await get(env, "/api/v1/changes/cursor", { token: alice.token })).body.cursor as string;
  return { env, alice, root, cursor };
}

/** rows is `contents` without the API tokens (each env's is random). */
const rows = (env: TestEnv) => JSON.stringify({ ...JSON.parse(contents(env)), tokens: null });

/** feed is every change of the feed after the tree's `cursor`, page after page. */
async function feed({ env, alice, cursor }: { env: TestEnv; alice: TestUser; cursor: string }): Promise<unknown[]> {
  const changes: unknown[] = [];
  for (let since = cursor; ;) {
    const page = await get(env, `/api/v1/changes?since=${encodeURIComponent(since)}&limit=1000`, { token: alice.token });
    expect(page.status).toBe(200);
    changes.push(...page.body.changes);
    if (!page.body.more) return changes;
    since = page.body.cursor;
  }
}

/** trashWrites are the statements of the server's connection that took rows out of the trash (a restore's first write). */
const trashWrites = (env: TestEnv) => env.queries.filter((query) => /^delete from "trash"/i.test(query));

describe("a big restore on the restore worker", () => {
  it("answers and writes what the caller's thread does, none of it on the server's connection, and its key and feed follow", async () => {
    const inThread = await trashedTree(false);
    const apart = await trashedTree(true);
    const answers: unknown[] = [];
    for (const { env, alice, root } of [inThread, apart]) {
      env.queries.length = 0;
      const response = await post(env, "/api/v1/trash/restore", { token: alice.token, body: { collections: [root] }, headers: { "idempotency-key": "restore-1" } });
      expect(response.status).toBe(200);
      answers.push(response.body);
    }
    expect(answers[0]).toEqual({ message: "Restored.", links: LINKS, collections: 1 + LINKS / PER_BATCH, tooDeep: [] });
    expect(answers[1]).toEqual(answers[0]);
    // Run on the worker: the server's connection wrote none of it; on the caller's thread, it did.
    expect(trashWrites(inThread.env).length).toBeGreaterThan(0);
    expect(trashWrites(apart.env)).toEqual([]);
    // The same rows, the key's kept answer and the change feed's rows included.
    expect(rows(apart.env)).toBe(rows(inThread.env));
    // The key's answer was kept in the worker's transaction: a retry is replayed and writes nothing.
    const before = snapshot(apart.env);
    const retry = await post(apart.env, "/api/v1/trash/restore", { token: apart.alice.token, body: { collections: [apart.root] }, headers: { "idempotency-key": "restore-1" } });
    expect({ status: retry.status, replayed: retry.headers.get("idempotent-replayed"), body: retry.body }).toEqual({ status: 200, replayed: "true", body: answers[1] });
    expect(snapshot(apart.env)).toBe(before);
    // The server's connection sees the worker's commit: the links are listed (no kept answer from before), and the feed names them.
    const listed = await get(apart.env, "/api/v1/links?limit=1", { token: apart.alice.token });
    expect(listed.body.total ?? listed.body.links.length).toBeGreaterThan(0);
    const fed = await feed(apart);
    expect(fed.length).toBe(LINKS + 1 + LINKS / PER_BATCH);
    expect(fed).toEqual(await feed(inThread));
  }, 120_000);

  it("refuses a restore naming an id not in the trash, restoring nothing", async () => {
    const { env, alice, root } = await trashedTree(true);
    const before = snapshot(env);
    env.queries.length = 0;
    const response = await post(env, "/api/v1/trash/restore", { token: alice.token, body: { collections: [root], links: [999_999] } });
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(snapshot(env)).toBe(before);
  }, 120_000);

  it("lets the server's own writes meanwhile wait for its commit: a new link and a click both succeed", async () => {
    const { env, alice, root } = await trashedTree(true);
    const kept = (await post(env, "/api/v1/links", { token: alice.token, body: { name: "Kept", url: "https://kept.example/", favorite: false } })).body.link.id as number;
    const restoring = post(env, "/api/v1/trash/restore", { token: alice.token, body: { collections: [root] } });
    let done = false;
    void restoring.finally(() => (done = true));
    const statuses: number[] = [];
    let sentBefore = 0;
    // Writes go on until the restore has answered: some while the worker's transaction is open.
    for (let i = 0; !done || i < 2; i++) {
      if (!done) sentBefore++;
      statuses.push((await post(env, "/api/v1/links", { token: alice.token, body: { name: `During ${i}`, url: `https://during-${i}.example/`, favorite: false } })).status);
      statuses.push((await get(env, `/l/${kept}`, { token: alice.token })).status);
    }
    expect((await restoring).status).toBe(200);
    expect(sentBefore).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 201 && status !== 302)).toEqual([]);
    const created = statuses.filter((status) => status === 201).length;
    const clicks = statuses.filter((status) => status === 302).length;
    expect(env.db.$client.query("SELECT count(*) AS n FROM links WHERE name LIKE 'During %'").get()).toEqual({ n: created });
    expect(env.db.$client.query("SELECT clicks FROM links WHERE id = ?").get(kept)).toEqual({ clicks });
    expect(env.db.$client.query("SELECT count(*) AS n FROM links").get()).toEqual({ n: LINKS + 1 + created });
  }, 120_000);

  it("restores through the trash page's form", async () => {
    const { env, alice, root } = await trashedTree(true);
    env.queries.length = 0;
    const response = await submitForm(env, "/trash/restore", { item: `collection:${root}` }, { headers: { cookie: sessionCookie(env, alice.user.id), origin: "http://localhost" } });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toContain("trash-restored");
    expect(trashWrites(env)).toEqual([]);
    expect(env.db.$client.query("SELECT count(*) AS n FROM links").get()).toEqual({ n: LINKS });
    expect(env.db.$client.query("SELECT count(*) AS n FROM trash").get()).toEqual({ n: 0 });
  }, 120_000);
});
