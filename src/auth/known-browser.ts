/**
 * The "known browser" cookie. A successful sign-in sets it; a later sign-in to the same account
 * from that browser then skips the account's daily budget of failed sign-ins, which an attacker
 * with many addresses can use up, so the owner is not locked out by it. It is no credential: it
 * opens nothing, and the per-address throttle still counts every attempt it comes with.
 *
 * Its value is `<user id>.<signed at>.<MAC>`, the MAC an HMAC-SHA256 keyed with the account's
 * password hash: only the server can make one (the hash never leaves the database, and no other
 * server secret is kept), it is bound to one account, and a new password forgets every browser
 * the account knew.
 */
import type { UserRow } from "../db/schema";
import { cookieOf } from "./identity";

export const KNOWN_BROWSER_COOKIE = "linkshelf_known";
/** A year: a browser that signed in within the last year is known. */
export const KNOWN_BROWSER_TTL_MS = 365 * 24 * 60 * 60 * 1000;
/** Sent only with the sign-in form, the one place that reads it. */
export const KNOWN_BROWSER_PATH = "/login";

const VALUE_SHAPE = /^([1-9]\d{0,15})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/;

function macOf(user: UserRow, signedAt: number): string {
  return new Bun.CryptoHasher("sha256", user.passwordHash).update(`linkshelf known browser\n${user.id}\n${signedAt}`).digest("base64url");
}

/** knownBrowserValue is the cookie's value for a browser that has just signed in to `user`. */
export function knownBrowserValue(user: UserRow, now: number): string {
  return `${user.id}.${now}.${macOf(user, now)}`;
}

/**
 * isKnownBrowser is true when the request carries a known-browser cookie that the server made
 * for this user, under their current password, within a year of now. (Bun's global
 * `crypto.timingSafeEqual` compares the MACs.)
 */
export function isKnownBrowser(request: Request, user: UserRow, now: number): boolean {
  const value = cookieOf(request, KNOWN_BROWSER_COOKIE);
  const parts = value === undefined ? null : VALUE_SHAPE.exec(value);
  if (!parts || Number(parts[1]) !== user.id) return false;
  const signedAt = Number(parts[2]);
  if (Math.abs(now - signedAt) >= KNOWN_BROWSER_TTL_MS) return false;
  return crypto.timingSafeEqual(Buffer.from(parts[3]!), Buffer.from(macOf(user, signedAt)));
}
