/**
 * The OpenAPI document (`GET /api/v1/openapi.json`) and the reference page (`GET /api/docs`):
 * every route the app serves (enumerated from `app.routes`, so routes added later are checked
 * too) is in the document with a summary, its request body and its responses; the documented
 * JSON schemas match, exactly, the bodies the routes really send; the page renders without
 * fetching anything from anywhere.
 */
import { describe, expect, it } from "bun:test";
import { openApiPath } from "../../src/openapi/document";
import type { Schema } from "../../src/pages/docs";
import { surfaceOf } from "../../src/request/surface";
import { pageGuard } from "../../src/web/guard";
import { webPages } from "../../src/web/pages";
import { SignInThrottle } from "../../src/auth/throttle";
import { ISO, createCollection, createLink, createUser, del, get, inboxOf, makeEnv, post, put, request, type ApiResponse } from "../support/helpers";

// The catch-alls under /api/v1 and /api only turn unknown API paths into 401 (no token) or 404: nothing to document.
const HIDDEN = ["GET /api/v1/openapi.json", "GET /api/docs", "ALL /api/v1/*", "ALL /api/*"];



/**
 * mismatches checks a value against a documented schema, strictly: no property the schema
 * does not name, every required one present, JSON types exact (an integer is an integer), a
 * date-time in the contract's format. Returns where it differs (empty: it matches).
 */
