/** The shelf's limits: how long a record's texts may be, how large a page of links or hits, how many collections a link is in. */
import { BATCH_MAX_MEMBERSHIPS } from "../contract/batch";
import { LINK_MAX_COLLECTIONS } from "../contract/links";

/** The longest name and description of a link, in code points after trimming. */
export const LINK_LIMITS = { name: 254, description: 300 } as const;

/** Pages of links: 50 by default, at most 100; a search's words at most 200 characters. */
export const LINK_PAGE = { defaultLimit: 50, maxLimit: 100, maxQuery: 200 } as const;

/** The longest name and description of a collection, in code points after trimming. */
export const COLLECTION_LIMITS = { name: 254, description: 254 } as const;

/** How deep collections nest: a top-level collection is at depth 1 (a bookmark file's folders may nest as deep). */
export const TREE_DEPTH = 64;

/**
 * A confirmed import is written in transactions of at most `items` links, memberships or
 * collections, each taking no more once it has run `millis`, with the event loop running between
 * them: a transaction holds the database for a few tens of milliseconds (fewer, larger ones: each
 * commit writes the pages of the membership indexes it touched again, a third of the write at
 * 1,000 a transaction). Its planning lets the event loop run every `planMillis` (it holds no
 * transaction: nothing is gained by longer slices); a failed import's links are removed `removed`
 * per transaction.
 */
export const IMPORT_CHUNK = { items: 5000, millis: 40, planMillis: 20, removed: 1000 } as const;

/** Pages of search hits: 20 by default, at most 100. */
export const SEARCH_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

/** Pages of the change feed: 100 changes by default, at most 1,000. */
export const CHANGES_PAGE = { defaultLimit: 100, maxLimit: 1000 } as const;

/** Pages of the trash: 50 items by default, at most 200. */
export const TRASH_PAGE = { defaultLimit: 50, maxLimit: 200 } as const;

/**
 * Memberships: a link is in at most `perLink` collections (whatever adds it: a form, the API, a
 * bulk action, a batch, an import, a restore), and one batch asks for at most `perBatch`. So
 * `GET /api/v1/collections`, which embeds each collection's links, holds each link at most
 * `perLink` times.
 */
export const MEMBERSHIP_LIMITS = { perLink: LINK_MAX_COLLECTIONS, perBatch: BATCH_MAX_MEMBERSHIPS } as const;

/** The messages of the membership limits. */
export const MEMBERSHIP_MESSAGES = {
  perLink: `Expected at most ${LINK_MAX_COLLECTIONS} collections for one link`,
  perBatch: `Expected at most ${BATCH_MAX_MEMBERSHIPS} collections named by the createLink and updateLink operations of one batch, all counted`,
  bulkFull: (count: number) => `Expected links in fewer than ${LINK_MAX_COLLECTIONS} collections: ${count === 1 ? "1 of them is" : `${count} of them are`} in ${LINK_MAX_COLLECTIONS} already`,
} as const;
/** The stored bytes each owner's page copies may take when the server names no quota (LINKSHELF_COPY_QUOTA's default). */
export const DEFAULT_COPY_QUOTA = 2 * 1024 ** 3;

/** A page copy's limit: the extension checks it before sending. */
export { COPY_LIMITS } from "../contract/content-limits";
