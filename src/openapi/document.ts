import { toOpenAPISchema, unwrapSchema } from "@elysiajs/openapi/openapi";
import type { AnyElysia, AnySchema, DocumentDecoration } from "elysia";
import pkg from "../../package.json" with { type: "json" };
import { SURFACE_KEY, surfaceOf, type Caller } from "../request/surface";
import { keyedWrite } from "./describe";

export type Operation = DocumentDecoration & { operationId?: string };

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string; description: string }> };
}

const TAGS = [
  { name: "links", description: "Bookmarked links. Every /api/v1 route needs Authorization: Bearer <token>." },
  { name: "search", description: "Full-text search of your links and the saved text of their pages." },
  { name: "copies", description: "Page copies: one self-contained HTML file per link, kept by the browser extension of the page as it was shown, served so that it can do no harm." },
  { name: "health", description: "Dead links found before you click them: the link checker's findings, checking one now, ignoring one." },
  { name: "collections", description: "Collections of links; every user has an Inbox that cannot be deleted." },
  { name: "imports", description: "The record of your imports of bookmark files, and undoing one." },
  { name: "trash", description: "Deleted links and collections, kept for LINKSHELF_TRASH_DAYS: list, restore as they were, or empty." },
  { name: "batch", description: "Many writes of collections and links in one request and one transaction, all or none (a sync client's one write)." },
  { name: "changes", description: "The change feed: every link and collection changed since a cursor, as it is now (a sync client's one read)." },
  { name: "tokens", description: "The API token a request presents: revoking it (a client's sign-out)." },
  { name: "redirect", description: "Opening a link through the service counts its clicks." },
  { name: "favicon", description: "Site icons, fetched by the server so clients never contact third parties." },
  { name: "extension", description: "The browser extension's token handoff." },
  { name: "public", description: "PUBLIC collections for anyone: a read-only page and an Atom feed. A private collection answers like an unknown id." },
  { name: "service", description: "Health of the running service." },
  { name: "assets", description: "The site's icons and the web app manifest (home screen and share sheet on phones). Public, not rate-limited." },
];

/** `/api/v1/links/` and `/l/:id` as OpenAPI writes paths: `/api/v1/links`, `/l/{id}`. */
export function openApiPath(routePath: string): string {
  const trimmed = routePath.length > 1 ? routePath.replace(/\/$/, "") : routePath;
  return trimmed.replace(/:([^/]+)/g, "{$1}");
}

/** convertResponses turns the `t` schemas of a route's documented responses into OpenAPI's JSON Schema. */
function convertResponses(responses: Operation["responses"]): Operation["responses"] {
  if (!responses) return responses;
  return Object.fromEntries(Object.entries(responses).map(([status, response]) => {
    if (!("content" in response) || !response.content) return [status, response];
    const content = Object.fromEntries(Object.entries(response.content).map(([type, media]) =>
      [type, media.schema ? { ...media, schema: unwrapSchema(media.schema as AnySchema, undefined, "output") } : media]));
    return [status, { ...response, content }];
  }));
}

/** The security requirement of each kind of caller a route declares. */
const SECURITY: Record<Caller, Record<string, string[]>> = { anyone: {}, session: { sessionCookie: [] }, bearer: { bearerToken: [] } };

/**
 * buildDocument is the OpenAPI 3.1 document of an app, generated from its routes by the
 * Elysia OpenAPI plugin's generator (paths, path parameters, operation ids, each route's
 * `detail`), then completed where the generator cannot see: request bodies (it drops the
 * schema of a route whose body is read by a custom parser, as the ones in src/request/ are), response
 * schemas (written with `t` in `detail`, converted here by the plugin's own converter:
 * literal unions become enums, `T | null` becomes `type: [T, "null"]`), the path `id` (a
 * positive integer, 404 otherwise), prefix routes written without their trailing slash,
 * and who may call each route (from its declaration, src/request/surface.ts).
 */
export function buildDocument(app: AnyElysia): OpenApiDocument {
  // staticFile: false, or the generator would drop every path with a dot (/favicon.ico, the icons, the manifest).
  // Routes declared with `callers: false` are hidden (`detail.hide`), so the generator leaves them out.
  const generated = toOpenAPISchema(app, { staticFile: false });
  const bodies = new Map<string, AnySchema>();
  const security = new Map<string, Operation["security"]>();
  for (const route of app.routes) {
    const key = `${route.method.toLowerCase()} ${openApiPath(route.path)}`;
    const body = route.hooks.body as AnySchema | undefined;
    if (body) bodies.set(key, body);
    const callers = surfaceOf(route)?.callers;
    if (callers) security.set(key, callers.map((caller) => SECURITY[caller]));
  }

  const paths: OpenApiDocument["paths"] = {};
  for (const [rawPath, item] of Object.entries(generated.paths)) {
    const path = openApiPath(rawPath);
    for (const [method, generated] of Object.entries(item as Record<string, Operation>)) {
      // Every API write takes an Idempotency-Key.
      const generatedOperation = path.startsWith("/api/v1/") && ["post", "put", "patch", "delete"].includes(method) ? { ...generated, ...keyedWrite(generated) } : generated;
      const operation: Operation = { ...generatedOperation, responses: convertResponses(generatedOperation.responses), security: security.get(`${method} ${path}`) ?? [{}] };
      delete (operation as Record<string, unknown>)[SURFACE_KEY];
      const body = bodies.get(`${method} ${path}`);
      if (body) operation.requestBody = { required: true, content: { "application/json": { schema: unwrapSchema(body) } } };
      else delete operation.requestBody;
      operation.parameters = operation.parameters?.map((parameter) =>
        "in" in parameter && parameter.in === "path"
          ? { ...parameter, description: "A positive integer; anything else is 404.", schema: { type: "integer", minimum: 1 } }
          : parameter);
      (paths[path] ??= {})[method] = operation;
    }
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "linkshelf",
      version: pkg.version,
      description: "A self-hosted bookmark store. Errors are {message, code, errors?}; lengths count Unicode code points after trimming.",
    },
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        bearerToken: { type: "http", scheme: "bearer", description: "An API token (lks_...), from `linkshelf token create` or the extension handoff." },
        sessionCookie: { type: "apiKey", in: "cookie", name: "linkshelf_session", description: "The browser session of /login." },
      },
    },
  };
}
