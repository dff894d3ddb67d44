/**
 * A shelf's links: every read and write of the `links` table and of a link's memberships for
 * one owner (the memberships written through src/shelf/memberships.ts, their one writer). The
 * API, the web pages, the importer and the CLI reach links only through here.
 */
import { and, asc, desc, eq, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteSelect } from "drizzle-orm/sqlite-core";
import { preparedQueries } from "../db/client";
import { linkCollections, linkCopies, linkHealth, links, type LinkRow } from "../db/schema";
import { Conflict, NotFound } from "../common/errors";
import { toLinkJson, type CopyColumns } from "./json";
import { LINK_LIMITS, LINK_PAGE, MEMBERSHIP_LIMITS, MEMBERSHIP_MESSAGES } from "./limits";
import { COLLECTION_ACTIONS, type CapturedContent, type LinkListPage, type LinkListQuery, type LinkPage, type LinkQuery, type LinkSort, type ContentSummary, type SearchResults } from "./types";
import { BULK_MAX_IDS, type BulkLinksBody, type CreateLinkBody, type LinkJson, type UpdateLinkBody } from "../contract/links";
import { Rules } from "../common/rules";
import { deferIndexing, indexLink, indexPendingLinks, unindexLinks } from "../fulltext/index-text";
import type { ContentBody, ContentJson, ContentSource } from "../contract/content";
import { readContent, readContentSummary, saveContent, type ContentSaved } from "./contents";
import { deleteLinks, discardLinks } from "./trash";
import { addMemberships, appendLinks, type Memberships } from "./memberships";
import { collectionIdsOf, inboxId, ownedCollection, type Owner } from "./scope";
import { searchLinks, type SearchBudget } from "./search";

/** What creating a link runs, built once per database (a POST's own cost is mostly these). */
const linkQueries = preparedQueries((db) => ({
  insertLink: db
    .insert(links)
    .values({
      userId: sql.placeholder("userId"), name: sql.placeholder("name"), description: sql.placeholder("description"),
      url: sql.placeholder("url"), favorite: sql.placeholder("favorite"),
      toRead: sql.placeholder("toRead"), archived: sql.placeholder("archived"),
      createdAt: sql.placeholder("now"), updatedAt: sql.placeholder("now"),
    })
    .returning()
    .prepare(),
}));

/** A new link has no copy. */
const NO_COPY: CopyColumns = { copySavedAt: null, copyBytes: null };

/**
 * copiesOf is what `copy` in the JSON of each of those links says, read from the copies' summary
 * index (never a body): one query for a page of links, after it is chosen.
 */
function copiesOf(owner: Owner, ids: readonly number[]): Map<number, CopyColumns> {
  if (ids.length === 0) return new Map();
  return new Map(owner.db.select({ id: linkCopies.linkId, copySavedAt: linkCopies.savedAt, copyBytes: linkCopies.bytes }).from(linkCopies)
    .where(sql`${linkCopies.linkId} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`).all()
    .map(({ id, ...copy }) => [id, copy]));
}

/** parseIdList reads the comma-separated ids of a group_concat, sorted ascending. */
function parseIdList(list: string | null): number[] {
  return list ? list.split(",").map(Number).sort((a, b) => a - b) : [];
}

const NEWEST_FIRST = [desc(links.createdAt), desc(links.id)];

/** The order of each sort of a view, ending with the id so that pages never overlap; `order` is the order of the view's collection. */
const SORT_ORDERS: Record<Exclude<LinkSort, "order">, SQL[]> = {
  newest: NEWEST_FIRST,
  oldest: [asc(links.createdAt), asc(links.id)],
  clicks: [desc(links.clicks), sql`${links.lastClickedAt} IS NULL`, desc(links.lastClickedAt), desc(links.id)],
  recent: [sql`${links.lastClickedAt} IS NULL`, desc(links.lastClickedAt), desc(links.id)],
  name: [sql`${links.name} COLLATE NOCASE`, asc(links.id)],
};

