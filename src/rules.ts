import { ValidationFailed, type FieldError } from "./errors";

const EMOJI = /^\p{RGI_Emoji}$/v;
const MAX_URL_LENGTH = 2048;
/** Whitespace or control characters inside a URL would corrupt a `Location` header. */
const URL_FORBIDDEN = /[\s\p{Cc}]/u;

/** codePoints counts Unicode code points, the contract's unit for every length. */
export function codePoints(value: string): number {
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
  readonly errors: FieldError[] = [];

  fail(path: string, message: string): void {
    this.errors.push({ path, message });
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

/** isHttpUrl is true for an absolute `http:`/`https:` URL with a host that is safe to redirect to. */
export function isHttpUrl(value: string): boolean {
  if (codePoints(value) > MAX_URL_LENGTH || URL_FORBIDDEN.test(value)) return false;
  // The scheme must be spelled out with `//`: WHATWG would read `http:example.com` as absolute.
  if (!/^https?:\/\//i.test(value)) return false;
  const parsed = URL.parse(value);
  return parsed !== null && (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== "";
}
