import { sql } from "drizzle-orm";
import { blob, check, index, type AnySQLiteColumn, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Timestamps are stored as integer milliseconds since the epoch (UTC). */
const millis = (name: string) => integer(name, { mode: "number" });

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  email: text("email").notNull(),
  name: text("name").notNull(),
  passwordHash: text("password_hash").notNull(),
  createdAt: millis("created_at").notNull(),
}, (table) => [uniqueIndex("users_email_unique").on(sql`lower(${table.email})`)]);

export const apiTokens = sqliteTable("api_tokens", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  /** Hex SHA-256 of the token; the token itself is never stored. */
  tokenHash: text("token_hash").notNull().unique(),
  createdAt: millis("created_at").notNull(),
  lastUsedAt: millis("last_used_at"),
  /** The extension approval a token was minted for (removing the approval deletes its tokens); null for other tokens. */
  grantId: integer("grant_id").references(() => extensionGrants.id, { onDelete: "cascade" }),
}, (table) => [index("api_tokens_user_idx").on(table.userId), index("api_tokens_grant_idx").on(table.grantId)]);

export const collections = sqliteTable("collections", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  description: text("description"),
  visibility: text("visibility", { enum: ["PUBLIC", "PRIVATE"] }).notNull(),
  icon: text("icon").notNull(),
  isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
  createdAt: millis("created_at").notNull(),
  updatedAt: millis("updated_at").notNull(),
  /** The import that created the collection (undoing it removes the collection if empty); null otherwise. */
  importId: integer("import_id").references((): AnySQLiteColumn => imports.id, { onDelete: "set null" }),
  /**
   * The collection it is inside; null at the top level. No action on delete: deleting a
   * collection moves its sub-collections up first (src/shelf/collections.ts), so none is lost.
   */
  parentId: integer("parent_id").references((): AnySQLiteColumn => collections.id),
  /** Its place among its parent's items (links and sub-collections share one order), or among the top level. */
  position: integer("position").notNull().default(0),
  /** Whether anyone may open the page copies of its links while it is PUBLIC (the owner opts in per collection). */
  copiesPublic: integer("copies_public", { mode: "boolean" }).notNull().default(false),
}, (table) => [
  index("collections_user_idx").on(table.userId),
  index("collections_parent_idx").on(table.userId, table.parentId, table.position),
  index("collections_import_idx").on(table.importId),
  check("collections_visibility_check", sql`${table.visibility} IN ('PUBLIC', 'PRIVATE')`),
  uniqueIndex("collections_one_default_per_user").on(table.userId).where(sql`${table.isDefault} = 1`),
]);

export const links = sqliteTable("links", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  url: text("url").notNull(),
  favorite: integer("favorite", { mode: "boolean" }).notNull().default(false),
  clicks: integer("clicks").notNull().default(0),
  lastClickedAt: millis("last_clicked_at"),
  createdAt: millis("created_at").notNull(),
  updatedAt: millis("updated_at").notNull(),
  /** The import that created the link (undoing it deletes the link); null otherwise. */
  importId: integer("import_id").references((): AnySQLiteColumn => imports.id, { onDelete: "set null" }),
  /** On the owner's reading list (read later); cleared by "Mark read". */
  toRead: integer("to_read", { mode: "boolean" }).notNull().default(false),
  /** Put away once read: listed as before, and found by `?archived=true` and `is:archived`. */
  archived: integer("archived", { mode: "boolean" }).notNull().default(false),
}, (table) => [
  index("links_user_created_idx").on(table.userId, table.createdAt, table.id),
  // The reading list's count in every page's top bar, and its view: partial, so the rest of the links cost it nothing.
  index("links_user_to_read_idx").on(table.userId, table.createdAt, table.id).where(sql`${table.toRead} = 1`),
  index("links_import_idx").on(table.importId),
  // The owner's most clicked link, which bounds how far use can lift a search hit (src/shelf/search.ts).
  // Partial: a new link (no clicks) costs it nothing.
  index("links_user_clicks_idx").on(table.userId, table.clicks).where(sql`${table.clicks} > 0`),
]);

/** Which collections a link is in; every link is in at least one (the Inbox when nothing else). */
export const linkCollections = sqliteTable("link_collections", {
  linkId: integer("link_id").notNull().references(() => links.id, { onDelete: "cascade" }),
  collectionId: integer("collection_id").notNull().references(() => collections.id, { onDelete: "cascade" }),
  /** The link's place in the collection's order (shared with its sub-collections); new ones go at the end. */
  position: integer("position").notNull().default(0),
}, (table) => [
  primaryKey({ columns: [table.linkId, table.collectionId] }),
  index("link_collections_collection_idx").on(table.collectionId, table.linkId),
  index("link_collections_position_idx").on(table.collectionId, table.position),
]);

