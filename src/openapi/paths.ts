/** Where the versioned JSON API lives, and where its OpenAPI document is served. */

/** The versioned API lives under this prefix. */
export const API_PREFIX = "/api/v1";
/** The OpenAPI document of the whole HTTP surface; public, like the reference page at `/api/docs`. */
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
