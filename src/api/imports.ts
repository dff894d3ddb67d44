import type { Guards } from "../auth/requester";
import type { WriteOnce } from "./idempotency";
import { parseId } from "../common/ids";
import { apiRoute, errorDoc } from "../openapi/describe";
import { ImportListJson, ImportUndoneJson } from "../contract/imports";

/** importRoutes: `/api/v1/imports`, the record of the requester's imports and undoing one. */
export function importRoutes({ clock }: { clock: () => number }, { apiRoutes }: Guards, once: WriteOnce) {
  return apiRoutes("/imports")
    .use(once)
    .get("/", ({ shelf }) => ({ imports: shelf.imports.list() }), apiRoute({
      tag: "imports", summary: "List your imports of bookmark files, newest first",
      description: "Every confirmed import, from the import page or linkshelf import; dry runs and previews are not recorded.",
      ok: { description: "Your imports, undone ones included (undoneAt set).", json: ImportListJson },
    }))
    .delete("/:id", ({ params, write }) => write((shelf) => ({ message: "Import undone.", ...shelf.imports.undo(parseId(params.id), clock()) })), apiRoute({
      tag: "imports", summary: "Undo an import", id: true,
      description: "In one transaction: deletes the links the import created that still exist, wherever they are now and edited or not, " +
        "then the collections it created that are left empty. Links that were there before the import (its duplicates) are never touched; " +
        "a collection it created that holds other links is kept.",
      ok: { description: "Undone; the counts removed.", json: ImportUndoneJson },
      more: { 404: errorDoc("NOT_FOUND: no import of yours has that id, or it is undone already.") },
    }));
}
