import type { CollectionSummary, ContentSummary } from "../shelf/types";
import type { Viewer } from "../shelf/shelf";
import type { LinkJson } from "../contract/links";
import { html, type Html } from "./html";
import { copyOffer, faviconFor, flagForm, when, whenExactly } from "./links";
import { healthButtons, resultOf, stateBadge } from "./link-health";
import type { HealthJson } from "../contract/link-health";
import { shell } from "./shell";
import type { CaptureProblem } from "../capture/fetcher";
import { formatBytes, formatNumber } from "../common/format";
import { iso } from "../common/timestamps";

/** Whether this server may fetch the link's page again, and if not, why. */
export type RecaptureOffer = "offered" | "browser" | "off";

export interface LinkDetailsOptions {
  user: Viewer;
  link: LinkJson;
  /** The link's collections, in the link's order. */
  collections: CollectionSummary[];
  /** What is saved of the link's page (null: nothing yet). */
  content: ContentSummary | null;
  recapture: RecaptureOffer;
  /** Why the server's last fetch of the page stored nothing, if it did not. */
  problem?: CaptureProblem;
  /** What the link checker found (null: not checked yet). */
  health: HealthJson | null;
  notice?: string | Html;
}

/** problemLine says why the server's last fetch stored nothing, and what would change that. */
function problemLine(problem: CaptureProblem | undefined): Html | undefined {
  if (!problem) return undefined;
  const why = {
    private: html`not fetched: a private address (${problem.detail === "loopback" ? "this machine" : "your LAN"}); set <code>LINKSHELF_FETCH_PRIVATE=1</code> to allow pages on private addresses, then capture again`,
    refused: html`not fetched: the server never fetches ${problem.detail === "scheme" ? "that kind of address" : `a ${problem.detail} address`}`,
    failed: html`not fetched: ${problem.detail}`,
    "not-a-page": html`not fetched: the address answers with ${problem.detail || "something"}, not a web page`,
    empty: html`fetched, but the page has no readable text`,
  }[problem.kind];
  return html`<p class="hint" id="capture-problem">Last try, ${when(iso(problem.at))}: ${why}.</p>`;
}

/** capturedLine says when and how the page's text was saved, or that none is. */
function capturedLine(content: ContentSummary | null): Html {
  if (!content) return html`<p id="captured">No page text saved yet.</p>`;
  return content.source === "browser"
    ? html`<p id="captured">Captured by your browser on ${when(content.capturedAt)}.</p>`
    : html`<p id="captured">Fetched by the server on ${when(content.capturedAt)}.</p>`;
}

/** recaptureBlock is the "Capture again" form, or the sentence saying why there is none. */
function recaptureBlock(link: LinkJson, content: ContentSummary | null, offer: RecaptureOffer): Html {
  if (offer === "off") return html`<p class="hint" id="recapture">This server does not fetch pages (<code>LINKSHELF_FETCH_CONTENT=off</code>).</p>`;
  if (offer === "browser") {
    return html`<p class="hint" id="recapture">To capture it again, open the page and save it with the browser extension: the server never replaces what your browser captured.</p>`;
  }
  return html`<form method="post" action="/links/${link.id}/capture" id="recapture">
<button type="submit" class="secondary">${content ? "Capture again" : "Capture the page"}</button>
<p class="hint">The server fetches the page in the background and keeps its readable text for search.</p>
</form>`;
}

/** healthBlock is the link's health: its state, its last checks with their times, and the buttons to check it now and to ignore it (or flag it again). */
function healthBlock(link: LinkJson, health: HealthJson | null): Html {
  const here = `/links/${link.id}`;
  return html`<h2>Health</h2>
${health?.broken && link.copy ? html`<p id="copy-offer"><strong>The page is gone:</strong> ${copyOffer(link)}, kept by your browser.</p>` : undefined}
<p id="health">${health === null || health.lastCheckedAt === null
    ? "Not checked yet."
    : html`${stateBadge(health)} Last checked ${whenExactly(health.lastCheckedAt)}${health.since ? html`, failing since ${whenExactly(health.since)}` : ""}.`}</p>
${health && health.checks.length > 0 ? html`<ol class="checks" aria-label="Last checks, newest first">
${health.checks.map((check) => html`<li>${whenExactly(check.at)}: ${resultOf(check)}</li>`)}
</ol>` : undefined}
<div class="health-actions">${healthButtons(link, health?.ignored ?? false, here)}</div>`;
}

/** fact is one line of a description list, with "None" when there is nothing to show. */
const fact = (term: string, value: Html | string | null | undefined) => html`<dt>${term}</dt><dd>${value || html`<span class="muted">None</span>`}</dd>`;

/**
 * linkDetailsPage: one of the user's links: its name (through `/l/:id`), URL, description,
 * collections, favorite, reading list and archive (with their buttons), clicks, and what is saved of its page (when and how it was captured,
 * title, author, language, excerpt) with the "Capture again" form where it applies.
 */
export function linkDetailsPage(options: LinkDetailsOptions): Html {
  const { link, content } = options;
  const here = `/links/${link.id}`;
  const body = html`<div class="card">
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : undefined}
<div class="heading">
<h1>${faviconFor(link.url)} ${link.name}</h1>
<div class="actions">
<a class="button" href="/l/${link.id}">Open</a>
${content ? html`<a class="button secondary" href="/links/${link.id}/read" id="read-link">Read</a>` : undefined}
<a class="button secondary" href="/links/${link.id}/edit?next=${encodeURIComponent(here)}">Edit</a>
<a href="/links/${link.id}/delete">Delete…</a>
</div>
</div>
<div class="actions">${flagForm(link, here)}</div>
<dl class="facts">
${fact("URL", html`<a href="/l/${link.id}">${link.url}</a>`)}
${fact("Description", link.description)}
${fact("Collections", html`${options.collections.map((collection, i) => html`${i > 0 ? ", " : ""}<a href="/?collection=${collection.id}"><span aria-hidden="true">${collection.icon}</span> ${collection.name}</a>`)}`)}
${fact("Favorite", link.favorite ? "Yes" : "No")}
${fact("Reading list", link.toRead ? "To read" : "Read")}
${fact("Archived", link.archived ? "Yes" : "No")}
${fact("Clicks", formatNumber(link.clicks))}
${fact("Last click", link.lastClickedAt ? when(link.lastClickedAt) : "Never")}
${fact("Added", when(link.createdAt))}
</dl>
<h2>Page copy</h2>
${link.copy ? html`<p id="copy">${copyOffer(link)} (${formatBytes(link.copy.bytes)}, kept by your browser).</p>` : html`<p id="copy">No copy of the page yet: the browser extension's <strong>Keep a copy</strong> keeps the page as you see it.</p>`}
<h2>Saved page</h2>
${capturedLine(content)}
${problemLine(options.problem)}
${content ? html`<dl class="facts">
${fact("Title", content.title)}
${fact("Author", content.byline)}
${fact("Language", content.lang)}
${fact("Excerpt", content.excerpt)}
</dl>` : undefined}
${recaptureBlock(link, content, options.recapture)}
${healthBlock(link, options.health)}
</div>`;
  return shell({ title: link.name, user: options.user, content: body });
}
