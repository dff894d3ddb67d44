import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import { resolveUser } from "../auth/identity";
import { createToken } from "../auth/tokens";
import { messagePage } from "../pages/layout";
import { htmlResponse } from "../pages/html";
import { callbackLocation, checkRedirectUri } from "./redirect-uri";

export const EXTENSION_TOKEN_NAME = "Browser extension";

/** extensionRoutes: `GET /extension/authorize`, the extension's token handoff. */
export function extensionRoutes({ db, clock }: AppDeps) {
  return new Elysia().get("/extension/authorize", ({ request }) => {
    // Read every value: the parsed query keeps only the last of a repeated parameter.
    const given = new URL(request.url).searchParams.getAll("redirect_uri");
    const check = checkRedirectUri(given.length > 1 ? given : given[0]);
    if (!check.ok) {
      return htmlResponse(messagePage("Cannot connect the extension", `${check.reason} No token was created.`), { status: 400 });
    }
    const now = clock();
    const user = resolveUser(db, request, now);
    if (!user) {
      const url = new URL(request.url);
      const back = url.pathname + url.search;
      return new Response(null, { status: 303, headers: { Location: `/login?next=${encodeURIComponent(back)}`, "Cache-Control": "no-store" } });
    }
    const { token } = createToken(db, user.id, EXTENSION_TOKEN_NAME, now);
    return new Response(null, {
      status: 302,
      headers: { Location: callbackLocation(check.url, token), "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" },
    });
  });
}
