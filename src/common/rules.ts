import { ValidationFailed } from "./errors";
import type { FieldErrorJson } from "../contract/errors";

const EMOJI = /^\p{RGI_Emoji}$/v;
export const MAX_URL_LENGTH = 2048;
/** Whitespace or control characters inside a URL would corrupt a `Location` header. */
const URL_FORBIDDEN = /[\s\p{Cc}]/u;
/**
 * What a name may never hold: control characters (C0, DEL, C1), line and paragraph separators
 * (U+2028/9), the bidirectional embeddings, overrides and isolates (U+202A-U+202E,
 * U+2066-U+2069: they reorder the text shown after them, so a name could pass for another),
 * and lone surrogates (no character at all).
 */
const NAME_FORBIDDEN = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069\p{Cs}]/u;
/**
 * A character that shows: not a space, a format character (U+200B, U+200D, U+FEFF...), a
 * combining mark on its own, a default-ignorable code point (variation selectors, Hangul
 * fillers) or the blank Braille pattern.
 */
const VISIBLE = /[^\p{White_Space}\p{Cc}\p{Cf}\p{Mn}\p{Me}\p{Default_Ignorable_Code_Point}\u2800]/u;
/** The messages of the name rule, shown by the API, the forms and the CLI alike. */
export const NAME_MESSAGES = {
  forbidden: "Expected no control characters, line separators or bidirectional controls",
  invisible: "Expected at least one visible character",
} as const;

const SURROGATE = /[\uD800-\uDFFF]/;

/** codePoints counts Unicode code points, the contract's unit for every length. */
export function codePoints(value: string): number {
  // Without surrogates every UTF-16 unit is a code point: no need to step through the string.
  if (!SURROGATE.test(value)) return value.length;
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * Rules collects the rule violations of one input so that a client hears about all of
 * them at once; `check()` throws them as one 422. Every method returns the normalized
 * (trimmed) value to store.
 */
export class Rules {
  readonly errors: FieldErrorJson[] = [];

  fail(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  /** pageLimit is the size of a page asked for (`page.defaultLimit` when none), which must be a whole number from 1 to `page.maxLimit`, at `/limit`. */
  pageLimit(value: number | undefined, page: { defaultLimit: number; maxLimit: number }): number {
    const limit = value ?? page.defaultLimit;
    if (!Number.isInteger(limit) || limit < 1 || limit > page.maxLimit) this.fail("/limit", `Expected a whole number from 1 to ${page.maxLimit}`);
    return limit;
  }

  /** text trims `value` and requires min..max code points. */
  text(path: string, value: string, min: number, max: number): string {
    const trimmed = value.trim();
    const length = codePoints(trimmed);
    if (length < min || length > max) {
      this.fail(path, min > 0 ? `Expected ${min}-${max} characters` : `Expected at most ${max} characters`);
    }
    return trimmed;
  }

  /**
   * name is `text` for a name (links, collections, users, tokens): besides its length, the
   * trimmed name (the one stored) holds no control characters, line separators or
   * bidirectional controls, and at least one visible character. White space that trimming
   * removes (a tab or line feed at either end) is not stored, so it is not refused. One message
   * per field: the first rule it breaks.
   */
  name(path: string, value: string, min: number, max: number): string {
    const failed = this.errors.length;
    const trimmed = this.text(path, value, min, max);
    if (this.errors.length > failed) return trimmed;
    if (NAME_FORBIDDEN.test(trimmed)) this.fail(path, NAME_MESSAGES.forbidden);
    else if (trimmed !== "" && !VISIBLE.test(trimmed)) this.fail(path, NAME_MESSAGES.invisible);
    return trimmed;
  }

  /** url requires an absolute http(s) URL with a host, at most 2048 characters. */
  url(path: string, value: string): string {
    const trimmed = value.trim();
    if (!isHttpUrl(trimmed)) {
      this.fail(path, `Expected an absolute http or https URL of at most ${MAX_URL_LENGTH} characters`);
    }
    return trimmed;
  }

  /** emoji requires exactly one RGI emoji of at most 10 code points. */
  emoji(path: string, value: string): string {
    const trimmed = value.trim();
    if (!EMOJI.test(trimmed) || codePoints(trimmed) > 10) this.fail(path, "Expected one emoji");
    return trimmed;
  }

  check(): void {
    if (this.errors.length > 0) throw new ValidationFailed(this.errors);
  }
}

/**
 * cleanName makes a name from elsewhere (an imported bookmark file) pass the name rule rather
 * than refusing it: each run of control characters and line separators becomes one space,
 * bidirectional controls and lone surrogates are dropped. "" when nothing visible is left.
 */
export function cleanName(text: string): string {
  const cleaned = text
    .replace(/[\p{Cc}\u2028\u2029]+/gu, " ")
    .replace(/[\u202A-\u202E\u2066-\u2069\p{Cs}]/gu, "")
    .trim();
  return VISIBLE.test(cleaned) ? cleaned : "";
}

/**
 * isHttpUrl is true for an absolute `http:`/`https:` URL with a host that is safe to redirect to
 * (`parsed`: the value as URL.parse read it already, to read it once).
 */
export function isHttpUrl(value: string, parsed: URL | null = null): boolean {
  if (codePoints(value) > MAX_URL_LENGTH || URL_FORBIDDEN.test(value)) return false;
  // The scheme must be spelled out with `//`: WHATWG would read `http:example.com` as absolute.
  if (!/^https?:\/\//i.test(value)) return false;
  parsed ??= URL.parse(value);
  return parsed !== null && (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== "";
}
