/**
 * The versioned JSON API's shared parts: the prefix it lives under, where its OpenAPI document
 * is served, and the answer its writes share.
 */
import { t } from "elysia";

/** The versioned API lives under this prefix. */
export const API_PREFIX = "/api/v1";
/** The OpenAPI document of the whole HTTP surface; public, like the reference page at `/api/docs`. */
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

/** The answer of a write that returns nothing else (PUT, DELETE). */
export const MessageJson = t.Object({ message: t.String() });
