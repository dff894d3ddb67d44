import type { Guards } from "../auth/requester";
import type { WriteOnce } from "./idempotency";
import { presentedToken } from "../auth/bearer";
import { MessageJson } from "../contract/common";
import { apiRoute } from "../openapi/describe";

/**
 * tokenRoutes: `DELETE /api/v1/tokens/current`, a client's sign-out. The token the request
 * presents is revoked, so a browser extension that signs out leaves no live token behind, and
 * signing in again mints its new one at once (an extension's tokens are otherwise at most one
 * a minute).
 */
export function tokenRoutes({ apiRoutes }: Guards, once: WriteOnce) {
  return apiRoutes("/tokens")
    .use(once)
    .delete("/current", ({ request, write }) => write((shelf) => {
      // The guard let the request in with this very token, so it is the shelf's own.
      shelf.tokens.revokeToken(presentedToken(request.headers.get("authorization"))!);
      return { message: "Token revoked." };
    }), apiRoute({
      tag: "tokens", summary: "Revoke the token this request presents (sign out)",
      description: "The token in the Authorization header is revoked: every later request with it is 401. " +
        "The companion extension calls it when you sign out, so that signing in again within the minute mints a new token at once.",
      ok: { description: "Revoked.", json: MessageJson },
    }));
}
