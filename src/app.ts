import { Elysia, t } from "elysia";
import { assetRoutes } from "./assets/routes";
import { guards } from "./auth/requester";
import { authPages } from "./auth/routes";
import { jsonBody } from "./body";
import { collectionRoutes } from "./collections/routes";
import type { Config } from "./config";
import type { Db } from "./db/client";
import { GroupCommit } from "./db/group-commit";
import { errorHandler } from "./errors";
import { extensionRoutes } from "./extension/routes";
import { API_PREFIX } from "./http";
import { faviconRoutes } from "./favicon/routes";
import type { FaviconOptions } from "./favicon/service";
import { linkRoutes } from "./links/routes";
import { describeRoute } from "./openapi/describe";
import { openApiRoutes } from "./openapi/routes";
import { publicRoutes } from "./public/routes";
import { redirectRoutes } from "./redirect/routes";
import { webPages } from "./web/routes";

export interface AppDeps {
  db: Db;
  config: Config;
  /** Milliseconds since the epoch; tests pass a fixed or stepping clock. */
  clock: () => number;
  /** The one-time code that unlocks `/setup` while no user exists (printed in the log). */
  setupCode?: string;
  /** The favicon proxy's resolver, connection and timeout; tests inject them, the defaults are real. */
  favicon?: FaviconOptions;
}

/** createApp builds the whole HTTP surface around its dependencies. It never listens. */
export function createApp(deps: AppDeps) {
  const guard = guards(deps);
  const commits = new GroupCommit(deps.db.$client);
  const api = new Elysia({ prefix: API_PREFIX })
    .use(jsonBody)
    .use(linkRoutes(deps, guard, commits))
    .use(collectionRoutes(deps, guard));
  const app = new Elysia()
    .use(errorHandler)
    .get("/healthz", () => ({ status: "ok" }), {
      detail: describeRoute({
        tag: "service", summary: "Liveness: the database is open and migrated",
        responses: { 200: { description: "Serving.", json: t.Object({ status: t.Literal("ok") }) } },
      }),
    })
    .use(api)
    .use(redirectRoutes(deps, guard, commits))
    .use(authPages(deps))
    .use(webPages(deps))
    .use(publicRoutes(deps))
    .use(extensionRoutes(deps))
    .use(faviconRoutes(deps))
    .use(assetRoutes());
  return app.use(openApiRoutes(() => app));
}

export type App = ReturnType<typeof createApp>;
