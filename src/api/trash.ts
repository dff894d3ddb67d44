import type { Guards } from "../auth/requester";
import type { RestorePlace } from "../shelf/restorer";
import { othersFirst, type WriteOnce } from "./idempotency";
import { apiRoute, errorDoc } from "../openapi/describe";
import { EmptiedJson, RestoreBody, RestoredJson, TrashPageJson, TrashQuery } from "../contract/trash";

/** trashRoutes: `/api/v1/trash`, the requester's deleted links and collections. */
export function trashRoutes({ clock, restorer }: RestorePlace, { apiRoutes }: Guards, once: WriteOnce) {
  return apiRoutes("/trash")
    .use(once)
    .get("/", ({ shelf, query }) => shelf.trash.page(query.limit, query.cursor), apiRoute({
      tag: "trash", summary: "List your trash, newest first", query: TrashQuery,
      description: "Every link and collection you deleted that is still kept, with when it goes for good (`purgeAt`). limit: 1-200, default 50. cursor: the nextCursor of the page before.",
      ok: { description: "A page of your trash.", json: TrashPageJson },
    }))
    // Its rows read and parsed in this turn, the restore's transaction in a later one, the server answering others between them.
    // A big one on the restore worker, which reads its rows there (src/shelf/restorer.ts).
    .post("/restore", async ({ body, shelf, write, writeApart }) => {
      if (restorer?.takes(shelf, body)) return writeApart((key) => restorer.restore(shelf, body, clock(), key));
      const ahead = shelf.trash.readAhead(body);
      await othersFirst();
      return write((writing) => ({ message: "Restored.", ...writing.trash.restore(body, ahead) }));
    }, apiRoute({
      tag: "trash", summary: "Restore links and collections from your trash", body: RestoreBody,
      description: "In one transaction, each as it was: a link with its collections, clicks, saved page text and health; a collection with what was deleted with it, "
        + "its sub-collections moved back in and its links taken back out of the Inbox. A link whose collections are gone returns to the Inbox; "
        + "a collection whose parent is gone returns to the top level, and so does one that inside its parent would nest collections more than 64 levels deep (listed in `tooDeep`). "
        + "Collections restored together that were nested stay nested. An undone import whose items come back is no longer undone.",
      ok: { description: "Restored; the counts brought back.", json: RestoredJson },
      more: { 404: errorDoc("NOT_FOUND: one of the ids is not in your trash (restored already, purged, another user's, or unknown); nothing was restored.") },
    }))
    // Most of it in slices first, each committed, the server answering others between them; the rest with the answer.
    .delete("/", async ({ shelf, write }) => {
      const drained = await shelf.trash.drain();
      return write((writing) => ({ message: "Trash emptied.", items: drained + writing.trash.empty() }));
    }, apiRoute({
      tag: "trash", summary: "Empty your trash",
      description: "Deletes everything in your trash for good, a few hundred items per transaction (the server keeps answering meanwhile): "
        + "if it fails midway, what was deleted stays deleted, the rest stays in the trash, and the request may be sent again. "
        + "The change feed forgets their tombstones: an older cursor gets 410 CURSOR_EXPIRED.",
      ok: { description: "Emptied; how many items.", json: EmptiedJson },
    }));
}
