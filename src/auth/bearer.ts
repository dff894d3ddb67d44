import { Elysia } from "elysia";
import type { Db } from "../db/client";
import type { UserRow } from "../db/schema";
import { Unauthorized } from "../errors";
import { findTokenUser } from "./tokens";

/** `Bearer <token>`, the scheme in any case. */
const BEARER = /^bearer +(\S+) *$/i;

/** userFromAuthorization resolves an `Authorization` header to the token's user. */
export function userFromAuthorization(db: Db, header: string | null, now: number): UserRow | undefined {
  const token = header === null ? undefined : BEARER.exec(header)?.[1];
  return token === undefined ? undefined : findTokenUser(db, token, now);
}

let instances = 0;

/**
 * bearerAuth guards the routes of the instance that uses it: every request whose path
 * starts with `prefix` needs a valid token. The check runs in onRequest, before the body is
 * parsed, so an unauthenticated client hears 401 whatever it sent.
 */
export function bearerAuth(db: Db, clock: () => number, prefix: string) {
  const users = new WeakMap<Request, UserRow>();
  // Named and seeded per app: every feature can `.use()` it, and it still runs once a request.
  return new Elysia({ name: "linkshelf/bearer", seed: ++instances })
    .onRequest(({ request }) => {
      if (!pathOf(request.url).startsWith(prefix)) return;
      const user = userFromAuthorization(db, request.headers.get("authorization"), clock());
      if (!user) throw new Unauthorized();
      users.set(request, user);
    })
    .resolve({ as: "scoped" }, ({ request }) => {
      const user = users.get(request);
      if (!user) throw new Unauthorized();
      return { user };
    });
}

/** pathOf returns the path of an absolute request URL without building a URL object. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.indexOf("?", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}
