import { AppError, NotFound } from "../common/errors";
import { errorPage } from "../pages/errors";
import { htmlResponse } from "../pages/html";
import type { ErrorPages, FailedRequest, Surface } from "../request/surface";
import type { PageGuard } from "./guard";

/** Titles of error pages by code, where the status alone says too little. */
const TITLES_BY_CODE: Record<string, string> = {
  FORBIDDEN: "Request refused",
  TOO_MANY_ATTEMPTS: "Too many attempts",
  BUSY: "Busy",
  REDIRECT_URI_REFUSED: "Cannot connect the extension",
};
const TITLES_BY_STATUS: Record<number, string> = {
  400: "Bad request", 404: "Not found", 409: "Not possible", 413: "Too large", 429: "Too many requests",
};

/** titleOf is an error page's heading. */
function titleOf(error: AppError): string {
  return TITLES_BY_CODE[error.code] ?? TITLES_BY_STATUS[error.status] ?? "Something went wrong";
}

/**
 * errorPages is the HTML side of the error mapping (src/request/surface.ts), for the `page` surface
 * and for browsers on the `browser` surface. A form's own `invalid` answer comes first (the
 * form again, for a refusal of what was typed); otherwise the one error page, inside the
 * signed-in shell when the page guard let a user in. A renewed session's cookie goes with it.
 */
export function errorPages(guard: PageGuard): ErrorPages {
  const answer = async (failed: FailedRequest, error: AppError, surface: Surface): Promise<Response> => {
    if (surface.invalid) {
      const shown = await surface.invalid(failed, error);
      if (shown instanceof Response) return shown;
      error = shown;
    }
    const user = guard.shelfOf(failed.request)?.viewer() ?? null;
    const signIn = error instanceof NotFound && !user ? error.signIn : undefined;
    const page = errorPage({ title: titleOf(error), message: signIn?.message ?? error.message, user, signIn });
    return htmlResponse(page, { status: error.status, headers: error.headers });
  };
  return async (failed, error, surface) => guard.finish(failed.request, await answer(failed, error, surface));
}
