import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import type { UserRow } from "../db/schema";
import { Unauthorized } from "../errors";
import { API_PREFIX, clientAddress, OPENAPI_PATH } from "../http";
import { RateLimiter } from "../ratelimit/limiter";
import { pathOf, userFromAuthorization } from "./bearer";
import { renewedSessionCookie, resolveUser } from "./identity";

/** The routes whose requester is decided (and rate-limited) before anything else runs. */
export type GuardedArea = "api" | "redirect" | "favicon";

/** guardedArea tells which guarded area a path belongs to, if any. */
export function guardedArea(path: string): GuardedArea | undefined {
  // The OpenAPI document describes the API and holds no one's data: public, like /api/docs.
  if (path === OPENAPI_PATH) return undefined;
  if (path.startsWith(`${API_PREFIX}/`)) return "api";
  if (path.startsWith("/l/")) return "redirect";
  if (path === "/favicon") return "favicon";
  return undefined;
}

let apps = 0;

/**
 * guards builds, once per app, the plugins that decide who is asking:
 *
 * - `requester` runs on the guarded routes before anything else (before the body is read):
 *   on `/api/v1` a valid bearer token decides the user (anything else is 401), on `/l/:id`
 *   and `/favicon` a token or a session (a session it extends re-sends its cookie). It
 *   counts the request against `user:<id>`, or `ip:<address>` when there is no valid
 *   credential, and sets the RateLimit headers.
 *   Routes read the result as `requester` (null: anonymous).
 * - `apiUser` gives API routes their `user`.
 *
 * Both are named and seeded per app, so every feature can `.use()` them and they still run
 * once per request.
 */
export function guards({ db, config, clock }: AppDeps) {
  const seed = ++apps;
  const requesters = new WeakMap<Request, UserRow | null>();
  const limiter = config.rateLimit ? new RateLimiter(config.rateLimit) : null;

  const requester = new Elysia({ name: "linkshelf/requester", seed })
    .onRequest(({ request, server, set }) => {
      const area = guardedArea(pathOf(request.url));
      if (!area) return;
      const now = clock();
      let user: UserRow | null;
      if (area === "api") {
        user = userFromAuthorization(db, request.headers.get("authorization"), now) ?? null;
      } else {
        const who = resolveUser(db, request, now);
        user = who?.user ?? null;
        // A session extended by this use goes back with the answer, whatever the answer is.
        if (who?.renewed) set.headers["set-cookie"] = renewedSessionCookie(request, config.trustProxy, who.renewed, now);
      }
      requesters.set(request, user);
      if (limiter) {
        const key = user ? `user:${user.id}` : `ip:${clientAddress(request, server, config.trustProxy)}`;
        Object.assign(set.headers, limiter.take(key, now));
      }
      if (area === "api" && !user) throw new Unauthorized();
    })
    .resolve({ as: "scoped" }, ({ request }) => ({ requester: requesters.get(request) ?? null }));

  const apiUser = new Elysia({ name: "linkshelf/api-user", seed })
    .use(requester)
    .resolve({ as: "scoped" }, ({ request }) => {
      const user = requesters.get(request);
      if (!user) throw new Unauthorized();
      return { user };
    });

  return { requester, apiUser, limiter };
}

export type Guards = ReturnType<typeof guards>;
