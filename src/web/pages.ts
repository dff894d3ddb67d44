import { Elysia } from "elysia";
import type { SignInThrottle } from "../auth/throttle";
import { formBody } from "../request/form-body";
import { accountPages } from "./account";
import { collectionPages } from "./collections";
import type { PageGuard } from "./guard";
import { healthPages } from "./link-health";
import { homeRoutes } from "./home";
import { importPages } from "./imports";
import { linkPages } from "./links";
import { listPages } from "./lists";
import { searchPages } from "./search";
import { trashPages } from "./trash";

/** What the signed-in pages take together: each page's own part. */
type PagesDeps = Parameters<typeof importPages>[0] & Parameters<typeof homeRoutes>[0] & Parameters<typeof searchPages>[0]
  & Parameters<typeof listPages>[0] & Parameters<typeof linkPages>[0] & Parameters<typeof healthPages>[0]
  & Parameters<typeof collectionPages>[0] & Parameters<typeof accountPages>[0] & Parameters<typeof trashPages>[0];

/**
 * webPages: the signed-in web pages (home, search, all links and bulk actions, links, link health, collections, the trash, account, import / export), all
 * behind `guard` (the session). Their forms are read by `formBody` (at most 64 KiB); the
 * import's upload, registered before it, reads its own larger body. Every route declares the
 * `page` surface: its errors are HTML pages in the user's shell, and the OpenAPI document
 * leaves it out.
 */
export function webPages(deps: PagesDeps, guard: PageGuard, signIns: SignInThrottle) {
  return new Elysia()
    .use(importPages(deps, guard))
    .use(formBody())
    .use(homeRoutes(deps, guard))
    .use(searchPages(deps, guard))
    .use(listPages(deps, guard))
    .use(linkPages(deps, guard))
    .use(healthPages(deps, guard))
    .use(collectionPages(deps, guard))
    .use(trashPages(deps, guard))
    .use(accountPages(deps, guard, signIns));
}
