/**
 * The JSON the API answers and accepts, as plain TypeScript types, and the few words both ends of
 * the extension's sign-in handoff must spell alike. The server and the browser extension both
 * compile this module. It imports nothing, so neither the extension's bundle nor its typecheck
 * (`tsc --noEmit -p extension`, browser types only) ever reaches Elysia, TypeBox, drizzle or Bun.
 *
 * The TypeBox schemas beside the routes (src/links/model.ts, src/collections/model.ts,
 * src/errors.ts) stay what validates requests and what the OpenAPI document describes. Each
 * schema's type is asserted to be exactly the type written here (src/api/agreement.ts, with
 * `SameType` of src/api/same-type.ts), so a schema changed without this file, or this file without the schema,
 * fails the server's `tsc --noEmit`; and a type changed here fails the extension's typecheck
 * wherever the extension still relies on the old shape.
 *
 * Why the types are written out rather than derived from the schemas with `import type`: an
 * erased import keeps the bundle small, but the extension's typecheck would still follow it into
 * the model files and from there, through the database schema, into most of the server, which
 * only compiles with Bun's types, not a browser's.
 */

/**
 * What a saved page's content may hold: the whole `PUT .../content` body in bytes, the text kept
 * in bytes of UTF-8, the other fields in characters. The extension fits what it read to these.
 */
export const CONTENT_LIMITS = { bodyBytes: 2 * 1024 * 1024, textBytes: 1024 * 1024, title: 1000, excerpt: 2000, byline: 500, lang: 35 } as const;

/** A content's language tag (BCP 47's shape, not its registry): `en`, `pt-BR`, `zh-Hant-TW`. */
export const LANGUAGE_TAG = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;

/** ISO 8601 UTC with milliseconds, e.g. `2026-11-22T05:52:24.123Z`. */
export type Timestamp = string;

export interface LinkJson {
  id: number;
  name: string;
  description: string;
  url: string;
  favorite: boolean;
  /** Counted by `GET /l/:id`. */
  clicks: number;
  /** Null until the first click. */
  lastClickedAt: Timestamp | null;
  /** Sorted ascending. */
  collectionIds: number[];
  authorId: number;
  createdAt: Timestamp;
  /** Moves on PUT only, not on clicks. */
  updatedAt: Timestamp;
}

/** `POST /api/v1/links` (201). */
export interface LinkCreatedJson {
  message: string;
  link: LinkJson;
}

/** `GET /api/v1/links/:id`. */
export interface LinkItemJson {
  link: LinkJson;
}

