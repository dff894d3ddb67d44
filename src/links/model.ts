import { t } from "elysia";
import type { LinkRow } from "../db/schema";
import { iso } from "../timestamps";

/** The longest name and description of a link, in code points after trimming. */
export const LINK_LIMITS = { name: 254, description: 300 } as const;

/** Pages of links: 50 by default, at most 100; a search's words at most 200 characters. */
export const LINK_PAGE = { defaultLimit: 50, maxLimit: 100, maxQuery: 200 } as const;

/** Elysia's t.Integer also accepts numeric strings; ids in a body must be JSON numbers. */
export const IdNumber = t.Number({ multipleOf: 1 });

// Descriptions document the rules the service applies (src/rules.ts); they validate nothing.
const linkFields = {
  name: t.String({ description: "1-254 characters (Unicode code points, counted after trimming; stored trimmed)." }),
  description: t.Optional(t.String({ description: "At most 300 characters. Default \"\" on POST; omitted on PUT keeps the stored value, \"\" clears it." })),
  url: t.String({ description: "An absolute http: or https: URL of at most 2048 characters." }),
  favorite: t.Boolean(),
};

export const CreateLinkBody = t.Object({
  ...linkFields,
  collectionIds: t.Optional(t.Array(IdNumber, { description: "Ids of your collections; duplicates are folded. Omitted or empty: the Inbox." })),
});
export const UpdateLinkBody = t.Object({
  ...linkFields,
  collectionIds: t.Array(IdNumber, { description: "Ids of your collections; duplicates are folded. Empty: the Inbox." }),
});

/**
 * A whole number in a query string: decimal digits only (at most 15, so it is exact as a
 * number), read as a number. `1e2`, `0x10`, `+5`, `5.0`, ` 1` and `` are refused (422 at the
 * parameter's path) rather than read as something the client may not have meant.
 */
export const QueryInteger = t
  .Transform(t.String({ pattern: "^[0-9]{1,15}$", error: "Expected a whole number in decimal digits", examples: ["50"] }))
  .Decode((digits) => Number(digits))
  .Encode((value) => String(value));

/** The query of a page of links (`GET /api/v1/links`, `GET /api/v1/search`): types only; the ranges are the shelf's rules. */
export const LinkSearchQuery = t.Object({
  q: t.Optional(t.String()),
  collectionId: t.Optional(QueryInteger),
  favorite: t.Optional(t.Boolean()),
  cursor: t.Optional(t.String()),
  limit: t.Optional(QueryInteger),
});

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

export type CreateLinkInput = typeof CreateLinkBody.static;
export type UpdateLinkInput = typeof UpdateLinkBody.static;

/** An integer in an answer (Elysia's t.Integer also admits numeric strings, which the answers never hold). */
export const Int = (options: { description?: string } = {}) => t.Unsafe<number>({ type: "integer", ...options });

/** A timestamp as the contract writes it: ISO 8601 UTC with milliseconds. */
export const Timestamp = t.String({ format: "date-time", examples: ["2026-11-22T05:52:24.123Z"] });

export const LinkJson = t.Object({
  id: Int(),
  name: t.String(),
  description: t.String(),
  url: t.String(),
  favorite: t.Boolean(),
  clicks: Int({ description: "Counted by GET /l/{id}." }),
  lastClickedAt: t.Union([Timestamp, t.Null()], { description: "Null until the first click." }),
  collectionIds: t.Array(Int(), { description: "Sorted ascending." }),
  authorId: Int(),
  createdAt: Timestamp,
  updatedAt: t.String({ format: "date-time", description: "Moves on PUT only, not on clicks." }),
});
export type LinkJson = typeof LinkJson.static;

export const LinkCreatedJson = t.Object({ message: t.String(), link: LinkJson });
export const LinkItemJson = t.Object({ link: LinkJson });
export const LinkPageJson = t.Object({
  links: t.Array(LinkJson, { description: "Newest first." }),
  nextCursor: t.Union([t.String(), t.Null()], { description: "Pass as cursor for the next page; null on the last page." }),
});
export const FavoritesJson = t.Array(LinkJson, { description: "Most clicked first, then most recently clicked (never clicked last), then id." });

/** What `POST /api/v1/links/bulk` does to every link it lists. */
export const BULK_ACTIONS = ["favorite", "unfavorite", "delete", "move", "add", "remove"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
/** The actions that name a collection. */
export const COLLECTION_ACTIONS: readonly BulkAction[] = ["move", "add", "remove"];
/** The most links one bulk request acts on. */
export const BULK_MAX_IDS = 1000;

export const BulkLinksBody = t.Object({
  ids: t.Array(IdNumber, { description: `1-${BULK_MAX_IDS} ids of your links, each once.` }),
  action: t.Union(BULK_ACTIONS.map((action) => t.Literal(action)), {
    description: "favorite, unfavorite; delete; move (into exactly that collection, out of all others), add (into that collection too), " +
      "remove (out of that collection; a link left in none goes to the Inbox).",
  }),
  collectionId: t.Optional(IdNumber),
});
export type BulkLinksInput = typeof BulkLinksBody.static;
export const BulkLinksJson = t.Object({ message: t.String(), count: Int({ description: "How many links the action was applied to." }) });

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
