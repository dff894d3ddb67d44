/**
 * Forms as the pages receive them: the body parser (URL-encoded or multipart, at most
 * MAX_FORM_BYTES) and the readers of its fields.
 */
import { Elysia } from "elysia";
import { readLimitedBytes } from "./limited";

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
  const form = await readForm(request);
  forms.set(request, form);
  return form;
});

/** The forms read so far, for the error mapping: a form shown again after a refusal keeps what was typed. */
const forms = new WeakMap<Request, FormRecord>();

/** submittedForm is the form a request's body held, as formBody read it (an empty form if none was read). */
export function submittedForm(request: Request): FormRecord {
  return forms.get(request) ?? Object.create(null);
}

async function readForm(request: Request): Promise<FormRecord> {
  const bytes = await readLimitedBytes(request, MAX_FORM_BYTES, "The form sent more than 64 KiB, more than any form here needs. Nothing was saved.");
  const type = request.headers.get("content-type") ?? "";
  if (FORM_MEDIA_TYPE.test(type)) return formRecord(new URLSearchParams(new TextDecoder().decode(bytes)));
  if (!MULTIPART_MEDIA_TYPE.test(type)) return {};
  try {
    return formRecord(await new Response(bytes, { headers: { "content-type": type } }).formData());
  } catch {
    return {};
  }
}

/** formField reads one value of a form body; anything but a single string is "". */
export function formField(body: unknown, name: string): string {
  const value = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
}

/** formValues reads every value of a repeated form field (checkboxes). */
export function formValues(body: unknown, name: string): string[] {
  const value = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
