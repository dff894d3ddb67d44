/**
 * The trash's background purge, in-process on its own clock: what a tick takes (older than the
 * days, every user's) and leaves (exactly at the boundary, younger), its one log line, that a
 * large purge goes in small transactions with the event loop free between them, and that a
 * failure is one log line, not a crash.
 */
import { describe, expect, it } from "bun:test";
import { trash } from "../../src/db/schema";
import { Shelf } from "../../src/shelf/shelf";
import { scheduleTrashPurge } from "../../src/shelf/trash-purge";
import { createLink, createUser, makeEnv, START, type TestEnv } from "../support/helpers";

const DAY = 86_400_000;

const trashedIds = (env: TestEnv) => env.db.$client.query("SELECT item_id AS id FROM trash ORDER BY item_id").all().map((row) => (row as { id: number }).id);

describe("the trash purge", () => {
  it("takes what is older than the days, of every user, and leaves what is exactly at the boundary or younger", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const [old, boundary, young, bobs] = [
      await createLink(env, alice, { name: "Old" }), await createLink(env, alice, { name: "Boundary" }),
      await createLink(env, alice, { name: "Young" }), await createLink(env, bob, { name: "Bob's old" }),
    ];
    const now = START + 40 * DAY;
    new Shelf(env.db, alice.user).links.delete(old.id, now - 30 * DAY - 1);
    new Shelf(env.db, alice.user).links.delete(boundary.id, now - 30 * DAY);
    new Shelf(env.db, alice.user).links.delete(young.id, now - DAY);
    new Shelf(env.db, bob.user).links.delete(bobs.id, now - 31 * DAY);

    const lines: string[] = [];
    const clock = { now };
    const purge = scheduleTrashPurge({ db: env.db, days: 30, log: (line) => void lines.push(line), clock: () => clock.now });
    expect(await purge.tick()).toBe(2);
    expect(trashedIds(env)).toEqual([boundary.id, young.id]);
    expect(lines).toEqual(["linkshelf: purged 2 items from the trash"]);

    // A tick that purges nothing says nothing; a millisecond later the boundary's item goes.
    expect(await purge.tick()).toBe(0);
    clock.now++;
    expect(await purge.tick()).toBe(1);
    expect(trashedIds(env)).toEqual([young.id]);
    expect(lines).toEqual(["linkshelf: purged 2 items from the trash", "linkshelf: purged 1 item from the trash"]);
    await purge.stop();
  });

  it("purges in small transactions, the event loop running between them", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const rows = Array.from({ length: 450 }, (_, i) => ({
      userId: alice.user.id, kind: "link" as const, itemId: i + 1, name: `Link ${i + 1}`, deletedAt: START, links: 1, collections: 0, data: "{}",
    }));
    env.db.insert(trash).values(rows).run();
    env.queries.length = 0;
    const lines: string[] = [];
    const purge = scheduleTrashPurge({ db: env.db, days: 1, log: (line) => void lines.push(line), clock: () => START + 2 * DAY });
    // The first transaction (at most 200 rows, or 20 ms) was committed on start; the rest waits for the event loop.
    const left = trashedIds(env).length;
    expect(left).toBeGreaterThanOrEqual(250);
    expect(left).toBeLessThan(450);
    expect(await purge.tick()).toBe(450);
    expect(trashedIds(env)).toEqual([]);
    // 50 rows per statement: 9 deletes, and at least one look more than that (the one that finds nothing).
    const deletes = env.queries.filter((query) => /^delete from "trash"/i.test(query));
    expect(deletes).toHaveLength(9);
    expect(env.queries.filter((query) => /^select .* from "trash" .* limit \?$/i.test(query)).length).toBeGreaterThanOrEqual(10);
    expect(lines).toEqual(["linkshelf: purged 450 items from the trash"]);
    await purge.stop();
  });

  it("ticks again after each period until stopped", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const clock = { now: START };
    const purge = scheduleTrashPurge({ db: env.db, days: 1, log: () => {}, clock: () => clock.now, everyMs: 5 });
    await purge.tick();
    const link = await createLink(env, alice);
    new Shelf(env.db, alice.user).links.delete(link.id, START);
    clock.now = START + 2 * DAY;
    for (let waited = 0; trashedIds(env).length > 0 && waited < 2000; waited += 5) await Bun.sleep(5);
    expect(trashedIds(env)).toEqual([]);
    await purge.stop();

    const later = await createLink(env, alice);
    new Shelf(env.db, alice.user).links.delete(later.id, START);
    await Bun.sleep(30);
    expect(trashedIds(env)).toEqual([later.id]);
  });

  it("logs a failure in one line and keeps going", async () => {
    const env = makeEnv();
    const lines: string[] = [];
    env.db.$client.run("DROP TABLE trash");
    const purge = scheduleTrashPurge({ db: env.db, days: 30, log: (line) => void lines.push(line), clock: () => START });
    expect(await purge.tick()).toBe(0);
    expect(lines).toEqual([expect.stringMatching(/^linkshelf: purging the trash failed: .*no such table: trash.*; next try in an hour$/)]);
    await purge.stop();
  });
});
