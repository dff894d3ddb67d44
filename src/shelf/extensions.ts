/**
 * The browser extensions a shelf's owner approved (the consent of `/extension/authorize`) and
 * the tokens minted under each approval. Removing an approval removes its tokens (the
 * database cascades the delete).
 */
import { and, count, desc, eq } from "drizzle-orm";
import { apiTokens, extensionGrants, type ExtensionGrantRow } from "../db/schema";
import type { BrowserFamily, ExtensionIdentity } from "../extension/redirect-uri";
import { deleteOwned, type Owner } from "./scope";
import type { ShelfTokens } from "./tokens";

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

  /** mint mints a `Browser extension` token under an approval the owner already gave. */
  mint(grant: ExtensionGrantRow, now: number): string {
    return this.tokens.create(EXTENSION_TOKEN_NAME, now, grant.id).token;
  }

  /**
   * approve records the owner's approval of an extension (kept if it exists already) and mints
   * its first token, in one transaction.
   */
  approve(extension: ExtensionIdentity, now: number): string {
    const { db, user } = this.owner;
    return db.transaction(() => {
      db.insert(extensionGrants)
        .values({ userId: user.id, browser: extension.browser, extensionId: extension.extensionId, approvedAt: now })
        .onConflictDoNothing()
        .run();
      return this.mint(this.find(extension)!, now);
    }, { behavior: "immediate" });
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
