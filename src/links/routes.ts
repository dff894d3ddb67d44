import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import type { Guards } from "../auth/requester";
import type { GroupCommit } from "../db/group-commit";
import { parseId } from "../ids";
import { CreateLinkBody, LinkSearchQuery, UpdateLinkBody } from "./model";
import { getLink, listFavorites, searchLinks } from "./queries";
import { createLink, deleteLink, updateLink } from "./service";

/** linkRoutes: `/api/v1/links`. */
export function linkRoutes({ db, clock }: AppDeps, { apiUser }: Guards, commits: GroupCommit) {
  return new Elysia({ prefix: "/links" })
    .use(apiUser)
    .get("/", ({ user, query }) => searchLinks(db, user.id, query), { query: LinkSearchQuery })
    .get("/favorites", ({ user }) => listFavorites(db, user.id))
    .get("/:id", ({ user, params }) => ({ link: getLink(db, user.id, parseId(params.id)) }))
    .post("/", async ({ user, body, status }) => {
      const now = clock();
      // Links are created in bursts (an import, the extension saving tabs): one commit per turn of the event loop.
      const link = await commits.run(() => createLink(db, user.id, body, now));
      return status(201, { message: "Link created.", link });
    }, { body: CreateLinkBody })
    .put("/:id", ({ user, params, body }) => {
      updateLink(db, user.id, parseId(params.id), body, clock());
      return { message: "Link updated." };
    }, { body: UpdateLinkBody })
    .delete("/:id", ({ user, params }) => {
      deleteLink(db, user.id, parseId(params.id));
      return { message: "Link deleted." };
    });
}