/**
 * The readable text of a link's page, one row per link (deleted with the link): captured by the
 * browser extension or fetched by the server. `source` says which; a browser capture is never
 * replaced by a server fetch. The text is what full-text search indexes and cuts snippets from.
 */
export const linkContents = sqliteTable("link_contents", {
  linkId: integer("link_id").primaryKey().references(() => links.id, { onDelete: "cascade" }),
  title: text("title"),
  /** The text, compressed with Zstandard (src/fulltext/text-store.ts): a page's text is most of the database. */
  textZstd: blob("text_zstd", { mode: "buffer" }).notNull(),
  excerpt: text("excerpt"),
  byline: text("byline"),
  lang: text("lang"),
  source: text("source", { enum: ["browser", "server"] }).notNull(),
  capturedAt: millis("captured_at").notNull(),
}, (table) => [check("link_contents_source_check", sql`${table.source} IN ('browser', 'server')`)]);

/**
 * The copy of a link's page as the owner's browser showed it (one self-contained HTML file, made
 * by the extension), at most one per link. The body is compressed (Zstandard) and read only to
 * serve, export or index the copy: lists read `bytes` and `saved_at` alone. No foreign key to the
 * link: a link in the trash keeps its copy (the trash's purge and a delete at once remove it,
 * src/shelf/copies.ts); the owner's is what the quota counts.
 */
export const linkCopies = sqliteTable("link_copies", {
  linkId: integer("link_id").primaryKey(),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  /** The file's size before compression: what the per-copy limit counts. */
  bytes: integer("bytes").notNull(),
  /** The compressed size: what the file holds, and what the per-user quota counts. */
  storedBytes: integer("stored_bytes").notNull(),
  savedAt: millis("saved_at").notNull(),
  /**
   * The HTML file, compressed with Zstandard. Last: the small columns before it are read from
   * the row's first page, never from the overflow pages the body spills into.
   */
  body: blob("body", { mode: "buffer" }).notNull(),
}, (table) => [
  // The quota's sum, from the index alone.
  index("link_copies_user_idx").on(table.userId, table.storedBytes),
  // `copy` in a link's JSON, from the index alone: a list never reads the pages a body fills.
  index("link_copies_summary_idx").on(table.linkId, table.savedAt, table.bytes),
]);

/**
 * One confirmed import of a bookmark file (from the import page or the CLI), with its report's
 * counts; the links and collections it created name it in their `import_id`. `undone_at` is
 * set when it is undone.
 */
export const imports = sqliteTable("imports", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  createdAt: millis("created_at").notNull(),
  source: text("source", { enum: ["page", "cli"] }).notNull(),
  fileName: text("file_name").notNull(),
  links: integer("links").notNull(),
  collections: integer("collections").notNull(),
  duplicates: integer("duplicates").notNull(),
  skipped: integer("skipped").notNull(),
  undoneAt: millis("undone_at"),
}, (table) => [
  index("imports_user_idx").on(table.userId, table.id),
  check("imports_source_check", sql`${table.source} IN ('page', 'cli')`),
]);

export type UserRow = typeof users.$inferSelect;
export type LinkRow = typeof links.$inferSelect;
export type CollectionRow = typeof collections.$inferSelect;
export type ApiTokenRow = typeof apiTokens.$inferSelect;
export type ImportRow = typeof imports.$inferSelect;
export type LinkContentRow = typeof linkContents.$inferSelect;

/** Browser sign-in sessions; only a hash of the cookie value is stored. */
export const sessions = sqliteTable("sessions", {
  idHash: text("id_hash").primaryKey(),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  createdAt: millis("created_at").notNull(),
  expiresAt: millis("expires_at").notNull(),
}, (table) => [index("sessions_user_idx").on(table.userId)]);

export type SessionRow = typeof sessions.$inferSelect;

/**
 * The favicon proxy's cache, one row per origin (`https://example.com`). A found icon keeps
 * its verified bytes, content type and ETag; a miss keeps `bytes` null (the placeholder is
 * generated on the fly). Rows are served while `expires_at` is in the future.
 */
export const faviconCache = sqliteTable("favicon_cache", {
  origin: text("origin").primaryKey(),
  contentType: text("content_type"),
  bytes: blob("bytes", { mode: "buffer" }),
  etag: text("etag"),
  fetchedAt: millis("fetched_at").notNull(),
  expiresAt: millis("expires_at").notNull(),
}, (table) => [index("favicon_cache_fetched_idx").on(table.fetchedAt)]);

