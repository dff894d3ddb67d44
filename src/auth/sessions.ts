import { and, eq, gt, lte } from "drizzle-orm";
import type { Db } from "../db/client";
import { sessions, users, type UserRow } from "../db/schema";
import { hashSecret, randomSecret } from "./tokens";

export const SESSION_COOKIE = "linkshelf_session";
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
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

/** findSessionUser returns the user of a live session. */
export function findSessionUser(db: Db, id: string, now: number): UserRow | undefined {
  if (!SESSION_SHAPE.test(id)) return undefined;
  return db
    .select({ user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.idHash, hashSecret(id)), gt(sessions.expiresAt, now)))
    .get()?.user;
}

/** deleteSession ends one session. */
export function deleteSession(db: Db, id: string): void {
  db.delete(sessions).where(eq(sessions.idHash, hashSecret(id))).run();
}
