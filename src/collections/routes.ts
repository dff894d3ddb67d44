import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import type { Guards } from "../auth/requester";
import { readDatabaseStamp, StampedAnswers } from "../db/stamp";
import { MessageJson } from "../api";
import { parseId } from "../ids";
import { API_ROUTE, surfaces } from "../surface";
import { apiErrors, describeRoute, errorDoc } from "../openapi/describe";
import { CollectionBody, CollectionCreatedJson, CollectionItemJson, CollectionListJson } from "./model";

/** collectionRoutes: `/api/v1/collections`. */
export function collectionRoutes({ db, clock }: AppDeps, { apiUser }: Guards) {
  // The list is the extension's start-up read and can be megabytes: each user's answer is
  // kept, encoded, until anything in the database changes (see src/db/stamp.ts).
  const answers = new StampedAnswers<Uint8Array>();
  return new Elysia({ prefix: "/collections" })
    .use(surfaces)
    .use(apiUser)
    .get("/", ({ shelf, set }) => {
      const body = answers.get(readDatabaseStamp(db), shelf.user.id, () => shelf.collections.listBody());
      set.headers["content-type"] = "application/json;charset=utf-8";
      return body;
    }, {
      surface: API_ROUTE,
      detail: describeRoute({
        tag: "collections", summary: "List your collections with their links",
        responses: { 200: { description: "Every collection of yours, the Inbox included.", json: CollectionListJson }, ...apiErrors({ body: false, id: false }) },
      }),
    })
    .get("/:id", ({ shelf, params }) => ({ collection: shelf.collections.get(parseId(params.id)) }), {
      surface: API_ROUTE,
      detail: describeRoute({
        tag: "collections", summary: "Read one of your collections with its links",
        responses: { 200: { description: "The collection, its links newest first.", json: CollectionItemJson }, ...apiErrors({ body: false, id: true }) },
      }),
    })
    .post("/", ({ shelf, body, status }) =>
      status(201, { message: "Collection created.", collection: shelf.collections.create(body, clock()) }), {
      surface: API_ROUTE,
      body: CollectionBody,
      detail: describeRoute({
        tag: "collections", summary: "Create a collection",
        responses: { 201: { description: "Created, with no links.", json: CollectionCreatedJson }, ...apiErrors({ body: true, id: false }) },
      }),
    })
    .put("/:id", ({ shelf, params, body }) => {
      shelf.collections.update(parseId(params.id), body, clock());
      return { message: "Collection updated." };
    }, {
      surface: API_ROUTE,
      body: CollectionBody,
      detail: describeRoute({
        tag: "collections", summary: "Update a collection",
        description: "An omitted description or icon keeps its stored value. The Inbox can be renamed, re-iconed and made public.",
        responses: { 200: { description: "Updated.", json: MessageJson }, ...apiErrors({ body: true, id: true }) },
      }),
    })
    .delete("/:id", ({ shelf, params }) => {
      shelf.collections.delete(parseId(params.id));
      return { message: "Collection deleted." };
    }, {
      surface: API_ROUTE,
      detail: describeRoute({
        tag: "collections", summary: "Delete a collection (never its links)",
        description: "Links that were only in it move to the Inbox; links also elsewhere just leave it. One transaction.",
        responses: {
          200: { description: "Deleted.", json: MessageJson },
          409: errorDoc("DEFAULT_COLLECTION: the Inbox cannot be deleted."),
          ...apiErrors({ body: false, id: true }),
        },
      }),
    });
}