export type FaviconCacheRow = typeof faviconCache.$inferSelect;

/**
 * A user's approval of one browser extension (the id in its callback address), given once on
 * the consent page of `/extension/authorize`; later sign-ins of that extension go straight through.
 */
export const extensionGrants = sqliteTable("extension_grants", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  browser: text("browser", { enum: ["chromium", "firefox"] }).notNull(),
  extensionId: text("extension_id").notNull(),
  approvedAt: millis("approved_at").notNull(),
}, (table) => [
  uniqueIndex("extension_grants_user_extension_unique").on(table.userId, table.browser, table.extensionId),
  check("extension_grants_browser_check", sql`${table.browser} IN ('chromium', 'firefox')`),
]);

export type ExtensionGrantRow = typeof extensionGrants.$inferSelect;

/**
 * What the link checker found of a link, one row per link (deleted with the link): the state of
 * its last check, the failures in a row and when they began, the last five checks as JSON, when
 * the next check is due, and whether the owner asked never to flag it.
 */
export const linkHealth = sqliteTable("link_health", {
  linkId: integer("link_id").primaryKey().references(() => links.id, { onDelete: "cascade" }),
  state: text("state", { enum: ["ok", "moved", "gone", "failing", "soft-404", "unchecked"] }).notNull(),
  /** Set by the checker from the confirm rule: enough failures in a row, over long enough. */
  broken: integer("broken", { mode: "boolean" }).notNull().default(false),
  movedTo: text("moved_to"),
  failures: integer("failures").notNull().default(0),
  /** The time of the first of the failures in a row; null when the last check succeeded. */
  failingSince: millis("failing_since"),
  checkedAt: millis("checked_at"),
  /** When the background checker takes the link again. */
  nextAt: millis("next_at").notNull(),
  ignored: integer("ignored", { mode: "boolean" }).notNull().default(false),
  /** The last five checks, newest first: `[{at, status, outcome}]`. */
  checks: text("checks").notNull().default("[]"),
}, (table) => [
  index("link_health_next_idx").on(table.nextAt),
  index("link_health_state_idx").on(table.state, table.broken),
  check("link_health_state_check", sql`${table.state} IN ('ok', 'moved', 'gone', 'failing', 'soft-404', 'unchecked')`),
]);

export type LinkHealthRow = typeof linkHealth.$inferSelect;

/**
 * The trash: one row per link or collection deleted by its owner, holding everything needed to
 * put it back as it was (`data`: its rows, memberships with their places, saved page text and
 * health; for a collection, what its deletion moved or took with it). The deleted rows
 * themselves are gone from their tables, so nothing else ever sees them. Purged after the
 * configured days; `links` and `collections` count what restoring it brings back.
 */
/**
 * The answer a user gave the offer to turn the collections named "To read" and "Archive" that
 * earlier imports made into the reading flags (shown on the To read view until answered, once).
 */
export const readingOffers = sqliteTable("reading_offers", {
  userId: integer("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  /** `accepted`: the links were marked; `declined`: "No thanks". Either way the offer is not shown again. */
  answer: text("answer", { enum: ["accepted", "declined"] }).notNull(),
  answeredAt: millis("answered_at").notNull(),
}, (table) => [check("reading_offers_answer_check", sql`${table.answer} IN ('accepted', 'declined')`)]);

export const trash = sqliteTable("trash", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  kind: text("kind", { enum: ["link", "collection", "import"] }).notNull(),
  itemId: integer("item_id").notNull(),
  name: text("name").notNull(),
  deletedAt: millis("deleted_at").notNull(),
  links: integer("links").notNull(),
  collections: integer("collections").notNull(),
  data: text("data").notNull(),
}, (table) => [
  uniqueIndex("trash_item_idx").on(table.userId, table.kind, table.itemId),
  index("trash_user_deleted_idx").on(table.userId, table.deletedAt, table.id),
  index("trash_deleted_idx").on(table.deletedAt),
  check("trash_kind_check", sql`${table.kind} IN ('link', 'collection', 'import')`),
]);

export type TrashRow = typeof trash.$inferSelect;

