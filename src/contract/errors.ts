/** The one error body of the API, `/l/:id` (non-HTML clients) and `/favicon`. */
import { Type, type Static } from "@sinclair/typebox";

/** One violation of a request: a JSON pointer into the body and what is wrong there. */
export const FieldErrorJson = Type.Object({
  path: Type.String({ description: "JSON pointer into the request body, e.g. `/name`." }),
  message: Type.String(),
});
export type FieldErrorJson = Static<typeof FieldErrorJson>;

export const ErrorJson = Type.Object({
  message: Type.String({ description: "A sentence for people." }),
  code: Type.String({ description: "Stable, for programs: UNAUTHORIZED, INVALID_JSON, VALIDATION_FAILED, NOT_FOUND..." }),
  errors: Type.Optional(Type.Array(FieldErrorJson, { description: "On 422 VALIDATION_FAILED: every violation of the request. On every refusal of POST /api/v1/batch: the operation refused (`/operations/3/id`)." })),
});
export type ErrorJson = Static<typeof ErrorJson>;
