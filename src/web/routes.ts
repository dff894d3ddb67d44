import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import { accountPages } from "./account";
import { collectionPages } from "./collections";
import { pageGuard } from "./guard";
import { homeRoutes } from "./home";
import { linkPages } from "./links";

/** webPages: the signed-in web pages (home, links, collections, account), all behind the session. */
export function webPages(deps: AppDeps) {
  const guard = pageGuard(deps);
  return new Elysia()
    .use(homeRoutes(deps, guard))
    .use(linkPages(deps, guard))
    .use(collectionPages(deps, guard))
    .use(accountPages(deps, guard));
}
