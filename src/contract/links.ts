/** The links of the API: the bodies of `POST`/`PUT /api/v1/links`, a page of links, the bulk action. */
import { Type, type Static } from "@sinclair/typebox";
import { IdNumber, Int, QueryInteger, Timestamp } from "./common";

/** The most collections one link is in (the Inbox counts): a longer list is refused, and so is a write that would put a link in more. */
export const LINK_MAX_COLLECTIONS = 100;

// Descriptions document the rules the server applies; they validate nothing (but the most collections a link names).
const linkFields = {
  name: Type.String({ description: "1-254 characters (Unicode code points, counted after trimming; stored trimmed)." }),
  description: Type.Optional(Type.String({ description: "At most 300 characters. Default \"\" on POST; omitted on PUT keeps the stored value, \"\" clears it." })),
  url: Type.String({ description: "An absolute http: or https: URL of at most 2048 characters." }),
  favorite: Type.Boolean(),
  toRead: Type.Optional(Type.Boolean({ description: "On your reading list. Default false on POST; omitted on PUT keeps the stored value." })),
  archived: Type.Optional(Type.Boolean({ description: "Archived. Default false on POST; omitted on PUT keeps the stored value." })),
};

export const CreateLinkBody = Type.Object({
  ...linkFields,
  collectionIds: Type.Optional(Type.Array(IdNumber, { maxItems: LINK_MAX_COLLECTIONS, description: `Ids of your collections, at most ${LINK_MAX_COLLECTIONS}; duplicates are folded. Omitted or empty: the Inbox.` })),
});
export type CreateLinkBody = Static<typeof CreateLinkBody>;

export const UpdateLinkBody = Type.Object({
  ...linkFields,
  collectionIds: Type.Array(IdNumber, { maxItems: LINK_MAX_COLLECTIONS, description: `Ids of your collections, at most ${LINK_MAX_COLLECTIONS}; duplicates are folded. Empty: the Inbox.` }),
});
export type UpdateLinkBody = Static<typeof UpdateLinkBody>;

/** The query of a page of links (`GET /api/v1/links`, `GET /api/v1/search`): types only; the ranges are the shelf's rules. */
export const LinkSearchQuery = Type.Object({
  q: Type.Optional(Type.String()),
  collectionId: Type.Optional(QueryInteger),
  favorite: Type.Optional(Type.Boolean()),
  toRead: Type.Optional(Type.Boolean()),
  archived: Type.Optional(Type.Boolean()),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(QueryInteger),
});

/** What is known of a link's page copy without reading it. */
export const CopySummaryJson = Type.Object({
  savedAt: Timestamp,
  bytes: Int({ description: "The HTML file's size before compression." }),
});
export type CopySummaryJson = Static<typeof CopySummaryJson>;

export const LinkJson = Type.Object({
  id: Int(),
  name: Type.String(),
  description: Type.String(),
  url: Type.String(),
  favorite: Type.Boolean(),
  toRead: Type.Boolean({ description: "On the reading list (read later); \"Mark read\" clears it." }),
  archived: Type.Boolean(),
  clicks: Int({ description: "Counted by GET /l/{id}." }),
  lastClickedAt: Type.Union([Timestamp, Type.Null()], { description: "Null until the first click." }),
  collectionIds: Type.Array(Int(), { description: "Sorted ascending." }),
  copy: Type.Union([CopySummaryJson, Type.Null()], { description: "The page copy the browser extension kept (PUT /api/v1/links/{id}/copy): when and how large; null without one." }),
  authorId: Int(),
  createdAt: Timestamp,
  updatedAt: Type.String({ format: "date-time", description: "Moves on PUT only, not on clicks." }),
});
export type LinkJson = Static<typeof LinkJson>;

export const LinkCreatedJson = Type.Object({ message: Type.String(), link: LinkJson });
export type LinkCreatedJson = Static<typeof LinkCreatedJson>;
export const LinkItemJson = Type.Object({ link: LinkJson });
export type LinkItemJson = Static<typeof LinkItemJson>;
export const LinkPageJson = Type.Object({
  links: Type.Array(LinkJson, { description: "Newest first." }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: "Pass as cursor for the next page; null on the last page." }),
});
export type LinkPageJson = Static<typeof LinkPageJson>;
export const FavoritesJson = Type.Array(LinkJson, { description: "Most clicked first, then most recently clicked (never clicked last), then id." });
export type FavoritesJson = Static<typeof FavoritesJson>;

/** What `POST /api/v1/links/bulk` does to every link it lists. */
export const BULK_ACTIONS = ["favorite", "unfavorite", "delete", "move", "add", "remove"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
/** The most links one bulk request acts on. */
export const BULK_MAX_IDS = 1000;

/** The body of `POST /api/v1/links/bulk`: all of the links or none. */
export const BulkLinksBody = Type.Object({
  ids: Type.Array(IdNumber, { description: `1-${BULK_MAX_IDS} ids of your links, each once.` }),
  action: Type.Union(BULK_ACTIONS.map((action) => Type.Literal(action)), {
    description: "favorite, unfavorite; delete; move (into exactly that collection, out of all others), add (into that collection too), " +
      "remove (out of that collection; a link left in none goes to the Inbox).",
  }),
  collectionId: Type.Optional(IdNumber),
});
export type BulkLinksBody = Static<typeof BulkLinksBody>;
export const BulkLinksJson = Type.Object({ message: Type.String(), count: Int({ description: "How many links the action was applied to." }) });
export type BulkLinksJson = Static<typeof BulkLinksJson>;
