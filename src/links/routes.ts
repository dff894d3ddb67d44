import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import type { Guards } from "../auth/requester";
import type { GroupCommit } from "../db/group-commit";
import { MessageJson } from "../api";
import { parseId } from "../ids";
import { apiErrors, describeRoute, errorDoc } from "../openapi/describe";
import { CreateLinkBody, FavoritesJson, LinkCreatedJson, LinkItemJson, LinkPageJson, LinkSearchQuery, UpdateLinkBody } from "./model";

/** linkRoutes: `/api/v1/links`. */
export function linkRoutes({ clock, capture }: AppDeps, { apiUser }: Guards, commits: GroupCommit) {
  return new Elysia({ prefix: "/links" })
    .use(apiUser)
    .get("/", ({ shelf, query }) => shelf.links.search(query), {
      query: LinkSearchQuery,
      detail: describeRoute({
        tag: "links", summary: "Search and page through your links, newest first",
        description: "q: one substring of names, URLs and descriptions (up to 200 characters; ASCII letters ignore case). " +
          "collectionId, favorite: filters. limit: 1-100, default 50. cursor: the nextCursor of the page before.",
        responses: {
          200: { description: "One page; nextCursor is null on the last.", json: LinkPageJson },
          ...apiErrors({ body: false, id: false }),
          404: errorDoc("NOT_FOUND: collectionId is not one of your collections."),
          422: errorDoc("VALIDATION_FAILED: a query parameter is out of range; `errors` names it."),
        },
      }),
    })
    .get("/favorites", ({ shelf }) => shelf.links.favorites(), {
      detail: describeRoute({
        tag: "links", summary: "List favorite links, in the order the extension pins them",
        responses: { 200: { description: "The favorite links.", json: FavoritesJson }, ...apiErrors({ body: false, id: false }) },
      }),
    })
    .get("/:id", ({ shelf, params }) => ({ link: shelf.links.get(parseId(params.id)) }), {
      detail: describeRoute({
        tag: "links", summary: "Read one of your links",
        responses: { 200: { description: "The link.", json: LinkItemJson }, ...apiErrors({ body: false, id: true }) },
      }),
    })
    .post("/", async ({ shelf, body, status }) => {
      const now = clock();
      // Links are created in bursts (an import, the extension saving tabs): one commit per turn of the event loop.
      const link = await commits.run(() => shelf.links.create(body, now));
      capture?.enqueue(link.id, shelf.user.id, link.url);
      return status(201, { message: "Link created.", link });
    }, {
      body: CreateLinkBody,
      detail: describeRoute({
        tag: "links", summary: "Create a link",
        description: "Clicks start at 0. Without collectionIds the link goes to the Inbox.",
        responses: { 201: { description: "Created.", json: LinkCreatedJson }, ...apiErrors({ body: true, id: false }) },
      }),
    })
    .put("/:id", ({ shelf, params, body }) => {
      const id = parseId(params.id);
      const { url } = shelf.links.get(id);
      shelf.links.update(id, body, clock());
      if (body.url.trim() !== url) capture?.enqueue(id, shelf.user.id, body.url.trim());
      return { message: "Link updated." };
    }, {
      body: UpdateLinkBody,
      detail: describeRoute({
        tag: "links", summary: "Update a link",
        description: "Replaces name, url, favorite and collections; an omitted description keeps its value. Clicks are kept.",
        responses: { 200: { description: "Updated.", json: MessageJson }, ...apiErrors({ body: true, id: true }) },
      }),
    })
    .delete("/:id", ({ shelf, params }) => {
      shelf.links.delete(parseId(params.id));
      return { message: "Link deleted." };
    }, {
      detail: describeRoute({
        tag: "links", summary: "Delete a link",
        responses: { 200: { description: "Deleted.", json: MessageJson }, ...apiErrors({ body: false, id: true }) },
      }),
    });
}
