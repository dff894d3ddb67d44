/**
 * A shelf's idempotency keys: the answers of the owner's API writes that came with an
 * `Idempotency-Key`, kept 24 hours so that a retry gets the first answer again instead of writing
 * twice. A key is stored inside the transaction of the write it answers (the caller's).
 */
import { and, eq, gt, lte, sql } from "drizzle-orm";
import { idempotencyKeys } from "../db/schema";
import type { Owner } from "./scope";

/** How long a key answers retries. */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** How many expired keys (anyone's) each stored key purges: more than one, so the purge keeps up. */
const PURGE_BATCH = 16;

/** A write's answer as it was sent: what a retry with the same key gets. */
export interface KeptAnswer {
  /** SHA-256 of the request's method, path, query (parameters sorted by name) and body. */
  hash: string;
  status: number;
  /** The JSON body, as sent. */
  body: string;
}

export class ShelfKeys {
  constructor(private readonly owner: Owner) {}

  /** find is the answer kept for one of the owner's keys, unless it is older than KEY_LIFETIME_MS. */
  find(key: string, now: number): KeptAnswer | undefined {
    return this.owner.db.select({ hash: idempotencyKeys.hash, status: idempotencyKeys.status, body: idempotencyKeys.body })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.userId, this.owner.user.id), eq(idempotencyKeys.key, key), gt(idempotencyKeys.createdAt, now - KEY_LIFETIME_MS)))
      .get();
  }

  /**
   * keep stores the answer of a write under one of the owner's keys, inside the write's
   * transaction (an expired row of the same key is replaced), and purges a few expired keys.
   */
  keep(key: string, answer: KeptAnswer, now: number): void {
    const { db, user } = this.owner;
    const row = { userId: user.id, key, ...answer, createdAt: now };
    db.insert(idempotencyKeys).values(row).onConflictDoUpdate({ target: [idempotencyKeys.userId, idempotencyKeys.key], set: row }).run();
    db.delete(idempotencyKeys).where(sql`rowid IN (SELECT rowid FROM ${idempotencyKeys} WHERE ${lte(idempotencyKeys.createdAt, now - KEY_LIFETIME_MS)} LIMIT ${PURGE_BATCH})`).run();
  }
}
