/**
 * The ground every part of a shelf stands on: whose shelf it is (`Owner`), the Inbox, and the
 * one check that collection ids belong to the owner. Nothing here is exported beyond
 * `src/shelf/` except `INBOX` and `insertInbox` (a new user's Inbox is made with the user).
 */
import { and, eq, sql } from "drizzle-orm";
import { preparedQueries, type Db } from "../db/client";
import { apiTokens, collections, extensionGrants, type CollectionRow, type UserRow } from "../db/schema";
import { NotFound } from "../common/errors";
import type { Rules } from "../common/rules";
import type { AfterWrite } from "./types";
import { MEMBERSHIP_LIMITS, MEMBERSHIP_MESSAGES } from "./limits";

/** Whose shelf: every query of `src/shelf/` is scoped to `user.id`; `afterWrite` follows its committed writes of links (none: nothing does). */
export interface Owner {
  readonly db: Db;
  readonly user: UserRow;
  readonly afterWrite?: AfterWrite;
  /** How many days the owner's deleted items stay in the trash (src/shelf/trash.ts); 0 deletes at once. */
  readonly trashDays?: number;
  /** How many stored bytes the owner's page copies may take (src/shelf/copies.ts); DEFAULT_COPY_QUOTA when not given. */
  readonly copyQuota?: number;
}

/** The collection every user has, made with the user; it cannot be deleted. */
export const INBOX = { name: "Inbox", icon: "📥", visibility: "PRIVATE" } as const;

/** insertInbox makes a new user's Inbox (inside the transaction that makes the user). */
export function insertInbox(db: Db, userId: number, now: number): void {
  db.insert(collections).values({ ...INBOX, userId, isDefault: true, createdAt: now, updatedAt: now }).run();
}

/** What a write naming a collection that is not the owner's hears (the web form's garbage ids too). */
const NOT_YOUR_COLLECTIONS = "Expected ids of your own collections";

/** Built once per database: a link's write asks both (a POST's own cost is mostly these). */
const scopeQueries = preparedQueries((db) => ({
  inbox: db
    .select({ id: collections.id })
    .from(collections)
    // `= 1` written out: a bound value compared with the partial index's condition makes SQLite prepare the statement again at every use.
    .where(and(eq(collections.userId, sql.placeholder("userId")), sql`${collections.isDefault} = 1`))
    .prepare(),
  ownedCount: db
    .select({ n: sql<number>`count(*)` })
    .from(collections)
    .where(and(
      eq(collections.userId, sql.placeholder("userId")),
      sql`${collections.id} IN (SELECT value FROM json_each(${sql.placeholder("ids")}))`,
    ))
    .prepare(),
}));

/** deleteOwned deletes the owner's row with that id from a table of owned rows; NotFound when the owner has none (another user's included). */
export function deleteOwned({ db, user }: Owner, table: typeof apiTokens | typeof extensionGrants, id: number): void {
  const deleted = db.delete(table).where(and(eq(table.userId, user.id), eq(table.id, id))).returning({ id: table.id }).all();
  if (deleted.length === 0) throw new NotFound();
}

/** inboxId is the id of the owner's Inbox (inside a transaction too). */
export function inboxId({ db, user }: Owner): number {
  return scopeQueries(db).inbox.get({ userId: user.id })!.id;
}

/** ownedCollection is the owner's collection with that id; another user's id is NotFound like an unknown one. */
export function ownedCollection({ db, user }: Owner, id: number): CollectionRow {
  const row = db.select().from(collections).where(and(eq(collections.id, id), eq(collections.userId, user.id))).get();
  if (!row) throw new NotFound();
  return row;
}

/**
 * collectionIdsOf folds duplicates, sorts, falls back to the Inbox when empty, and records a
 * violation unless every id is one of the owner's collections, at most MEMBERSHIP_LIMITS.perLink. Unknown ids and other users'
 * ids get the same message, so nothing leaks. Ids all in `known` (collections the caller found to
 * be the owner's in this transaction) are not looked up again.
 */
export function collectionIdsOf(owner: Owner, ids: readonly number[] | undefined, rules: Rules, known?: ReadonlySet<number>): number[] {
  const wanted = [...new Set(ids ?? [])].sort((a, b) => a - b);
  if (wanted.length === 0) return [inboxId(owner)];
  if (wanted.length > MEMBERSHIP_LIMITS.perLink) {
    rules.fail("/collectionIds", MEMBERSHIP_MESSAGES.perLink);
    return wanted;
  }
  if (known && wanted.every((id) => known.has(id))) return wanted;
  const owned = scopeQueries(owner.db).ownedCount.get({ userId: owner.user.id, ids: JSON.stringify(wanted) })!.n;
  if (owned !== wanted.length) rules.fail("/collectionIds", NOT_YOUR_COLLECTIONS);
  return wanted;
}

