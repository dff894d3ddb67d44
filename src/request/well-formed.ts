import { Elysia } from "elysia";
import { BadRequest } from "../common/errors";

/**
 * wellFormedRequest refuses, before routing, a request whose URL cannot be formed: Bun hands
 * over a bare path when the `Host` header does not parse (`Host: a"b`), and such a request
 * would be routed by the wrong part of it.
 */
export const wellFormedRequest = new Elysia({ name: "linkshelf/well-formed-request" }).onRequest(({ request }) => checkWellFormed(request));

/** checkWellFormed is wellFormedRequest's check, for a handler the server calls outside the app's hooks. */
export function checkWellFormed(request: Request): void {
  if (!URL.canParse(request.url)) throw new BadRequest("The Host header of the request is missing or malformed.");
}
