import { and, eq, gt, lt, lte } from "drizzle-orm";
import type { Db } from "../db/client";
import { sessions, type UserRow } from "../db/schema";
import { findUserById } from "../users/service";
import { hashSecret, randomSecret } from "../common/token-secrets";

export const SESSION_COOKIE = "linkshelf_session";
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A session used with less than this left (the last half of its life) is extended to SESSION_TTL_MS from then. */
export const SESSION_RENEW_WITHIN_MS = SESSION_TTL_MS / 2;
const SESSION_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** createSession starts a 30-day session and returns the cookie value (stored only hashed). */
export function createSession(db: Db, userId: number, now: number): { id: string; expiresAt: number } {
  const id = randomSecret();
  const expiresAt = now + SESSION_TTL_MS;
  db.transaction((tx) => {
    tx.delete(sessions).where(lte(sessions.expiresAt, now)).run();
    tx.insert(sessions).values({ idHash: hashSecret(id), userId, createdAt: now, expiresAt }).run();
  }, { behavior: "immediate" });
  return { id, expiresAt };
}

/** A live session as one request used it. */
export interface SessionUse {
  user: UserRow;
  /** The session was extended by this use: its new expiry (the cookie must be sent again). */
  renewedUntil?: number;
}

/**
 * useSession returns the user of a live session. Sessions slide: a session used in the last
 * half of its life is extended to 30 days from now, with one UPDATE (guarded by the expiry it
 * read, so requests racing each other extend it once); the caller re-sends the cookie.
 */
export function useSession(db: Db, id: string, now: number, renew = true): SessionUse | undefined {
  if (!SESSION_SHAPE.test(id)) return undefined;
  const idHash = hashSecret(id);
  // The session and then its user by id, not a join: SQLite compiles a join comparing a column with a bound value again at every use.
  const row = db
    .select({ userId: sessions.userId, expiresAt: sessions.expiresAt })
    .from(sessions)
    .where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now)))
    .get();
  // The user is gone when it was deleted between the two reads (its sessions with it).
  const user = row && findUserById(db, row.userId);
  if (!row || !user) return undefined;
  if (!renew || row.expiresAt - now >= SESSION_RENEW_WITHIN_MS) return { user };
  const renewedUntil = now + SESSION_TTL_MS;
  db.update(sessions)
    .set({ expiresAt: renewedUntil })
    .where(and(eq(sessions.idHash, idHash), lt(sessions.expiresAt, now + SESSION_RENEW_WITHIN_MS)))
    .run();
  return { user, renewedUntil };
}

/** sessionExists is true while a session is stored (a password change or sign-out deletes it). */
export function sessionExists(db: Db, id: string): boolean {
  return db.select({ idHash: sessions.idHash }).from(sessions).where(eq(sessions.idHash, hashSecret(id))).get() !== undefined;
}

/** deleteSession ends one session. */
export function deleteSession(db: Db, id: string): void {
  db.delete(sessions).where(eq(sessions.idHash, hashSecret(id))).run();
}
