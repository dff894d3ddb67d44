import type { Config } from "../common/config";
import { sessionUser, withRenewedSession, type RequestUser } from "../auth/identity";
import { sessionExists } from "../auth/sessions";
import { Shelf, type ShelfDb } from "../shelf/shelf";
import type { AfterWrite } from "../shelf/types";
import type { Network } from "../request/arrival";
import { refuseCrossSite, toSignIn } from "../request/origin";
import type { Surface } from "../request/surface";

/** pathAndQuery is the part of a request's URL that `next` may carry back after sign-in. */
function pathAndQuery(request: Request): string {
  const url = new URL(request.url);
  return url.pathname + url.search;
}

type Handler = (shelf: Shelf) => Response | Promise<Response>;

/** A signed-in request: its shelf, its session as it was found (renewed or not), and the RateLimit headers of a limited page. */
interface SignedIn {
  shelf: Shelf;
  who: RequestUser;
  now: number;
  limit?: Record<string, string>;
}

/**
 * Counts a request to a route declared limited against the rate limit of its user (the
 * API's), or of its address without one: the RateLimit headers of its answer (none on a route
 * not declared limited); RateLimited over the limit.
 */
export type LimitRequest = (request: Request, declared: Surface, user: RequestUser["user"] | undefined, now: number) => Record<string, string>;

/**
 * pageGuard gives the signed-in pages their user's shelf from the session cookie only (`sessionUser`:
 * a bearer token is no session here). A session used in the last half of its life is
 * extended and its cookie re-sent with the page, error pages included. Without one, a page
 * `303`s to `/login?next=<this page>`. A form `POST` is first checked for a cross-site origin
 * (Forbidden, nothing runs), and after sign-in goes to `/` (a form cannot be replayed through
 * `next`). Errors are not caught here: they reach the error mapping, whose page side asks
 * `shelfOf` for the signed-in user (the error page is drawn in their shell) and `finish` for
 * the renewed cookie. A page that hands over its declaration is limited when it says so (the
 * search, which runs costly work): it counts against its user's rate limit, the API's (its
 * address's, on its way to sign in), and its answer (an error page too) carries the RateLimit headers. Its shelves tell `capture` (the app's page capture, as the shelf's AfterWrite) of the links they save.
 */
export function pageGuard({ db, config, clock, peerAddress, capture }: Network & { db: ShelfDb; config: Pick<Config, "trashDays" | "copyQuota">; clock: () => number; capture?: AfterWrite }, limit: LimitRequest) {
  const network = { config, peerAddress };
  const signedIn = new WeakMap<Request, SignedIn>();

  /**
   * finish adds a limited page's RateLimit headers to its answer, and re-sends a renewed
   * session's cookie with it, unless the form ended that session (a password change starts a new one).
   */
  const finish = (request: Request, response: Response): Response => {
    const found = signedIn.get(request);
    for (const [name, value] of Object.entries(found?.limit ?? {})) {
      if (!response.headers.has(name)) response.headers.set(name, value);
    }
    if (!found?.who.renewed || !sessionExists(db, found.who.renewed.id)) return response;
    return withRenewedSession(response, request, network, found.who, found.now);
  };

  const run = async (request: Request, handler: Handler, next: string, declared?: Surface): Promise<Response> => {
    const now = clock();
    const who = sessionUser(db, request, now);
    if (!who) {
      const headers = declared ? limit(request, declared, undefined, now) : {};
      const signIn = toSignIn(next);
      for (const [name, value] of Object.entries(headers)) signIn.headers.set(name, value);
      return signIn;
    }
    const shelf = new Shelf(db, who.user, capture, config.trashDays, config.copyQuota);
    const found: SignedIn = { shelf, who, now };
    signedIn.set(request, found);
    if (declared) found.limit = limit(request, declared, who.user, now);
    return finish(request, await handler(shelf));
  };
  return {
    /** page runs a `GET` page for the signed-in user; given the route's declaration, counted against the user's rate limit when it says so. */
    page: (request: Request, handler: Handler, declared?: Surface) => run(request, handler, pathAndQuery(request), declared),
    /** form runs a `POST` for the signed-in user, refusing it when it came from another site. */
    form: (request: Request, handler: Handler) => {
      refuseCrossSite(request, network);
      return run(request, handler, "/");
    },
    /** shelfOf is the shelf of a request the guard let in; undefined before (or without) a session. */
    shelfOf: (request: Request): Shelf | undefined => signedIn.get(request)?.shelf,
    finish,
  };
}

export type PageGuard = ReturnType<typeof pageGuard>;
