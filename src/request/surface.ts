/**
 * Route declarations and the one error mapping that reads them.
 *
 * Every route says, where it is defined, which surface it belongs to (`surface: {...}`, the
 * macro below): how its errors are answered (`kind`), whether it is rate-limited, who may call
 * it as the OpenAPI document says (or that the document leaves it out), and, for a form, how it
 * shows itself again when what was typed is refused. The declaration is kept in the route's
 * `detail`, so `app.routes` tells it back: the rate limit, the error mapping, the OpenAPI
 * document and the tests read it there, and a route without one fails a test.
 */
import { Elysia, type DocumentDecoration } from "elysia";
import { AppError, errorResponse } from "../common/errors";
import { toAppError } from "./elysia-errors";
import type { UnexpectedErrorLog } from "./log";
import { pathOf } from "./path";

/**
 * How a route answers errors:
 * - `api`: always JSON `{message, code, errors?}` (the API, the favicon proxy, `/healthz`);
 * - `browser`: an HTML page when the client asks for HTML (`Accept` naming text/html), JSON
 *   otherwise (`/l/:id`, the icons; also every path no route serves, and a request refused
 *   before routing on any path but the API's);
 * - `page`: always an HTML page, inside the signed-in shell when a user is signed in.
 */
export type SurfaceKind = "api" | "browser" | "page";

/** Who may call a documented route: anyone, a browser session, a bearer token. */
export type Caller = "anyone" | "session" | "bearer";

/**
 * The parts of a failed request an error page or a form needs. Not the body or the query: a
 * hook that names them makes Elysia read them for every route (a form's fields are read back
 * with `submittedForm`, the query from the URL).
 */
export interface FailedRequest {
  request: Request;
  params: Record<string, string | undefined>;
}

export interface Surface {
  kind: SurfaceKind;
  /**
   * Counted against the rate limit (and answered with the RateLimit headers): the guards that
   * decide who is asking read it here, so it is what decides whether a route is limited.
   */
  limited: boolean;
  /** Who may call it, as the OpenAPI document says; `false` leaves it out of the document. */
  callers: Caller[] | false;
  /**
   * A form's answer to a refusal of what was typed (ValidationFailed, mostly): the form again,
   * with the messages beside the fields. It is asked first about every AppError the route
   * raises, and gives back an error (the same one, or another) to leave it to the error page.
   */
  invalid?: (failed: FailedRequest, error: AppError) => Response | AppError | Promise<Response | AppError>;
}

/** The key of `detail` that holds a route's declaration. */
export const SURFACE_KEY = "x-linkshelf-surface";

/** Shorthands for the common declarations. */
export const API_ROUTE: Surface = { kind: "api", limited: true, callers: ["bearer"] };
export const PAGE_ROUTE: Surface = { kind: "page", limited: false, callers: false };

/**
 * surfaces: the `surface` route option. Every feature's Elysia instance uses it before its
 * routes. A route left out of the OpenAPI document gets `detail.hide`.
 */
export const surfaces = new Elysia({ name: "linkshelf/surfaces" }).macro({
  surface: (declared: Surface) => {
    // An extension field (`x-`) of the operation's detail: Elysia's type names only the standard ones.
    const detail: Record<string, unknown> = declared.callers === false ? { hide: true, [SURFACE_KEY]: declared } : { [SURFACE_KEY]: declared };
    return { detail: detail as DocumentDecoration };
  },
});

/** The part of an `app.routes` entry a declaration is read from. */
export interface DeclaredRoute {
  method: string;
  path: string;
  hooks: { detail?: unknown };
}

/** surfaceOf reads a route's declaration back; undefined when it has none. */
export function surfaceOf(route: { hooks: { detail?: unknown } }): Surface | undefined {
  const detail = route.hooks.detail as Record<string, unknown> | undefined;
  return detail?.[SURFACE_KEY] as Surface | undefined;
}

/** undeclaredRoutes lists `METHOD path` of every route without a declaration (a test keeps it empty). */
export function undeclaredRoutes(routes: readonly DeclaredRoute[]): string[] {
  return routes.filter((route) => !surfaceOf(route)).map((route) => `${route.method} ${route.path}`);
}

/** A path no route serves, and a route without a declaration, answer as a `browser` route. */
const UNDECLARED: Surface = { kind: "browser", limited: false, callers: false };

