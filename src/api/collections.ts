import type { Guards } from "../auth/requester";
import { KeptLists } from "../shelf/collections";
import { recordWrites } from "./writes";
import { unchanged } from "./items";
import type { WriteOnce } from "./idempotency";
import { parseId } from "../common/ids";
import { apiRoute, errorDoc } from "../openapi/describe";
import { MessageJson } from "../contract/common";
import type { Shelf } from "../shelf/shelf";
import { CollectionBody, CollectionCreatedJson, CollectionItemJson, CollectionListJson, CollectionListQuery, DeleteCollectionQuery, OrderBody } from "../contract/collections";

/** collectionRoutes: `/api/v1/collections`. */
export function collectionRoutes({ clock }: { clock: () => number }, { apiRoutes }: Guards, once: WriteOnce) {
  // The list is the extension's start-up read and can be megabytes: each user's answer is
  // kept, encoded, until anything in the database changes.
  const kept = new KeptLists();
  const item = (shelf: Shelf, id: number) => ({ collection: shelf.collections.get(id) });
  return apiRoutes("/collections")
    .use(once)
    .get("/", async ({ shelf, query, set }) => {
      const body = query.under === undefined ? await shelf.collections.listBodyInSlices(kept) : shelf.collections.subtreeBody(query.under);
      set.headers["content-type"] = "application/json;charset=utf-8";
      return body;
    }, apiRoute({
      tag: "collections", summary: "List your collections with their links", query: CollectionListQuery,
      description: "under: the id of one of your collections: only it and its sub-collections, at every depth, depth first in their order (it first).",
      ok: { description: "Every collection of yours, the Inbox included (or the subtree `under` names), as a tree: each one's `parentId` and `order`.", json: CollectionListJson },
      more: {
        404: errorDoc("NOT_FOUND: under is not one of your collections (unknown or another user's alike)."),
        422: errorDoc("VALIDATION_FAILED: under is not a whole number in decimal digits; `errors` names it (`/under`)."),
      },
    }))
    .post("/", ({ body, write }) =>
      write((shelf) => ({ message: "Collection created.", collection: shelf.collections.create(body, clock()) }), 201), apiRoute({
      tag: "collections", summary: "Create a collection", body: CollectionBody,
      ok: { status: 201, description: "Created, with no links, at the end of its parent's order (or the top level's).", json: CollectionCreatedJson },
    }))
    .put("/:id/order", ({ params, body, request, write }) => write((shelf) => {
      const id = parseId(params.id);
      unchanged(request, () => item(shelf, id));
      shelf.collections.setOrder(id, body.order, clock());
      return { message: "Order saved." };
    }), apiRoute({
      tag: "collections", summary: "Set the order of a collection's links and sub-collections", body: OrderBody, id: true, ifMatch: true,
      description: "The body names every current item of the collection once, in the new order: read the collection's `order`, rearrange it, send it back.",
      ok: { description: "Saved.", json: MessageJson },
      more: { 409: errorDoc("ORDER_STALE: the order does not name exactly the collection's current links and sub-collections, each once (an item was added, removed or moved since it was read): read the collection again.") },
    }))
    .use(recordWrites({ apiRoutes }, once, clock, {
      tag: "collections", noun: "Collection", records: (shelf) => shelf.collections, body: CollectionBody, item,
      getSummary: "Read one of your collections with its links",
      getOk: { description: "The collection, its links newest first.", json: CollectionItemJson },
      updateDescription: "An omitted description, icon or parentId keeps its stored value; a new parentId moves the collection (with its sub-collections) to the end of that parent's order. The Inbox can be renamed, re-iconed and made public, and stays at the top level.",
      deleteSummary: "Delete a collection into the trash (never its links nor its sub-collections, unless asked)",
      deleteDescription: "Into the trash (for LINKSHELF_TRASH_DAYS; at once with 0). Its sub-collections take its place in its parent's order; links that were only in it move to the end of the Inbox; links also elsewhere just leave it. With `?contents=1` its sub-collections and the links that were in no other collection go to the trash with it, as one item. One transaction.",
      deleteQuery: DeleteCollectionQuery,
      deleteMore: { 409: errorDoc("DEFAULT_COLLECTION: the Inbox cannot be deleted.") },
    }));
}
