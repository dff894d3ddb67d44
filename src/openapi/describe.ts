import { t, type DocumentDecoration, type TSchema } from "elysia";
import { ErrorJson } from "../contract/errors";
import { API_ROUTE } from "../request/surface";

type Parameter = NonNullable<DocumentDecoration["parameters"]>[number];
/** A body schema of the wire contract, src/contract/ (TypeBox is JSON Schema; src/openapi/document.ts tidies it for OpenAPI). */
type JsonSchema = ReturnType<typeof t.Object> | ReturnType<typeof t.Array>;

export interface ResponseDoc {
  description: string;
  /** The JSON body, as the route sends it. */
  json?: JsonSchema;
  /** Media types of other bodies the answer may carry (an image, an HTML page). */
  media?: string[];
  /** Headers worth knowing, by name, with what they carry. */
  headers?: Record<string, string>;
}

export interface RouteDoc {
  summary: string;
  description?: string;
  /** The part of the service the route belongs to (links, collections, ...). */
  tag: string;
  /** Query parameters: the routes read them by hand, so no schema declares them. */
  query?: Record<string, { description: string; required: boolean }>;
  /** Request headers it reads, by name. */
  headers?: Record<string, string>;
  responses: Record<number, ResponseDoc>;
}

/**
 * describeRoute is a route's OpenAPI `detail`: summary, tag, query parameters and responses.
 * Responses are described here, not as the route's `response` option, because Elysia would
 * then validate and reshape every answer (and the collection list is sent as ready-made bytes).
 */
export function describeRoute(doc: RouteDoc): DocumentDecoration {
  const responses = Object.fromEntries(Object.entries(doc.responses).map(([status, response]) => {
    const content: Record<string, { schema?: JsonSchema }> = {};
    if (response.json) content["application/json"] = { schema: response.json };
    for (const type of response.media ?? []) content[type] = {};
    const headers = response.headers && Object.fromEntries(Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: "string" as const } }]));
    return [status, { description: response.description, ...(headers ? { headers } : {}), ...(Object.keys(content).length ? { content } : {}) }];
  }));
  const parameters: Parameter[] = [
    ...Object.entries(doc.query ?? {}).map(([name, { description, required }]) => ({ name, in: "query", required, description, schema: { type: "string" as const } })),
    ...Object.entries(doc.headers ?? {}).map(([name, description]) => ({ name, in: "header", required: false, description, schema: { type: "string" as const } })),
  ];
  return {
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    ...(parameters.length ? { parameters } : {}),
    responses,
  };
}

/** errorDoc describes an error answer in the contract's shape. */
export function errorDoc(description: string): ResponseDoc {
  return { description, json: ErrorJson };
}

/** The headers of every rate-limited answer. */
const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": "Requests allowed per window.",
  "RateLimit-Remaining": "Requests left in this window.",
  "RateLimit-Reset": "Seconds until the window resets.",
};

/** The refusals every `/api/v1` route can answer, and those of a route that takes a JSON body or an id. */
export function apiErrors(options: { body: boolean; id: boolean }): Record<number, ResponseDoc> {
  const errors: Record<number, ResponseDoc> = {};
  if (options.body) {
    errors[400] = errorDoc("INVALID_JSON: the body is not JSON, or nests deeper than 32 levels.");
    errors[413] = errorDoc("PAYLOAD_TOO_LARGE: the body is larger than 1 MiB.");
    errors[415] = errorDoc("UNSUPPORTED_MEDIA_TYPE: the body was not sent as application/json.");
    errors[422] = errorDoc("VALIDATION_FAILED: a field breaks the schema or a rule; `errors` lists each one by JSON pointer.");
    errors[503] = {
      ...errorDoc("BUSY: the server already holds 8 MiB of bodies arriving from this address, or 64 MiB from everyone; none of this one was read, and the connection is closed."),
      headers: { "Retry-After": "Seconds to wait." },
    };
  }
  errors[401] = { ...errorDoc("UNAUTHORIZED: no, malformed, unknown or revoked bearer token."), headers: { "WWW-Authenticate": "Bearer" } };
  if (options.id) errors[404] = errorDoc("NOT_FOUND: the id does not exist, is not a positive integer, or belongs to another user.");
  errors[429] = rateLimited();
  return errors;
}