function mismatches(schema: Schema, value: unknown, at = ""): string[] {
  if (schema.anyOf) return schema.anyOf.some((option) => mismatches(option, value, at).length === 0) ? [] : [`${at}: matches no option`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} not in enum`];
  if (schema.const !== undefined && schema.const !== value) return [`${at}: expected ${JSON.stringify(schema.const)}`];
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const actual = value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value;
  if (types.length && !types.includes(actual) && !(actual === "integer" && types.includes("number"))) return [`${at}: ${actual}, expected ${types.join("|")}`];
  if (schema.format === "date-time" && typeof value === "string" && !ISO.test(value)) return [`${at}: ${value} is not an ISO timestamp`];
  if (Array.isArray(value)) return schema.items ? value.flatMap((item, i) => mismatches(schema.items!, item, `${at}/${i}`)) : [];
  if (actual === "object") {
    const object = value as Record<string, unknown>;
    const properties = schema.properties ?? {};
    // A map (`refs`): every value of the one schema its keys share.
    const values = schema.additionalProperties ?? Object.values(schema.patternProperties ?? {})[0];
    if (values && typeof values === "object" && !schema.properties) return Object.entries(object).flatMap(([key, child]) => mismatches(values, child, `${at}/${key}`));
    return [
      ...Object.keys(object).filter((key) => !(key in properties)).map((key) => `${at}/${key}: not documented`),
      ...(schema.required ?? []).filter((key) => !(key in object)).map((key) => `${at}/${key}: required but missing`),
      ...Object.entries(object).flatMap(([key, child]) => (properties[key] ? mismatches(properties[key], child, `${at}/${key}`) : [])),
    ];
  }
  return [];
}

async function documentOf(env = makeEnv()) {
  const response = await get(env, "/api/v1/openapi.json");
  expect(response.status).toBe(200);
  return response.body;
}

/** webPageRoutes lists `METHOD path` of every signed-in web page, from the pages' own plugin. */
function webPageRoutes(env: ReturnType<typeof makeEnv>): string[] {
  const deps = { db: env.db, config: env.config, clock: () => env.clock.now };
  return webPages(deps, pageGuard(deps, () => ({})), new SignInThrottle()).routes.map((route) => `${route.method} ${route.path}`);
}

/** The routes the app serves that declare who may call them (the others declare `callers: false`: left out of the document). */
function servedRoutes(env: ReturnType<typeof makeEnv>) {
  return env.app.routes
    .filter((route) => surfaceOf(route)?.callers)
    .map((route) => ({ route, method: route.method.toLowerCase(), path: openApiPath(route.path) }));
}

describe("GET /api/v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document, public (no token, not rate-limited) and JSON", async () => {
    // Three answers under a limit of 2: the document does not count, the two refusals below do.
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "2/60" });
    const variants: Record<string, string>[] = [{}, { authorization: "Bearer nonsense" }, {}];
    for (const headers of variants) {
      const response = await get(env, "/api/v1/openapi.json", { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(response.headers.get("ratelimit-limit")).toBeNull();
      expect(response.body.openapi).toMatch(/^3\.1\./);
      expect(response.body.info.title).toBe("linkshelf");
    }
    // The rest of the API still wants a token.
    expect((await get(env, "/api/v1/collections")).status).toBe(401);
    expect((await get(env, "/api/v1/openapi.jsonx")).status).toBe(401);
  });

  it("documents every route the app serves, apart from the sign-in pages and the docs themselves", async () => {
    const env = makeEnv();
    const document = await documentOf(env);
    const routes = servedRoutes(env);
    const expected = [
      "get /healthz", "get /api/v1/links/favorites", "post /api/v1/links", "put /api/v1/links/{id}", "delete /api/v1/links/{id}",
      "get /api/v1/collections", "post /api/v1/collections", "put /api/v1/collections/{id}", "delete /api/v1/collections/{id}",
      "get /l/{id}", "head /l/{id}", "get /extension/authorize", "post /extension/authorize", "get /favicon",
      "get /favicon.ico", "get /icon.svg", "get /icons/icon-180.png", "get /icons/icon-192.png", "get /icons/icon-512.png", "get /manifest.webmanifest",
    ];
    expect(routes.map(({ method, path }) => `${method} ${path}`)).toEqual(expect.arrayContaining(expected));
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method} ${path}`));
    expect(documented.sort()).toEqual(routes.map(({ method, path }) => `${method} ${path}`).sort());
    // Only the sign-in pages, the signed-in pages, the API's catch-all and the two docs routes are left out, nothing else.
    const left = env.app.routes.filter((route) => !routes.some((r) => r.route === route)).map((route) => `${route.method} ${route.path}`);
    const webPages = webPageRoutes(env);
    expect(webPages).toContain("GET /");
    expect(left.sort()).toEqual(["GET /login", "POST /login", "POST /logout", "GET /setup", "POST /setup", ...webPages, ...HIDDEN].sort());
  });

  it("gives every route a summary, a tag, its path parameters, its request body and its responses", async () => {
    const env = makeEnv();
    const document = await documentOf(env);
    const tags = document.tags.map((tag: { name: string }) => tag.name);
    for (const { route, method, path } of servedRoutes(env)) {
      const where = `${method} ${path}`;
      const operation = document.paths[path][method];
      expect({ where, summary: typeof operation.summary === "string" && operation.summary.length > 0 }).toEqual({ where, summary: true });
      expect({ where, tagged: operation.tags?.length === 1 && tags.includes(operation.tags[0]) }).toEqual({ where, tagged: true });
      expect({ where, operationId: typeof operation.operationId }).toEqual({ where, operationId: "string" });

      const pathParameters = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect({ where, parameters: (operation.parameters ?? []).filter((p: { in: string }) => p.in === "path").map((p: { name: string }) => p.name) })
        .toEqual({ where, parameters: pathParameters });

      const body = route.hooks.body as { properties: Record<string, unknown>; required?: string[] } | undefined;
      if (body) {
        const schema = operation.requestBody?.content?.["application/json"]?.schema;
        expect({ where, media: Object.keys(operation.requestBody?.content ?? {}) }).toEqual({ where, media: ["application/json"] });
        expect({ where, required: operation.requestBody.required }).toEqual({ where, required: true });
        expect({ where, properties: Object.keys(schema?.properties ?? {}).sort() }).toEqual({ where, properties: Object.keys(body.properties).sort() });
        expect({ where, required: [...(schema?.required ?? [])].sort() }).toEqual({ where, required: [...(body.required ?? [])].sort() });
      } else {
        expect({ where, requestBody: operation.requestBody }).toEqual({ where, requestBody: undefined });
      }

      const statuses = Object.keys(operation.responses ?? {});
      expect({ where, success: statuses.some((status) => /^[23]/.test(status)) }).toEqual({ where, success: true });
      for (const [status, response] of Object.entries(operation.responses as Record<string, { description: string; content?: Record<string, { schema?: Schema }> }>)) {
        expect({ where, status, described: response.description.length > 0 }).toEqual({ where, status, described: true });
        const json = response.content?.["application/json"];
        if (json) expect({ where, status, schema: typeof json.schema?.type }).toEqual({ where, status, schema: "string" });
      }
      if (path.startsWith("/api/v1/")) {
        expect({ where, security: operation.security }).toEqual({ where, security: [{ bearerToken: [] }] });
        for (const status of ["401", "429"]) expect({ where, has: statuses.includes(status) }).toEqual({ where, has: true });
        if (body) for (const status of ["400", "413", "415", "422"]) expect({ where, status, has: statuses.includes(status) }).toEqual({ where, status, has: true });
        if (path.includes("{id}")) expect({ where, has404: statuses.includes("404") }).toEqual({ where, has404: true });
        const success = statuses.find((status) => status.startsWith("2"))!;
        // The one answer of the API that is a file, not JSON: a page copy.
        const media = where === "get /api/v1/links/{id}/copy" ? ["text/html"] : ["application/json"];
        expect({ where, json: Object.keys(operation.responses[success].content ?? {}) }).toEqual({ where, json: media });
      }
    }
  });

  it("documents the Idempotency-Key of every API write, and on no read", async () => {
    const document = await documentOf();
    let writes = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item as Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, { description: string }> }>)) {
        const keyed = (operation.parameters ?? []).some((parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key");
        const write = path.startsWith("/api/v1/") && method !== "get";
        expect({ route: `${method} ${path}`, keyed }).toEqual({ route: `${method} ${path}`, keyed: write });
        if (!write) continue;
        writes++;
        expect(operation.responses["400"]!.description).toContain("INVALID_IDEMPOTENCY_KEY");
        expect(operation.responses["409"]!.description).toContain("IDEMPOTENCY_KEY_IN_USE");
        expect(operation.responses["422"]!.description).toContain("IDEMPOTENCY_KEY_REUSED");
      }
    }
    expect(writes).toBeGreaterThan(15);
  });

  it("describes the bodies exactly as the routes send them, successes and errors alike", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "60/60" });
    const document = await documentOf(env);
    const alice = await createUser(env);
    const inbox = await inboxOf(env, alice);
    const before = (await get(env, "/api/v1/changes/cursor", { token: alice.token })).body.cursor as string;
    const reading = await createCollection(env, alice, { name: "Reading", description: "Long reads", icon: "🇫🇷", visibility: "PUBLIC" });
    const link = await createLink(env, alice, { favorite: true, collectionIds: [reading.id, inbox] });
    expect((await get(env, `/l/${link.id}`, { token: alice.token })).status).toBe(302);
    const token = alice.token;
    const linkBody = { name: "X", url: "https://example.com/", favorite: true, collectionIds: [] };

    const exchanges: [string, string, () => Promise<ApiResponse>][] = [
      ["get", "/healthz", () => get(env, "/healthz")],
      ["get", "/api/v1/collections", () => get(env, "/api/v1/collections", { token })],
      ["get", "/api/v1/links/favorites", () => get(env, "/api/v1/links/favorites", { token })],
      ["post", "/api/v1/links", () => post(env, "/api/v1/links", { token, body: linkBody })],
      ["post", "/api/v1/links", () => post(env, "/api/v1/links", { token, body: { ...linkBody, name: "" } })],
      ["post", "/api/v1/links", () => post(env, "/api/v1/links", { token, body: "{", headers: { "content-type": "application/json" } })],
      ["post", "/api/v1/links", () => post(env, "/api/v1/links", { token, body: "x", headers: { "content-type": "text/plain" } })],
      ["post", "/api/v1/links", () => post(env, "/api/v1/links", { body: linkBody })],
      ["put", "/api/v1/links/{id}", () => put(env, `/api/v1/links/${link.id}`, { token, body: { ...linkBody, collectionIds: [reading.id] } })],
      ["put", "/api/v1/links/{id}", () => put(env, "/api/v1/links/999999", { token, body: linkBody })],
      ["post", "/api/v1/collections", () => post(env, "/api/v1/collections", { token, body: { name: "New", visibility: "PRIVATE" } })],
      ["put", "/api/v1/collections/{id}", () => put(env, `/api/v1/collections/${reading.id}`, { token, body: { name: "Renamed", visibility: "PRIVATE", description: null } })],
      ["put", "/api/v1/links/{id}/content", () => put(env, `/api/v1/links/${link.id}/content`, { token, body: { text: "Quokkas 😀 are happy", title: "Q" } })],
      ["put", "/api/v1/links/{id}/content", () => put(env, `/api/v1/links/${link.id}/content`, { token, body: { text: "x", lang: "not a tag" } })],
      ["put", "/api/v1/links/{id}/content", () => put(env, `/api/v1/links/${link.id}/content`, { token, body: JSON.stringify({ text: "x".repeat(2 * 1024 * 1024) }), headers: { "content-type": "application/json" } })],
      ["get", "/api/v1/links/{id}/content", () => get(env, `/api/v1/links/${link.id}/content`, { token })],
      ["get", "/api/v1/links/{id}/content", () => get(env, "/api/v1/links/999999/content", { token })],
      ["get", "/api/v1/search", () => get(env, "/api/v1/search?q=quokka", { token })],
      ["get", "/api/v1/search", () => get(env, "/api/v1/search?q=%22", { token })],
      ["delete", "/api/v1/collections/{id}", () => del(env, `/api/v1/collections/${inbox}`, { token })],
      ["delete", "/api/v1/collections/{id}", () => del(env, `/api/v1/collections/${reading.id}`, { token })],
      ["delete", "/api/v1/links/{id}", () => del(env, `/api/v1/links/${link.id}`, { token })],
      ["post", "/api/v1/batch", () => post(env, "/api/v1/batch", { token, body: { operations: [{ op: "createLink", ref: "l", name: "L", url: "https://l.example/", collections: [{ id: inbox }] }] } })],
      ["post", "/api/v1/batch", () => post(env, "/api/v1/batch", { token, body: { operations: [{ op: "updateLink", id: 999999, name: "L" }] } })],
      ["post", "/api/v1/batch", () => post(env, "/api/v1/batch", { token, body: { operations: [{ op: "deleteCollection", id: inbox }] } })],
      ["post", "/api/v1/batch", () => post(env, "/api/v1/batch", { token, body: { since: before, operations: [{ op: "updateCollection", id: inbox, name: "In" }] } })],
      ["post", "/api/v1/batch", () => post(env, "/api/v1/batch", { token, body: { since: "0", operations: [{ op: "updateCollection", id: inbox, name: "In" }] } })],
      ["get", "/api/v1/changes", () => get(env, `/api/v1/changes?since=${before}`, { token })],
      ["get", "/api/v1/changes", () => get(env, "/api/v1/changes?since=0", { token })],
      ["get", "/api/v1/changes/cursor", () => get(env, "/api/v1/changes/cursor", { token })],
      ["post", "/api/v1/batch", () => post(env, "/api/v1/batch", { token, body: { operations: [] } })],
      ["get", "/api/v1/collections", () => get(env, `/api/v1/collections?under=${inbox}`, { token })],
      ["get", "/api/v1/collections", () => get(env, "/api/v1/collections?under=999999", { token })],
      ["get", "/l/{id}", () => get(env, "/l/999999")],
      ["get", "/favicon", () => get(env, "/favicon?url=javascript:x")],
    ];
    const seen = new Set<string>();
    for (const [method, path, send] of exchanges) {
      const response = await send();
      const documented = document.paths[path][method].responses[String(response.status)];
      const where = `${method} ${path} ${response.status}`;
      expect({ where, documented: documented !== undefined }).toEqual({ where, documented: true });
      const schema = documented.content?.["application/json"]?.schema;
      expect({ where, schema: schema !== undefined }).toEqual({ where, schema: true });
      expect({ where, mismatches: mismatches(schema, response.body) }).toEqual({ where, mismatches: [] });
      seen.add(`${response.status}`);
    }
    // The exchanges reached every kind of answer they were written for.
    expect([...seen].sort()).toEqual(["200", "201", "400", "401", "404", "409", "410", "412", "413", "415", "422"]);

    const limited = makeEnv({ LINKSHELF_RATE_LIMIT: "1/60" });
    const bob = await createUser(limited);
    await get(limited, "/api/v1/collections", { token: bob.token });
    const refused = await get(limited, "/api/v1/collections", { token: bob.token });
    expect(refused.status).toBe(429);
    expect(mismatches(document.paths["/api/v1/collections"].get.responses["429"].content["application/json"].schema, refused.body)).toEqual([]);
  });

  it("would notice an undocumented field, a missing one or a wrong type (the checker itself)", () => {
    const schema: Schema = { type: "object", required: ["id", "at"], properties: { id: { type: "integer" }, at: { type: ["string", "null"], format: "date-time" } } };
    expect(mismatches(schema, { id: 1, at: null })).toEqual([]);
    expect(mismatches(schema, { id: 1, at: "2026-11-22T05:52:24.123Z" })).toEqual([]);
    expect(mismatches(schema, { id: 1, at: null, extra: true })).toEqual(["/extra: not documented"]);
    expect(mismatches(schema, { id: 1 })).toEqual(["/at: required but missing"]);
    expect(mismatches(schema, { id: 1.5, at: null })).toEqual(["/id: number, expected integer"]);
    expect(mismatches(schema, { id: 1, at: "yesterday" })).toEqual(["/at: yesterday is not an ISO timestamp"]);
    const map: Schema = { type: "object", patternProperties: { "^(.*)$": { type: "integer" } } };
    expect(mismatches(map, { a: 1, b: 2 })).toEqual([]);
    expect(mismatches(map, { a: 1, b: "2" })).toEqual(["/b: string, expected integer"]);
  });

  it("documents ids in paths as positive integers, and the two ways to authenticate", async () => {
    const document = await documentOf();
    const parameter = document.paths["/api/v1/links/{id}"].put.parameters[0];
    expect(parameter).toMatchObject({ name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } });
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(["bearerToken", "sessionCookie"]);
    expect(document.components.securitySchemes.bearerToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.components.securitySchemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "linkshelf_session" });
    expect(document.paths["/healthz"].get.security).toEqual([{}]);
    expect(document.paths["/l/{id}"].get.security).toContainEqual({});
  });

  it("documents visibility as an enum and nullable fields as nullable", async () => {
    const document = await documentOf();
    const body = document.paths["/api/v1/collections"].post.requestBody.content["application/json"].schema;
    expect(body.properties.visibility).toEqual({ type: "string", enum: ["PUBLIC", "PRIVATE"] });
    expect(body.properties.description.type).toEqual(["string", "null"]);
    expect(body.required.sort()).toEqual(["name", "visibility"]);
    const link = document.paths["/api/v1/links"].post.responses["201"].content["application/json"].schema.properties.link;
    expect(link.properties.lastClickedAt.type).toEqual(["string", "null"]);
    expect(link.properties.collectionIds).toMatchObject({ type: "array", items: { type: "integer" } });
  });
});

