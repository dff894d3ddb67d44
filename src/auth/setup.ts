import { hashSecret } from "../common/token-secrets";

/** Letters and digits that cannot be mistaken for one another when read from a log. */
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** newSetupCode returns a one-time code like `K7QM-3XWD-PA9R` (60 bits). */
export function newSetupCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  const chars = [...bytes].map((byte) => ALPHABET[byte % ALPHABET.length]);
  return [0, 4, 8].map((start) => chars.slice(start, start + 4).join("")).join("-");
}

/**
 * setupCodeMatches compares in constant time, ignoring case, spaces and dashes. (Bun's global
 * `crypto.timingSafeEqual`: importing node:crypto would load Node's streams at every start, ~2.5 ms.)
 */
export function setupCodeMatches(expected: string, given: string): boolean {
  const normalize = (code: string) => Buffer.from(hashSecret(code.toUpperCase().replace(/[\s-]/g, "")), "hex");
  return crypto.timingSafeEqual(normalize(expected), normalize(given));
}
