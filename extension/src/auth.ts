import { HANDOFF_DENIED, HANDOFF_ERROR_PARAM, HANDOFF_TOKEN_PARAM } from "../../src/contract/handoff";
import type { Identity } from "./webext";

/** authorizeUrl is the server's handoff route, asked to send the token back to `redirectUrl`. */
export function authorizeUrl(origin: string, redirectUrl: string): string {
  return `${origin}/extension/authorize?redirect_uri=${encodeURIComponent(redirectUrl)}`;
}

export type TokenResult = { ok: true; token: string } | { ok: false; reason: string };

/**
 * tokenFromRedirect reads the token from the fragment of the URL the handoff ended on
 * (`<redirect URL>#token=<url-encoded token>`; `#error=access_denied` when the user pressed
 * Cancel on the server's consent page). The URL must be on the extension's own callback
 * origin: anything else did not come from the handoff.
 */
export function tokenFromRedirect(finalUrl: string | undefined, redirectUrl: string): TokenResult {
  const url = finalUrl === undefined ? null : URL.parse(finalUrl);
  if (url === null || url.origin !== new URL(redirectUrl).origin) {
    return { ok: false, reason: "The sign-in did not come back to the extension." };
  }
  const fragment = new URLSearchParams(url.hash.slice(1));
  if (fragment.get(HANDOFF_ERROR_PARAM) === HANDOFF_DENIED) return { ok: false, reason: "Sign-in was cancelled: the extension was not allowed on the server." };
  const token = fragment.get(HANDOFF_TOKEN_PARAM);
  if (!token) return { ok: false, reason: "The server did not hand over a token. Is this a linkshelf server?" };
  return { ok: true, token };
}

/**
 * signIn runs the handoff in the browser's sign-in window: the server's login form when there
 * is no session, its consent page the first time this extension signs in, then the redirect to
 * the extension's callback with the token in the fragment, which never reaches any server.
 */
export async function signIn(identity: Identity, origin: string): Promise<TokenResult> {
  const redirectUrl = identity.getRedirectURL();
  let finalUrl: string | undefined;
  try {
    finalUrl = await identity.launchWebAuthFlow({ url: authorizeUrl(origin, redirectUrl), interactive: true });
  } catch {
    // Chromium and Firefox reject with their own wording for a closed window or a page that failed.
    return { ok: false, reason: "Sign-in was cancelled, or the sign-in page could not be shown." };
  }
  return tokenFromRedirect(finalUrl, redirectUrl);
}
