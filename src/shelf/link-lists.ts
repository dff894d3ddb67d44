/**
 * The read side of a shelf's links: one owner's links as lists, pages and views, their sorts and
 * cursors, and the single links the write side reads back. `ShelfLinks` (src/shelf/links.ts, the
 * write side) extends `LinkLists`, so `shelf.links` is one object with both.
 */
import { and, asc, desc, eq, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteSelect } from "drizzle-orm/sqlite-core";
import { linkCollections, linkCopies, links, type LinkRow } from "../db/schema";
import { NotFound } from "../common/errors";
import { toLinkJson, type CopyColumns } from "./json";
import { LINK_PAGE } from "./limits";
import type { LinkListPage, LinkListQuery, LinkPage, LinkQuery, LinkSort, ContentSummary, SearchResults } from "./types";
import type { LinkJson } from "../contract/links";
import { Rules } from "../common/rules";
import { indexPendingLinks } from "../fulltext/index-text";
import type { ContentJson } from "../contract/content";
import { readContent, readContentSummary } from "./contents";
import { ownedCollection, type Owner } from "./scope";
import { searchLinks, type SearchBudget } from "./search";

/** A new link has no copy. */
export const NO_COPY: CopyColumns = { copySavedAt: null, copyBytes: null };

/**
 * copiesOf is what `copy` in the JSON of each of those links says, read from the copies' summary
 * index (never a body): one query for a page of links, after it is chosen.
 */
function copiesOf(owner: Owner, ids: readonly number[]): Map<number, CopyColumns> {
  if (ids.length === 0) return new Map();
  return new Map(owner.db.select({ id: linkCopies.linkId, copySavedAt: linkCopies.savedAt, copyBytes: linkCopies.bytes }).from(linkCopies)
    .where(sql`${linkCopies.linkId} IN ${listed(ids)}`).all()
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
export const listed = (ids: readonly number[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

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

/** The reads of one owner's links: what `shelf.links` answers without writing (ShelfLinks extends it with the writes). */
export class LinkLists {
  constructor(protected readonly owner: Owner) {}

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
  protected row(id: number): LinkRow {
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

  /** urls are the URLs of all of the owner's links (an import skips the ones it has). */
  urls(): string[] {
    return this.owner.db.select({ url: links.url }).from(links).where(eq(links.userId, this.owner.user.id)).all().map((row) => row.url);
  }

  /** flaggedIds is the ids of the owner's links marked to read, and of those archived (an import adds only the flags a link lacks). */
  flaggedIds(): { toRead: Set<number>; archived: Set<number> } {
    const rows = this.owner.db.select({ id: links.id, toRead: links.toRead, archived: links.archived }).from(links)
      .where(and(eq(links.userId, this.owner.user.id), sql`(${links.toRead} OR ${links.archived})`)).all();
    const flagged = { toRead: new Set<number>(), archived: new Set<number>() };
    for (const row of rows) {
      if (row.toRead) flagged.toRead.add(row.id);
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
}
