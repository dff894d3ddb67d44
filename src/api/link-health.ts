import type { Guards } from "../auth/requester";
import type { WriteOnce } from "./idempotency";
import { parseId } from "../common/ids";
import { apiRoute, errorDoc, rateLimited } from "../openapi/describe";
import { checkLinkNow, type CheckNowDeps } from "../link-health/checker";
import { HealthItemJson, HealthListJson, HealthQuery } from "../contract/link-health";

/**
 * healthRoutes: `GET /api/v1/links/health` (links by state), `POST /api/v1/links/:id/check`
 * (check one now), `POST|DELETE /api/v1/links/:id/health/ignore` (stop or resume flagging one).
 * Registered before the API's JSON parser: none of them takes a body.
 */
export function healthRoutes(deps: CheckNowDeps, { apiRoutes }: Guards, once: WriteOnce) {
  const { clock } = deps;
  return apiRoutes("/links")
    .use(once)
    .get("/health", ({ shelf, query }) => ({ links: shelf.health.list(query.state) }), apiRoute({
      tag: "health", summary: "List your links that are broken, moved, or could not be checked", query: HealthQuery,
      description: "state: `broken` (failed LINKSHELF_LINK_CHECK_CONFIRM checks in a row, not ignored), `moved` (permanent redirects to a new URL, not ignored) " +
        "or `unchecked` (a private address or not http). Each link comes with its evidence: the last five checks, newest first.",
      ok: { description: "The links in that state, most recent failure first.", json: HealthListJson },
      more: { 422: errorDoc("VALIDATION_FAILED: state is missing or not broken, moved or unchecked.") },
    }))
    // The check goes out first; its result is recorded as the request's write (with its key's answer, which it is).
    .post("/:id/check", async ({ shelf, params, write }) => ({
      health: await checkLinkNow(shelf, parseId(params.id), deps, async (record) => (await write((shelf) => ({ health: record(shelf) }))).health),
    }), apiRoute({
      tag: "health", summary: "Check one of your links now", id: true,
      description: "Sends a HEAD (then a GET when refused) to the link's URL under the server's outbound rules and answers what it found. " +
        "A link to a private address is not checked unless LINKSHELF_LINK_CHECK_ALLOW_PRIVATE=1 (state `unchecked`, detail `private address`).",
      ok: { description: "The link's health with this check first.", json: HealthItemJson },
      more: { 429: { ...rateLimited(), description: "RATE_LIMITED: over the rate limit; or CHECKED_RECENTLY: the link was checked less than a minute ago (Retry-After)." } },
    }))
    .post("/:id/health/ignore", ({ params, write }) => write((shelf) => ({ health: shelf.health.setIgnored(parseId(params.id), true, clock()) })), apiRoute({
      tag: "health", summary: "Stop flagging one of your links as broken or moved", id: true,
      description: "The link is still checked; it is never listed as broken or moved until DELETE of the same path.",
      ok: { description: "The link's health, ignored.", json: HealthItemJson },
    }))
    .delete("/:id/health/ignore", ({ params, write }) => write((shelf) => ({ health: shelf.health.setIgnored(parseId(params.id), false, clock()) })), apiRoute({
      tag: "health", summary: "Flag one of your links again when it is broken or moved", id: true,
      ok: { description: "The link's health, no longer ignored.", json: HealthItemJson },
    }));
}
