/**
 * The secrets the server hands out (API tokens, session ids, the setup code) and how they are
 * kept: 32 random bytes, stored only as their SHA-256. Also the rule for a token's name.
 */
import type { Rules } from "./rules";

export const TOKEN_PREFIX = "lks_";

/** hashSecret is the SHA-256 (hex) stored in place of a token or session id. */
export function hashSecret(secret: string): string {
  return new Bun.CryptoHasher("sha256").update(secret).digest("hex");
}

/** randomSecret returns 32 random bytes as base64url. */
export function randomSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** A token's name: 1 to 100 characters, under the rules of every name. */
export const TOKEN_NAME_MAX = 100;

/** checkTokenName applies the name rule to a token name typed on the account page or the CLI; returns it trimmed. */
export function checkTokenName(rules: Rules, typed: string): string {
  return rules.name("/name", typed, 1, TOKEN_NAME_MAX);
}
