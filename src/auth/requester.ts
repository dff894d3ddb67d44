import { Elysia } from "elysia";
import type { Config } from "../common/config";
import type { Db } from "../db/client";
import type { UserRow } from "../db/schema";
import { Unauthorized } from "../common/errors";
import { clientAddress, type Network } from "../request/arrival";
import { RateLimiter } from "../ratelimit/limiter";
import { Shelf } from "../shelf/shelf";
import type { AfterWrite } from "../shelf/types";
import { surfaces, type Declarations, type Surface } from "../request/surface";
import { userFromAuthorization } from "./bearer";
import { renewedSessionCookie, resolveUser } from "./identity";

let apps = 0;

/** The parts of a request's context the requester reads and writes. */
interface Asking {
  request: Request;
  set: { headers: Record<string, string | number> };
}

/** A request's context in a hook: also the route it matched (its path as declared). */
type Routed = Asking & { route: string };

/**
 * guards builds, once per app, what decides who is asking: hooks of the routes that use them,
 * and for `/l/:id` on Bun's router a function the request pipeline calls (src/request/pipeline.ts),
 * so every path the router sends to such a route (`/favicon/`, `/l/1/`) is decided, and no other
 * path is:
 *
 * - `requester` (a hook on `/l/:id`), `requesterOf` (the same, for the pipeline outside
 *   Elysia's hooks) and `visitor` (a hook on `/favicon`): a token or a session decides the user,
 *   else anonymous (null); the route reads the user's shelf as `requester`. `requester` and
 *   `requesterOf` extend a session in the last half of its life; `visitor` never does (see `askerOf`).
 * - `apiUser` (on `/api/v1`): only a valid bearer token decides the user; anything else is
 *   401. A request with a body is decided in the parse step, before the body is read (the app
 *   uses it ahead of the JSON body parser), so a stranger's body is never read; one without a
 *   body before its query is validated. Routes read the user's shelf as `shelf`.
 *
 * On a route whose declaration says it is `limited` (read in `declared`, by the route the
 * request matched), all count the request against `user:<id>`, or `ip:<address>` when there
 * is no valid credential, and set the RateLimit headers; on any other route they count
 * nothing. `limit` does the same for a page (its session's user, or its address). They are
 * named and seeded per app, so every feature can `.use()` them and they still run once per request.
 * The shelves they give tell `capture` (the app's page capture, as the shelf's AfterWrite) of the links they save.
 */
export function guards({ db, config, clock, peerAddress, declared, capture }: Network & { db: Db; config: Pick<Config, "rateLimit" | "trashDays" | "copyQuota">; clock: () => number; declared: Declarations; capture?: AfterWrite }) {
  const seed = ++apps;
  const limiter = config.rateLimit ? new RateLimiter(config.rateLimit) : null;
  /** Users decided in the parse step, read back when the route's context is derived. */
  const apiUsers = new WeakMap<Request, UserRow>();

  /**
   * limit counts a request to a route whose declaration (`surface`) says it is limited against `user:<id>`, or its address
   * without a user, and returns the RateLimit headers of its answer (none elsewhere).
   */
  const limit = (request: Request, surface: Surface, user: UserRow | undefined, now: number): Record<string, string> => {
    if (!limiter || !surface.limited) return {};
    return limiter.take(user ? `user:${user.id}` : `ip:${clientAddress(request, { config, peerAddress })}`, now);
  };
  const count = ({ request, set }: Asking, surface: Surface, user: UserRow | undefined, now: number) => void Object.assign(set.headers, limit(request, surface, user, now));

  const decideApiUser = (context: Routed): UserRow => {
    const now = clock();
    const user = userFromAuthorization(db, context.request.headers.get("authorization"), now);
    count(context, declared.of(context.request.method, context.route), user, now);
    if (!user) throw new Unauthorized();
    apiUsers.set(context.request, user);
    return user;
  };

  /**
   * askerOf decides a token or a session, else anonymous (null), and counts the request,
   * writing the headers of the answer into `set.headers` (RateLimited over the limit).
   * `renew`: a session this use extends re-sends its cookie with the answer, whatever the
   * answer is. `/favicon` does not renew, since its answers are publicly cacheable and must
   * never carry a cookie.
   */
  const askerOf = ({ request, set }: Asking, surface: Surface, renew: boolean): Shelf | null => {
    const now = clock();
    const who = resolveUser(db, request, now, renew);
    if (who?.renewed) set.headers["set-cookie"] = renewedSessionCookie(request, { config, peerAddress }, who.renewed, now);
    count({ request, set }, surface, who?.user, now);
    return who ? new Shelf(db, who.user, capture, config.trashDays, config.copyQuota) : null;
  };
  const asker = (name: string, renew: boolean) => new Elysia({ name, seed })
    .derive({ as: "scoped" }, ({ request, set, route }) => ({ requester: askerOf({ request, set }, declared.of(request.method, route), renew) }));
  const visitor = asker("linkshelf/visitor", false);
  const requester = asker("linkshelf/requester", true);
  /** requesterOf is `requester` for a route outside Elysia's hooks, which names its declaration itself (the redirect on Bun's router). */
  const requesterOf = (asking: Asking, surface: Surface) => askerOf(asking, surface, true);

  // The hooks name the parts of the context they use: Elysia reads a hook's parameters to
  // decide what to prepare, and a whole `context` would make it read every request's body.
  const apiUser = new Elysia({ name: "linkshelf/api-user", seed })
    // Returning nothing hands the body on to the next parser.
    .onParse({ as: "scoped" }, ({ request, set, route }) => void decideApiUser({ request, set, route }))
    .derive({ as: "scoped" }, ({ request, set, route }) => ({ shelf: new Shelf(db, apiUsers.get(request) ?? decideApiUser({ request, set, route }), capture, config.trashDays, config.copyQuota) }));

  /** apiRoutes starts the `/api/v1` routes under `prefix`: route declarations, and the token's shelf as `shelf`. */
  const apiRoutes = <const Prefix extends string>(prefix: Prefix) => new Elysia({ prefix }).use(surfaces).use(apiUser);

  return { requester, requesterOf, visitor, apiUser, apiRoutes, limit };
}

export type Guards = ReturnType<typeof guards>;
