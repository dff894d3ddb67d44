/**
 * The typed errors the shelf, the routes and the services throw, and the JSON error body they
 * are answered with. Plain classes, no framework: the shelf throws them from under every route.
 * What Elysia throws is mapped to them in src/request/elysia-errors.ts.
 */
import type { ErrorJson, FieldErrorJson } from "../contract/errors";

/**
 * A failure the client caused or must hear about. Routes and services throw it and never catch
 * it to translate: the error mapping (src/request/surface.ts) answers it as the route's surface says,
 * JSON with this body or an HTML page.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldErrorJson[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** What the HTML 404 page of an anonymous browser may offer: sign in and come back to `next`. */
export interface SignInOffer {
  /** The page's sentence instead of the error's message (JSON clients still hear the message). */
  message: string;
  /** Why signing in may help. */
  why: string;
  /** The path to come back to after signing in. */
  next: string;
}

export class NotFound extends AppError {
  constructor(message = "There is nothing here.", readonly signIn?: SignInOffer) {
    super(404, "NOT_FOUND", message);
  }
}

/** A form posted from another site (its `Origin`, or `Referer`, is not this server's). */
export class Forbidden extends AppError {
  constructor(message = "This form was sent from another site.") {
    super(403, "FORBIDDEN", message);
  }
}

/** A password or setup-code form, or the extension handoff, over its throttle; `Retry-After` says when to try again. */
export class TooManyAttempts extends AppError {
  constructor(retryAfterSeconds: number, message: string) {
    super(429, "TOO_MANY_ATTEMPTS", message, undefined, { "Retry-After": String(retryAfterSeconds) });
  }
}

/** A link checked less than a minute ago (or being checked): `Retry-After` says when it may be checked again. */
export class CheckedRecently extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, "CHECKED_RECENTLY", "This link was checked less than a minute ago.", undefined, { "Retry-After": String(retryAfterSeconds) });
  }
}

export class ValidationFailed extends AppError {
  constructor(errors: FieldErrorJson[]) {
    super(422, "VALIDATION_FAILED", "The request is invalid.", errors);
  }
}

/**
 * A search that would cost the server too much: a prefix too short, too many prefixes, or a
 * search that ran out of its time. The message says what to narrow; nothing partial is answered.
 */
export class QueryTooBroad extends AppError {
  constructor(message: string) {
    super(422, "QUERY_TOO_BROAD", message);
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

/** An `If-Match` that names none of the item's current ETags: it changed since the client read it. */
export class PreconditionFailed extends AppError {
  constructor() {
    super(412, "PRECONDITION_FAILED", "The item changed since you read it: read it again and reapply your change.");
  }
}

/** An `Idempotency-Key` the client used before with another request (another method, path, query or body). */
export class IdempotencyKeyReused extends AppError {
  constructor() {
    super(422, "IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with another request in the last 24 hours: choose a new key for a new request.");
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

/** The owner's room for something (page copies) would be exceeded: 507, nothing stored. */
export class InsufficientStorage extends AppError {
  constructor(code: string, message: string) {
    super(507, code, message);
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

/** An AppError's parts, as a worker thread sends a refusal back (an Error does not cross threads as itself). */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  errors?: FieldErrorJson[];
}

/** refusalOf is an AppError's parts, for a worker thread's answer. */
export const refusalOf = (error: AppError): Refusal => ({ status: error.status, code: error.code, message: error.message, errors: error.errors });

/** errorOfRefusal is the AppError a worker's refusal stands for, as the routes and pages know it. */
export function errorOfRefusal({ status, code, message, errors }: Refusal): AppError {
  if (code === "VALIDATION_FAILED") return new ValidationFailed(errors ?? []);
  if (code === "QUERY_TOO_BROAD") return new QueryTooBroad(message);
  if (code === "NOT_FOUND") return new NotFound(message);
  return new AppError(status, code, message, errors);
}

/** errorResponse renders the contract's error body: the answer of the JSON surfaces. */
export function errorResponse(error: AppError): Response {
  const body: ErrorJson = { message: error.message, code: error.code };
  if (error.errors) body.errors = error.errors;
  return Response.json(body, { status: error.status, headers: error.headers });
}
