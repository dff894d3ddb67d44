/** What the shelf's reads take and answer besides the wire types: queries, orders, pages, summaries, an import's record. */
import type { ContentJson } from "../contract/content";
import type { ImportUndoneJson } from "../contract/imports";
import type { BulkAction, LinkJson } from "../contract/links";
import type { SearchPageJson } from "../contract/search";
import type { CollectionRow, ImportRow } from "../db/schema";

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

/**
 * The orders of a view of links: a collection's own order (a view of one collection only),
 * newest first, oldest first, most clicked, recently clicked, name A–Z.
 */
export const LINK_SORTS = ["order", "newest", "oldest", "clicks", "recent", "name"] as const;
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

/** The icon of a collection that names none (the Inbox's is its own). */
export const DEFAULT_ICON = "📁";

/** A collection as the pages list it: no links, their count instead, and its depth in the tree (1 at the top level). */
export type CollectionSummary = CollectionRow & { linkCount: number; depth: number };

/** Where an import came from: the import page or `linkshelf import`. */
export type ImportSource = ImportRow["source"];

/** What an import's record holds besides who and when: its source, its file and its report's counts. */
export interface ImportRecordInput {
  source: ImportSource;
  fileName: string;
  links: number;
  collections: number;
  duplicates: number;
  skipped: number;
}

/** What undoing an import removed. */
export type ImportUndone = Omit<ImportUndoneJson, "message">;

/** What a page shows of a saved content: everything but the text itself. */
export type ContentSummary = Omit<ContentJson, "text">;

/** Which of a link's texts a snippet was cut from: its saved page text, description, name or URL. */
export type SnippetSource = "content" | "description" | "name" | "url";

/**
 * What the shelf's search answers: the API's page of hits, each also saying which text its
 * snippet came from (for the web pages; the API's JSON leaves it out, see toSearchPageJson).
 */
export interface SearchResults {
  hits: (SearchPageJson["hits"][number] & { snippetFrom: SnippetSource })[];
  nextCursor: string | null;
}
