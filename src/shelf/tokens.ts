/**
 * API tokens: a shelf's own (list, mint, revoke), the lookup that tells whose a presented token
 * is, and the operator's revoke from the command line. Only the SHA-256 of a token is stored.
 */
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { hashSecret, randomSecret, TOKEN_PREFIX } from "../common/token-secrets";
import { preparedQueries, type Db } from "../db/client";
import { apiTokens, users, type UserRow } from "../db/schema";
import { deleteOwned, type Owner } from "./scope";

/** `lks_` + base64url of 32 bytes (43 characters). */
const TOKEN_SHAPE = /^lks_[A-Za-z0-9_-]{43}$/;
/** lastUsedAt is written at most once a minute per token, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface TokenInfo {
  id: number;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/**
 * Every API request looks its token up: built once per database. One statement, and no join:
 * SQLite compiles a join comparing a column with a bound value again at every use (~10 µs here,
 * more than the lookups), so the token is found by scalar subqueries around its user (see
 * docs/development.md).
 */
const tokenQueries = preparedQueries((db) => {
  const ofToken = (column: string) => sql.raw(`(SELECT ${column} FROM api_tokens WHERE token_hash = `).append(sql`${sql.placeholder("tokenHash")})`);
  return {
    owner: db
      .select({ user: users, tokenId: sql<number>`${ofToken("id")}`, lastUsedAt: sql<number | null>`${ofToken("last_used_at")}` })
      .from(users)
      .where(eq(users.id, ofToken("user_id")))
      .prepare(),
  };
});

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

/** revokeAnyToken deletes a token whoever owns it, for the operator's command line; false when no token has that id. */
export function revokeAnyToken(db: Db, id: number): boolean {
  return db.delete(apiTokens).where(eq(apiTokens.id, id)).returning({ id: apiTokens.id }).all().length > 0;
}

export class ShelfTokens {
  constructor(private readonly owner: Owner) {}

  /** list is the owner's tokens, newest first; the tokens themselves are not known. */
  list(): TokenInfo[] {
    return this.owner.db
      .select({ id: apiTokens.id, name: apiTokens.name, createdAt: apiTokens.createdAt, lastUsedAt: apiTokens.lastUsedAt })
      .from(apiTokens)
      .where(eq(apiTokens.userId, this.owner.user.id))
      .orderBy(desc(apiTokens.id))
      .all();
  }

  /**
   * create mints a token (the name already checked: checkTokenName); the returned token is
   * the only copy that exists. `grantId` ties a token minted for an approved browser extension
   * to that approval.
   */
  create(name: string, now: number, grantId: number | null = null): { token: string; info: TokenInfo } {
    const token = TOKEN_PREFIX + randomSecret();
    const info = this.owner.db
      .insert(apiTokens)
      .values({ userId: this.owner.user.id, name, tokenHash: hashSecret(token), createdAt: now, grantId })
      .returning({ id: apiTokens.id, name: apiTokens.name, createdAt: apiTokens.createdAt, lastUsedAt: apiTokens.lastUsedAt })
      .all()[0]!;
    return { token, info };
  }

  /** revoke deletes one of the owner's tokens; NotFound when the owner has none with that id (another user's included). */
  revoke(id: number): void {
    deleteOwned(this.owner, apiTokens, id);
  }

  /** revokeToken deletes the owner's token whose secret is `token` (the one a request presented); false when the owner has no such token. */
  revokeToken(token: string): boolean {
    return this.owner.db.delete(apiTokens)
      .where(and(eq(apiTokens.userId, this.owner.user.id), eq(apiTokens.tokenHash, hashSecret(token))))
      .returning({ id: apiTokens.id }).all().length > 0;
  }
}
