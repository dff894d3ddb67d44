import type { Db } from "../db/client";
import type { UserRow } from "../db/schema";
import { findTokenUser } from "../shelf/tokens";

/** `Bearer <token>` with one space, the scheme in any case; any other shape is no credential. */
const BEARER = /^bearer (\S+)$/i;

/** userFromAuthorization resolves an `Authorization` header to the token's user. */
export function userFromAuthorization(db: Db, header: string | null, now: number): UserRow | undefined {
  const token = header === null ? undefined : BEARER.exec(header)?.[1];
  return token === undefined ? undefined : findTokenUser(db, token, now);
}
