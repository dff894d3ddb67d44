import type { Guards } from "../auth/requester";
import { KeptLists } from "../shelf/collections";
import { recordWrites } from "./writes";
import { parseId } from "../ids";
import { apiRoute, errorDoc } from "../openapi/describe";
import { CollectionBody, CollectionCreatedJson, CollectionItemJson, CollectionListJson } from "../contract/collections";

/** collectionRoutes: `/api/v1/collections`. */
export function collectionRoutes({ clock }: { clock: () => number }, { apiRoutes }: Guards) {
  // The list is the extension's start-up read and can be megabytes: each user's answer is
  // kept, encoded, until anything in the database changes.
  const kept = new KeptLists();
  return apiRoutes("/collections")
    .get("/", ({ shelf, set }) => {
      const body = shelf.collections.listBody(kept);
      set.headers["content-type"] = "application/json;charset=utf-8";
      return body;
    }, apiRoute({
      tag: "collections", summary: "List your collections with their links",
      ok: { description: "Every collection of yours, the Inbox included.", json: CollectionListJson },
    }))
    .get("/:id", ({ shelf, params }) => ({ collection: shelf.collections.get(parseId(params.id)) }), apiRoute({
      tag: "collections", summary: "Read one of your collections with its links", id: true,
      ok: { description: "The collection, its links newest first.", json: CollectionItemJson },
    }))
    .post("/", ({ shelf, body, status }) =>
      status(201, { message: "Collection created.", collection: shelf.collections.create(body, clock()) }), apiRoute({
      tag: "collections", summary: "Create a collection", body: CollectionBody,
      ok: { status: 201, description: "Created, with no links.", json: CollectionCreatedJson },
    }))
    .use(recordWrites({ apiRoutes }, clock, {
      tag: "collections", noun: "Collection", records: (shelf) => shelf.collections, body: CollectionBody,
      updateDescription: "An omitted description or icon keeps its stored value. The Inbox can be renamed, re-iconed and made public.",
      deleteSummary: "Delete a collection (never its links)",
      deleteDescription: "Links that were only in it move to the Inbox; links also elsewhere just leave it. One transaction.",
      deleteMore: { 409: errorDoc("DEFAULT_COLLECTION: the Inbox cannot be deleted.") },
    }));
}
