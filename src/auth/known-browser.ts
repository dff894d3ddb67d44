/**
 * The "known browser" cookies. A successful sign-in sets one for its account; a later sign-in to
 * that account from that browser then skips the account's daily budget of failed sign-ins, which
 * an attacker with many addresses can use up, so the owner is not locked out by it. They are no
 * credential: they open nothing, and the per-address throttle still counts every attempt they come with.
 *
 * A browser holds one cookie per account that signed in on it, `linkshelf_known_<user id>`, so a
 * household's shared browser stays known to every one of its accounts: a sign-in to one account
 * sets its own cookie and leaves the others' alone (a password change on the account page, where
 * the others are not sent, cannot drop them). At most KNOWN_BROWSER_ACCOUNTS are kept: a sign-in
 * at `/login`, which is sent them all, removes the ones signed longest ago beyond that.
 *
 * Each value is `<user id>.<signed at>.<MAC>`, the MAC an HMAC-SHA256 keyed with the account's
 * password hash: only the server can make one (the hash never leaves the database, and no other
 * server secret is kept), it is bound to one account, and a new password forgets every browser
 * the account knew. Earlier versions set one cookie, `linkshelf_known`, with the same value: it is
 * still honoured, and a sign-in at `/login` moves it to its account's own name.
 */
import type { UserRow } from "../db/schema";

/** The earlier single cookie's name, and the start of every account's own. */
export const KNOWN_BROWSER_COOKIE = "linkshelf_known";
/** A year: a browser that signed in within the last year is known. */
export const KNOWN_BROWSER_TTL_MS = 365 * 24 * 60 * 60 * 1000;
/** Sent only with the sign-in form, the one place that reads them. */
export const KNOWN_BROWSER_PATH = "/login";
/** How many accounts one browser is known to at most: the ones that signed in there most recently. */
export const KNOWN_BROWSER_ACCOUNTS = 10;

const VALUE_SHAPE = /^([1-9]\d{0,15})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/;
const NAME_SHAPE = new RegExp(`^${KNOWN_BROWSER_COOKIE}_([1-9]\\d{0,15})$`);

/** knownBrowserCookie is the cookie name of one account. */
export const knownBrowserCookie = (userId: number): string => `${KNOWN_BROWSER_COOKIE}_${userId}`;

function macOf(user: UserRow, signedAt: number): string {
  return new Bun.CryptoHasher("sha256", user.passwordHash).update(`linkshelf known browser\n${user.id}\n${signedAt}`).digest("base64url");
}

/** A value's parts, or null when it is not shaped as one. */
function partsOf(value: string | undefined): { userId: number; signedAt: number; mac: string } | null {
  const parts = value === undefined ? null : VALUE_SHAPE.exec(value);
  return parts ? { userId: Number(parts[1]), signedAt: Number(parts[2]), mac: parts[3]! } : null;
}

/** The request's known-browser cookies, by name (its own and the earlier single one). */
function knownCookies(request: Request): Map<string, string> {
  const header = request.headers.get("cookie");
  const found = new Map<string, string>();
  if (header === null) return found;
  for (const [name, value] of new Bun.CookieMap(header)) {
    if (name === KNOWN_BROWSER_COOKIE || NAME_SHAPE.test(name)) found.set(name, value);
  }
  return found;
}

/** isValid: a value the server made for this user, under their current password, within a year of now. */
function isValid(value: string | undefined, user: UserRow, now: number): boolean {
  const parts = partsOf(value);
  if (!parts || parts.userId !== user.id) return false;
  if (Math.abs(now - parts.signedAt) >= KNOWN_BROWSER_TTL_MS) return false;
  return crypto.timingSafeEqual(Buffer.from(parts.mac), Buffer.from(macOf(user, parts.signedAt)));
}

/**
 * isKnownBrowser is true when the request carries a known-browser cookie that the server made
 * for this user, under their current password, within a year of now: the account's own cookie,
 * or the earlier single one. (Bun's global `crypto.timingSafeEqual` compares the MACs.)
 */
export function isKnownBrowser(request: Request, user: UserRow, now: number): boolean {
  const known = knownCookies(request);
  return isValid(known.get(knownBrowserCookie(user.id)), user, now) || isValid(known.get(KNOWN_BROWSER_COOKIE), user, now);
}

/** What a sign-in does to a browser's known-browser cookies: values to set (each for a year from its signing), names to remove. */
export interface KnownBrowserChange {
  set: { name: string; value: string; maxAgeSeconds: number }[];
  remove: string[];
}

/**
 * rememberBrowser is what a browser that has just signed in to `user` is told: the account's own
 * cookie, signed now; the earlier single cookie moved to its account's name (unless that account
 * has one of its own); and, beyond KNOWN_BROWSER_ACCOUNTS accounts, the cookies signed longest
 * ago (a malformed one first) removed. Values are not checked here: one that is not valid
 * is refused where it is read.
 */
export function rememberBrowser(request: Request, user: UserRow, now: number): KnownBrowserChange {
  const known = knownCookies(request);
  const own = knownBrowserCookie(user.id);
  const change: KnownBrowserChange = { set: [{ name: own, value: `${user.id}.${now}.${macOf(user, now)}`, maxAgeSeconds: Math.floor(KNOWN_BROWSER_TTL_MS / 1000) }], remove: [] };
  const others = new Map([...known].filter(([name]) => name !== own && name !== KNOWN_BROWSER_COOKIE));
  const earlier = known.get(KNOWN_BROWSER_COOKIE);
  if (earlier !== undefined) {
    change.remove.push(KNOWN_BROWSER_COOKIE);
    const parts = partsOf(earlier);
    const left = parts ? parts.signedAt + KNOWN_BROWSER_TTL_MS - now : 0;
    const name = parts ? knownBrowserCookie(parts.userId) : undefined;
    if (parts && name !== own && !others.has(name!) && left > 1000) {
      change.set.push({ name: name!, value: earlier, maxAgeSeconds: Math.floor(left / 1000) });
      others.set(name!, earlier);
    }
  }
  const byAge = [...others].sort(([, a], [, b]) => (partsOf(a)?.signedAt ?? -1) - (partsOf(b)?.signedAt ?? -1));
  for (const [name] of byAge.slice(0, Math.max(0, byAge.length - (KNOWN_BROWSER_ACCOUNTS - 1)))) {
    const moved = change.set.findIndex((set) => set.name === name);
    if (moved >= 0) change.set.splice(moved, 1);
    else change.remove.push(name);
  }
  return change;
}
