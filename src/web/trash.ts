import { Elysia } from "elysia";
import type { RestorePlace } from "../shelf/restorer";
import { NotFound } from "../common/errors";
import { parseId } from "../common/ids";
import { htmlResponse } from "../pages/html";
import { emptyTrashPage, trashPage } from "../pages/trash";
import { formValues } from "../request/form-body";
import { seeOther } from "../request/origin";
import { PAGE_ROUTE, surfaces } from "../request/surface";
import type { PageGuard } from "./guard";
import { noticeOf, withNotice } from "./notices";
import { oneValue } from "./query";

/** restoreIds reads a restore form's `item`s (`link:12`, `collection:3`, `import:4`) as the shelf's ids; anything else names nothing in the trash (NotFound). */
function restoreIds(body: unknown): { links: number[]; collections: number[]; imports: number[] } {
  const ids = { links: [] as number[], collections: [] as number[], imports: [] as number[] };
  for (const item of formValues(body, "item")) {
    const [, kind, id] = /^(link|collection|import):(.*)$/.exec(item) ?? [];
    if (id === undefined) throw new NotFound();
    ids[kind === "link" ? "links" : kind === "collection" ? "collections" : "imports"].push(parseId(id));
  }
  return ids;
}

/**
 * trashPages: `GET /trash` (the user's trash, newest first, a page at a time through `cursor`,
 * with its counts), `POST /trash/restore` (the `item`s given, each `link:<id>` or
 * `collection:<id>`, in one transaction; another user's or an unknown one is a 404 and restores
 * nothing), `GET /trash/empty` (the confirmation) and `POST /trash/empty` (everything in the
 * user's trash deleted for good). Each form returns to the trash with a notice.
 */
export function trashPages({ clock, restorer }: RestorePlace, guard: PageGuard) {
  return new Elysia()
    .use(surfaces)
    .get("/trash", ({ request, query }) => guard.page(request, (shelf) => {
      const cursor = oneValue(query.cursor) || undefined;
      const page = shelf.trash.page(undefined, cursor);
      return htmlResponse(trashPage({
        user: shelf.viewer(),
        days: shelf.trash.days,
        counts: shelf.trash.counts(),
        items: page.items,
        pages: {
          first: cursor === undefined ? undefined : "/trash",
          older: page.nextCursor === null ? undefined : `/trash?cursor=${encodeURIComponent(page.nextCursor)}`,
        },
        notice: noticeOf(query.done),
      }));
    }), { surface: PAGE_ROUTE })
    .post("/trash/restore", ({ request, body }) => guard.form(request, async (shelf) => {
      const ids = restoreIds(body);
      if (ids.links.length + ids.collections.length + ids.imports.length === 0) return seeOther(withNotice("/trash", "trash-nothing-chosen"));
      // A big one on the restore worker (src/shelf/restorer.ts).
      const { tooDeep } = restorer?.takes(shelf, ids) ? await restorer.restore(shelf, ids, clock()) : shelf.trash.restore(ids);
      return seeOther(withNotice("/trash", tooDeep.length > 0 ? "trash-restored-top" : "trash-restored"));
    }), { surface: PAGE_ROUTE })
    .get("/trash/empty", ({ request }) => guard.page(request, (shelf) =>
      htmlResponse(emptyTrashPage(shelf.viewer(), shelf.trash.counts()))), { surface: PAGE_ROUTE })
    .post("/trash/empty", ({ request }) => guard.form(request, async (shelf) => {
      await shelf.trash.drain();
      shelf.trash.empty();
      return seeOther(withNotice("/trash", "trash-emptied"));
    }), { surface: PAGE_ROUTE });
}
