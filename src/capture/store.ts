/**
 * Where the server's page fetches go. The table of link contents and the shelf's methods for
 * it are built alongside this fetcher and joined to it here when both are in: this is the one
 * place to connect. Until then a fetched page is read and then not kept.
 */
import type { Db } from "../db/client";
import type { StoreContent } from "./fetcher";

/**
 * storeFetchedContent is the fetcher's store for a server on `db`. Its contract: keep `content`
 * as link `linkId`'s server-fetched content when the link still exists and belongs to `userId`,
 * unless the link has content captured by the browser extension (that one is never replaced).
 * Not connected yet: it keeps nothing.
 */
export function storeFetchedContent(db: Db): StoreContent {
  void db;
  return () => undefined;
}
