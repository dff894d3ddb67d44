import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import type { SignInThrottle } from "../auth/throttle";
import { formBody } from "../request/form-body";
import { accountPages } from "./account";
import { collectionPages } from "./collections";
import { pageGuard } from "./guard";
import { homeRoutes } from "./home";
import { importPages } from "./imports";
import { linkPages } from "./links";

/**
 * The paths of the signed-in pages: for people in a browser, not API clients, so the OpenAPI
 * document leaves them out like the sign-in pages (its test fails if a page is missing here).
 */
export const WEB_PAGE_PATHS = [
  "/links", "/links/new", "/links/:id", "/links/:id/edit", "/links/:id/delete", "/links/:id/favorite",
  "/collections", "/collections/new", "/collections/:id", "/collections/:id/edit", "/collections/:id/delete",
  "/account", "/account/password", "/account/tokens", "/account/tokens/:id/revoke", "/account/extensions/:id/remove", "/assets/account.js",
  "/import", "/import/:key", "/import/:key/confirm", "/import/:key/cancel", "/export",
];

/**
 * webPages: the signed-in web pages (home, links, collections, account, import / export), all
 * behind the session. Their forms are read by `formBody` (at most 64 KiB); the import's upload,
 * registered before it, reads its own larger body.
 */
export function webPages(deps: AppDeps, signIns: SignInThrottle) {
  const guard = pageGuard(deps);
  return new Elysia()
    .use(importPages(deps, guard))
    .use(formBody())
    .use(homeRoutes(deps, guard))
    .use(linkPages(deps, guard))
    .use(collectionPages(deps, guard))
    .use(accountPages(deps, guard, signIns));
}
