import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import type { Guards } from "../auth/requester";
import { readDatabaseStamp, StampedAnswers } from "../db/stamp";
import { parseId } from "../ids";
import { CollectionBody } from "./model";
import { collectionListBody, getCollection } from "./queries";
import { createCollection, deleteCollection, updateCollection } from "./service";

/** collectionRoutes: `/api/v1/collections`. */
export function collectionRoutes({ db, clock }: AppDeps, { apiUser }: Guards) {
  // The list is the extension's start-up read and can be megabytes: each user's answer is
  // kept, encoded, until anything in the database changes (see src/db/stamp.ts).
  const answers = new StampedAnswers<Uint8Array>();
  return new Elysia({ prefix: "/collections" })
    .use(apiUser)
    .get("/", ({ user, set }) => {
      const body = answers.get(readDatabaseStamp(db), user.id, () => collectionListBody(db, user));
      set.headers["content-type"] = "application/json;charset=utf-8";
      return body;
    })
    .get("/:id", ({ user, params }) => ({ collection: getCollection(db, user, parseId(params.id)) }))
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
