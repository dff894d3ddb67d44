import type { Guards } from "../auth/requester";
import { apiRoute, errorDoc } from "../openapi/describe";
import { ChangesCursorJson, ChangesJson, ChangesQuery } from "../contract/changes";

/** changeRoutes: `/api/v1/changes`, the requester's change feed. */
export function changeRoutes({ apiRoutes }: Guards) {
  return apiRoutes("/changes")
    .get("/", ({ shelf, query }) => shelf.changes.page(query.since, query.limit), apiRoute({
      tag: "changes", summary: "Read what changed since a cursor", query: ChangesQuery,
      description: "Every link and collection of yours created, edited, moved, reordered, deleted or restored since `since`, each once, as it is now, "
        + "in the order of their newest changes; a deleted one is `{kind, id, deleted: true}`. Clicks are not changes. Without `since`: everything, "
        + "from the beginning. Keep `cursor` and ask again; `more` says a next page is there at once. limit: 1-1000, default 100. "
        + "A cursor is opaque (never parse or build one) and counts only your own changes. A cursor the feed cannot follow is refused, never answered as no changes.",
      ok: { description: "A page of changes.", json: ChangesJson },
      more: {
        410: errorDoc("CURSOR_EXPIRED: the cursor is older than what the server still remembers (a deleted item it named left the trash): read everything again, "
          + "without since; the history is the same, so your ids still hold. HISTORY_REPLACED: the cursor is of another history of the server's data "
          + "(it was restored from a backup since), beyond the feed's end, or from before this release: trust no id you had from the server, read everything again "
          + "and match by content, as a first sync."),
      },
    }))
    .get("/cursor", ({ shelf }) => ({ cursor: shelf.changes.latest() }), apiRoute({
      tag: "changes", summary: "The feed's cursor now",
      description: "For a client that has just read everything (`GET /api/v1/collections`): follow the feed from here instead of reading it from the beginning. "
        + "Read the cursor first, then everything, so no change falls between them. The cursor is opaque; it names the server's current history.",
      ok: { description: "The cursor of the feed's end.", json: ChangesCursorJson },
    }));
}
