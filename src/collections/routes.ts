import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import type { Guards } from "../auth/requester";
import { parseId } from "../ids";
import { CollectionBody } from "./model";
import { listCollections } from "./queries";
import { createCollection, deleteCollection, updateCollection } from "./service";

/** collectionRoutes: `/api/v1/collections`. */
export function collectionRoutes({ db, clock }: AppDeps, { apiUser }: Guards) {
  return new Elysia({ prefix: "/collections" })
    .use(apiUser)
    .get("/", ({ user }) => ({ collections: listCollections(db, user) }))
    .post("/", ({ user, body, status }) =>
      status(201, { message: "Collection created.", collection: createCollection(db, user, body, clock()) }),
      { body: CollectionBody })
    .put("/:id", ({ user, params, body }) => {
      updateCollection(db, user.id, parseId(params.id), body, clock());
      return { message: "Collection updated." };
    }, { body: CollectionBody })
    .delete("/:id", ({ user, params }) => {
      deleteCollection(db, user.id, parseId(params.id));
      return { message: "Collection deleted." };
    });
}
