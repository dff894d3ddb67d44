/** What the shelf takes and answers besides the wire types: queries, orders, pages, summaries and views, an import's record, the group commit it writes through. */
import type { ContentBody, ContentJson } from "../contract/content";
import type { ImportUndoneJson } from "../contract/imports";
import type { CollectionBody } from "../contract/collections";
import type { BulkAction, CreateLinkBody, LinkJson } from "../contract/links";
import type { SearchPageJson } from "../contract/search";
import type { CollectionRow, ImportRow } from "../db/schema";

/** A search of a shelf's links: by substring (`GET /api/v1/links`, the home page, a public collection's page) or by words (`GET /api/v1/search`). */
export interface LinkQuery {
  /** A substring of names, URLs and descriptions (ASCII letters ignore case), or the words of a full-text search. */
  q?: string;
  /** Only links in this collection of the owner's (another user's or unknown: NotFound). */
  collectionId?: number;
  favorite?: boolean;
  /** Only links on (true) or off (false) the reading list. */
  toRead?: boolean;
  /** Only archived (true) or unarchived (false) links. */
  archived?: boolean;
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
  /** Only links on the reading list. */
  toRead?: boolean;
  /** Only archived links. */
  archived?: boolean;
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

/** A PUBLIC collection as its page and its feed show it to anyone. */
export type PublicCollectionView = Pick<CollectionRow, "id" | "name" | "icon" | "description" | "updatedAt">;

/**
 * Writes gathered into one transaction per turn of the event loop, each in a savepoint of its
 * own, every one settled once that transaction is committed: the app's group commit
 * (src/db/group-commit.ts). What the shelf's batched writes run through (a link created through
 * the API, a page the extension saved, the clicks of `GET /l/:id`).
 */
export interface WriteBatches {
  /** run queues `write` for this turn's transaction and resolves with its result once committed. */
  run<T>(write: () => T): Promise<T>;
  /** How many batches have begun to commit: work gathered per batch starts anew when it moves. */
  readonly batches: number;
}

/** The readable content of a page, as the server's capture reads it (the shape the browser extension sends as well). */
export interface CapturedContent {
  title: string;
  text: string;
  excerpt: string;
  byline: string;
  lang: string;
}

/**
 * What follows the shelf's writes of links, outside their transactions: the composition root
 * gives it to the shelves of the API and the pages (the server's page capture, which queues each
 * new page to be fetched). The shelf calls it once per link after the write is committed, never
 * for a write rolled back; it must neither block nor throw.
 */
export interface AfterWrite {
  /**
   * linkSaved hears of a link whose page is new to it: created (by hand, through the API, by an
   * import) or given another URL. `page` is that page when the writer read it already (the
   * add-link form, for the link's name).
   */
  linkSaved(linkId: number, userId: number, url: string, page?: CapturedContent | null): void;
}


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

/** Where an import puts something: one of the owner's collections (its id), or a collection the same import makes (its step). */
export type ImportTarget = number | ImportedCollection;

/** A collection an import makes, inside `parent` (null: the top level): its fields and its dates (the file's). */
export interface ImportedCollection {
  kind: "collection";
  input: Omit<CollectionBody, "parentId">;
  parent: ImportTarget | null;
  createdAt: number;
  updatedAt: number;
}

/** A link an import makes in one collection: its fields and its dates (the file's). */
export interface ImportedLink extends Omit<CreateLinkBody, "collectionIds"> {
  kind: "link";
  into: ImportTarget;
  createdAt: number;
  updatedAt: number;
  /** Its saved page text, stored with it (as a browser capture: the page fetcher leaves the link alone). */
  content?: ContentBody;
  /** Its page copy (a linkshelf JSON export's), stored with it within the owner's quota. */
  copy?: { html: string; savedAt: number };
  /** Its clicks and the time of the last one (a linkshelf JSON export's). */
  clicks?: { count: number; lastAt: number | null };
}

/** A link the same import made met again in another collection, or one of the owner's links (its id) put in one. */
export interface ImportedMembership {
  kind: "member";
  link: ImportedLink | number;
  into: ImportTarget;
}

/**
 * The reading flags an import's file gives links the owner had (by id): set on them, never
 * cleared (a flag the link has stays; see `addFlags`).
 */
export interface ImportedFlags {
  kind: "flags";
  links: number[];
  toRead: boolean;
  archived: boolean;
}

/** One write of an import, in the order of its file: so each collection's items keep the file's order. */
export type ImportStep = ImportedCollection | ImportedLink | ImportedMembership | ImportedFlags;

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
