import { HANDOFF_DENIED, HANDOFF_ERROR_PARAM, HANDOFF_TOKEN_PARAM } from "../../src/contract/handoff";
import type { Identity } from "./webext";

/**
 * authorizeUrl is the server's handoff route, asked to send the token back to `redirectUrl`
 * and, given `name`, to name the token so ("Chromium on Linux": the account page lists it).
 */
export function authorizeUrl(origin: string, redirectUrl: string, name?: string): string {
  return `${origin}/extension/authorize?redirect_uri=${encodeURIComponent(redirectUrl)}${name === undefined ? "" : `&name=${encodeURIComponent(name)}`}`;
}

/** The systems `runtime.getPlatformInfo()` names, as people say them. */
const SYSTEMS: Record<string, string> = {
  linux: "Linux", win: "Windows", mac: "macOS", android: "Android", cros: "ChromeOS", openbsd: "OpenBSD", fuchsia: "Fuchsia",
};

/**
 * deviceName names this browser for its token: the browser, from its sign-in callback's host
 * (Chromium's `chromiumapp.org`, else Firefox) or, in a branded Chromium, the brand it reports
 * ("Google Chrome", "Microsoft Edge"); then the system `runtime.getPlatformInfo()` named
 * ("Chromium on Linux", "Firefox on Windows"). An unknown system is left out.
 */
export function deviceName(redirectUrl: string, os: string | undefined, brands: readonly { brand: string }[] = []): string {
  const chromium = new URL(redirectUrl).hostname.endsWith(".chromiumapp.org");
  // Chromium lists a made-up brand ("Not)A;Brand") among the real ones, and itself beside its brand.
  const brand = chromium ? brands.map((entry) => entry.brand).find((name) => name !== "Chromium" && !/not.a.brand/i.test(name)) : undefined;
  const browser = brand ?? (chromium ? "Chromium" : "Firefox");
  const system = os === undefined ? undefined : SYSTEMS[os];
  return system === undefined ? browser : `${browser} on ${system}`;
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
 * Given the `device` (its system, its brands), the token is named after it (deviceName).
 */
export async function signIn(identity: Identity, origin: string, device?: { os?: string; brands?: readonly { brand: string }[] }): Promise<TokenResult> {
  const redirectUrl = identity.getRedirectURL();
  const name = device === undefined ? undefined : deviceName(redirectUrl, device.os, device.brands);
  let finalUrl: string | undefined;
  try {
    finalUrl = await identity.launchWebAuthFlow({ url: authorizeUrl(origin, redirectUrl, name), interactive: true });
  } catch {
    // Chromium and Firefox reject with their own wording for a closed window or a page that failed.
    return { ok: false, reason: "Sign-in was cancelled, or the sign-in page could not be shown." };
  }
  return tokenFromRedirect(finalUrl, redirectUrl);
}
