/**
 * The one request pipeline. Every request goes through the same steps, in this order, whether
 * Elysia's router answers it (the app's hooks, `hooks`) or Bun's own (the redirect's fast path,
 * `serve`):
 *
 * 1. its arrival is noted for the access log (src/request/log.ts), and a request whose URL cannot be
 *    formed (a malformed Host) is refused (`checkWellFormed`, src/common/errors.ts);
 * 2. who is asking is decided, and counted against the rate limit when the route's declaration
 *    says it is `limited` (src/auth/requester.ts; on Elysia's router, by the route's own guard);
 * 3. the route answers;
 * 4. an error of any step is answered as the route's surface says (`errorAnswers`,
 *    src/request/surface.ts), with the headers set before it (the RateLimit ones, a renewed session's cookie);
 * 5. the access log line is written, with the status that went out.
 */
import { Elysia } from "elysia";
import { checkWellFormed, wellFormedRequest } from "./well-formed";
import { accessLog, loggedAccess, type AccessLogDeps, type LogSink } from "./log";
import { errorMapping, withHeaders, type ErrorAnswer, type Surface } from "./surface";

/** Who is asking (step 2), decided and counted as the route's declaration says; the parts of the context it reads and writes. */
export type Ask<Requester> = (asking: { request: Request; set: { headers: Record<string, string> } }, declared: Surface) => Requester;

/** What the pipeline is made of beside the access log's dependencies: the log's sink, who is asking, and the one error answer. */
export interface PipelineParts<Requester> {
  log: LogSink;
  ask: Ask<Requester>;
  errors: ErrorAnswer;
}

/**
 * requestPipeline builds the steps once per app. `hooks` are them as Elysia hooks, registered
 * before every route (step 2 is each route's guard, which knows its credentials). `serve` runs
 * them around a handler the server calls directly, for the route `declared`: the handler gets
 * the request and its requester, and the headers of step 2 go with its answer, whatever it is,
 * but the refused Host's.
 */
export function requestPipeline<Requester>(deps: AccessLogDeps, { log, ask, errors }: PipelineParts<Requester>) {
  const hooks = new Elysia().use(accessLog(deps, log)).use(errorMapping(errors)).use(wellFormedRequest);
  const serve = (declared: Surface, handler: (request: Bun.BunRequest, requester: Requester) => Promise<Response>) =>
    loggedAccess(deps, log, async (request: Bun.BunRequest): Promise<Response> => {
      const headers: Record<string, string> = {};
      try {
        checkWellFormed(request);
        return withHeaders(await handler(request, ask({ request, set: { headers } }, declared)), headers);
      } catch (error) {
        return errors({ request, params: request.params }, error, { surface: declared }, headers);
      }
    });
  return { hooks, serve };
}

export type RequestPipeline<Requester> = ReturnType<typeof requestPipeline<Requester>>;
