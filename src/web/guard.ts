import type { AppDeps } from "../deps";
import { sessionUser, withRenewedSession, type RequestUser } from "../auth/identity";
import { sessionExists } from "../auth/sessions";
import { Shelf } from "../shelf/shelf";
import { refuseCrossSite, toSignIn } from "../request/origin";

/** pathAndQuery is the part of a request's URL that `next` may carry back after sign-in. */
function pathAndQuery(request: Request): string {
  const url = new URL(request.url);
  return url.pathname + url.search;
}

type Handler = (shelf: Shelf) => Response | Promise<Response>;

/** A signed-in request: its shelf, and its session as it was found (renewed or not). */
interface SignedIn {
  shelf: Shelf;
  who: RequestUser;
  now: number;
}

/**
 * pageGuard gives the signed-in pages their user's shelf from the session cookie only (`sessionUser`:
 * a bearer token is no session here). A session used in the last half of its life is
 * extended and its cookie re-sent with the page, error pages included. Without one, a page
 * `303`s to `/login?next=<this page>`. A form `POST` is first checked for a cross-site origin
 * (Forbidden, nothing runs), and after sign-in goes to `/` (a form cannot be replayed through
 * `next`). Errors are not caught here: they reach the error mapping, whose page side asks
 * `shelfOf` for the signed-in user (the error page is drawn in their shell) and `finish` for
 * the renewed cookie.
 */
export function pageGuard({ db, config, clock, peerAddress }: Pick<AppDeps, "db" | "config" | "clock" | "peerAddress">) {
  const network = { config, peerAddress };
  const signedIn = new WeakMap<Request, SignedIn>();

  /** finish re-sends a renewed session's cookie with the answer, unless the form ended that session (a password change starts a new one). */
  const finish = (request: Request, response: Response): Response => {
    const found = signedIn.get(request);
    if (!found?.who.renewed || !sessionExists(db, found.who.renewed.id)) return response;
    return withRenewedSession(response, request, network, found.who, found.now);
  };

  const run = async (request: Request, handler: Handler, next: string): Promise<Response> => {
    const now = clock();
    const who = sessionUser(db, request, now);
    if (!who) return toSignIn(next);
    const shelf = new Shelf(db, who.user);
    signedIn.set(request, { shelf, who, now });
    return finish(request, await handler(shelf));
  };
  return {
    /** page runs a `GET` page for the signed-in user. */
    page: (request: Request, handler: Handler) => run(request, handler, pathAndQuery(request)),
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
