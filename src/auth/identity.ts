import type { Db } from "../db/client";
import type { UserRow } from "../db/schema";
import { userFromAuthorization } from "./bearer";
import { findSessionUser, SESSION_COOKIE } from "./sessions";

/** sessionIdOf reads the session cookie of a request. */
export function sessionIdOf(request: Request): string | undefined {
  const header = request.headers.get("cookie");
  return header === null ? undefined : new Bun.CookieMap(header).get(SESSION_COOKIE) ?? undefined;
}

/**
 * resolveUser is the one place a request's user is decided outside `/api/v1`: a valid bearer
 * token, else a valid session cookie. A request that sends a bearer token that is not valid
 * has no user (it does not fall back to the cookie). Another scheme (a proxy's Basic
 * credentials, say) is not a token, so the cookie decides.
 */
export function resolveUser(db: Db, request: Request, now: number): UserRow | undefined {
  const authorization = request.headers.get("authorization");
  if (authorization !== null && /^bearer\b/i.test(authorization)) return userFromAuthorization(db, authorization, now);
  const sessionId = sessionIdOf(request);
  return sessionId === undefined ? undefined : findSessionUser(db, sessionId, now);
}
