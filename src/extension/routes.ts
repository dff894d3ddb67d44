import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import { resolveUser } from "../auth/identity";
import { createToken } from "../auth/tokens";
import { messagePage } from "../pages/layout";
import { htmlResponse } from "../pages/html";
import { describeRoute } from "../openapi/describe";
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
  }, {
    detail: describeRoute({
      tag: "extension", summary: "Hand a new API token to the browser extension",
      description: "A browser navigation with the user's session cookie. Each call mints a new token named \"Browser extension\".",
      query: {
        redirect_uri: {
          description: "https://<32 letters a-p>.chromiumapp.org/... or https://<40 hex>.extensions.allizom.org/..., no port, no user info.",
          required: true,
        },
      },
      responses: {
        302: { description: "Signed in: to redirect_uri with the token in the fragment.", headers: { Location: "<redirect_uri>#token=<url-encoded token>" } },
        303: { description: "No session: to /login, which comes back here.", headers: { Location: "/login?next=..." } },
        400: { description: "redirect_uri is refused; no token is created.", media: ["text/html"] },
      },
    }),
  });
}
