import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { preparedQueries, type Db } from "../db/client";
import { apiTokens, users, type UserRow } from "../db/schema";
import type { Rules } from "../rules";

export const TOKEN_PREFIX = "lks_";
/** `lks_` + base64url of 32 bytes (43 characters). */
const TOKEN_SHAPE = /^lks_[A-Za-z0-9_-]{43}$/;
/** lastUsedAt is written at most once a minute per token, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** hashSecret is the SHA-256 (hex) stored in place of a token or session id. */
export function hashSecret(secret: string): string {
  return new Bun.CryptoHasher("sha256").update(secret).digest("hex");
}

/** randomSecret returns 32 random bytes as base64url. */
export function randomSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

export interface TokenInfo {
  id: number;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** A token's name: 1 to 100 characters, under the rules of every name. */
export const TOKEN_NAME_MAX = 100;

/** checkTokenName applies the name rule to a token name typed on the account page or the CLI; returns it trimmed. */
export function checkTokenName(rules: Rules, typed: string): string {
  return rules.name("/name", typed, 1, TOKEN_NAME_MAX);
}

/**
 * createToken mints a token for a user; the returned token is the only copy that exists.
 * `grantId` links a token minted for an approved browser extension to that approval.
 */
export function createToken(db: Db, userId: number, name: string, now: number, grantId: number | null = null): { token: string; info: TokenInfo } {
  const token = TOKEN_PREFIX + randomSecret();
  const info = db
    .insert(apiTokens)
    .values({ userId, name, tokenHash: hashSecret(token), createdAt: now, grantId })
    .returning({ id: apiTokens.id, name: apiTokens.name, createdAt: apiTokens.createdAt, lastUsedAt: apiTokens.lastUsedAt })
    .all()[0]!;
  return { token, info };
}

/** Every API request looks its token up: built once per database. */
const tokenQueries = preparedQueries((db) => ({
  owner: db
    .select({ user: users, tokenId: apiTokens.id, lastUsedAt: apiTokens.lastUsedAt })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(eq(apiTokens.tokenHash, sql.placeholder("tokenHash")))
    .prepare(),
}));

/** findTokenUser returns the owner of a live token, and records its use (at most once a minute). */
export function findTokenUser(db: Db, token: string, now: number): UserRow | undefined {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const row = tokenQueries(db).owner.get({ tokenHash: hashSecret(token) });
  if (!row) return undefined;
  if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    db.update(apiTokens)
      .set({ lastUsedAt: now })
      .where(and(eq(apiTokens.id, row.tokenId), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, now))))
      .run();
  }
  return row.user;
}

/** listTokens lists a user's tokens, newest first; the tokens themselves are not known. */
export function listTokens(db: Db, userId: number): TokenInfo[] {
  return db
    .select({ id: apiTokens.id, name: apiTokens.name, createdAt: apiTokens.createdAt, lastUsedAt: apiTokens.lastUsedAt })
    .from(apiTokens)
    .where(eq(apiTokens.userId, userId))
    .orderBy(desc(apiTokens.id))
    .all();
}

/** revokeToken deletes one of a user's tokens; false when that user has no token with that id (another user's included). */
export function revokeToken(db: Db, userId: number, id: number): boolean {
  return db.delete(apiTokens).where(and(eq(apiTokens.userId, userId), eq(apiTokens.id, id))).returning({ id: apiTokens.id }).all().length > 0;
}

/** revokeAnyToken deletes a token whoever owns it, for the operator's command line; false when no token has that id. */
export function revokeAnyToken(db: Db, id: number): boolean {
  return db.delete(apiTokens).where(eq(apiTokens.id, id)).returning({ id: apiTokens.id }).all().length > 0;
}
