import type { AppDeps } from "../deps";
import { sessionUser, withRenewedSession } from "../auth/identity";
import { sessionExists } from "../auth/sessions";
import type { UserRow } from "../db/schema";
import { Shelf } from "../shelf/shelf";
import { AppError } from "../errors";
import { isCrossSitePost } from "../request/origin";
import { html, htmlResponse, type PageOptions } from "../pages/html";
import { shell } from "../pages/shell";

/** seeOther is the answer to a successful form (post/redirect/get) and to a missing session. */
export function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}

/** pathAndQuery is the part of a request's URL that `next` may carry back after sign-in. */
function pathAndQuery(request: Request): string {
  const url = new URL(request.url);
  return url.pathname + url.search;
}

/** messageShell: a title and one sentence inside the signed-in shell, for refusals and 404s. */
export function messageShell(user: UserRow | null, title: string, message: string, options: PageOptions = {}): Response {
  return htmlResponse(shell({
    title,
    user,
    content: html`<div class="narrow card"><h1>${title}</h1><p>${message}</p><p><a href="/">Back to your links</a></p></div>`,
  }), options);
}

type Handler = (shelf: Shelf) => Response | Promise<Response>;

/**
 * pageGuard gives the signed-in pages their user's shelf from the session cookie only (`sessionUser`:
 * a bearer token is no session here). A session used in the last half of its life is
 * extended and its cookie re-sent with the page. Without one, a page `303`s to
 * `/login?next=<this page>`. A form `POST` is first checked for a cross-site origin (`403`,
 * nothing runs), and after sign-in goes to `/` (a form cannot be replayed through `next`).
 * A service's NotFound (another user's id included) and Conflict become HTML pages; a
 * validation failure is the page's own business (it shows the form again).
 */
export function pageGuard({ db, config, clock, peerAddress }: Pick<AppDeps, "db" | "config" | "clock" | "peerAddress">) {
  const run = async (request: Request, handler: Handler, next: string): Promise<Response> => {
    const now = clock();
    const who = sessionUser(db, request, now);
    if (!who) return seeOther(`/login?next=${encodeURIComponent(next)}`);
    const { user } = who;
    let response: Response;
    try {
      response = await handler(new Shelf(db, user));
    } catch (error) {
      if (!(error instanceof AppError && (error.status === 404 || error.status === 409))) throw error;
      const title = error.status === 404 ? "Not found" : "Not possible";
      response = messageShell(user, title, error.message, { status: error.status });
    }
    // A form that ended this session (a password change starts a new one) must not send it back.
    if (who.renewed && !sessionExists(db, who.renewed.id)) return response;
    return withRenewedSession(response, request, { config, peerAddress }, who, now);
  };
  return {
    /** page runs a `GET` page for the signed-in user. */
    page: (request: Request, handler: Handler) => run(request, handler, pathAndQuery(request)),
    /** form runs a `POST` for the signed-in user, refusing it when it came from another site. */
    form: (request: Request, handler: Handler) => {
      if (isCrossSitePost(request, { config, peerAddress })) {
        return Promise.resolve(messageShell(null, "Request refused", "This form was sent from another site.", { status: 403 }));
      }
      return run(request, handler, "/");
    },
  };
}

export type PageGuard = ReturnType<typeof pageGuard>;
