import { Elysia, type AnyElysia } from "elysia";
import { OPENAPI_PATH } from "../openapi/paths";
import { docsPage } from "../pages/docs";
import { htmlResponse } from "../pages/html";
import { surfaces, type Surface } from "../request/surface";
import type { OpenApiDocument } from "../openapi/document";

export const DOCS_PATH = "/api/docs";

/** The document and its page describe the others: public, not limited, not in the document themselves; errors as the API's. */
const DOCUMENTATION: Surface = { kind: "api", limited: false, callers: false };

/**
 * openApiRoutes: `GET /api/v1/openapi.json`, the OpenAPI document of `app`, and `GET
 * /api/docs`, a reference page rendered from it on the server (the plugin's own page loads
 * Scalar or Swagger UI from a CDN, which a LAN without internet cannot reach). Both are
 * public and built once, on first use, when every route exists; the generator is evaluated
 * only then, off the server's start-up.
 */
export function openApiRoutes(app: () => AnyElysia) {
  let document: Promise<OpenApiDocument> | undefined;
  const documentOf = () => (document ??= import("../openapi/document").then(({ buildDocument }) => buildDocument(app())));
  return new Elysia()
    .use(surfaces)
    .get(OPENAPI_PATH, () => documentOf(), { surface: DOCUMENTATION })
    .get(DOCS_PATH, async () => htmlResponse(docsPage(await documentOf(), OPENAPI_PATH)), { surface: DOCUMENTATION });
}
