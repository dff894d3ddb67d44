import { Elysia, type AnyElysia } from "elysia";
import { OPENAPI_PATH } from "../api";
import { docsPage } from "../pages/docs";
import { htmlResponse } from "../pages/html";
import type { OpenApiDocument } from "./document";

export const DOCS_PATH = "/api/docs";

/**
 * openApiRoutes: `GET /api/v1/openapi.json`, the OpenAPI document of `app`, and `GET
 * /api/docs`, a reference page rendered from it on the server (the plugin's own page loads
 * Scalar or Swagger UI from a CDN, which a LAN without internet cannot reach). Both are
 * public and built once, on first use, when every route exists; the generator is evaluated
 * only then, off the server's start-up.
 */
export function openApiRoutes(app: () => AnyElysia) {
  let document: Promise<OpenApiDocument> | undefined;
  const documentOf = () => (document ??= import("./document").then(({ buildDocument }) => buildDocument(app())));
  return new Elysia()
    .get(OPENAPI_PATH, () => documentOf(), { detail: { hide: true } })
    .get(DOCS_PATH, async () => htmlResponse(docsPage(await documentOf(), OPENAPI_PATH)), { detail: { hide: true } });
}
