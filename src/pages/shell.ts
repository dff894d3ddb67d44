import type { Viewer } from "../shelf/shelf";
import { html, Html, Page } from "./html";
import { SHORTCUTS_SCRIPT, shortcutsDialog } from "./shortcuts";
import { documentHead, PALETTE } from "./layout";
import { formatNumber } from "../common/format";

/**
 * The signed-in pages' style: a top bar, an optional sidebar, cards and lists. Same palette
 * and type as the sign-in page; a phone gets one column, the sidebar folded to one line above
 * the content.
 */
const STYLE = `${PALETTE}
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--text); }
a { color: var(--accent); }
a:focus-visible, input:focus-visible, button:focus-visible, select:focus-visible, textarea:focus-visible, .button:focus-visible, summary:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: .5rem; }
.skip:focus { left: .5rem; background: var(--card); padding: .4rem .7rem; border-radius: 8px; z-index: 1; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: .6rem 1rem; padding: .6rem 1rem;
  background: var(--card); border-bottom: 1px solid var(--border); }
.brand { font-weight: 700; color: var(--accent); text-decoration: none; letter-spacing: .02em; }
.search { display: flex; gap: .4rem; flex: 1 1 16rem; max-width: 32rem; order: 3; width: 100%; }
.search input { flex: 1; min-width: 0; }
.top nav { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem .75rem; margin-left: auto; }
.top nav > a, .top nav button { white-space: nowrap; }
.top nav form { margin: 0; }
@media (min-width: 48rem) { .search { order: 0; width: auto; } }
/* One column: the account links wrap beside the brand, the search box takes a line of its own, the page's margins narrow. */
@media (max-width: 47.99rem) {
  .top { padding: .5rem .75rem; gap: .4rem .75rem; align-items: start; }
  .top nav { flex: 1 1 0; min-width: 0; margin-left: 0; gap: .1rem .7rem; font-size: .95rem; }
  .search { flex-basis: 100%; }
  .shell { padding: .6rem; gap: .6rem; }
  .card { padding: .75rem .85rem; }
  .heading .actions .button, .arrange .button, .arrange button { padding: .35rem .7rem; font-size: .92rem; }
}
.shell { max-width: 72rem; margin: 0 auto; padding: 1rem; display: grid; gap: 1rem; }
.shell.with-sidebar { grid-template-columns: minmax(0, 1fr); }
@media (min-width: 48rem) { .shell.with-sidebar { grid-template-columns: minmax(15rem, 22rem) minmax(0, 1fr); align-items: start; } }
.stack > * + * { margin-top: 1rem; }
.narrow { max-width: 40rem; width: 100%; margin: 0 auto; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: 12px; padding: 1rem 1.25rem; }
h1 { font-size: 1.35rem; margin: 0 0 .75rem; overflow-wrap: anywhere; }
h2 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
.card > h2:first-child { margin-top: 0; }
time { white-space: nowrap; }
p { margin: .25rem 0 .75rem; }
.muted { color: var(--muted); }
.sidebar h2 { margin: 0 0 .4rem; font-size: .8rem; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
.sidebar h2.gap { margin-top: 1rem; }
.sidebar ul { list-style: none; margin: 0; padding: 0; }
.sidebar a.item { display: flex; align-items: center; gap: .5rem; padding: .35rem .5rem; border-radius: 8px;
  color: var(--text); text-decoration: none; }
.sidebar a.item:hover { background: var(--bg); }
.sidebar a.item[aria-current="page"] { background: var(--accent); color: var(--accent-text); }
.sidebar a.item[aria-current="page"] .badge { color: inherit; border-color: currentColor; }
.sidebar .name { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.sidebar .count { margin-left: auto; font-size: .85rem; font-variant-numeric: tabular-nums; opacity: .8; }
.sidebar .new { display: inline-block; margin-top: .6rem; font-size: .9rem; }
.sidebar ul ul { padding-left: .9rem; }
.sidebar summary { font-size: .8rem; color: var(--muted); padding: .1rem .5rem; cursor: pointer; }
.filter input { padding: .35rem .6rem; margin: 0 0 .4rem; }
@media (max-width: 47.99rem) { .sidebar ul.views { display: flex; flex-wrap: wrap; gap: .25rem; }
  .sidebar ul.views a.item { border: 1px solid var(--border); } .sidebar.card { padding: .35rem .9rem; } }
/* The sidebar folds to one line ("Collections ▾" and what is shown) on one column; two columns show it whole. */
.sidebar .fold > summary { display: flex; align-items: center; gap: .6rem; min-height: 2.4rem; padding: 0; font-size: 1rem;
  color: var(--text); font-weight: 600; list-style: none; }
.sidebar .fold > summary::-webkit-details-marker { display: none; }
.sidebar .fold-here { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; color: var(--muted); font-weight: 400; }
.sidebar .fold[open] > summary { margin-bottom: .5rem; }
/* Where a browser cannot show a closed fold's content, its line stays, to open it by hand without scripts. */
@supports selector(::details-content) {
  @media (min-width: 48rem) { .sidebar .fold > summary { display: none; } .sidebar .fold::details-content { content-visibility: visible; display: block; } }
}
.badge { display: inline-block; font-size: .75rem; font-weight: 600; padding: .05rem .45rem; border-radius: 999px;
  border: 1px solid var(--border); color: var(--muted); vertical-align: middle; }
.heading { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; margin-bottom: .75rem; }
.heading h1 { margin: 0; flex: 1 1 auto; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.links { list-style: none; margin: 0; padding: 0; }
.links > li { display: grid; grid-template-columns: 1.25rem minmax(0, 1fr) auto; gap: .15rem .6rem; padding: .7rem 0;
  border-top: 1px solid var(--border); }
.links.public > li { grid-template-columns: 1.25rem minmax(0, 1fr); }
.links > li:first-child { border-top: 0; }
.links img { width: 16px; height: 16px; margin-top: .25rem; border-radius: 3px; }
.links .title { font-weight: 600; overflow-wrap: anywhere; text-decoration: none; }
.links .title:hover { text-decoration: underline; }
.links .host { color: var(--muted); font-size: .85rem; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.links .host.url { white-space: normal; overflow-wrap: anywhere; }
.links .description { margin: .15rem 0 0; overflow-wrap: anywhere; }
.links .meta { color: var(--muted); font-size: .85rem; }
.links .row-actions { display: flex; flex-wrap: wrap; gap: .35rem; align-items: start; }
.links .row-actions form { margin: 0; }
.links.pickable > li { grid-template-columns: 1.1rem 1.25rem minmax(0, 1fr) auto; }
@media (max-width: 30rem) {
  .links > li { grid-template-columns: 1.25rem minmax(0, 1fr); }
  .links.pickable > li { grid-template-columns: 1.1rem 1.25rem minmax(0, 1fr); }
  .links > li > .row-actions { grid-column: -2; }
}
.crumbs ol { list-style: none; margin: 0 0 .4rem; padding: 0; display: flex; flex-wrap: wrap; gap: .2rem; font-size: .9rem; }
.crumbs li + li::before { content: "›"; margin-right: .2rem; color: var(--muted); }
.crumbs a[aria-current] { color: var(--text); text-decoration: none; }
.arrange { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin-bottom: 1rem; }
.arrange .sort { flex: 1 1 16rem; flex-wrap: nowrap; min-width: 0; }
.arrange form { margin: 0; }
.sort { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.sort label { margin: 0; }
.sort select { width: auto; flex: 1 1 8rem; min-width: 0; max-width: 16rem; }
.children { list-style: none; margin: 0 0 1rem; padding: 0; }
.children > li { display: flex; flex-wrap: wrap; align-items: center; gap: .2rem .6rem; padding: .4rem 0; border-top: 1px solid var(--border); }
.children > li:first-child { border-top: 0; }
.children form { margin: 0 0 0 auto; }
.moves { display: inline-flex; gap: .2rem; }
[data-arrange] > li[draggable="true"] { cursor: grab; }
[data-arrange] > li.dragging { opacity: .45; }
[data-arrange] > li.drop-before { box-shadow: inset 0 3px 0 var(--accent); }
[data-arrange] > li.drop-after { box-shadow: inset 0 -3px 0 var(--accent); }
.sidebar a.item.drop-into { outline: 2px dashed var(--accent); outline-offset: -2px; }
button.move { background: none; border: 1px solid var(--border); color: var(--accent); padding: 0 .45rem; font-weight: 400; }
.tree-choices .choice { margin-left: calc((var(--depth) - 1) * 1.25rem); }
.links .pick { margin-top: .3rem; width: 1.1rem; height: 1.1rem; }
[hidden] { display: none !important; }
.bulk-bar { border: 1px solid var(--border); border-radius: 8px; padding: .4rem .8rem; margin: 0 0 .75rem; }
.bulk-bar > summary { font-weight: 600; font-size: .9rem; cursor: pointer; }
.bulk-bar[open] { padding-bottom: .8rem; }
.bulk-bar label { margin: .4rem 0 .2rem; }
.bulk-fields { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 1rem; margin-bottom: .6rem; }
@media (min-width: 48rem) { .bulk-fields { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } .refine.view { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr) auto auto; } }
dialog { background: var(--card); color: var(--text); border: 1px solid var(--border); border-radius: 12px; max-width: 28rem; }
.keys { display: grid; grid-template-columns: 4.5rem minmax(0, 1fr); gap: .3rem .8rem; }
.keys dd { margin: 0; }
kbd { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; border: 1px solid var(--border); border-radius: 4px; padding: 0 .4rem; }
.emoji { display: flex; flex-wrap: wrap; gap: .2rem; }
.emoji label { margin: 0; font-size: 1.3rem; font-weight: 400; display: flex; align-items: center; gap: .2rem; padding: .1rem .3rem; border-radius: 8px; }
.emoji label:has(input:checked) { background: var(--bg); outline: 2px solid var(--accent); }
.empty { color: var(--muted); padding: 1rem 0; }
.links .snippet { margin: .2rem 0 0; overflow-wrap: anywhere; }
.links .from { margin-right: .35rem; }
.links .in a { color: inherit; }
mark { background: #fde68a; color: #1d2330; border-radius: 2px; padding: 0 .1em; }
@media (prefers-color-scheme: dark) { mark { background: #7a5d00; color: #fff; } }
.refine { display: grid; grid-template-columns: minmax(0, 1fr); gap: .5rem 1rem; align-items: end; margin-bottom: 1rem; }
@media (min-width: 48rem) { .refine { grid-template-columns: minmax(0, 2fr) minmax(0, 1fr) auto auto; } }
.refine label { margin: 0 0 .3rem; }
.refine .choice { margin: 0 0 .6rem; }
.facts { display: grid; grid-template-columns: minmax(0, 1fr); gap: .1rem 1rem; margin: 0 0 1rem; }
@media (min-width: 36rem) { .facts { grid-template-columns: 9rem minmax(0, 1fr); } }
.facts dt { color: var(--muted); font-size: .9rem; }
.facts dd { margin: 0 0 .4rem; overflow-wrap: anywhere; }
h1 img { vertical-align: -.1em; margin-right: .25rem; border-radius: 3px; }
label, legend { display: block; font-weight: 600; font-size: .9rem; margin: 1rem 0 .3rem; }
legend { padding: 0; }
fieldset { border: 0; margin: 0; padding: 0; min-width: 0; }
.hint { color: var(--muted); font-size: .85rem; margin: .2rem 0 0; }
input, textarea, select { width: 100%; font: inherit; padding: .55rem .7rem; border: 1px solid var(--border);
  border-radius: 8px; background: var(--bg); color: var(--text); }
textarea { min-height: 5rem; resize: vertical; }
input[type="checkbox"], input[type="radio"] { width: auto; margin: 0; accent-color: var(--accent); }
.choice { display: flex; align-items: center; gap: .5rem; font-weight: 400; margin: .35rem 0; }
[aria-invalid="true"] { border-color: var(--error); }
.field-error { color: var(--error); font-size: .9rem; margin: .3rem 0 0; }
.error { background: var(--error-bg); color: var(--error); border-radius: 8px; padding: .6rem .8rem; margin: .5rem 0 1rem; }
.notice { background: var(--bg); border: 1px solid var(--border); border-radius: 8px; padding: .6rem .8rem; margin: .5rem 0 1rem; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: .5rem .9rem; border: 1px solid var(--accent);
  border-radius: 8px; background: var(--accent); color: var(--accent-text); cursor: pointer; text-decoration: none; line-height: 1.4; }
button.secondary, .button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--error); border-color: var(--error); color: var(--card); }
button.plain { background: none; border: 0; padding: 0; color: var(--accent); font-weight: 400; text-decoration: underline; }
button.star { background: none; border: 0; padding: .1rem .3rem; font-size: 1.1rem; line-height: 1; color: var(--muted); }
/* The filled star keeps 3:1 against the card in both schemes (WCAG 1.4.11). */
button.star[aria-pressed="true"] { color: #a87400; }
.flags { display: inline-flex; flex-wrap: wrap; gap: .35rem; }
.flags form { margin: 0; display: inline-flex; gap: .35rem; }
button.flag { background: none; border: 1px solid var(--border); color: var(--accent); padding: 0 .45rem; font-weight: 400; font-size: .85rem; }
@media (prefers-color-scheme: dark) { button.star[aria-pressed="true"] { color: #f0b429; } }
.push { margin-left: auto; }
form.inline { display: inline; margin: 0 0 0 .5rem; }
form.inline button { padding: .15rem .6rem; }
.form-actions { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; margin-top: 1.5rem; }
.pager { display: flex; justify-content: space-between; align-items: baseline; gap: 1rem; margin-top: 1rem; }
.pager .back { display: flex; gap: 1rem; }
table { width: 100%; border-collapse: collapse; font-size: .95rem; }
th, td { text-align: left; padding: .45rem .4rem; border-top: 1px solid var(--border); vertical-align: top; }
th { font-size: .8rem; color: var(--muted); text-transform: uppercase; letter-spacing: .05em; border-top: 0; }
td form { margin: 0; }
code { overflow-wrap: anywhere; }
/* A table of rows (the account's tokens and extensions) becomes one block per row on a phone, each cell named by its column. */
@media (max-width: 37.5rem) {
  table.rows, table.rows tbody, table.rows tr, table.rows td { display: block; }
  table.rows thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.rows tr { border-top: 1px solid var(--border); padding: .4rem 0; }
  table.rows td { border: 0; padding: .1rem 0; }
  table.rows td:first-child { font-weight: 600; }
  table.rows td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-size: .85rem; }
  table.rows td.hide-narrow { display: block; }
}
.secret { display: flex; gap: .5rem; align-items: center; }
.secret input { flex: 1; min-width: 0; font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: .85rem; }
@media (max-width: 30rem) { .hide-narrow { display: none; } }
.badge.broken { color: #b3261e; border-color: #b3261e; }
.evidence { font-size: .85rem; margin: .4rem 0 0; }
.health-section { margin-top: 1rem; }
.health-actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: .4rem; }
.health-actions form { margin: 0; }
`;

