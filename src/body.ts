import { Elysia } from "elysia";
import { InvalidJson, PayloadTooLarge, UnsupportedMediaType } from "./errors";

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Containers a body may nest (every valid body here nests 2). Deeper bodies are refused
 * before validation: Elysia's validation error stringifies the failing value recursively,
 * which overflowed the stack (a 500) at ~10,000 levels and took seconds well below that.
 * RFC 8259 section 9 lets a parser limit nesting.
 */
export const MAX_JSON_DEPTH = 32;
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/**
 * jsonBody makes the routes of the instance that uses it accept JSON bodies only:
 * another media type is 415, more than 1 MiB is 413, malformed JSON is 400.
 */
export const jsonBody = new Elysia({ name: "linkshelf/json-body" }).onParse({ as: "scoped" }, async ({ request }) => {
  // DELETE and GET take no body here: whatever a client sends with them is ignored.
  if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") return {};
  // The header itself: Elysia's `contentType` is empty when there is no body, and an empty
  // body labelled as JSON is malformed JSON (400), not the wrong media type (415).
  if (!JSON_MEDIA_TYPE.test(request.headers.get("content-type") ?? "")) throw new UnsupportedMediaType();
  const text = await readLimited(request, MAX_BODY_BYTES);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidJson();
  }
  if (nestsDeeper(body, MAX_JSON_DEPTH)) throw new InvalidJson(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  return body;
});

/** nestsDeeper is true when `value` holds more than `levels` nested arrays or objects; it recurses at most `levels` deep. */
export function nestsDeeper(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (levels === 0) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    if (nestsDeeper(child, levels - 1)) return true;
  }
  return false;
}

/** readLimited reads a request body as UTF-8, refusing more than `limit` bytes without buffering them. */
export async function readLimited(request: Request, limit: number): Promise<string> {
  return new TextDecoder("utf-8", { fatal: false }).decode(await readLimitedBytes(request, limit));
}

/**
 * readLimitedBytes reads a request body, refusing (PayloadTooLarge, with `message` when given)
 * a declared Content-Length over `limit` before reading anything, and otherwise as soon as the
 * bytes read pass it: at most `limit` bytes plus one chunk are ever held.
 */
export async function readLimitedBytes(request: Request, limit: number, message?: string): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > limit) throw new PayloadTooLarge(limit, message);
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > limit) throw new PayloadTooLarge(limit, message);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The page forms (sign-in, links, collections, account) send a few fields; 64 KiB holds the
 * longest a form can validly carry (a 2048-character URL, a description of 2000 code points,
 * every collection ticked) many times over. Without it Bun would buffer up to its default
 * `maxRequestBodySize` (128 MiB) before any handler ran.
 */
export const MAX_FORM_BYTES = 64 * 1024;
const FORM_MEDIA_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;
const MULTIPART_MEDIA_TYPE = /^multipart\/form-data\s*;/i;

/** A form body as the pages read it: one string per field, an array for a repeated field. */
type FormRecord = Record<string, string | string[]>;

/** formRecord collects a form's string fields (files are left out); a null prototype keeps `__proto__` an ordinary name. */
function formRecord(entries: Iterable<[string, unknown]>): FormRecord {
  const record: FormRecord = Object.create(null);
  for (const [name, value] of entries) {
    if (typeof value !== "string") continue;
    const seen = record[name];
    record[name] = seen === undefined ? value : [...[seen].flat(), value];
  }
  return record;
}

/**
 * formBody makes the routes of the instance that uses it read their POST bodies as forms of
 * at most MAX_FORM_BYTES (413 past it, an HTML page for a browser): URL-encoded or multipart
 * fields; any other body is an empty form. Not named, so that each instance using it gets it.
 */
export const formBody = () => new Elysia().onParse({ as: "scoped" }, async ({ request }) => {
  if (request.method !== "POST") return {};
  const bytes = await readLimitedBytes(request, MAX_FORM_BYTES, "The form sent more than 64 KiB, more than any form here needs. Nothing was saved.");
  const type = request.headers.get("content-type") ?? "";
  if (FORM_MEDIA_TYPE.test(type)) return formRecord(new URLSearchParams(new TextDecoder().decode(bytes)));
  if (!MULTIPART_MEDIA_TYPE.test(type)) return {};
  try {
    return formRecord(await new Response(bytes, { headers: { "content-type": type } }).formData());
  } catch {
    return {};
  }
});
