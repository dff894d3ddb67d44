import { html, type Html } from "./html";
import { messagePage } from "./layout";

/**
 * privateLinkPage: the 404 of `/l/:id` for a browser without a session. The link may be a
 * private one of theirs (a pinned favorite after the session lapsed): Sign in comes back to it.
 */
export function privateLinkPage(path: string): Html {
  return messagePage("Not found", "This link is private or does not exist.", html`
<p>If it is one of your links, sign in to open it.</p>
<p><a href="/login?next=${encodeURIComponent(path)}">Sign in</a></p>`);
}