export interface ShellOptions {
  title: string;
  /** The signed-in user (null on the public pages: no account bar). */
  user: Viewer | null;
  content: Html;
  /** Shown beside the content on wide screens, folded to one line above it on phones. */
  sidebar?: Html;
  /** What the search box holds. */
  query?: string;
  /** Extra tags for `<head>` (the public page's feed link). */
  head?: Html;
  /** A page's own script, besides the keyboard shortcuts every signed-in page loads. */
  script?: string;
}

/** The reading list: the all-links view of the links to read, newest first. */
export const TO_READ_VIEW = "/links?sort=newest&toread=on";

/**
 * shell is the document of the signed-in (and public) pages: top bar, optional sidebar, main
 * content. A signed-in page loads the keyboard shortcuts and holds their help dialog; the CSP
 * allows scripts from this server only for pages that load one (see Page).
 */
export function shell(options: ShellOptions): Page {
  const { user } = options;
  const scripts = [...(user ? [SHORTCUTS_SCRIPT] : []), ...(options.script ? [options.script] : [])];
  return new Page(html`${documentHead(options.title, STYLE)}
${options.head}
${scripts.map((script) => html`<script src="${script}" defer></script>`)}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/">linkshelf</a>
${user ? html`<form class="search" role="search" action="/search" method="get">
<label class="visually-hidden" for="search">Search links</label>
<input id="search" name="q" type="search" placeholder="Search your links and their pages" value="${options.query ?? ""}">
<button type="submit" class="secondary">Search</button>
</form>
<nav aria-label="Account">
<a href="/links">All links</a>
<a href="${TO_READ_VIEW}" id="to-read-nav">To read${user.toRead > 0 ? html` <span class="badge" id="to-read-count" title="Links on your reading list">${formatNumber(user.toRead)}</span>` : undefined}</a>
<a href="/?view=favorites">Favorites</a>
<a href="/health">Link health${user.brokenLinks > 0 ? html` <span class="badge broken" title="Broken links">${formatNumber(user.brokenLinks)}</span>` : undefined}</a>
<a href="/trash">Trash${user.trashItems > 0 ? html` <span class="badge" title="Items in the trash">${formatNumber(user.trashItems)}</span>` : undefined}</a>
<a href="/account">Account</a>
<form method="post" action="/logout"><button type="submit" class="plain">Sign out</button></form>
</nav>` : undefined}
</header>
<div class="shell${options.sidebar ? " with-sidebar" : ""}">
${options.sidebar}
<main id="main">
${options.content}
</main>
</div>
${user ? shortcutsDialog() : undefined}
</body>
</html>
`.value, scripts.length > 0);
}

