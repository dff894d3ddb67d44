/** The shelf's stored rows shaped as the API answers them (src/contract/ holds their schemas). */
import type { CollectionJson } from "../contract/collections";
import type { ContentJson } from "../contract/content";
import type { HealthCheckJson, HealthJson } from "../contract/link-health";
import type { ImportJson } from "../contract/imports";
import type { LinkJson } from "../contract/links";
import type { SearchPageJson } from "../contract/search";
import type { CollectionRow, ImportRow, LinkContentRow, LinkHealthRow, LinkRow, UserRow } from "../db/schema";
import { unpackText } from "../fulltext/text-store";
import { iso } from "../common/timestamps";
import type { SearchResults } from "./types";

/** A link's copy as its row's small columns give it (both null: no copy). */
export interface CopyColumns {
  copySavedAt: number | null;
  copyBytes: number | null;
}

/** toLinkJson shapes a stored link for clients; `collectionIds` must already be sorted. */
export function toLinkJson(row: Omit<LinkRow, "importId">, collectionIds: number[], copy: CopyColumns): LinkJson {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    url: row.url,
    favorite: row.favorite,
    toRead: row.toRead,
    archived: row.archived,
    clicks: row.clicks,
    lastClickedAt: row.lastClickedAt === null ? null : iso(row.lastClickedAt),
    collectionIds,
    copy: copy.copySavedAt === null || copy.copyBytes === null ? null : { savedAt: iso(copy.copySavedAt), bytes: copy.copyBytes },
    authorId: row.userId,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** toCollectionJson shapes a collection the requesting user owns. */
export function toCollectionJson(row: CollectionRow, author: UserRow, links: LinkJson[], order: CollectionJson["order"]): CollectionJson {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    visibility: row.visibility,
    authorId: row.userId,
    author: { id: author.id, name: author.name, email: author.email },
    links,
    icon: row.icon,
    isDefault: row.isDefault,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    isOwner: row.userId === author.id,
    copiesPublic: row.copiesPublic,
    parentId: row.parentId,
    order,
  };
}

/** toImportJson shapes an import's record for clients. */
export function toImportJson(row: ImportRow): ImportJson {
  return {
    id: row.id, createdAt: iso(row.createdAt), source: row.source, fileName: row.fileName,
    links: row.links, collections: row.collections, duplicates: row.duplicates, skipped: row.skipped,
    undoneAt: row.undoneAt === null ? null : iso(row.undoneAt),
  };
}

/** toSearchPageJson is the API's answer for a page of the shelf's hits: each hit's link, score and snippet only. */
export function toSearchPageJson(results: SearchResults): SearchPageJson {
  return { hits: results.hits.map(({ link, score, snippet }) => ({ link, score, snippet })), nextCursor: results.nextCursor };
}

/** toContentJson shapes a stored content for clients. */
export function toContentJson(row: LinkContentRow): ContentJson {
  return {
    linkId: row.linkId, title: row.title, text: unpackText(row.textZstd), excerpt: row.excerpt, byline: row.byline, lang: row.lang,
    source: row.source, capturedAt: iso(row.capturedAt),
  };
}

/** toHealthJson is a health row as the API answers it; an ignored link is never broken. */
export function toHealthJson(row: LinkHealthRow): HealthJson {
  return {
    state: row.state,
    broken: row.broken && !row.ignored,
    ignored: row.ignored,
    since: row.failingSince === null ? null : iso(row.failingSince),
    lastCheckedAt: row.checkedAt === null ? null : iso(row.checkedAt),
    movedTo: row.movedTo,
    checks: JSON.parse(row.checks) as HealthCheckJson[],
  };
}
