import { and, count, desc, eq } from "drizzle-orm";
import { createToken } from "../auth/tokens";
import type { Db } from "../db/client";
import { apiTokens, extensionGrants, type ExtensionGrantRow } from "../db/schema";
import type { BrowserFamily, ExtensionIdentity } from "./redirect-uri";

export const EXTENSION_TOKEN_NAME = "Browser extension";

/** An approved extension as the account page lists it. */
export interface GrantInfo {
  id: number;
  browser: BrowserFamily;
  extensionId: string;
  approvedAt: number;
  /** The tokens minted for this approval that still exist (not revoked). */
  tokens: number;
}

/** findGrant returns the user's approval of an extension, if they gave it. */
export function findGrant(db: Db, userId: number, extension: ExtensionIdentity): ExtensionGrantRow | undefined {
  return db
    .select()
    .from(extensionGrants)
    .where(and(
      eq(extensionGrants.userId, userId),
      eq(extensionGrants.browser, extension.browser),
      eq(extensionGrants.extensionId, extension.extensionId),
    ))
    .get();
}

/** mintGrantedToken mints a `Browser extension` token under an approval the user already gave. */
export function mintGrantedToken(db: Db, grant: ExtensionGrantRow, now: number): string {
  return createToken(db, grant.userId, EXTENSION_TOKEN_NAME, now, grant.id).token;
}

/**
 * approveExtension records the user's approval of an extension (kept if it exists already)
 * and mints its first token, in one transaction.
 */
export function approveExtension(db: Db, userId: number, extension: ExtensionIdentity, now: number): string {
  return db.$client.transaction(() => {
    db.insert(extensionGrants)
      .values({ userId, browser: extension.browser, extensionId: extension.extensionId, approvedAt: now })
      .onConflictDoNothing()
      .run();
    return mintGrantedToken(db, findGrant(db, userId, extension)!, now);
  }).immediate();
}

/** listGrants lists the extensions a user approved, newest first, with how many of their tokens exist. */
export function listGrants(db: Db, userId: number): GrantInfo[] {
  return db
    .select({
      id: extensionGrants.id,
      browser: extensionGrants.browser,
      extensionId: extensionGrants.extensionId,
      approvedAt: extensionGrants.approvedAt,
      tokens: count(apiTokens.id),
    })
    .from(extensionGrants)
    .leftJoin(apiTokens, eq(apiTokens.grantId, extensionGrants.id))
    .where(eq(extensionGrants.userId, userId))
    .groupBy(extensionGrants.id)
    .orderBy(desc(extensionGrants.id))
    .all();
}

/**
 * removeGrant deletes one of a user's approvals and every token minted for it, in one
 * transaction; false (nothing deleted) when the user has no approval with that id.
 */
export function removeGrant(db: Db, userId: number, grantId: number): boolean {
  return db.$client.transaction(() => {
    db.delete(apiTokens).where(and(eq(apiTokens.userId, userId), eq(apiTokens.grantId, grantId))).run();
    return db
      .delete(extensionGrants)
      .where(and(eq(extensionGrants.userId, userId), eq(extensionGrants.id, grantId)))
      .returning({ id: extensionGrants.id })
      .all().length > 0;
  }).immediate();
}
