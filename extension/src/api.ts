/** The linkshelf API as the extension sees it; the shapes are the server's own (src/contract/). */
import type { CollectionCreatedJson, CollectionJson, CollectionListJson } from "../../src/contract/collections";
import type { ContentBody, ContentSavedJson } from "../../src/contract/content";
import type { CopySavedJson } from "../../src/contract/copies";
import type { CreateLinkBody, FavoritesJson, LinkCreatedJson, LinkItemJson, LinkJson, UpdateLinkBody } from "../../src/contract/links";
import type { ErrorJson, FieldErrorJson } from "../../src/contract/errors";
import type { HealthListJson } from "../../src/contract/link-health";
import type { MessageJson } from "../../src/contract/common";
import type { SearchPageJson } from "../../src/contract/search";
import type { ChangesJson } from "../../src/contract/changes";
import type { BatchBody, BatchJson } from "../../src/contract/batch";

export type ApiErrorKind = "unreachable" | "unauthorized" | "rate-limited" | "refused";

/** ApiError carries a sentence fit for the user and what the caller should do about it. */
export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    /** For "rate-limited": seconds to wait, from `Retry-After`. */
    readonly retryAfterSeconds = 0,
    /** For "refused": the HTTP status. */
    readonly status = 0,
    /** For "refused": the server's error code (`HISTORY_REPLACED`), when it gave one. */
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  origin: string;
  token: string;
  fetch?: typeof fetch;
  /** A request that takes longer counts as an unreachable server. */
  timeoutMs?: number;
  now?: () => number;
}

export interface Client {
  listCollections(): Promise<CollectionJson[]>;
  listFavorites(): Promise<FavoritesJson>;
  /** listBroken is the links the server's link checker calls broken (not ignored). */
  listBroken(): Promise<HealthListJson>;
  createLink(input: CreateLinkBody): Promise<LinkJson>;
  /** updateLink replaces the link's fields and returns it as stored. */
  updateLink(id: number, input: UpdateLinkBody): Promise<LinkJson>;
  saveContent(id: number, content: ContentBody): Promise<ContentSavedJson>;
  /** saveCopy keeps `html` as the link's page copy (replacing the one it had). */
  saveCopy(id: number, html: string): Promise<CopySavedJson>;
  search(q: string, limit: number): Promise<SearchPageJson>;
  /** revokeToken revokes the token this client holds (signing out on the server too). */
  revokeToken(): Promise<void>;
  createCollection(name: string): Promise<CollectionJson>;
  /** listUnder is a collection and every collection inside it, depth first, each with its links. */
  listUnder(id: number): Promise<CollectionJson[]>;
  changes(since: string | undefined, limit: number): Promise<ChangesJson>;
  /** changesCursor is the change feed's cursor now: what changes after it is news. */
  changesCursor(): Promise<string>;
  /** restoreLinks puts links back from the trash, with their ids, collections and places. */
  restoreLinks(ids: readonly number[]): Promise<void>;
  /** batch sends writes as one request; `key` makes a retry of it safe. */
  batch(body: BatchBody, key: string): Promise<BatchJson>;
}

/** A body sent as an HTML file rather than as JSON. */
class HtmlFile {
  constructor(readonly text: string) {}
}

/** parseRetryAfter reads `Retry-After` as seconds or an HTTP date; without one, a minute. */
export function parseRetryAfter(value: string | null, now: number): number {
  if (value === null || value.trim() === "") return 60;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? 60 : Math.max(0, Math.ceil((at - now) / 1000));
}

