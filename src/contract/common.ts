/** The values every part of the API's JSON is built from, and the answer that says only what was done. */
import { Type, type Static, type TSchema, type TTransform, type TransformKind, type TransformOptions } from "@sinclair/typebox";

/** An id in a body: a JSON number holding a whole number (a numeric string is refused). */
export const IdNumber = Type.Number({ multipleOf: 1 });

/**
 * A whole number in a query string: decimal digits only (at most 15, so it is exact as a
 * number), read as a number. `1e2`, `0x10`, `+5`, `5.0`, ` 1` and `` are refused (422 at the
 * parameter's path) rather than read as something the client may not have meant.
 */
export const QueryInteger = decoded(Type
  .Transform(Type.String({ pattern: "^[0-9]{1,15}$", error: "Expected a whole number in decimal digits", examples: ["50"] }))
  .Decode((digits) => Number(digits))
  .Encode((value) => String(value)));

/** A transform whose static type is the decoded value, the one a route is handed. */
export interface TDecoded<I extends TSchema, O> extends TSchema {
  static: O;
  [TransformKind]: TransformOptions<I, O>;
}

/**
 * decoded types a transform as Elysia hands its value to a route: decoded. TypeBox's own
 * `TTransform` types it as sent (Elysia's `t.Transform` retypes it the same way).
 */
function decoded<I extends TSchema, O>(schema: TTransform<I, O>): TDecoded<I, O> {
  return schema as unknown as TDecoded<I, O>;
}

/** An integer in an answer, written as JSON Schema's `integer` (the answers never hold a numeric string). */
export const Int = (options: { description?: string } = {}) => Type.Unsafe<number>({ type: "integer", ...options });

/** A timestamp as the API writes it: ISO 8601 UTC with milliseconds. */
export const Timestamp = Type.String({ format: "date-time", examples: ["2026-11-22T05:52:24.123Z"] });

/** The answer of a write that returns nothing else (`PUT` and `DELETE` of a record, revoking a token). */
export const MessageJson = Type.Object({ message: Type.String() });
export type MessageJson = Static<typeof MessageJson>;
