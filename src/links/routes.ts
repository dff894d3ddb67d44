import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import type { Guards } from "../auth/requester";
import { GroupCommit } from "../db/group-commit";
import { MessageJson } from "../http";
import { parseId } from "../ids";
import { apiErrors, describeRoute } from "../openapi/describe";
import { CreateLinkBody, FavoritesJson, LinkCreatedJson, UpdateLinkBody } from "./model";
import { listFavorites } from "./queries";
import { createLink, deleteLink, updateLink } from "./service";

/** linkRoutes: `/api/v1/links`. */
export function linkRoutes({ db, clock }: AppDeps, { apiUser }: Guards) {
  // Links are created in bursts (an import, the extension saving tabs): one commit per turn of the event loop.
  const creates = new GroupCommit(db.$client);
  return new Elysia({ prefix: "/links" })
    .use(apiUser)
    .get("/favorites", ({ user }) => listFavorites(db, user.id), {
      detail: describeRoute({
        tag: "links", summary: "List favorite links, in the order the extension pins them",
        responses: { 200: { description: "The favorite links.", json: FavoritesJson }, ...apiErrors({ body: false, id: false }) },
      }),
    })
    .post("/", async ({ user, body, status }) => {
      const now = clock();
      const link = await creates.run(() => createLink(db, user.id, body, now));
      return status(201, { message: "Link created.", link });
    }, {
      body: CreateLinkBody,
      detail: describeRoute({
        tag: "links", summary: "Create a link",
        description: "Clicks start at 0. Without collectionIds the link goes to the Inbox.",
        responses: { 201: { description: "Created.", json: LinkCreatedJson }, ...apiErrors({ body: true, id: false }) },
      }),
    })
    .put("/:id", ({ user, params, body }) => {
      updateLink(db, user.id, parseId(params.id), body, clock());
      return { message: "Link updated." };
    }, {
      body: UpdateLinkBody,
      detail: describeRoute({
        tag: "links", summary: "Update a link",
        description: "Replaces name, url, favorite and collections; an omitted description keeps its value. Clicks are kept.",
        responses: { 200: { description: "Updated.", json: MessageJson }, ...apiErrors({ body: true, id: true }) },
      }),
    })
    .delete("/:id", ({ user, params }) => {
      deleteLink(db, user.id, parseId(params.id));
      return { message: "Link deleted." };
    }, {
      detail: describeRoute({
        tag: "links", summary: "Delete a link",
        responses: { 200: { description: "Deleted.", json: MessageJson }, ...apiErrors({ body: false, id: true }) },
      }),
    });
}