/** What a pager's two links say: a list of links pages by age, search results by rank, the all-links view by its own order. */
const PAGER_WORDS = {
  age: { first: "← Newest", older: "Older links →" },
  rank: { first: "← Best results", older: "More results →" },
  view: { first: "« First page", older: "Next page →" },
} as const;

/** A list's neighbouring pages, as addresses (any may be absent), and where this page stands ("41–60 of 2,284"). */
export interface Pages {
  first?: string;
  /** The page before this one; given for numbered pages, where it differs from the first. */
  previous?: string;
  older?: string;
  range?: string;
}

/** pager links a list's pages: back to the first (or the previous), on to the next, with where this page stands between. */
export function pager(pages: Pages, order: keyof typeof PAGER_WORDS = "age"): Html | undefined {
  if (!pages.older && !pages.first && !pages.previous && !pages.range) return undefined;
  const words = PAGER_WORDS[order];
  const back = [
    pages.first && pages.first !== pages.previous ? html`<a href="${pages.first}">${words.first}</a>` : undefined,
    pages.previous ? html`<a href="${pages.previous}" rel="prev">← Previous page</a>` : undefined,
  ].filter((link) => link !== undefined);
  return html`<nav class="pager" aria-label="Pages">
<span class="back">${back}</span>
${pages.range ? html`<span class="range">${pages.range}</span>` : undefined}
${pages.older ? html`<a href="${pages.older}" rel="next">${words.older}</a>` : html`<span></span>`}
</nav>`;
}
