import type { Guards } from "../auth/requester";
import { recordWrites } from "./writes";
import { parseId } from "../common/ids";
import { apiRoute, errorDoc } from "../openapi/describe";
import { BULK_MAX_IDS, type BulkAction, BulkLinksBody, BulkLinksJson, CreateLinkBody, FavoritesJson, LinkCreatedJson, LinkItemJson, LinkPageJson, LinkSearchQuery, UpdateLinkBody } from "../contract/links";
import { countOf } from "../common/format";
import type { WriteOnce } from "./idempotency";

/** What the answer of a bulk request says was done. */
const BULK_DONE: Record<BulkAction, string> = {
  favorite: "marked favorite", unfavorite: "no longer favorite", delete: "deleted",
  move: "moved to the collection", add: "added to the collection", remove: "removed from the collection",
};

/** linkRoutes: `/api/v1/links`. */
export function linkRoutes({ clock }: { clock: () => number }, { apiRoutes }: Guards, once: WriteOnce) {
  return apiRoutes("/links")
    .use(once)
    .get("/", ({ shelf, query }) => shelf.links.search(query), apiRoute({
      tag: "links", summary: "Search and page through your links, newest first", query: LinkSearchQuery,
      description: "q: one substring of names, URLs and descriptions (up to 200 characters; ASCII letters ignore case). " +
        "collectionId, favorite, toRead (the reading list), archived: filters. limit: 1-100, default 50. cursor: the nextCursor of the page before.",
      ok: { description: "One page; nextCursor is null on the last.", json: LinkPageJson },
      more: {
        404: errorDoc("NOT_FOUND: collectionId is not one of your collections."),
        422: errorDoc("VALIDATION_FAILED: a query parameter is out of range; `errors` names it."),
      },
    }))
    .get("/favorites", ({ shelf }) => shelf.links.favorites(), apiRoute({
      tag: "links", summary: "List favorite links, in the order the extension pins them",
      ok: { description: "The favorite links.", json: FavoritesJson },
    }))
    // Links are created in bursts (an import, the extension saving tabs): `write` commits once per turn of the event loop.
    .post("/", ({ body, write }) => write((shelf) => ({ message: "Link created.", link: shelf.links.add(body, clock()) }), 201), apiRoute({
      tag: "links", summary: "Create a link", body: CreateLinkBody,
      description: "Clicks start at 0. Without collectionIds the link goes to the Inbox. toRead and archived default to false.",
      ok: { status: 201, description: "Created.", json: LinkCreatedJson },
    }))
    .post("/bulk", ({ body, write }) => write((shelf) => {
      const count = shelf.links.bulk(body, clock());
      return { message: `${countOf(count, "link")} ${BULK_DONE[body.action]}.`, count };
    }), apiRoute({
      tag: "links", summary: "Act on many links at once", body: BulkLinksBody,
      description: `One action on 1-${BULK_MAX_IDS} of your links, in one transaction: all of them or none. ` +
        "collectionId is required by move, add and remove, and refused with the other actions. " +
        "Every action but delete moves the links' updatedAt.",
      ok: { description: "Done; count is how many links the action was applied to (every id listed).", json: BulkLinksJson },
      more: {
        404: errorDoc("NOT_FOUND: an id is not one of your links, or collectionId is not one of your collections; nothing was changed."),
        409: errorDoc("DEFAULT_COLLECTION: links cannot be removed from the Inbox (move them instead); nothing was changed."),
        422: errorDoc("VALIDATION_FAILED: no ids or more than 1,000, an id twice or not a positive whole number, an unknown action, " +
          "collectionId missing for move, add or remove or given with another action; `errors` names each (`/ids`, `/ids/3`, `/action`, `/collectionId`)."),
      },
    }))
    .use(recordWrites({ apiRoutes }, once, clock, {
      tag: "links", noun: "Link", records: (shelf) => shelf.links, body: UpdateLinkBody, deleteSummary: "Delete a link into the trash",
      deleteDescription: "Into the trash, with its collections, clicks, saved page text and health (for LINKSHELF_TRASH_DAYS; at once with 0): `POST /api/v1/trash/restore` brings it back as it was.",
      item: (shelf, id) => ({ link: shelf.links.get(id) }),
      getSummary: "Read one of your links", getOk: { description: "The link.", json: LinkItemJson },
      updateDescription: "Replaces name, url, favorite and collections; an omitted description, toRead or archived keeps its value. Clicks are kept.",
    }));
}
