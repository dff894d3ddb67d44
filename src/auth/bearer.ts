import type { Db } from "../db/client";
import type { UserRow } from "../db/schema";
import { findTokenUser } from "./tokens";

/** `Bearer <token>` with one space, the scheme in any case; any other shape is no credential. */
const BEARER = /^bearer (\S+)$/i;

/** userFromAuthorization resolves an `Authorization` header to the token's user. */
export function userFromAuthorization(db: Db, header: string | null, now: number): UserRow | undefined {
  const token = header === null ? undefined : BEARER.exec(header)?.[1];
  return token === undefined ? undefined : findTokenUser(db, token, now);
}

/** pathOf returns the path of an absolute request URL without building a URL object. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.indexOf("?", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}
