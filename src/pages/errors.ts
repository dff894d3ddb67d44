import type { Viewer } from "../shelf/shelf";
import { html, type Html } from "./html";
import { messagePage } from "./layout";
import { shell } from "./shell";

/** What an error page says. */
export interface ErrorPageOptions {
  title: string;
  message: string;
  /** The signed-in user: the page is drawn inside their shell. Null: the plain message page. */
  user: Viewer | null;
  /** For a browser without a session: why signing in may help, and the path to come back to. */
  signIn?: { why: string; next: string };
}

/**
 * errorPage is the one HTML page of every error (404, 403, 429...): a title and one sentence,
 * inside the signed-in shell when someone is signed in, else the plain message page, which
 * may offer to sign in and come back.
 */
export function errorPage(options: ErrorPageOptions): Html {
  const { title, message, user, signIn } = options;
  if (user) {
    return shell({
      title,
      user,
      content: html`<div class="narrow card"><h1>${title}</h1><p>${message}</p><p><a href="/">Back to your links</a></p></div>`,
    });
  }
  return messagePage(title, message, signIn && html`
<p>${signIn.why}</p>
<p><a href="/login?next=${encodeURIComponent(signIn.next)}">Sign in</a></p>`);
}
