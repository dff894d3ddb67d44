/**
 * What Elysia throws, as the app's typed errors: a body parser's failure, a schema's validation
 * error (one message per field), an unknown route. The error mapping (src/request/surface.ts) answers
 * the result; the typed errors themselves are framework-free (src/common/errors.ts).
 */
import { ValidationError as ElysiaValidationError, type TSchema } from "elysia";
import { Value } from "@sinclair/typebox/value";
import type { FieldErrorJson } from "../contract/errors";
import { AppError, InvalidJson, NotFound, ValidationFailed } from "../common/errors";

/** toAppError maps anything thrown while handling a request to the error the client sees; undefined for the unexpected. */
export function toAppError(code: string | number, error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  // Elysia wraps whatever a body parser throws in its own ParseError.
  if (code === "PARSE") return error instanceof Error && error.cause instanceof AppError ? error.cause : new InvalidJson();
  if (error instanceof ElysiaValidationError) return new ValidationFailed(fieldErrors(error.all));
  if (code === "NOT_FOUND") return new NotFound();
  return undefined;
}

/**
 * fieldErrors gives one error per path: TypeBox reports a missing field of a union type twice
 * ("Expected required property", then "Expected union value"), and the first says it best. A
 * union of literals (visibility) names its allowed values instead of "Expected union value".
 */
function fieldErrors(issues: Iterable<{ path: string; message: string; value: unknown; schema: TSchema }>): FieldErrorJson[] {
  const messages = new Map<string, string>();
  for (const issue of issues) {
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
 * schemaErrors are the violations of `schema` by `value`, worded as a route's validation words
 * them, at paths under `root` (a part of a body checked on its own: one operation of a batch).
 */
export function schemaErrors(schema: TSchema, value: unknown, root: string): FieldErrorJson[] {
  return fieldErrors([...Value.Errors(schema, value)].map((issue) => ({ ...issue, path: root + issue.path })));
}