describe("GET /api/docs", () => {
  it("renders the reference as one HTML page with every documented operation, no script and nothing fetched from elsewhere", async () => {
    const env = makeEnv();
    const document = await documentOf(env);
    const response = await request(env, "GET", "/api/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = response.text;
    expect(page).toStartWith("<!doctype html>");
    // The only links are the site's own icons and manifest, by path on this server.
    const links = [...page.matchAll(/<link [^>]*>/g)].map((match) => match[0]);
    expect(links).toEqual([
      '<link rel="icon" href="/favicon.ico" sizes="16x16 32x32 48x48">',
      '<link rel="icon" href="/icon.svg" type="image/svg+xml">',
      '<link rel="apple-touch-icon" href="/icons/icon-180.png">',
      '<link rel="manifest" href="/manifest.webmanifest">',
    ]);
    expect(page).not.toMatch(/<script|<img |@import|url\(/i);
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//i);
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { summary: string }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(page).toContain(`${method.toUpperCase()}</span> <code>${path}</code>`);
        expect(page).toContain(operation.summary.replace(/'/g, "&#39;"));
      }
    }
    expect(page).toContain('href="/api/v1/openapi.json"');
    // A field of a nested response schema and a rule from a request body's description.
    expect(page).toContain("collections[].links[].lastClickedAt");
    expect(page).toContain("1-254 characters");
    expect(page).toContain('id="errors"');
  });

  it("needs no token and ignores a bad one", async () => {
    const env = makeEnv();
    expect((await get(env, "/api/docs", { headers: { authorization: "Bearer nonsense" } })).status).toBe(200);
  });
});