/** `GET /api/v1/links`: one page, newest first. */
export interface LinkPageJson {
  links: LinkJson[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** `GET /api/v1/links/favorites`: most clicked first, then most recently clicked (never clicked last), then id. */
export type FavoritesJson = LinkJson[];

/** The body of `POST /api/v1/links`. */
export interface CreateLinkBody {
  name: string;
  /** Default `""`. */
  description?: string;
  url: string;
  favorite: boolean;
  /** Omitted or empty: the Inbox. */
  collectionIds?: number[];
}

/** The body of `PUT /api/v1/links/:id`; an omitted description keeps the stored one. */
export interface UpdateLinkBody {
  name: string;
  description?: string;
  url: string;
  favorite: boolean;
  /** Empty: the Inbox. */
  collectionIds: number[];
}

/** What `POST /api/v1/links/bulk` does to every link it lists. */
export type BulkAction = "favorite" | "unfavorite" | "delete" | "move" | "add" | "remove";

/** The body of `POST /api/v1/links/bulk`: all of the links or none. */
export interface BulkLinksBody {
  /** 1-1,000 ids of your links, each once. */
  ids: number[];
  action: BulkAction;
  /** Required by move, add and remove; refused with the other actions. */
  collectionId?: number;
}

/** The answer of `POST /api/v1/links/bulk`. */
export interface BulkLinksJson {
  message: string;
  /** How many links the action was applied to. */
  count: number;
}

export type Visibility = "PUBLIC" | "PRIVATE";

export interface AuthorJson {
  id: number;
  name: string;
  email: string;
}

export interface CollectionJson {
  id: number;
  name: string;
  description: string | null;
  visibility: Visibility;
  authorId: number;
  author: AuthorJson;
  /** Newest first. */
  links: LinkJson[];
  /** One emoji. */
  icon: string;
  /** True for the Inbox. */
  isDefault: boolean;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  isOwner: boolean;
}

/** `GET /api/v1/collections`: the Inbox first, then by name (case-insensitive), then id. */
export interface CollectionListJson {
  collections: CollectionJson[];
}

/** `POST /api/v1/collections` (201). */
export interface CollectionCreatedJson {
  message: string;
  collection: CollectionJson;
}

/** `GET /api/v1/collections/:id`. */
export interface CollectionItemJson {
  collection: CollectionJson;
}

/** The body of `POST /api/v1/collections` and `PUT /api/v1/collections/:id`. */
export interface CollectionBody {
  name: string;
  /** Null or `""` stores null; omitted on PUT keeps the stored value. */
  description?: string | null;
  visibility: Visibility;
  /** `""` resets it to the default; omitted on PUT keeps it. */
  icon?: string;
}

/** Who saved a page's content: the extension (`browser`) or linkshelf's fetcher (`server`, never replacing a browser capture). */
export type ContentSource = "browser" | "server";

/** The body of `PUT /api/v1/links/:id/content` (up to 2 MiB; the text is kept up to 1 MiB of UTF-8). */
export interface ContentBody {
  text: string;
  /** Null or `""` for none. */
  title?: string | null;
  excerpt?: string | null;
  byline?: string | null;
  /** A language tag such as `en` or `pt-BR`. */
  lang?: string | null;
}

/** A link's saved page content. */
export interface ContentJson {
  linkId: number;
  title: string | null;
  text: string;
  excerpt: string | null;
  byline: string | null;
  lang: string | null;
  source: ContentSource;
  capturedAt: Timestamp;
}

/** `GET /api/v1/links/:id/content`. */
export interface ContentItemJson {
  content: ContentJson;
}

/** `PUT /api/v1/links/:id/content`. */
export interface ContentSavedJson {
  message: string;
  /** True when only the first 1 MiB of the text was kept. */
  truncated: boolean;
}

/** A window of text around a hit's best match, with each matched word as [start, end) JavaScript string indices into `text`. */
export interface SnippetJson {
  text: string;
  matches: [number, number][];
}

export interface SearchHitJson {
  link: LinkJson;
  /** Higher ranks first. */
  score: number;
  snippet: SnippetJson;
}

/** `GET /api/v1/search`: one page of hits, best first. */
export interface SearchPageJson {
  hits: SearchHitJson[];
  /** Pass as `cursor` (with the same q and filters) for the next page; null on the last page. */
  nextCursor: string | null;
}

/** One recorded import of a bookmark file (`GET /api/v1/imports`). */
export interface ImportJson {
  id: number;
  createdAt: Timestamp;
  /** page: the import page; cli: `linkshelf import`. */
  source: "page" | "cli";
  fileName: string;
  /** Links and collections the import created; entries it left out as duplicates or could not store. */
  links: number;
  collections: number;
  duplicates: number;
  skipped: number;
  /** Null while the import stands. */
  undoneAt: Timestamp | null;
}

/** The answer of `GET /api/v1/imports`: newest first. */
export interface ImportListJson {
  imports: ImportJson[];
}

/** The answer of `DELETE /api/v1/imports/:id`: how many links and collections were removed. */
export interface ImportUndoneJson {
  message: string;
  links: number;
  collections: number;
}

/** The answer of `PUT` and `DELETE` of a link or a collection: `{"message": "Link updated."}`. */
export interface MessageJson {
  message: string;
}

/** One violation of a request: a JSON pointer into the body (`/name`) and what is wrong there. */
export interface FieldErrorJson {
  path: string;
  message: string;
}

/** The one error body of the API, `/l/:id` (non-HTML clients) and `/favicon`. */
export interface ErrorJson {
  message: string;
  /** Stable, for programs: `UNAUTHORIZED`, `VALIDATION_FAILED`, `NOT_FOUND`... */
  code: string;
  /** On 422 `VALIDATION_FAILED` only: every violation of the request. */
  errors?: FieldErrorJson[];
}

/**
 * The extension's sign-in handoff ends on the extension's callback address with a fragment:
 * `#token=<url-encoded token>` when a token was minted, `#error=access_denied` when the user
 * pressed Cancel on the consent page.
 */
export const HANDOFF_TOKEN_PARAM = "token";
export const HANDOFF_ERROR_PARAM = "error";
export const HANDOFF_DENIED = "access_denied";

/** What one check of a link found (`GET /api/v1/links/health`, `POST /api/v1/links/:id/check`). */
export type HealthOutcome = "ok" | "moved" | "gone" | "failing" | "soft-404" | "unchecked";

export interface HealthCheckJson {
  at: Timestamp;
  /** The final HTTP status; null when no answer came. */
  status: number | null;
  outcome: HealthOutcome;
  detail: string;
}

export interface HealthJson {
  state: HealthOutcome;
  broken: boolean;
  ignored: boolean;
  /** The first of the failures in a row; null when the last check succeeded. */
  since: Timestamp | null;
  lastCheckedAt: Timestamp | null;
  movedTo: string | null;
  /** The last five checks, newest first. */
  checks: HealthCheckJson[];
}

export interface LinkHealthJson {
  link: LinkJson;
  health: HealthJson;
}

export interface HealthListJson {
  links: LinkHealthJson[];
}

export interface HealthItemJson {
  health: HealthJson;
}
