import type { BulkAction, LinkJson } from "../contract/links";
import type { LinkRow } from "../db/schema";
import { iso } from "../timestamps";

/** The longest name and description of a link, in code points after trimming. */
export const LINK_LIMITS = { name: 254, description: 300 } as const;

/** Pages of links: 50 by default, at most 100; a search's words at most 200 characters. */
export const LINK_PAGE = { defaultLimit: 50, maxLimit: 100, maxQuery: 200 } as const;

/** A search of a shelf's links: by substring (`GET /api/v1/links`, the home page, a public collection's page) or by words (`GET /api/v1/search`). */
export interface LinkQuery {
  /** A substring of names, URLs and descriptions (ASCII letters ignore case), or the words of a full-text search. */
  q?: string;
  /** Only links in this collection of the owner's (another user's or unknown: NotFound). */
  collectionId?: number;
  favorite?: boolean;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /** 1 to LINK_PAGE.maxLimit, default LINK_PAGE.defaultLimit. */
  limit?: number;
}

/** The orders of the all-links view: newest first, oldest first, most clicked, recently clicked, name A–Z. */
export const LINK_SORTS = ["newest", "oldest", "clicks", "recent", "name"] as const;
export type LinkSort = (typeof LINK_SORTS)[number];

/** A view of every link of a shelf: an order, filters, and a page by offset. */
export interface LinkListQuery {
  sort: LinkSort;
  /** Only links in this collection of the owner's (another user's or unknown: NotFound). */
  collectionId?: number;
  /** Only favorites. */
  favorite?: boolean;
  /** Only links the link checker found broken (and not ignored). */
  broken?: boolean;
  /** How many links of the view come before this page. */
  offset?: number;
  /** 1 to LINK_PAGE.maxLimit, default LINK_PAGE.defaultLimit. */
  limit?: number;
}

/** One page of a view of every link. */
export interface LinkListPage {
  links: LinkJson[];
  /** How many links the whole view holds. */
  total: number;
}

/** One page of a search. */
export interface LinkPage {
  links: LinkJson[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** The bulk actions that name a collection. */
export const COLLECTION_ACTIONS: readonly BulkAction[] = ["move", "add", "remove"];

/** toLinkJson shapes a stored link for clients; `collectionIds` must already be sorted. */
export function toLinkJson(row: Omit<LinkRow, "importId">, collectionIds: number[]): LinkJson {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    url: row.url,
    favorite: row.favorite,
    clicks: row.clicks,
    lastClickedAt: row.lastClickedAt === null ? null : iso(row.lastClickedAt),
    collectionIds,
    authorId: row.userId,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}
