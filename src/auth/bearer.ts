import type { Db } from "../db/client";
import type { UserRow } from "../db/schema";
import { findTokenUser } from "../shelf/tokens";

/** `Bearer <token>` with one space, the scheme in any case; any other shape is no credential. */
const BEARER = /^bearer (\S+)$/i;

/** presentedToken is the token of an `Authorization` header, undefined when it holds none. */
export function presentedToken(header: string | null): string | undefined {
  return header === null ? undefined : BEARER.exec(header)?.[1];
}

/** userFromAuthorization resolves an `Authorization` header to the token's user. */
export function userFromAuthorization(db: Db, header: string | null, now: number): UserRow | undefined {
  const token = presentedToken(header);
  return token === undefined ? undefined : findTokenUser(db, token, now);
}
