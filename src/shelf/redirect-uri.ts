import { HANDOFF_TOKEN_PARAM } from "../contract/handoff";
import { AppError } from "../common/errors";

/** Chromium: `https://<extension id>.chromiumapp.org/`, the id being 32 letters a-p. */
const CHROMIUM_HOST = /^[a-p]{32}\.chromiumapp\.org$/;
/** Firefox: `https://<40 hex>.extensions.allizom.org/`. */
const FIREFOX_HOST = /^[0-9a-f]{40}\.extensions\.allizom\.org$/;
/** White space, control characters and backslashes are silently repaired by URL parsers. */
const NEVER_IN_A_CALLBACK = /[\s\p{Cc}\\]/u;

/** The browser family whose reserved callback host a redirect_uri names. */
export type BrowserFamily = "chromium" | "firefox";

/** Which extension a callback belongs to: its browser family and its id (the host's first label). */
export interface ExtensionIdentity {
  browser: BrowserFamily;
  extensionId: string;
}

/** A redirect_uri the handoff refuses (400): the page says why, and no token exists afterwards. */
export class RedirectUriRefused extends AppError {
  constructor(reason: string) {
    super(400, "REDIRECT_URI_REFUSED", `${reason} No token was created.`);
  }
}

export type RedirectUriCheck = ({ ok: true; url: URL } & ExtensionIdentity) | { ok: false; reason: string };

/**
 * checkRedirectUri accepts only a browser-reserved extension callback URL: parsed as a URL
 * (never matched as a substring), https, no user info, no port, the host exactly an
 * extension's reserved host; any path and query. The text must also be in the parser's own
 * canonical form up to the path, so nothing the parser forgave (upper case, percent-encoded
 * host characters, an explicit default port, backslashes) can smuggle a different reading.
 */
export function checkRedirectUri(raw: unknown): RedirectUriCheck {
  if (Array.isArray(raw)) return { ok: false, reason: "redirect_uri must be given once." };
  if (typeof raw !== "string" || raw === "") return { ok: false, reason: "redirect_uri is missing." };
  if (NEVER_IN_A_CALLBACK.test(raw)) return { ok: false, reason: "redirect_uri contains characters a callback URL never has." };
  const url = URL.parse(raw);
  if (url === null) return { ok: false, reason: "redirect_uri is not a URL." };
  if (url.protocol !== "https:") return { ok: false, reason: "redirect_uri must use https." };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "redirect_uri must not contain user info." };
  if (url.port !== "" || raw.slice(url.protocol.length + 2).split(/[/?#]/, 1)[0]!.includes(":")) {
    return { ok: false, reason: "redirect_uri must not name a port." };
  }
  const browser: BrowserFamily | undefined = CHROMIUM_HOST.test(url.hostname) ? "chromium" : FIREFOX_HOST.test(url.hostname) ? "firefox" : undefined;
  if (browser === undefined) {
    return { ok: false, reason: "redirect_uri must be a browser extension's callback address (chromiumapp.org or extensions.allizom.org)." };
  }
  const rest = raw.slice(url.origin.length);
  if (!raw.startsWith(url.origin) || !(rest === "" || /^[/?#]/.test(rest))) {
    return { ok: false, reason: "redirect_uri is not in canonical form." };
  }
  return { ok: true, url, browser, extensionId: url.hostname.split(".", 1)[0]! };
}

/** callbackLocation is the redirect_uri without its fragment, carrying the token in a new one. */
export function callbackLocation(url: URL, token: string): string {
  const target = new URL(url.href);
  target.hash = "";
  return `${target.href}#${HANDOFF_TOKEN_PARAM}=${encodeURIComponent(token)}`;
}
