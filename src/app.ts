import { Elysia } from "elysia";
import { LivenessJson } from "./contract/liveness";
import { assetRoutes } from "./assets/asset-routes";
import { guards } from "./auth/requester";
import { authPages } from "./auth/sign-in-pages";
import { SignInThrottle } from "./auth/throttle";
import { bodyBudget } from "./request/body-budget";
import { jsonBody } from "./request/json-body";
import { wellFormedRequest } from "./request/well-formed";
import { GroupCommit } from "./db/group-commit";
import type { AppDeps } from "./deps";
import { NotFound } from "./common/errors";
import { extensionRoutes } from "./handoff/authorize";
import { API_PREFIX } from "./openapi/paths";
import { collectionRoutes } from "./api/collections";
import { healthRoutes } from "./api/link-health";
import { importRoutes } from "./api/imports";
import { linkRoutes } from "./api/links";
import { searchRoutes } from "./api/search";
import { copyRoutes } from "./api/copies";
import { copyPages } from "./web/copies";
import { tokenRoutes } from "./api/tokens";
import { trashRoutes } from "./api/trash";
import { changeRoutes } from "./api/changes";
import { batchRoutes } from "./api/batch";
import { writeOnce } from "./api/idempotency";
import { faviconRoutes } from "./api/favicon";
import { unexpectedErrorLog, type LogSink } from "./request/log";
import { describeRoute } from "./openapi/describe";
import { openApiRoutes } from "./web/api-docs";
import { publicRoutes } from "./public/public-pages";
import { redirectRoutes } from "./redirect/link-redirect";
import { requestPipeline } from "./request/pipeline";
import { API_ROUTE, declarationsOf, errorAnswers, surfaces, type DeclaredRoute } from "./request/surface";
import { errorPages } from "./web/error-pages";
import { pageGuard } from "./web/guard";
import { webPages } from "./web/pages";

/** createApp builds the whole HTTP surface around its dependencies. It never listens. */
export function createApp(given: AppDeps) {
  const deps: AppDeps = { ...given, peerAddress: given.peerAddress ?? ((request) => app.server?.requestIP(request)?.address) };
  // The routes' declarations, read on the first request: what decides each route's rate limit and error answer.
  const declared = declarationsOf((): readonly DeclaredRoute[] => app.routes);
  const guard = guards({ ...deps, declared });
  // Looked up at each line, so a test's spy on console.error sees it.
  const log: LogSink = deps.log ?? ((line) => console.error(line));
  const commits = new GroupCommit(deps.db.$client);
  // Every write of the API: one job of the group commit, with its Idempotency-Key's answer.
  const once = writeOnce(deps, guard, commits);
  // One budget per address for every form that checks a password or the setup code.
  const signIns = new SignInThrottle();
  // The signed-in pages' guard: their error pages are drawn in the shell of the user it let in.
  const pages = pageGuard(deps, guard.limit);
  // The API's user is decided ahead of its body parser, so a request without a valid token is
  // 401 before its body is read; the catch-all makes an unknown API path a 401 before a 404.
  const api = new Elysia({ prefix: API_PREFIX })
    .use(surfaces)
    .use(guard.apiUser)
    .use(searchRoutes(deps, guard, once))
    .use(copyRoutes(deps, guard, once))
    .use(healthRoutes(deps, guard, once))
    .use(batchRoutes(deps, guard, once))
    .use(jsonBody)
    .use(linkRoutes(deps, guard, once))
    .use(collectionRoutes(deps, guard, once))
    .use(importRoutes(deps, guard, once))
    .use(tokenRoutes(guard, once))
    .use(trashRoutes(deps, guard, once))
    .use(changeRoutes(guard))
    .all("/*", () => {
      throw new NotFound();
    }, { surface: { ...API_ROUTE, callers: false } });
  const errors = errorAnswers({ report: unexpectedErrorLog(log, deps.clock), declared, pages: errorPages(pages) });
  const pipeline = requestPipeline(deps, { log, ask: guard.requesterOf, errors });
  const redirect = redirectRoutes(deps, { guards: guard, commits, pipeline });
  // Bun's router answers `/l/:id` itself when the app listens (see redirectRoutes).
  const app = new Elysia({ serve: { routes: redirect.native } })
    .use(pipeline.hooks)
    .use(bodyBudget(deps))
    .use(surfaces)
    .get("/healthz", () => ({ status: "ok" }), {
      surface: { kind: "api", limited: false, callers: ["anyone"] },
      detail: describeRoute({
        tag: "service", summary: "Liveness: the database is open and migrated",
        responses: { 200: { description: "Serving.", json: LivenessJson } },
      }),
    })
    .use(api)
    // Every other path under /api/ (another version, a doubled slash) is the API's too: a JSON 404, not limited.
    .all("/api/*", () => {
      throw new NotFound();
    }, { surface: { kind: "api", limited: false, callers: false } })
    .use(redirect.routes)
    .use(authPages(deps, signIns))
    .use(webPages(deps, pages, signIns))
    .use(publicRoutes(deps))
    .use(copyPages(deps, guard))
    .use(extensionRoutes(deps))
    .use(faviconRoutes(deps, guard))
    .use(assetRoutes());
  return app.use(openApiRoutes(() => app));
}

export type App = ReturnType<typeof createApp>;
