import type { Viewer } from "../shelf/shelf";
import type { ExtensionIdentity } from "../shelf/redirect-uri";
import { html, type Html } from "./html";
import { layout } from "./layout";

/** The browser families as people name them. */
export const BROWSER_NAMES = { chromium: "Chromium (Chrome, Edge, Brave…)", firefox: "Firefox" } as const;

export interface ConsentOptions {
  user: Viewer;
  extension: ExtensionIdentity;
  /** Where Allow posts: the handoff's own path and query, so the POST checks the same redirect_uri. */
  action: string;
  /** Where Cancel goes: the extension's callback, told that access was denied. */
  cancel: string;
  /** True when the extension is allowed already (the browser came from another site, or it is a HEAD): Allow replaces its token. */
  allowedBefore?: boolean;
}

/**
 * consentPage asks, the first time an extension id signs in, whether it may have a token:
 * which browser and extension, what a token can do, Allow (a POST) or Cancel (a link). For an
 * extension allowed before (shown when the browser came from another site, which is also how
 * Chromium's sign-in window comes), it says that Allow ends the token the extension holds now.
 */
export function consentPage({ user, extension, action, cancel, allowedBefore = false }: ConsentOptions): Html {
  const notice = allowedBefore
    ? html`<p id="allowed-before"><strong>You allowed this extension before.</strong> Allow gives it a new token and ends the one it holds now. Press Allow if you are signing the extension in yourself; if a web page sent you here, close this page instead.</p>`
    : html``;
  return layout("Connect a browser extension", html`
<h1>Connect a browser extension?</h1>
${notice}
<p>A browser extension asks for access to your linkshelf as <strong>${user.name}</strong> (${user.email}).</p>
<dl>
<dt>Browser</dt><dd>${BROWSER_NAMES[extension.browser]}</dd>
<dt>Extension id</dt><dd><code>${extension.extensionId}</code></dd>
</dl>
<p>Allowing it gives it an API token that can read, add, change and delete your links and collections, as you can, until you revoke the token or remove the extension on your Account page.</p>
<p>Allow only an extension you installed yourself: its id is on your browser's extensions page.${allowedBefore ? "" : " Later sign-ins of this extension go straight through. In Chromium, when you are already signed in here, this page appears again: its sign-in window looks like a link from another site, and only your click lets a new token replace the one the extension holds."}</p>
<form method="post" action="${action}">
<button type="submit">Allow</button>
</form>
<p><a href="${cancel}">Cancel</a></p>`);
}
