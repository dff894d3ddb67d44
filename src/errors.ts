import { Elysia, t, ValidationError as ElysiaValidationError } from "elysia";
import type { Assert, SameType } from "./api/same-type";
import type * as Api from "./api/types";
import { pathOf } from "./request/path";
import type { UnexpectedErrorLog } from "./log";
import { messagePage } from "./pages/layout";
import { htmlResponse } from "./pages/html";

export const FieldErrorJson = t.Object({
  path: t.String({ description: "JSON pointer into the request body, e.g. `/name`." }),
  message: t.String(),
});
export type FieldError = typeof FieldErrorJson.static;

/** The one error body of the API, `/l/:id` (non-HTML clients) and `/favicon`. */
export const ErrorJson = t.Object({
  message: t.String({ description: "A sentence for people." }),
  code: t.String({ description: "Stable, for programs: UNAUTHORIZED, INVALID_JSON, VALIDATION_FAILED, NOT_FOUND..." }),
  errors: t.Optional(t.Array(FieldErrorJson, { description: "On 422 VALIDATION_FAILED only: every violation of the request." })),
});
export type ErrorBody = typeof ErrorJson.static;

/**
 * The browser extension compiles the plain types of src/api/types.ts, not these schemas: tsc fails
 * here when the two disagree, so a change to one is a change to both.
 */
type _SharedWithTheExtension = [
  Assert<SameType<FieldError, Api.FieldErrorJson>>,
  Assert<SameType<ErrorBody, Api.ErrorJson>>,
];

/** A failure the client caused or must hear about; the one onError below shapes it. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export class NotFound extends AppError {
  constructor(message = "There is nothing here.") {
    super(404, "NOT_FOUND", message);
  }
}

export class ValidationFailed extends AppError {
  constructor(errors: FieldError[]) {
    super(422, "VALIDATION_FAILED", "The request is invalid.", errors);
  }
}

export class Unauthorized extends AppError {
  constructor() {
    super(401, "UNAUTHORIZED", "A valid API token is required.", undefined, { "WWW-Authenticate": "Bearer" });
  }
}

export class Conflict extends AppError {
  constructor(code: string, message: string) {
    super(409, code, message);
  }
}

export class InvalidJson extends AppError {
  constructor(message = "The request body is not valid JSON.") {
    super(400, "INVALID_JSON", message);
  }
}

export class UnsupportedMediaType extends AppError {
  constructor() {
    super(415, "UNSUPPORTED_MEDIA_TYPE", "Send the body as JSON with Content-Type: application/json.");
  }
}

export class PayloadTooLarge extends AppError {
  constructor(limitBytes: number, message = `The request body is larger than ${limitBytes} bytes.`) {
    super(413, "PAYLOAD_TOO_LARGE", message);
  }
}

export class BadRequest extends AppError {
  constructor(message: string) {
    super(400, "BAD_REQUEST", message);
  }
}

export class InvalidUrl extends AppError {
  constructor(message = "The url parameter must be an absolute http or https URL.") {
    super(400, "INVALID_URL", message);
  }
}


/** errorResponse renders the contract's error body. */
export function errorResponse(error: AppError): Response {
  const body: ErrorBody = { message: error.message, code: error.code };
  if (error.errors) body.errors = error.errors;
  return Response.json(body, { status: error.status, headers: error.headers });
}

const INTERNAL_MESSAGE = "Something went wrong on the server.";

/** toAppError maps anything thrown while handling a request to the error the client sees; undefined for the unexpected. */
function toAppError(code: string | number, error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  // Elysia wraps whatever a body parser throws in its own ParseError.
  if (code === "PARSE") return error instanceof Error && error.cause instanceof AppError ? error.cause : new InvalidJson();
  if (error instanceof ElysiaValidationError) return new ValidationFailed(fieldErrors(error));
  if (code === "NOT_FOUND") return new NotFound();
  return undefined;
}

/**
 * fieldErrors gives one error per path: TypeBox reports a missing field of a union type twice
 * ("Expected required property", then "Expected union value"), and the first says it best. A
 * union of literals (visibility) names its allowed values instead of "Expected union value".
 */
function fieldErrors(error: ElysiaValidationError): FieldError[] {
  const messages = new Map<string, string>();
  for (const issue of error.all) {
    if (messages.has(issue.path)) continue;
    const literals = (issue.schema.anyOf as { const?: unknown }[] | undefined)?.map((member) => member.const);
    const allowed = literals?.every((value) => typeof value === "string") ? `Expected ${literals.map((value) => JSON.stringify(value)).join(" or ")}` : undefined;
    // A schema may say in words what it expects (`error`), instead of TypeBox's "Expected string to match '…'".
    const own = typeof issue.schema.error === "string" ? issue.schema.error : undefined;
    // A missing field (value undefined) keeps "Expected required property".
    messages.set(issue.path, issue.value === undefined ? issue.message : (allowed ?? own ?? issue.message));
  }
  return [...messages].map(([path, message]) => ({ path, message }));
}

/**
 * prefersHtml: a browser (Accept naming text/html) on a browser-facing path gets an HTML error
 * page; the API and the favicon proxy always answer JSON.
 */
function prefersHtml(request: Request): boolean {
  const path = pathOf(request.url);
  // The router serves `/favicon/` as `/favicon`.
  if (path.startsWith("/api/") || path === "/favicon" || path === "/favicon/") return false;
  return request.headers.get("accept")?.includes("text/html") ?? false;
}

function errorPage(error: AppError): Response {
  const titles: Record<number, string> = { 400: "Bad request", 404: "Not found", 413: "Too large", 429: "Too many requests" };
  const title = titles[error.status] ?? "Something went wrong";
  return htmlResponse(messagePage(title, error.message), { status: error.status, headers: error.headers });
}

/**
 * wellFormedRequest refuses, before routing, a request whose URL cannot be formed: Bun hands
 * over a bare path when the `Host` header does not parse (`Host: a"b`), and such a request
 * would be routed by the wrong part of it.
 */
export const wellFormedRequest = new Elysia({ name: "linkshelf/well-formed-request" }).onRequest(({ request }) => {
  if (!URL.canParse(request.url)) throw new BadRequest("The Host header of the request is missing or malformed.");
});

/** The answer when even shaping an error failed: fixed, so it cannot fail itself. */
const FALLBACK_BODY = JSON.stringify({ message: INTERNAL_MESSAGE, code: "INTERNAL" });

/**
 * errorHandler is the one place where errors become responses; registered before every route.
 * An unexpected error is reported to `report` and answered 500 INTERNAL. It never throws:
 * should shaping the answer fail, the answer is a fixed 500.
 */
export function errorHandler(report: UnexpectedErrorLog) {
  return new Elysia().onError({ as: "global" }, ({ code, error, request, set }) => {
    try {
      let appError = toAppError(code, error);
      if (!appError) {
        report(request, error);
        appError = new AppError(500, "INTERNAL", INTERNAL_MESSAGE);
      }
      const response = prefersHtml(request) ? errorPage(appError) : errorResponse(appError);
      // Headers set before the failure (the RateLimit ones) belong on the error too.
      for (const [name, value] of Object.entries(set.headers)) {
        if (typeof value === "string" && !response.headers.has(name)) response.headers.set(name, value);
      }
      // The access log reads the status from here.
      set.status = response.status;
      return response;
    } catch (failure) {
      try {
        report(request, failure);
      } catch {
        // Nothing is left to tell; the fixed answer below still goes out.
      }
      set.status = 500;
      return new Response(FALLBACK_BODY, { status: 500, headers: { "content-type": "application/json" } });
    }
  });
}
