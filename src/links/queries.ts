import { and, asc, desc, eq, lt, or, sql, type SQL } from "drizzle-orm";
import { requireOwnedCollection } from "../collections/service";
import type { Db } from "../db/client";
import { links } from "../db/schema";
import { NotFound } from "../errors";
import { Rules } from "../rules";
import { toLinkJson, type LinkJson } from "./model";

/** parseIdList reads the comma-separated ids of a group_concat, sorted ascending. */
export function parseIdList(list: string | null): number[] {
  return list ? list.split(",").map(Number).sort((a, b) => a - b) : [];
}

/** selectLinks reads the user's links matching `where`, each with its collection ids, in `order`. */
function selectLinks(db: Db, userId: number, where: (SQL | undefined)[], order: SQL[], limit?: number): LinkJson[] {
  const query = db
    .select({
      link: links,
      collectionIds: sql<string | null>`(SELECT group_concat(collection_id) FROM link_collections WHERE link_id = ${links.id})`,
    })
    .from(links)
    .where(and(eq(links.userId, userId), ...where))
    .orderBy(...order);
  const rows = limit === undefined ? query.all() : query.limit(limit).all();
  return rows.map((row) => toLinkJson(row.link, parseIdList(row.collectionIds)));
}

const NEWEST_FIRST = [desc(links.createdAt), desc(links.id)];

/**
 * listFavorites returns the user's favorite links in the order the extension pins them:
 * most clicked first, then most recently clicked (never clicked last), then oldest id. One query.
 */
export function listFavorites(db: Db, userId: number): LinkJson[] {
  return selectLinks(db, userId, [eq(links.favorite, true)],
    [desc(links.clicks), sql`${links.lastClickedAt} IS NULL`, desc(links.lastClickedAt), asc(links.id)]);
}

/** getLink returns one of the user's links; another user's id is NotFound like an unknown one. */
export function getLink(db: Db, userId: number, id: number): LinkJson {
  const [link] = selectLinks(db, userId, [eq(links.id, id)], []);
  if (!link) throw new NotFound();
  return link;
}

/** collectionLinks returns the links in one collection (not checked for ownership here), newest first. */
export function collectionLinks(db: Db, userId: number, collectionId: number): LinkJson[] {
  return selectLinks(db, userId, [inCollection(collectionId)], NEWEST_FIRST);
}

const inCollection = (collectionId: number) =>
  sql`${links.id} IN (SELECT link_id FROM link_collections WHERE collection_id = ${collectionId})`;

export const LINK_PAGE = { defaultLimit: 50, maxLimit: 100, maxQuery: 200 } as const;

export interface LinkQuery {
  /** Words to find in names, URLs and descriptions (as one substring; ASCII letters ignore case). */
  q?: string;
  /** Only links in this collection of the user's (another user's or unknown: NotFound). */
  collectionId?: number;
  favorite?: boolean;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /** 1 to LINK_PAGE.maxLimit, default LINK_PAGE.defaultLimit. */
  limit?: number;
}

export interface LinkPage {
  links: LinkJson[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
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

/**
 * searchLinks pages through the user's links, newest first, keyed by position (a link
 * created or deleted meanwhile never shifts a page). One query per page, plus the
 * collection check when filtering by collection.
 */
export function searchLinks(db: Db, userId: number, query: LinkQuery): LinkPage {
  const rules = new Rules();
  const q = query.q === undefined ? "" : rules.text("/q", query.q, 0, LINK_PAGE.maxQuery);
  const limit = query.limit ?? LINK_PAGE.defaultLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > LINK_PAGE.maxLimit) {
    rules.fail("/limit", `Expected a whole number from 1 to ${LINK_PAGE.maxLimit}`);
  }
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  if (query.cursor !== undefined && !after) rules.fail("/cursor", "Expected the nextCursor of a previous page");
  rules.check();
  if (query.collectionId !== undefined) requireOwnedCollection(db, userId, query.collectionId);

  const pattern = likePattern(q);
  const found = selectLinks(db, userId, [
    q === "" ? undefined : or(
      sql`${links.name} LIKE ${pattern} ESCAPE '\\'`,
      sql`${links.url} LIKE ${pattern} ESCAPE '\\'`,
      sql`${links.description} LIKE ${pattern} ESCAPE '\\'`,
    ),
    query.collectionId === undefined ? undefined : inCollection(query.collectionId),
    query.favorite === undefined ? undefined : eq(links.favorite, query.favorite),
    after && or(lt(links.createdAt, after.createdAt), and(eq(links.createdAt, after.createdAt), lt(links.id, after.id))),
  ], NEWEST_FIRST, limit + 1);
  const page = found.slice(0, limit);
  return { links: page, nextCursor: found.length > limit ? encodeCursor(page.at(-1)!) : null };
}