/** createClient talks to one server with one token. */
export function createClient({ origin, token, fetch: send = fetch, timeoutMs = 10_000, now = Date.now }: ClientOptions): Client {
  /** call sends a request (a JSON body, or an HTML file as it is) and reads its JSON answer. */
  async function call<T>(method: string, path: string, body?: unknown, more: Record<string, string> = {}): Promise<T> {
    const html = body instanceof HtmlFile;
    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: "application/json", ...more };
    if (body !== undefined) headers["Content-Type"] = html ? "text/html; charset=utf-8" : "application/json";
    let response: Response;
    try {
      response = await send(`${origin}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : html ? body.text : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw new ApiError("unreachable", `Cannot reach ${origin}. Check the address and that linkshelf is running there.`);
    }
    if (response.status === 401) {
      throw new ApiError("unauthorized", "The server no longer accepts this browser's token (it was revoked). Sign in again.");
    }
    if (response.status === 429) {
      const seconds = parseRetryAfter(response.headers.get("Retry-After"), now());
      throw new ApiError("rate-limited", `Too many requests for now. Try again in ${seconds} s.`, seconds);
    }
    const text = await response.text();
    const json = parseJson(text);
    if (!response.ok) {
      const code = (json as { code?: unknown } | undefined)?.code;
      throw new ApiError("refused", describeRefusal(response.status, json), 0, response.status, typeof code === "string" ? code : null);
    }
    if (json === undefined) throw new ApiError("refused", `${origin} answered with something other than JSON. Is it a linkshelf server?`);
    return json as T;
  }

  return {
    listCollections: async () => (await call<CollectionListJson>("GET", "/api/v1/collections")).collections,
    listFavorites: () => call<FavoritesJson>("GET", "/api/v1/links/favorites"),
    listBroken: () => call<HealthListJson>("GET", "/api/v1/links/health?state=broken"),
    createLink: async (input) => (await call<LinkCreatedJson>("POST", "/api/v1/links", input)).link,
    // The PUT answers only a message: the link as stored is read back.
    updateLink: async (id, input) => {
      await call<MessageJson>("PUT", `/api/v1/links/${id}`, input);
      return (await call<LinkItemJson>("GET", `/api/v1/links/${id}`)).link;
    },
    saveContent: (id, content) => call<ContentSavedJson>("PUT", `/api/v1/links/${id}/content`, content),
    saveCopy: (id, html) => call<CopySavedJson>("PUT", `/api/v1/links/${id}/copy`, new HtmlFile(html)),
    search: (q, limit) => call<SearchPageJson>("GET", `/api/v1/search?${new URLSearchParams({ q, limit: String(limit) })}`),
    revokeToken: async () => void (await call<MessageJson>("DELETE", "/api/v1/tokens/current")),
    createCollection: async (name) => (await call<CollectionCreatedJson>("POST", "/api/v1/collections", { name, visibility: "PRIVATE" })).collection,
    listUnder: async (id) => (await call<CollectionListJson>("GET", `/api/v1/collections?under=${id}`)).collections,
    changes: (since, limit) => call<ChangesJson>("GET", `/api/v1/changes?${new URLSearchParams({ ...(since === undefined ? {} : { since }), limit: String(limit) })}`),
    changesCursor: async () => (await call<{ cursor: string }>("GET", "/api/v1/changes/cursor")).cursor,
    restoreLinks: async (ids) => void (await call<MessageJson>("POST", "/api/v1/trash/restore", { links: ids, collections: [] })),
    batch: (body, key) => call<BatchJson>("POST", "/api/v1/batch", body, { "Idempotency-Key": key }),
  };
}

/**
 * revokeHeldToken signs a token out on its server: true when the server no longer accepts it
 * (revoked now, or before), false when the server could not be asked (it keeps the token until
 * it is revoked there).
 */
export async function revokeHeldToken(origin: string, token: string, send: typeof fetch = fetch): Promise<boolean> {
  try {
    await createClient({ origin, token, fetch: send }).revokeToken();
    return true;
  } catch (error) {
    return error instanceof ApiError && error.kind === "unauthorized";
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A body as it arrived: the fields of `T`, each possibly missing or of another type (whatever answered may not be linkshelf). */
type Unchecked<T> = { [K in keyof T]?: unknown };

/** describeRefusal is the server's own message, with each field's problem when it lists them. */
function describeRefusal(status: number, json: unknown): string {
  const body = (json ?? {}) as Unchecked<ErrorJson>;
  const message = typeof body.message === "string" ? body.message : `The server answered ${status}.`;
  const details = Array.isArray(body.errors)
    ? (body.errors as Unchecked<FieldErrorJson>[]).map((error) => `${String(error.path ?? "").replace(/^\//, "")}: ${String(error.message ?? "")}`)
    : [];
  return details.length > 0 ? `${message} (${details.join("; ")})` : message;
}

/** checkServer tells apart an address with nothing behind it and one that is not linkshelf, before the sign-in window opens. */
export async function checkServer(origin: string, send: typeof fetch = fetch, timeoutMs = 10_000): Promise<ApiError | null> {
  let response: Response;
  try {
    response = await send(`${origin}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    return new ApiError("unreachable", `Cannot reach ${origin}. Check the address and that linkshelf is running there.`);
  }
  const body = parseJson(await response.text()) as { status?: unknown } | undefined;
  if (response.status !== 200 || body?.status !== "ok") {
    return new ApiError("refused", `${origin} answered, but not like a linkshelf server (status ${response.status}).`);
  }
  return null;
}