/** patternOf matches the paths the router sends to a route: `:id` one segment, `/*` the prefix itself or anything under it, a trailing `/` optional. */
function patternOf(path: string): RegExp {
  const body = path.replace(/\/$/, "").split("/").map((part) =>
    part === "*" ? ".*" : part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("/");
  return new RegExp(`^${body.replace(/\/\.\*$/, "(?:/.*)?")}/?$`);
}

/**
 * declarationsOf reads the declarations of an app's routes back, by the route Elysia matched,
 * and by pattern for requests that never reached one (refused before routing, or a method the
 * path does not serve). Read from `routes` on first use, when every route exists.
 */
export function declarationsOf(routes: () => readonly DeclaredRoute[]) {
  let read: { byPath: Map<string, Record<string, Surface>>; byPattern: { pattern: RegExp; surface: Surface }[] } | undefined;
  const declared = () => {
    if (read) return read;
    read = { byPath: new Map(), byPattern: [] };
    for (const route of routes()) {
      const surface = surfaceOf(route);
      if (!surface) continue;
      const methods = read.byPath.get(route.path) ?? {};
      methods[route.method] = surface;
      read.byPath.set(route.path, methods);
      read.byPattern.push({ pattern: patternOf(route.path), surface });
    }
    return read;
  };
  /** of is the declaration of the route Elysia matched (`route`, its path as declared); a HEAD is answered by the GET route. */
  const of = (method: string, route: string): Surface => {
    const methods = declared().byPath.get(route);
    return methods?.[method] ?? methods?.GET ?? methods?.ALL ?? UNDECLARED;
  };
  return {
    of,
    /** find is `of` for a request that reached a route, else the first route whose path matches. */
    find(method: string, route: string | undefined, url: string): Surface {
      if (route) return of(method, route);
      // Refused before any route ran: the API's paths answer as the API, every other as a `browser` route.
      const path = pathOf(url);
      const near = declared().byPattern.find((entry) => entry.pattern.test(path))?.surface;
      return near?.kind === "api" ? near : UNDECLARED;
    },
  };
}

/** The declarations of an app's routes (see declarationsOf). */
export type Declarations = ReturnType<typeof declarationsOf>;

/** What an HTML page of an error is drawn with: given by the page side (src/web/error-pages.ts). */
export type ErrorPages = (failed: FailedRequest, error: AppError, surface: Surface) => Response | Promise<Response>;

export interface ErrorMappingOptions {
  /** Where an unexpected error is reported (with detail; the client hears only 500 INTERNAL). */
  report: UnexpectedErrorLog;
  /** The declarations of the app's routes. */
  declared: Declarations;
  /** The HTML answer of the `page` and `browser` surfaces. */
  pages: ErrorPages;
}

/** The answer when even shaping an error failed: fixed, so it cannot fail itself. */
const FALLBACK_BODY = JSON.stringify({ message: "Something went wrong on the server.", code: "INTERNAL" });

/** Where an error happened: Elysia's error code, and the route it matched; or the surface of a route answering outside Elysia's hooks. */
export interface ErrorPlace {
  code?: string | number;
  route?: string;
  surface?: Surface;
}

/** The one answer to a request that failed: see errorAnswers. */
export type ErrorAnswer = (failed: FailedRequest, error: unknown, place: ErrorPlace, headers: Record<string, unknown>) => Promise<Response>;

/**
 * errorAnswers is the one place where errors become responses: a thrown AppError (or Elysia's
 * own parse, validation and not-found errors) is answered as the surface of the route it
 * happened on says; anything else is reported and answered 500 INTERNAL. Headers set before
 * the failure (`headers`: the RateLimit ones, a renewed session's cookie) go with the answer.
 * It never throws: should shaping the answer fail, the answer is a fixed 500.
 */
export function errorAnswers({ report, declared, pages }: ErrorMappingOptions): ErrorAnswer {
  return async (failed, error, { code = "UNKNOWN", route, surface: given }, headers) => {
    const { request } = failed;
    try {
      let appError = toAppError(code, error);
      if (!appError) {
        report(request, error);
        appError = new AppError(500, "INTERNAL", "Something went wrong on the server.");
      }
      const surface = given ?? declared.find(request.method, route, request.url);
      const html = surface.kind === "page" || (surface.kind === "browser" && (request.headers.get("accept")?.includes("text/html") ?? false));
      return withHeaders(html ? await pages(failed, appError, surface) : errorResponse(appError), headers);
    } catch (failure) {
      try {
        report(request, failure);
      } catch {
        // Nothing is left to tell; the fixed answer below still goes out.
      }
      return new Response(FALLBACK_BODY, { status: 500, headers: { "content-type": "application/json" } });
    }
  };
}

/** withHeaders adds to a response the headers set before it was made (`set.headers`) that it does not set itself. */
export function withHeaders(response: Response, headers: Record<string, unknown>): Response {
  for (const name in headers) {
    const value = headers[name];
    if (typeof value === "string" && !response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
}

/** errorMapping answers, with `answer`, every error of every route; registered before every route. */
export function errorMapping(answer: ErrorAnswer) {
  // The hook names the parts of the context it reads: Elysia prepares only those for each request.
  return new Elysia({ name: "linkshelf/error-mapping" }).onError({ as: "global" }, async ({ code, error, request, set, route, params }) => {
    // Elysia adds `set.headers` (the RateLimit ones, a renewed session's cookie) to whatever this hook answers: given here too, a cookie would go twice.
    const response = await answer({ request, params: params ?? {} }, error, { code, route }, {});
    // The access log reads the status from here.
    set.status = response.status;
    return response;
  });
}