/** rateLimited describes a 429. */
export function rateLimited(): ResponseDoc {
  return { ...errorDoc("RATE_LIMITED: over the rate limit."), headers: { ...RATE_LIMIT_HEADERS, "Retry-After": "Seconds to wait." } };
}

/** What an `/api/v1` route says of itself besides its handler (see apiRoute). */
export interface ApiRouteDoc<Body, Query> {
  tag: string;
  summary: string;
  description?: string;
  /** The success answer, 200 unless `status` says otherwise. */
  ok: ResponseDoc & { status?: number };
  /** The JSON body it takes (then it can answer 400, 413, 415, 422, 503). */
  body?: Body;
  /** The query parameters it takes, validated (their 422 is worded in `more`: which parameter, what range). */
  query?: Query;
  /** It takes an id in its path (404). */
  id?: boolean;
  /** Answers of its own beyond the common refusals (a 404 or 409 it can give, worded for it). */
  more?: Record<number, ResponseDoc>;
  /** A read of one item: its answer carries an ETag, and `If-None-Match` naming it is 304. */
  etag?: boolean;
  /** A write of one item that honours `If-Match` (412). */
  ifMatch?: boolean;
}

/** What a write's `Idempotency-Key` adds to its documentation: the header and its refusals. */
export const KEYED = {
  headers: { "Idempotency-Key": "1-255 printable ASCII characters of your choice: a retry with the same key, method, path, query (its parameters in any order) and body within 24 hours gets the first answer again (with Idempotent-Replayed: true) and changes nothing. Keys are per user." },
  responses: {
    400: errorDoc("INVALID_IDEMPOTENCY_KEY: the Idempotency-Key is not 1-255 printable ASCII characters."),
    409: errorDoc("IDEMPOTENCY_KEY_IN_USE: a request with this Idempotency-Key is still being answered; retry in a moment."),
    422: errorDoc("IDEMPOTENCY_KEY_REUSED: this Idempotency-Key came with another method, path, query or body in the last 24 hours."),
  },
};

/**
 * keyedWrite is the documentation of an `/api/v1` write (POST, PUT, PATCH, DELETE) with what its
 * `Idempotency-Key` adds: the header, and its refusals beside the route's own of the same status.
 */
export function keyedWrite(operation: DocumentDecoration): DocumentDecoration {
  const keyed = describeRoute({ tag: "", summary: "", headers: KEYED.headers, responses: KEYED.responses });
  const responses = { ...operation.responses } as Record<string, { description: string }>;
  for (const [status, response] of Object.entries(keyed.responses as Record<string, { description: string }>)) {
    const own = responses[status];
    responses[status] = own === undefined ? response : { ...own, description: `${own.description} Or ${response.description}` };
  }
  return { ...operation, parameters: [...(operation.parameters ?? []), ...(keyed.parameters ?? [])], responses: responses as DocumentDecoration["responses"] };
}

/**
 * apiRoute is the options every `/api/v1` route shares: its body and query schemas, declared as the API
 * (JSON errors, rate-limited, a bearer token) and documented with its answer and the refusals
 * it can give.
 */
export function apiRoute<Body extends TSchema | undefined = undefined, Query extends TSchema | undefined = undefined>(
  { tag, summary, description, ok, body, query, id = false, more = {}, etag = false, ifMatch = false }: ApiRouteDoc<Body, Query>,
) {
  const { status = 200, ...success } = ok;
  const headers: Record<string, string> = {};
  const responses: Record<number, ResponseDoc> = { [status]: success, ...apiErrors({ body: body !== undefined, id }) };
  if (etag) {
    headers["If-None-Match"] = "An ETag of the item: 304 when it is still current.";
    responses[status] = { ...success, headers: { ...success.headers, ETag: "The item's strong ETag (a hash of this body): send it as If-Match to write the item only if it has not changed." } };
    responses[304] = { description: "Not modified: If-None-Match names the item's current ETag.", headers: { ETag: "The item's ETag." } };
  }
  if (ifMatch) {
    headers["If-Match"] = "`*` or ETags of the item (from its GET): the write is done only if one is current, checked in the write's transaction.";
    responses[412] = errorDoc("PRECONDITION_FAILED: If-Match names none of the item's current ETags (it changed since it was read); nothing was changed.");
  }
  return {
    body: body as Body,
    query: query as Query,
    surface: API_ROUTE,
    detail: describeRoute({ tag, summary, description, headers, responses: { ...responses, ...more } }),
  };
}
