/** The reading view of a link's saved text (`/links/:id/read`): the text alone, in a calm typographic layout. */
import type { ContentJson } from "../contract/content";
import type { LinkJson } from "../contract/links";
import type { Viewer } from "../shelf/shelf";
import { Html, html } from "./html";
import { hostOf, when } from "./links";
import { shell, TO_READ_VIEW } from "./shell";

/** Words read a minute, for the reading time: a common figure for reading on a screen. */
export const WORDS_PER_MINUTE = 230;

/** readingMinutes is how long the text takes to read, in whole minutes (at least 1). */
export function readingMinutes(text: string): number {
  const words = text.split(/\s+/).filter((word) => word !== "").length;
  return Math.max(1, Math.round(words / WORDS_PER_MINUTE));
}

/**
 * The reading view's own style: one column of at most 66 characters (the measure stays under
 * 70), a serif text face a little larger than the pages', generous leading, and the same
 * palette as every page (dark when the system is).
 */
const READING_STYLE = `
.reading { max-width: 66ch; margin: 1.5rem auto 3rem; padding: 0 1rem; }
.reading header { margin-bottom: 2rem; }
.reading h1 { font: 700 1.9rem/1.25 Charter, "Iowan Old Style", Georgia, Cambria, "Times New Roman", serif; margin: 0 0 .6rem; overflow-wrap: anywhere; }
.reading .byline { color: var(--muted); font-size: .95rem; margin: 0; }
.reading .text { font: 1.2rem/1.7 Charter, "Iowan Old Style", Georgia, Cambria, "Times New Roman", serif; hyphens: auto; overflow-wrap: break-word; }
.reading .text p { margin: 0 0 1.1em; }
.reading footer { border-top: 1px solid var(--border); margin-top: 2.5rem; padding-top: 1.25rem; display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
.reading footer form { margin: 0; }
`;

export interface ReadingOptions {
  user: Viewer;
  link: LinkJson;
  /** The link's saved text; null when none is saved. */
  content: ContentJson | null;
  /** The reading list's next link after this one (null: none). */
  next: LinkJson | null;
}

/** paragraphs splits the saved text (one block a line) into paragraphs. */
function paragraphs(text: string): Html[] {
  return text.split(/\n+/).map((line) => line.trim()).filter((line) => line !== "").map((line) => html`<p>${line}</p>`);
}

/**
 * readingPage: the link's name, site, the date it was saved and the reading time, then its saved
 * text; at the end "Mark read and next" (takes it off the reading list and opens the next one's
 * reading view, or the reading list when it was the last), the original page and the link's page.
 */
export function readingPage({ user, link, content, next }: ReadingOptions): Html {
  const after = next ? `/links/${next.id}/read` : TO_READ_VIEW;
  const body = content === null || content.text.trim() === ""
    ? html`<p class="text" id="no-text">No text of this page is saved yet. Save the page with the browser extension, or let the server capture it from the <a href="/links/${link.id}">link's page</a>.</p>`
    : html`<div class="text" id="reading-text"${content.lang ? html` lang="${content.lang}"` : undefined}>${paragraphs(content.text)}</div>`;
  const minutes = content ? readingMinutes(content.text) : 0;
  const article = html`<article class="reading" aria-labelledby="reading-title">
<header>
<h1 id="reading-title">${link.name}</h1>
<p class="byline" id="reading-facts"><a href="/l/${link.id}">${hostOf(link.url)}</a>${content?.byline ? html` · ${content.byline}` : undefined} · saved ${when(link.createdAt)}${content ? html` · <span id="reading-time">${minutes} min read</span>` : undefined}</p>
</header>
${body}
<footer>
<form method="post" action="/links/${link.id}/flags">
<input type="hidden" name="toRead" value="false">
<input type="hidden" name="next" value="${after}">
<button type="submit" id="read-next">${next ? "Mark read and next" : "Mark read"}</button>
</form>
<a href="/l/${link.id}">Open the original</a>
<a href="/links/${link.id}">Link details</a>
</footer>
</article>`;
  return shell({ title: link.name, user, content: article, head: new Html(`<style>${READING_STYLE}</style>`) });
}
