import { Elysia, t } from "elysia";
import { assetRoutes } from "./assets/routes";
import { guards } from "./auth/requester";
import type { Passwords } from "./auth/passwords";
import { authPages } from "./auth/routes";
import { SignInThrottle } from "./auth/throttle";
import { jsonBody } from "./body";
import { collectionRoutes } from "./collections/routes";
import type { Config } from "./config";
import type { Db } from "./db/client";
import { GroupCommit } from "./db/group-commit";
import { errorHandler, NotFound, wellFormedRequest } from "./errors";
import { extensionRoutes } from "./extension/routes";
import { API_PREFIX } from "./http";
import { faviconRoutes } from "./favicon/routes";
import type { FaviconOptions } from "./favicon/service";
import { linkRoutes } from "./links/routes";
import { accessLog, unexpectedErrorLog, type LogSink } from "./log";
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
  /** The hashing queue; default the process's one, which every hash and verification shares. */
  passwords?: Passwords;
  /** Where log lines go (unexpected errors, the access log); stderr by default. */
  log?: LogSink;
  /**
   * The TCP peer's address of a request. Default: the listening server's socket. Requests made
   * in-process (`app.handle`) have no socket, so tests name the peer here.
   */
  peerAddress?: (request: Request) => string | undefined;
}

/** createApp builds the whole HTTP surface around its dependencies. It never listens. */
export function createApp(given: AppDeps) {
  const deps: AppDeps = { ...given, peerAddress: given.peerAddress ?? ((request) => app.server?.requestIP(request)?.address) };
  const guard = guards(deps);
  // Looked up at each line, so a test's spy on console.error sees it.
  const log: LogSink = deps.log ?? ((line) => console.error(line));
  const commits = new GroupCommit(deps.db.$client);
  // One budget per address for every form that checks a password or the setup code.
  const signIns = new SignInThrottle();
  // The API's user is decided ahead of its body parser, so a request without a valid token is
  // 401 before its body is read; the catch-all makes an unknown API path a 401 before a 404.
  const api = new Elysia({ prefix: API_PREFIX })
    .use(guard.apiUser)
    .use(jsonBody)
    .use(linkRoutes(deps, guard, commits))
    .use(collectionRoutes(deps, guard))
    .all("/*", () => {
      throw new NotFound();
    }, { detail: { hide: true } });
  const app = new Elysia()
    .use(accessLog(deps, log))
    .use(errorHandler(unexpectedErrorLog(log, deps.clock)))
    .use(wellFormedRequest)
    .get("/healthz", () => ({ status: "ok" }), {
      detail: describeRoute({
        tag: "service", summary: "Liveness: the database is open and migrated",
        responses: { 200: { description: "Serving.", json: t.Object({ status: t.Literal("ok") }) } },
      }),
    })
    .use(api)
    .use(redirectRoutes(deps, guard, commits))
    .use(authPages(deps, signIns))
    .use(webPages(deps, signIns))
    .use(publicRoutes(deps))
    .use(extensionRoutes(deps))
    .use(faviconRoutes(deps, guard))
    .use(assetRoutes());
  return app.use(openApiRoutes(() => app));
}

export type App = ReturnType<typeof createApp>;
