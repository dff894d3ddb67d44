import { Elysia } from "elysia";
import { Conflict } from "../common/errors";
import { checkLinkNow, type CheckNowDeps } from "../link-health/checker";
import type { Network } from "../request/arrival";
import { parseId } from "../common/ids";
import { healthPage } from "../pages/link-health";
import { htmlResponse } from "../pages/html";
import { formField } from "../request/form-body";
import { ownOrigin, safeNext, seeOther } from "../request/origin";
import { PAGE_ROUTE, surfaces } from "../request/surface";
import type { PageGuard } from "./guard";
import { noticeOf, withNotice } from "./notices";

/**
 * healthPages: `GET /health` (broken, moved and ignored links with their evidence) and its forms:
 * check one now, ignore one or flag it again (each returning to its `next`, a link's own page, or
 * the health page), and use a moved link's new URL (an update through the shelf, like the
 * edit form's). Deleting goes through the link's own delete confirmation.
 */
export function healthPages(deps: CheckNowDeps & Network, guard: PageGuard) {
  const { clock, config } = deps;
  /** Where a health form returns: its `next` (a link's own page), else the health page. */
  const backTo = (request: Request, body: unknown) => {
    const next = formField(body, "next");
    return next === "" ? "/health" : safeNext(next, ownOrigin(request, deps));
  };
  return new Elysia()
    .use(surfaces)
    .get("/health", ({ request, query }) => guard.page(request, (shelf) => htmlResponse(healthPage({
      user: shelf.viewer(),
      broken: shelf.health.list("broken"),
      moved: shelf.health.list("moved"),
      ignored: shelf.health.ignoredList(),
      notice: noticeOf(query.done),
      rule: config.linkCheck,
    }))), { surface: PAGE_ROUTE })
    .post("/health/:id/check", ({ request, params, body }) => guard.form(request, async (shelf) => {
      await checkLinkNow(shelf, parseId(params.id), deps);
      return seeOther(withNotice(backTo(request, body), "link-checked"));
    }), { surface: PAGE_ROUTE })
    .post("/health/:id/ignore", ({ request, params, body }) => guard.form(request, (shelf) => {
      shelf.health.setIgnored(parseId(params.id), true, clock());
      return seeOther(withNotice(backTo(request, body), "link-ignored"));
    }), { surface: PAGE_ROUTE })
    .post("/health/:id/unignore", ({ request, params, body }) => guard.form(request, (shelf) => {
      shelf.health.setIgnored(parseId(params.id), false, clock());
      return seeOther(withNotice(backTo(request, body), "link-unignored"));
    }), { surface: PAGE_ROUTE })
    .post("/health/:id/use-new-url", ({ request, params }) => guard.form(request, (shelf) => {
      const link = shelf.links.get(parseId(params.id));
      const movedTo = shelf.health.movedTo(link.id);
      if (movedTo === null) throw new Conflict("NOT_MOVED", "The link checker found no new address for this link.");
      shelf.links.update(link.id, { ...link, url: movedTo }, clock());
      return seeOther(withNotice("/health", "link-moved"));
    }), { surface: PAGE_ROUTE });
}
