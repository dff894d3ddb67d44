/**
 * The browser extensions a shelf's owner approved (the consent of `/extension/authorize`) and
 * the token minted under each approval: one live token per approval, at most one minted a
 * minute. Removing an approval removes its token (the database cascades the delete).
 */
import { and, count, desc, eq } from "drizzle-orm";
import { apiTokens, extensionGrants, type ExtensionGrantRow } from "../db/schema";
import { TooManyAttempts } from "../common/errors";
import type { BrowserFamily, ExtensionIdentity } from "./redirect-uri";
import { deleteOwned, type Owner } from "./scope";
import type { ShelfTokens } from "./tokens";

/** The name of an extension's token when the extension did not name its browser (or named it against the name rules). */
export const EXTENSION_TOKEN_NAME = "Browser extension";
/** An approved extension is handed at most one new token in this time. */
const EXTENSION_MINT_INTERVAL_MS = 60_000;

/** An approved extension as the account page lists it. */
export interface GrantInfo {
  id: number;
  browser: BrowserFamily;
  extensionId: string;
  approvedAt: number;
  /** The tokens minted for this approval that still exist (not revoked). */
  tokens: number;
}

export class ShelfExtensions {
  constructor(private readonly owner: Owner, private readonly tokens: ShelfTokens) {}

  /** find is the owner's approval of an extension, if they gave it. */
  find(extension: ExtensionIdentity): ExtensionGrantRow | undefined {
    return this.owner.db
      .select()
      .from(extensionGrants)
      .where(and(
        eq(extensionGrants.userId, this.owner.user.id),
        eq(extensionGrants.browser, extension.browser),
        eq(extensionGrants.extensionId, extension.extensionId),
      ))
      .get();
  }

  /**
   * mint mints a token named `name` (the browser and system the extension said, checked by the
   * caller) under an approval the owner already gave, in one transaction with revoking the
   * token minted before it, so the extension holds one live token. TooManyAttempts (with the
   * seconds to wait) when the live one is less than a minute old.
   */
  mint(grant: ExtensionGrantRow, now: number, name = EXTENSION_TOKEN_NAME): string {
    return this.owner.db.transaction(() => this.replaceToken(grant.id, now, name), { behavior: "immediate" });
  }

  /**
   * approve records the owner's approval of an extension (kept if it exists already) and mints
   * its token as `mint` does, in one transaction (a refused mint records nothing).
   */
  approve(extension: ExtensionIdentity, now: number, name = EXTENSION_TOKEN_NAME): string {
    const { db, user } = this.owner;
    return db.transaction(() => {
      db.insert(extensionGrants)
        .values({ userId: user.id, browser: extension.browser, extensionId: extension.extensionId, approvedAt: now })
        .onConflictDoNothing()
        .run();
      return this.replaceToken(this.find(extension)!.id, now, name);
    }, { behavior: "immediate" });
  }

  /** replaceToken is mint's work, inside the caller's transaction. */
  private replaceToken(grantId: number, now: number, name: string): string {
    const { db, user } = this.owner;
    const ofGrant = and(eq(apiTokens.userId, user.id), eq(apiTokens.grantId, grantId));
    const live = db.select({ createdAt: apiTokens.createdAt }).from(apiTokens).where(ofGrant).orderBy(desc(apiTokens.createdAt)).limit(1).all()[0];
    const wait = live === undefined ? 0 : live.createdAt + EXTENSION_MINT_INTERVAL_MS - now;
    if (wait > 0) {
      throw new TooManyAttempts(Math.ceil(wait / 1000), "This extension was handed a token less than a minute ago. Try again in a minute.");
    }
    db.delete(apiTokens).where(ofGrant).run();
    return this.tokens.create(name, now, grantId).token;
  }

  /** list is the extensions the owner approved, newest first, with how many of their tokens exist. */
  list(): GrantInfo[] {
    return this.owner.db
      .select({
        id: extensionGrants.id,
        browser: extensionGrants.browser,
        extensionId: extensionGrants.extensionId,
        approvedAt: extensionGrants.approvedAt,
        tokens: count(apiTokens.id),
      })
      .from(extensionGrants)
      .leftJoin(apiTokens, eq(apiTokens.grantId, extensionGrants.id))
      .where(eq(extensionGrants.userId, this.owner.user.id))
      .groupBy(extensionGrants.id)
      .orderBy(desc(extensionGrants.id))
      .all();
  }

  /** remove deletes one of the owner's approvals and, by the cascade, every token minted for it; NotFound when the owner has none with that id. */
  remove(grantId: number): void {
    deleteOwned(this.owner, extensionGrants, grantId);
  }
}