/** What a view is read in: the order of one of SORT_ORDERS, or a collection's own order (its memberships' positions). */
type ViewOrder = SQL[] | { collectionId: number };

/** sortOf is the order of a view (checked by viewFilters: `order` comes with a collection). */
const sortOf = ({ sort, collectionId }: LinkListQuery): ViewOrder => (sort === "order" ? { collectionId: collectionId! } : SORT_ORDERS[sort]);

const isBroken = sql`${links.id} IN (SELECT link_id FROM link_health WHERE broken = 1 AND ignored = 0)`;

const inCollection = (collectionId: number) =>
  sql`${links.id} IN (SELECT link_id FROM link_collections WHERE collection_id = ${collectionId})`;

/** listed is the ids of a JSON array of ids, as a subquery (one bound parameter however many ids). */
const listed = (ids: readonly number[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/**
 * fullLinks is how many of `ids` (links of the owner's) are in MEMBERSHIP_LIMITS.perLink
 * collections already and not in `collectionId`: adding them there would pass the limit.
 */
function fullLinks({ db }: Owner, ids: readonly number[], collectionId: number): number {
  return db.all<{ n: number }>(sql`
    SELECT count(*) AS n FROM (
      SELECT lc.link_id FROM ${linkCollections} AS lc WHERE lc.link_id IN ${listed(ids)}
      GROUP BY lc.link_id HAVING count(*) >= ${MEMBERSHIP_LIMITS.perLink} AND max(lc.collection_id = ${collectionId}) = 0
    )`)[0]!.n;
}

/**
 * checkBulk applies the rules of a bulk request: 1 to BULK_MAX_IDS positive ids, each once; a
 * collection for move, add and remove, and none for the other actions.
 */
function checkBulk(input: BulkLinksBody): void {
  const rules = new Rules();
  if (input.ids.length === 0 || input.ids.length > BULK_MAX_IDS) {
    rules.fail("/ids", `Expected 1 to ${BULK_MAX_IDS} ids`);
  } else {
    const seen = new Map<number, number>();
    input.ids.forEach((id, at) => {
      if (!Number.isSafeInteger(id) || id < 1) rules.fail(`/ids/${at}`, "Expected the id of one of your links (a positive whole number)");
      else if (seen.has(id)) rules.fail(`/ids/${at}`, `Expected each id once: ${id} is also at /ids/${seen.get(id)}`);
      else seen.set(id, at);
    });
  }
  const needsCollection = COLLECTION_ACTIONS.includes(input.action);
  if (needsCollection && input.collectionId === undefined) rules.fail("/collectionId", `Required by ${input.action}`);
  if (!needsCollection && input.collectionId !== undefined) rules.fail("/collectionId", `Expected no collectionId with ${input.action}: only move, add and remove name a collection`);
  rules.check();
}

/** A position in the newest-first order: the last link of a page (opaque to clients). */
interface Position {
  createdAt: number;
  id: number;
}

const encodeCursor = (link: LinkJson): string =>
  Buffer.from(`${Date.parse(link.createdAt)}.${link.id}`).toString("base64url");

function decodeCursor(cursor: string): Position | undefined {
  const match = /^(\d{1,15})\.([1-9]\d{0,15})$/.exec(Buffer.from(cursor, "base64url").toString("latin1"));
  if (!match) return undefined;
  const position = { createdAt: Number(match[1]), id: Number(match[2]) };
  return Number.isSafeInteger(position.id) ? position : undefined;
}

/** `%`, `_` and the escape character itself match literally in a LIKE pattern. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** The values an update keeps when its input omits them (a new link: the defaults). */
type Kept = Pick<LinkRow, "description" | "toRead" | "archived">;
const NEW_LINK: Kept = { description: "", toRead: false, archived: false };

/** checkLink applies the rules of a link's fields; `kept` holds the values an omitted field keeps; `known`: collections found to be the owner's already. */
function checkLink(owner: Owner, input: CreateLinkBody, kept: Kept, known?: ReadonlySet<number>) {
  const rules = new Rules();
  const name = rules.name("/name", input.name, 1, LINK_LIMITS.name);
  const description = rules.text("/description", input.description ?? kept.description, 0, LINK_LIMITS.description);
  const url = rules.url("/url", input.url);
  const collectionIds = collectionIdsOf(owner, input.collectionIds, rules, known);
  rules.check();
  return { name, description, url, favorite: input.favorite, toRead: input.toRead ?? kept.toRead, archived: input.archived ?? kept.archived, collectionIds };
}

/**
 * What a writer of many links in one transaction (a batch) keeps from one link to the next: the
 * transaction's memberships (each collection's next place, and the change feed's marks written
 * once at its end) and the collections it found to be the owner's (not looked up again).
 */
export interface LinkWriting {
  memberships: Memberships;
  owned: ReadonlySet<number>;
}

/**
 * writeLink stores a new link (clicks 0) in its collections, or the Inbox, inside the caller's
 * transaction: the rules and the insert of every link written. The caller's transaction is what
 * rolls back a failure, and the caller tells `afterWrite` once it is committed (linkSaved).
 */
export function writeLink(owner: Owner, input: CreateLinkBody, now: number, writing?: LinkWriting): LinkJson {
  const { db, user } = owner;
  const { collectionIds, ...fields } = checkLink(owner, input, NEW_LINK, writing?.owned);
  const queries = linkQueries(db);
  const row = queries.insertLink.all({ userId: user.id, ...fields, now })[0]!;
  if (writing) writing.memberships.add(row.id, collectionIds);
  else addMemberships(owner, row.id, collectionIds);
  deferIndexing(db, row.id);
  return toLinkJson(row, collectionIds, NO_COPY);
}

/** An import's link as the shelf stores it: the API's fields, its reading flags, its dates and clicks (a linkshelf JSON export's), in one collection. */
export interface ImportedLinkRow {
  name: string;
  url: string;
  description: string;
  favorite: boolean;
  toRead: boolean;
  archived: boolean;
  createdAt: number;
  updatedAt: number;
  clicks: number;
  lastClickedAt: number | null;
}

/**
 * writeImportedLink stores one link of an import at the end of one collection's order, inside the
 * import's transaction: the rules of a link's fields, then one insert of the link (with its
 * clicks) and one of its membership (through the transaction's `memberships`), each a statement
 * compiled once. The caller has made sure the collection is the owner's (one the import made, or
 * one it checked in this transaction), marks the links for the index (deferIndexingMany) and
 * tells `afterWrite` once committed; `memberships` marks the change feed. Returns the link's id
 * and URL as stored.
 */
export function writeImportedLink(owner: Owner, input: ImportedLinkRow, collectionId: number, importId: number | null, memberships: Memberships): { id: number; url: string } {
  const rules = new Rules();
  const name = rules.name("/name", input.name, 1, LINK_LIMITS.name);
  const description = rules.text("/description", input.description, 0, LINK_LIMITS.description);
  const url = rules.url("/url", input.url);
  rules.check();
  // The new row's id without RETURNING, which costs SQLite a result table per row (~2 µs).
  const id = Number(owner.db.$client
    .query<never, [number, string, string, string, number, number, number, number, number | null, number, number, number | null]>(
      "INSERT INTO links (user_id, name, description, url, favorite, to_read, archived, clicks, last_clicked_at, created_at, updated_at, import_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    .run(owner.user.id, name, description, url, input.favorite ? 1 : 0, input.toRead ? 1 : 0, input.archived ? 1 : 0, input.clicks, input.lastClickedAt, input.createdAt, input.updatedAt, importId).lastInsertRowid);
  memberships.add(id, [collectionId]);
  return { id, url };
}

/**
 * addFlags sets the reading flags `flags` names on some of the owner's links, inside the caller's
 * transaction, and never clears one (an import meeting a link again, the offer to turn the
 * "To read" and "Archive" collections into flags): a flag already set stays, a flag not named is
 * left as it is. A link that changes has its updatedAt moved (the change feed carries it); one
 * that already had them is left alone. Returns how many links changed.
 */
export function addFlags(owner: Owner, ids: readonly number[], flags: { toRead: boolean; archived: boolean }, now: number): number {
  if (ids.length === 0 || (!flags.toRead && !flags.archived)) return 0;
  const toRead = flags.toRead ? 1 : 0;
  const archived = flags.archived ? 1 : 0;
  return owner.db.$client
    .query<never, [number, number, number, number, string, number, number]>(
      `UPDATE links SET to_read = to_read OR ?1, archived = archived OR ?2, updated_at = ?3
       WHERE user_id = ?4 AND id IN (SELECT value FROM json_each(?5)) AND ((?6 AND NOT to_read) OR (?7 AND NOT archived))`)
    .run(toRead, archived, now, owner.user.id, JSON.stringify(ids), toRead, archived).changes;
}

/** linkSaved tells the owner's `afterWrite` of a link whose page is new (created, or given another URL), once its write is committed. */
export function linkSaved(owner: Owner, link: { id: number; url: string }, page?: CapturedContent | null): void {
  owner.afterWrite?.linkSaved(link.id, owner.user.id, link.url, page);
}

export class ShelfLinks {
  constructor(private readonly owner: Owner) {}

  /** select reads the owner's links matching `where`, each with its collection ids and its copy's summary, in `order`: two queries. */
  private select(where: (SQL | undefined)[], order: ViewOrder, limit?: number, offset = 0): LinkJson[] {
    const query = this.owner.db
      .select({
        link: links,
        // Written out: drizzle would name the outer column `"id"`, without its table.
        collectionIds: sql<string | null>`(SELECT group_concat(lc.collection_id) FROM link_collections lc WHERE lc.link_id = links.id)`,
      })
      .from(links)
      .$dynamic();
    const ordered = this.inOrder(query, where, order);
    const rows = limit === undefined ? ordered.all() : ordered.limit(limit).offset(offset).all();
    const copies = copiesOf(this.owner, rows.map((row) => row.link.id));
    return rows.map((row) => toLinkJson(row.link, parseIdList(row.collectionIds), copies.get(row.link.id) ?? NO_COPY));
  }

  /**
   * inOrder narrows a read of links to the owner's matching `where`, in `order`; in a
   * collection's own order, through its memberships, read in their order from their index:
   * from the collection's links, not all of the owner's.
   */
  private inOrder<Query extends SQLiteSelect>(query: Query, where: (SQL | undefined)[], order: ViewOrder): Query {
    if (Array.isArray(order)) return query.where(and(eq(links.userId, this.owner.user.id), ...where)).orderBy(...order);
    // `+` keeps SQLite from reading every one of the owner's links by the user's index instead.
    // Every caller names its columns, so the join leaves the rows' shape as it was.
    return query.innerJoin(linkCollections, and(eq(linkCollections.linkId, links.id), eq(linkCollections.collectionId, order.collectionId)))
      .where(and(sql`+${links.userId} = ${this.owner.user.id}`, ...where)).orderBy(asc(linkCollections.position), asc(links.id)) as unknown as Query;
  }

  /** row is the owner's link with that id; another user's id is NotFound like an unknown one. */
  private row(id: number): LinkRow {
    const link = this.owner.db.select().from(links).where(and(eq(links.id, id), eq(links.userId, this.owner.user.id))).get();
    if (!link) throw new NotFound();
    return link;
  }

  /** get is one of the owner's links; another user's id is NotFound like an unknown one. */
  get(id: number): LinkJson {
    const [link] = this.select([eq(links.id, id)], []);
    if (!link) throw new NotFound();
    return link;
  }

  /**
   * favorites are the owner's favorite links in the order the extension pins them: most clicked
   * first, then most recently clicked (never clicked last), then oldest id. One query.
   */
  favorites(): LinkJson[] {
    return this.select([eq(links.favorite, true)],
      [desc(links.clicks), sql`${links.lastClickedAt} IS NULL`, desc(links.lastClickedAt), asc(links.id)]);
  }

  /** byIds is those of `ids` that are the owner's links, in no particular order: one query. */
  byIds(ids: readonly number[]): LinkJson[] {
    return ids.length === 0 ? [] : this.select([inArray(links.id, [...ids])], []);
  }

  /** savedAs is the owner's first saved link with exactly this URL, if there is one (the add-link form says so before adding it again). */
  savedAs(url: string): LinkJson | undefined {
    return this.select([eq(links.url, url)], [asc(links.createdAt), asc(links.id)], 1)[0];
  }

  /** inCollection is every link in one of the owner's collections (checked by the caller), newest first. */
  inCollection(collectionId: number): LinkJson[] {
    return this.select([inCollection(collectionId)], NEWEST_FIRST);
  }

  /**
   * search pages through the owner's links, newest first, keyed by position (a link created or
   * deleted meanwhile never shifts a page). One query per page, plus the collection check when
   * filtering by collection (another user's or unknown: NotFound).
   */
  search(query: LinkQuery): LinkPage {
    const rules = new Rules();
    const q = query.q === undefined ? "" : rules.text("/q", query.q, 0, LINK_PAGE.maxQuery);
    const limit = rules.pageLimit(query.limit, LINK_PAGE);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (query.cursor !== undefined && !after) rules.fail("/cursor", "Expected the nextCursor of a previous page");
    rules.check();
    if (query.collectionId !== undefined) ownedCollection(this.owner, query.collectionId);

    const pattern = likePattern(q);
    const found = this.select([
      q === "" ? undefined : or(
        sql`${links.name} LIKE ${pattern} ESCAPE '\\'`,
        sql`${links.url} LIKE ${pattern} ESCAPE '\\'`,
        sql`${links.description} LIKE ${pattern} ESCAPE '\\'`,
      ),
      query.collectionId === undefined ? undefined : inCollection(query.collectionId),
      query.favorite === undefined ? undefined : eq(links.favorite, query.favorite),
      query.toRead === undefined ? undefined : eq(links.toRead, query.toRead),
      query.archived === undefined ? undefined : eq(links.archived, query.archived),
      after && or(lt(links.createdAt, after.createdAt), and(eq(links.createdAt, after.createdAt), lt(links.id, after.id))),
    ], NEWEST_FIRST, limit + 1);
    const page = found.slice(0, limit);
    return { links: page, nextCursor: found.length > limit ? encodeCursor(page.at(-1)!) : null };
  }

  /**
   * viewFilters checks a view of every link (its limit and offset, and that its collection is
   * the owner's: NotFound) and gives its conditions.
   */
  private viewFilters(query: LinkListQuery): (SQL | undefined)[] {
    const rules = new Rules();
    rules.pageLimit(query.limit, LINK_PAGE);
    const offset = query.offset ?? 0;
    if (!Number.isSafeInteger(offset) || offset < 0) rules.fail("/offset", "Expected a whole number from 0");
    if (query.sort === "order" && query.collectionId === undefined) rules.fail("/sort", "Expected a collection: only a collection has an order of its own");
    rules.check();
    if (query.collectionId !== undefined) ownedCollection(this.owner, query.collectionId);
    return [
      // A collection's own order reads its memberships (inOrder): no other condition needed.
      query.collectionId === undefined || query.sort === "order" ? undefined : inCollection(query.collectionId),
      query.favorite ? eq(links.favorite, true) : undefined,
      query.broken ? isBroken : undefined,
      query.toRead ? eq(links.toRead, true) : undefined,
      query.archived ? eq(links.archived, true) : undefined,
    ];
  }

  /**
   * list is one page of a view of every one of the owner's links, in one of the sorts of
   * LINK_SORTS, filtered by collection, favorites and broken links, with how many links the
   * whole view holds. Two queries, plus the collection check when filtering by collection.
   */
  list(query: LinkListQuery): LinkListPage {
    const where = this.viewFilters(query);
    const limit = query.limit ?? LINK_PAGE.defaultLimit;
    const total = this.inOrder(this.owner.db.select({ n: sql<number>`count(*)` }).from(links).$dynamic(), where, sortOf(query)).get()!.n;
    return { links: this.select(where, sortOf(query), limit, query.offset ?? 0), total };
  }

  /**
   * matchingIds is the ids of the links a view of every link matches (its limit and offset
   * ignored), in its order, at most `max + 1` of them: more than `max` says the view is larger. One query.
   */
  matchingIds(query: LinkListQuery, max: number): number[] {
    const where = this.viewFilters({ ...query, limit: undefined, offset: undefined });
    return this.inOrder(this.owner.db.select({ id: links.id }).from(links).$dynamic(), where, sortOf(query))
      .limit(max + 1)
      .all()
      .map((row) => row.id);
  }

  /**
   * find searches the owner's links by words (full-text: names, descriptions, URLs and saved
   * page text), best first, a page at a time with snippets, within `budget` of server time
   * (QueryTooBroad past it); src/shelf/search.ts has the ranking.
   */
  find(query: LinkQuery, now: number, budget?: SearchBudget): SearchResults {
    // Whatever is still marked (the server's indexer takes marks 50 ms after they are made) is indexed first.
    indexPendingLinks(this.owner.db);
    return searchLinks(this.owner, query, now, budget);
  }

  /** content is the saved page content of one of the owner's links (NotFound: another user's, unknown, or none saved). */
  content(id: number): ContentJson {
    return readContent(this.owner, id);
  }

  /** contentSummary is what is saved of one of the owner's links' page, without its text; null when nothing is (NotFound: another user's or unknown). */
  contentSummary(id: number): ContentSummary | null {
    return readContentSummary(this.owner, id);
  }

  /**
   * setContent stores the page content of one of the owner's links and re-indexes it; a
   * `server` content never replaces a `browser` one (then `stored` is false).
   */
  setContent(id: number, input: ContentBody, source: ContentSource, now: number): ContentSaved {
    return saveContent(this.owner, id, input, source, now);
  }

  /** urls are the URLs of all of the owner's links (an import skips the ones it has). */
  urls(): string[] {
    return this.owner.db.select({ url: links.url }).from(links).where(eq(links.userId, this.owner.user.id)).all().map((row) => row.url);
  }

  /**
   * create stores a new link (clicks 0) in its collections, or the Inbox, in a transaction of its
   * own, then tells `afterWrite`; `page` is the link's page when the caller read it already.
   */
  create(input: CreateLinkBody, now: number, page?: CapturedContent | null): LinkJson {
    const link = this.owner.db.transaction(() => writeLink(this.owner, input, now), { behavior: "immediate" });
    linkSaved(this.owner, link, page);
    return link;
  }

  /**
   * add is `create` inside the caller's transaction (the API's writes run in the group commit's):
   * no savepoint of its own, which cost a POST a fifth of its time. `afterWrite` hears of the link
   * at once, so the caller's must wait for the commit (the API's does). A caller writing many links
   * in its transaction (a batch) keeps its memberships and the collections it found from one to the next (`writing`).
   */
  add(input: CreateLinkBody, now: number, writing?: LinkWriting): LinkJson {
    const link = writeLink(this.owner, input, now, writing);
    linkSaved(this.owner, link);
    return link;
  }

  /**
   * addTo puts one of the owner's links at the end of one of the owner's collections' order
   * (either unknown, or another user's: NotFound), inside the caller's transaction; the link's
   * updatedAt stays. An import adds a link it met before to the next folder it is in.
   */
  addTo(id: number, collectionId: number): void {
    this.row(id);
    ownedCollection(this.owner, collectionId);
    if (fullLinks(this.owner, [id], collectionId) > 0) {
      const rules = new Rules();
      rules.fail("/collectionIds", MEMBERSHIP_MESSAGES.perLink);
      rules.check();
    }
    addMemberships(this.owner, id, [collectionId]);
  }

  /**
   * update replaces a link's fields and collections (an omitted description keeps its value); a
   * new URL is told to `afterWrite` once committed. A collection the link stays in keeps its place
   * in that collection's order; a new one gets it at the end.
   */
  update(id: number, input: UpdateLinkBody, now: number): void {
    const { db } = this.owner;
    const newUrl = db.transaction(() => {
      const before = this.row(id);
      const { collectionIds, ...fields } = checkLink(this.owner, input, before);
      db.update(links).set({ ...fields, updatedAt: now }).where(eq(links.id, id)).run();
      const kept = new Set(db.select({ id: linkCollections.collectionId }).from(linkCollections).where(eq(linkCollections.linkId, id)).all().map((row) => row.id));
      db.delete(linkCollections).where(and(eq(linkCollections.linkId, id), sql`${linkCollections.collectionId} NOT IN (SELECT value FROM json_each(${JSON.stringify(collectionIds)}))`)).run();
      addMemberships(this.owner, id, collectionIds.filter((collectionId) => !kept.has(collectionId)));
      indexLink(db, id);
      const moved = fields.url !== before.url;
      // What was found at the old address says nothing of the new one.
      if (moved) db.delete(linkHealth).where(eq(linkHealth.linkId, id)).run();
      return moved ? fields.url : undefined;
    }, { behavior: "immediate" });
    if (newUrl !== undefined) linkSaved(this.owner, { id, url: newUrl });
  }

  /**
   * setFlags puts one of the owner's links on or off the reading list and in or out of the
   * archive (a flag omitted keeps its value), as an update would (updatedAt moves; the change
   * feed carries it). Returns the link as it now is.
   */
  setFlags(id: number, flags: { toRead?: boolean; archived?: boolean }, now: number): LinkJson {
    const { db } = this.owner;
    db.transaction(() => {
      const link = this.row(id);
      db.update(links).set({ toRead: flags.toRead ?? link.toRead, archived: flags.archived ?? link.archived, updatedAt: now }).where(eq(links.id, id)).run();
    }, { behavior: "immediate" });
    return this.get(id);
  }

  /** flaggedIds is the ids of the owner's links marked to read, and of those archived (an import adds only the flags a link lacks). */
  flaggedIds(): { toRead: Set<number>; archived: Set<number> } {
    const rows = this.owner.db.$client
      .query<{ id: number; to_read: number; archived: number }, [number]>("SELECT id, to_read, archived FROM links WHERE user_id = ? AND (to_read OR archived)")
      .all(this.owner.user.id);
    const flagged = { toRead: new Set<number>(), archived: new Set<number>() };
    for (const row of rows) {
      if (row.to_read) flagged.toRead.add(row.id);
      if (row.archived) flagged.archived.add(row.id);
    }
    return flagged;
  }

  /** toReadCount is how many of the owner's links are on the reading list (read from a partial index). */
  toReadCount(): number {
    return this.owner.db.select({ n: sql<number>`count(*)` }).from(links).where(and(eq(links.userId, this.owner.user.id), eq(links.toRead, true))).get()!.n;
  }

  /**
   * nextToRead is the reading list's next link after `id` (newest first, as the To read view
   * lists it): the one after it, else the newest; null when the list holds no other link.
   */
  nextToRead(id: number): LinkJson | null {
    const current = this.owner.db.select({ createdAt: links.createdAt }).from(links).where(and(eq(links.id, id), eq(links.userId, this.owner.user.id))).get();
    const older = current && this.select([eq(links.toRead, true), sql`${links.id} <> ${id}`,
      or(lt(links.createdAt, current.createdAt), and(eq(links.createdAt, current.createdAt), lt(links.id, id)))], NEWEST_FIRST, 1)[0];
    return older ?? this.select([eq(links.toRead, true), sql`${links.id} <> ${id}`], NEWEST_FIRST, 1)[0] ?? null;
  }

  /** toggleFavorite flips a link's favorite flag, as an update would (updatedAt moves). */
  toggleFavorite(id: number, now: number): void {
    const { db } = this.owner;
    db.transaction(() => {
      const link = this.row(id);
      db.update(links).set({ favorite: !link.favorite, updatedAt: now }).where(eq(links.id, id)).run();
    }, { behavior: "immediate" });
  }

  /** delete deletes one of the owner's links: into the trash (src/shelf/trash.ts), with its memberships, text and health. */
  delete(id: number, now: number): void {
    this.owner.db.transaction(() => {
      this.row(id);
      discardLinks(this.owner, [id], now);
    }, { behavior: "immediate" });
  }

  /** deleteMany deletes those of `ids` that are the owner's links for good (never into the trash: a failed import's own), in one transaction. */
  deleteMany(ids: readonly number[]): void {
    this.owner.db.transaction(() => void deleteLinks(this.owner, inArray(links.id, listed(ids))), { behavior: "immediate" });
  }

  /**
   * bulk applies one action to many of the owner's links in one transaction, all or nothing,
   * in a bounded number of statements however many ids: the rules (ValidationFailed), then
   * every id must be one of the owner's links and the collection one of theirs (NotFound), an added link
   * must stay in at most MEMBERSHIP_LIMITS.perLink collections (ValidationFailed),
   * and links cannot be removed from the Inbox (Conflict). Every action but delete moves the
   * links' updatedAt, as the single update doing the same would. Returns how many links it acted on.
   */
  bulk(input: BulkLinksBody, now: number): number {
    checkBulk(input);
    const { db, user } = this.owner;
    const ids = listed(input.ids);
    return db.transaction(() => {
      const owned = db.select({ n: sql<number>`count(*)` }).from(links).where(and(eq(links.userId, user.id), inArray(links.id, ids))).get()!.n;
      if (owned !== input.ids.length) throw new NotFound();
      const collection = input.collectionId === undefined ? undefined : ownedCollection(this.owner, input.collectionId);
      const touch = (favorite?: boolean) =>
        db.update(links).set({ updatedAt: now, ...(favorite === undefined ? {} : { favorite }) }).where(and(eq(links.userId, user.id), inArray(links.id, ids))).run();
      // At the end of the collection's order, in the order the ids are given.
      const addTo = (collectionId: number, onlyHomeless = false) => appendLinks(this.owner, collectionId, input.ids, onlyHomeless);
      switch (input.action) {
        case "favorite":
        case "unfavorite":
          touch(input.action === "favorite");
          break;
        case "delete":
          discardLinks(this.owner, input.ids, now);
          break;
        case "move":
          db.delete(linkCollections).where(and(inArray(linkCollections.linkId, ids), sql`${linkCollections.collectionId} <> ${collection!.id}`)).run();
          addTo(collection!.id);
          touch();
          break;
        case "add": {
          const full = fullLinks(this.owner, input.ids, collection!.id);
          if (full > 0) {
            const rules = new Rules();
            rules.fail("/ids", MEMBERSHIP_MESSAGES.bulkFull(full));
            rules.check();
          }
          addTo(collection!.id);
          touch();
          break;
        }
        case "remove":
          if (collection!.isDefault) throw new Conflict("DEFAULT_COLLECTION", "Links cannot be removed from the Inbox collection: move them to another collection instead.");
          db.delete(linkCollections).where(and(eq(linkCollections.collectionId, collection!.id), inArray(linkCollections.linkId, ids))).run();
          addTo(inboxId(this.owner), true);
          touch();
          break;
      }
      return input.ids.length;
    }, { behavior: "immediate" });
  }
}
