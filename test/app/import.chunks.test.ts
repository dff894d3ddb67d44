import { describe, expect, it } from "bun:test";
import { IMPORT_CHUNK } from "../../src/shelf/limits";
import { aliceWithInbox, shelfFor } from "../support/helpers";

/**
 * An import is written in transactions of IMPORT_CHUNK with the event loop running between them,
 * and keeps each collection's next place from one to the next only while nothing else wrote to
 * the database between them: a write that came between makes it look them up again.
 */
describe("an import's transactions, and a write between them", () => {
  it("gives its links the places after a link another write put in the same collection meanwhile", async () => {
    const { env, alice, inbox } = await aliceWithInbox();
    const shelf = shelfFor(env, alice);
    const now = env.clock.now++;
    const count = IMPORT_CHUNK.items + 10;
    const steps = Array.from({ length: count }, (_, at) => ({
      kind: "link" as const, into: inbox, name: `Link ${at}`, url: `https://link${at}.example/`, favorite: false, createdAt: now, updatedAt: now,
    }));
    const writing = shelf.imports.write(steps, undefined, now);
    // The import's first transaction is committed before `write` gives its promise back: this write comes before its next one.
    const between = shelf.links.create({ name: "Between", url: "https://between.example/", favorite: false }, env.clock.now++);
    await writing;
    const order = env.db.$client
      .query<{ link_id: number; position: number }, [number]>("SELECT link_id, position FROM link_collections WHERE collection_id = ? ORDER BY position, link_id")
      .all(inbox);
    expect(order.length).toBe(count + 1);
    expect(new Set(order.map((row) => row.position)).size).toBe(count + 1);
    // Between the import's first transaction and the rest, in the Inbox's order.
    const at = order.findIndex((row) => row.link_id === between.id);
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(count);
  }, 60_000);
});
