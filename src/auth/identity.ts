import type { Db } from "../db/client";
import type { UserRow } from "../db/schema";
import type { Network } from "../request/arrival";
import { requestOrigin } from "../request/origin";
import { userFromAuthorization } from "./bearer";
import { SESSION_COOKIE, useSession } from "./sessions";

/** cookieOf reads one cookie of a request. */
export function cookieOf(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  return header === null ? undefined : new Bun.CookieMap(header).get(name) ?? undefined;
}

/** sessionIdOf reads the session cookie of a request. */
export const sessionIdOf = (request: Request): string | undefined => cookieOf(request, SESSION_COOKIE);

/** A session this request extended: the cookie goes back to the browser with the new expiry. */
export interface RenewedSession {
  id: string;
  expiresAt: number;
}

/** Who sent a request, and whether using their session extended it. */
export interface RequestUser {
  user: UserRow;
  renewed?: RenewedSession;
}

/**
 * sessionUser is the user of the request's session cookie, and nothing else: the web pages
 * and the extension handoff are for a browser, so an `Authorization: Bearer` token there is
 * not a session (an API token must not open the pages that mint and revoke tokens).
 */
export function sessionUser(db: Db, request: Request, now: number, renew = true): RequestUser | undefined {
  const id = sessionIdOf(request);
  const use = id === undefined ? undefined : useSession(db, id, now, renew);
  if (!use) return undefined;
  return use.renewedUntil === undefined ? { user: use.user } : { user: use.user, renewed: { id: id!, expiresAt: use.renewedUntil } };
}

/**
 * resolveUser decides the user of `/l/:id` and `/favicon`, which take either credential: a
 * valid bearer token, else a valid session cookie. A request that sends a bearer token that
 * is not valid has no user (it does not fall back to the cookie). Another scheme (a proxy's
 * Basic credentials, say) is not a token, so the cookie decides.
 */
export function resolveUser(db: Db, request: Request, now: number, renew = true): RequestUser | undefined {
  const authorization = request.headers.get("authorization");
  if (authorization !== null && /^bearer\b/i.test(authorization)) {
    const user = userFromAuthorization(db, authorization, now);
    return user ? { user } : undefined;
  }
  return sessionUser(db, request, now, renew);
}

/**
 * renewedSessionCookie is the `Set-Cookie` that re-sends an extended session: the attributes
 * of the sign-in's cookie, with Max-Age and Expires counted to the new expiry.
 */
export function renewedSessionCookie(request: Request, network: Network, renewed: RenewedSession, now: number): string {
  return new Bun.Cookie(SESSION_COOKIE, renewed.id, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: requestOrigin(request, network).scheme === "https",
    maxAge: Math.floor((renewed.expiresAt - now) / 1000),
    expires: new Date(renewed.expiresAt),
  }).serialize();
}

/** withRenewedSession adds the renewed session's cookie to a response, when this request renewed it. */
export function withRenewedSession(response: Response, request: Request, network: Network, who: RequestUser, now: number): Response {
  if (who.renewed) response.headers.append("set-cookie", renewedSessionCookie(request, network, who.renewed, now));
  return response;
}
