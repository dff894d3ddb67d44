import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { links } from "../db/schema";
import { toLinkJson, type LinkJson } from "./model";

/** parseIdList reads the comma-separated ids of a group_concat, sorted ascending. */
export function parseIdList(list: string | null): number[] {
  return list ? list.split(",").map(Number).sort((a, b) => a - b) : [];
}

/**
 * listFavorites returns the user's favorite links in the order the extension pins them:
 * most clicked first, then most recently clicked (never clicked last), then oldest id. One query.
 */
export function listFavorites(db: Db, userId: number): LinkJson[] {
  const rows = db
    .select({
      link: links,
      collectionIds: sql<string | null>`(SELECT group_concat(collection_id) FROM link_collections WHERE link_id = ${links.id})`,
    })
    .from(links)
    .where(and(eq(links.userId, userId), eq(links.favorite, true)))
    .orderBy(desc(links.clicks), sql`${links.lastClickedAt} IS NULL`, desc(links.lastClickedAt), asc(links.id))
    .all();
  return rows.map((row) => toLinkJson(row.link, parseIdList(row.collectionIds)));
}
