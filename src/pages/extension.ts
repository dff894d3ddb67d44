import type { Viewer } from "../shelf/shelf";
import type { ExtensionIdentity } from "../extension/redirect-uri";
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
}

/**
 * consentPage asks, the first time an extension id signs in, whether it may have a token:
 * which browser and extension, what a token can do, Allow (a POST) or Cancel (a link).
 */
export function consentPage({ user, extension, action, cancel }: ConsentOptions): Html {
  return layout("Connect a browser extension", html`
<h1>Connect a browser extension?</h1>
<p>A browser extension asks for access to your linkshelf as <strong>${user.name}</strong> (${user.email}).</p>
<dl>
<dt>Browser</dt><dd>${BROWSER_NAMES[extension.browser]}</dd>
<dt>Extension id</dt><dd><code>${extension.extensionId}</code></dd>
</dl>
<p>Allowing it gives it an API token that can read, add, change and delete your links and collections, as you can, until you revoke the token or remove the extension on your Account page.</p>
<p>Allow only an extension you installed yourself: its id is on your browser's extensions page. Later sign-ins of this extension will not ask again.</p>
<form method="post" action="${action}">
<button type="submit">Allow</button>
</form>
<p><a href="${cancel}">Cancel</a></p>`);
}