/**
 * The change feed: the newest change of each of a user's links and collections, at its place in
 * that user's own sequence (`seq`: 1, 2, 3, ... per user, never handed out twice: `change_floors.head`
 * is the last one given). Every change is marked in its own transaction (`pending_changes`): by
 * triggers on `links`, `collections` and `link_collections` (drizzle/0011), so that no write path
 * can skip it, except a link put in a collection (and so a new link), which the one writer of
 * memberships marks in one statement (src/shelf/memberships.ts, drizzle/0013). Reading the feed
 * moves the marks here; clicks are not changes. An item's row stays after it is deleted (a
 * tombstone) until the trash lets it go.
 */
export const changes = sqliteTable("changes", {
  /** No foreign key: the triggers that write it also run while a user's rows are deleted with the user. */
  userId: integer("user_id").notNull(),
  seq: integer("seq").notNull(),
  kind: text("kind", { enum: ["link", "collection"] }).notNull(),
  itemId: integer("item_id").notNull(),
}, (table) => [
  primaryKey({ columns: [table.userId, table.seq] }),
  uniqueIndex("changes_item_idx").on(table.userId, table.kind, table.itemId),
]);

/**
 * Items changed since their owner last read the feed, once each (marked in the transaction of
 * each change, see `changes`); reading the feed moves them into `changes` (src/shelf/changes.ts).
 */
export const pendingChanges = sqliteTable("pending_changes", {
  /** No foreign key, as in `changes`. */
  userId: integer("user_id").notNull(),
  kind: text("kind", { enum: ["link", "collection"] }).notNull(),
  itemId: integer("item_id").notNull(),
}, (table) => [uniqueIndex("pending_changes_item_idx").on(table.userId, table.kind, table.itemId)]);

/**
 * Each user's place in their own change sequence: `head`, the last place handed out (the next
 * change takes the one after it, even when the row at `head` is gone), and `seq`, the floor: the
 * newest place the feed no longer remembers (its item purged); an older cursor is expired.
 */
export const changeFloors = sqliteTable("change_floors", {
  userId: integer("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
  seq: integer("seq").notNull(),
  head: integer("head").notNull().default(0),
});

/**
 * The database's history, one row: `generation`, a random name given when the database is made
 * and given anew to every copy linkshelf writes (a backup, a restore), so that a copy put in
 * place of the database is a new history. Change cursors name it: a cursor of another history
 * is refused rather than read against this one.
 */
export const history = sqliteTable("history", {
  id: integer("id").primaryKey(),
  generation: text("generation").notNull(),
}, (table) => [check("history_one_row", sql`${table.id} = 1`)]);

/**
 * The answers kept for retries: one row per user and `Idempotency-Key` of a write of theirs
 * under `/api/v1` that succeeded, written in the write's own transaction. `hash` is SHA-256 of
 * the request's method, path, query and body; `status` and `body` are the answer as it was sent. A row
 * older than 24 hours answers nothing and is purged a few at a time.
 */
export const idempotencyKeys = sqliteTable("idempotency_keys", {
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  key: text("key").notNull(),
  hash: text("hash").notNull(),
  status: integer("status").notNull(),
  body: text("body").notNull(),
  createdAt: millis("created_at").notNull(),
}, (table) => [primaryKey({ columns: [table.userId, table.key] }), index("idempotency_keys_created_idx").on(table.createdAt)]);

export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;

// Tables made at run time rather than by the migrations: the schema check (schema-check.ts) accepts
// them by name and statement, and the full-text index (src/fulltext/index-text.ts) creates them.

/** userSearchTable is the name of one user's index. */
export const userSearchTable = (userId: number): string => `link_search_${userId}`;

/**
 * Every user's index, as the schema check knows the objects made at run time rather than by the
 * migrations: a table named `link_search_<user id>` made by exactly userSearchTableSql (the
 * shadow tables FTS5 makes with it come along).
 */
export const USER_SEARCH_INDEX = {
  name: /link_search_[1-9][0-9]*/,
  sql: (name: string) => userSearchTableSql(Number(name.slice("link_search_".length))),
};

/**
 * userSearchTableSql is the one statement that makes a user's index: the link's name,
 * description, URL and saved page (title and text) as columns, in that order; rowid = links.id.
 * Contentless (the text lives in `links` and `link_contents`; contentless_delete lets a row be
 * replaced by its rowid), with an index of 2-character prefixes, so a two-letter `prefix*` reads
 * one list instead of merging those of every word it starts.
 */
export function userSearchTableSql(userId: number): string {
  if (!Number.isSafeInteger(userId) || userId < 1) throw new Error(`not a user id: ${userId}`);
  return `CREATE VIRTUAL TABLE IF NOT EXISTS ${userSearchTable(userId)} USING fts5(
  name, description, url, content,
  tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2',
  content = '', contentless_delete = 1
)`;
}
