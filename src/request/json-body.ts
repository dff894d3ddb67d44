/**
 * The JSON API's body parser: JSON only, at most MAX_BODY_BYTES, nested at most MAX_JSON_DEPTH
 * levels.
 */
import { Elysia } from "elysia";
import { InvalidJson, UnsupportedMediaType } from "../common/errors";
import { readLimited } from "./limited";

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Containers a body may nest (every valid body here nests 2). Deeper bodies are refused
 * before validation: Elysia's validation error stringifies the failing value recursively,
 * which overflowed the stack (a 500) at ~10,000 levels and took seconds well below that.
 * RFC 8259 section 9 lets a parser limit nesting.
 */
export const MAX_JSON_DEPTH = 32;
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/** The bodies of requests that came with an `Idempotency-Key`, as read: what a retry's body is compared with. */
const keyedBodies = new WeakMap<Request, string>();

/**
 * keepSentBody records what stands for the body of a request with an `Idempotency-Key` that is
 * not JSON (a page copy: the SHA-256 of its bytes), for sentBody.
 */
export function keepSentBody(request: Request, body: string): void {
  if (request.headers.has("idempotency-key")) keyedBodies.set(request, body);
}

/** sentBody is the JSON body of a request with an `Idempotency-Key`, as read (or what keepSentBody recorded); empty when it had none. */
export const sentBody = (request: Request): string => keyedBodies.get(request) ?? "";

/**
 * jsonBody makes the routes of the instance that uses it accept JSON bodies only:
 * another media type is 415, more than 1 MiB is 413, malformed JSON is 400.
 */
export const jsonBody = new Elysia({ name: "linkshelf/json-body" }).onParse({ as: "scoped" }, ({ request }) => readJsonBody(request, MAX_BODY_BYTES));

/**
 * readJsonBody is jsonBody's parser with its own size limit, for a route whose body may be
 * larger (a saved page's text): as a route's `parse`, on a route registered before jsonBody.
 */
export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  // DELETE and GET take no body here: whatever a client sends with them is ignored.
  if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") return {};
  // The header itself: Elysia's `contentType` is empty when there is no body, and an empty
  // body labelled as JSON is malformed JSON (400), not the wrong media type (415).
  if (!JSON_MEDIA_TYPE.test(request.headers.get("content-type") ?? "")) throw new UnsupportedMediaType();
  const text = await readLimited(request, limitBytes);
  if (request.headers.has("idempotency-key")) keyedBodies.set(request, text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidJson();
  }
  if (nestsDeeper(body, MAX_JSON_DEPTH)) throw new InvalidJson(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  return body;
}

/** nestsDeeper is true when `value` holds more than `levels` nested arrays or objects; it recurses at most `levels` deep. */
export function nestsDeeper(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (levels === 0) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    if (nestsDeeper(child, levels - 1)) return true;
  }
  return false;
}
