import type { CollectionSummary, SearchResults } from "../shelf/types";
import type { Viewer } from "../shelf/shelf";
import type { Snippet } from "../fulltext/snippet";
import { bulkForm } from "./bulk";
import { collectionsSidebar } from "./home";
import { html, type Html } from "./html";
import { brokenMark, faviconFor, pickBox, when } from "./links";
import { pager, shell } from "./shell";
import { countOf } from "../common/format";

type Hit = SearchResults["hits"][number];

/** What was asked: the words and the filters, as the address gave them. */
export interface SearchAsked {
  q: string;
  collectionId?: number;
  favorites: boolean;
}

export interface SearchPageOptions {
  user: Viewer;
  collections: CollectionSummary[];
  asked: SearchAsked;
  /** Null before anything is asked (an empty box) and when the search was refused. */
  hits: Hit[] | null;
  /** Why the words cannot be searched: shown beside the box. */
  queryError?: string;
  notice?: string;
  /** The address of the next page of hits, if there is one. */
  more?: string;
  /** On a later page: the address of the first. */
  first?: string;
  /** Which of the hits' links are broken. */
  broken: Set<number>;
  /** This page's own address: the bulk form comes back here. */
  self: string;
  /** Why the bulk action sent from this page was refused, above its form. */
  refusal?: string;
}

/** searchView is what the bulk form carries for "all matching" on search results: the words and filters. */
function searchView(asked: SearchAsked): Record<string, string> {
  const view: Record<string, string> = { q: asked.q };
  if (asked.collectionId !== undefined) view.collection = String(asked.collectionId);
  if (asked.favorites) view.favorites = "on";
  return view;
}

/**
 * highlighted is a snippet's text with each matched range in `<mark>`. Built from the ranges
 * with the escaping `html` tag, so the page's own text (`<script>`, `&lt;`) shows as text.
 */
export function highlighted(snippet: Snippet): Html {
  const parts: Html[] = [];
  let at = 0;
  for (const [start, end] of snippet.matches) {
    parts.push(html`${snippet.text.slice(at, start)}<mark>${snippet.text.slice(start, end)}</mark>`);
    at = end;
  }
  return html`${parts}${snippet.text.slice(at)}`;
}

/** WHERE says, beside a snippet, which text of the link it was cut from. */
const WHERE = { content: "in page text", description: "in the description", name: "in the name", url: "in the URL" } as const;

/**
 * hitItem is one search hit: the name (through `/l/:id`, counting the click) and the URL, each
 * highlighted when the snippet is that whole field; the description; the snippet itself
 * (labelled with where it came from) unless the name or URL already shows it; the collections
 * the link is in; clicks; the link's page and edit form.
 */
function hitItem(hit: Hit, collections: Map<number, CollectionSummary>, broken: boolean): Html {
  const { link, snippet, snippetFrom } = hit;
  const whole = snippet.text === (snippetFrom === "name" ? link.name : snippetFrom === "url" ? link.url : undefined);
  const shown = (field: "name" | "url" | "description") => (snippetFrom === field && (whole || field === "description") ? highlighted(snippet) : link[field]);
  const own = snippetFrom === "content" || (!whole && snippetFrom !== "description");
  const clicks = countOf(link.clicks, "click");
  const memberships = link.collectionIds.flatMap((id) => collections.get(id) ?? []);
  return html`<li data-link="${link.id}">
${pickBox(link)}
${faviconFor(link.url)}
<div>
<a class="title" href="/l/${link.id}">${shown("name")}</a>${brokenMark(broken)}
<div class="host url">${shown("url")}</div>
${link.description ? html`<p class="description">${shown("description")}</p>` : undefined}
${own && snippet.text !== "" ? html`<p class="snippet"><span class="badge from">${WHERE[snippetFrom]}</span>${highlighted(snippet)}</p>` : undefined}
<div class="meta"><span class="in">${memberships.map((collection, i) => html`${i > 0 ? ", " : ""}<a href="/?collection=${collection.id}"><span aria-hidden="true">${collection.icon}</span> ${collection.name}</a>`)}</span>
· ${clicks} · ${link.lastClickedAt ? html`last click ${when(link.lastClickedAt)}` : "never clicked"}</div>
</div>
<div class="row-actions">
<a href="/links/${link.id}" aria-label="Details of ${link.name}">Details</a>
<a class="edit" href="/links/${link.id}/edit" aria-label="Edit ${link.name}">Edit</a>
</div>
</li>`;
}

/** refineForm is the search box of the page with its filters; a refused query's message is beside the box. */
function refineForm(options: SearchPageOptions): Html {
  const { asked, queryError } = options;
  return html`<form class="refine" role="search" method="get" action="/search" novalidate>
<div>
<label for="q">Words</label>
<input id="q" name="q" type="search" value="${asked.q}" aria-describedby="q-hint${queryError ? " q-error" : ""}"${queryError ? html` aria-invalid="true"` : ""}>
</div>
<div>
<label for="collection">In</label>
<select id="collection" name="collection">
<option value="">All collections</option>
${options.collections.map((collection) => html`<option value="${collection.id}"${collection.id === asked.collectionId ? html` selected` : ""}>${collection.icon} ${collection.name}</option>`)}
</select>
</div>
<label class="choice"><input type="checkbox" name="favorites" value="on"${asked.favorites ? html` checked` : ""}> Favorites only</label>
<button type="submit">Search</button>
</form>
${queryError ? html`<p class="field-error" id="q-error">${queryError}</p>` : undefined}
<p class="hint" id="q-hint">Every word must match, in a name, description, URL or saved page text. <code>"exact phrase"</code>, <code>-leave-out</code>, <code>prefix*</code>.</p>`;
}

/** searchPage: the search box with its filters, then the hits of one page, best first. */
export function searchPage(options: SearchPageOptions): Html {
  const { asked, hits } = options;
  const collections = new Map(options.collections.map((collection) => [collection.id, collection]));
  const content = html`<section class="card" aria-labelledby="list-heading">
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : undefined}
<div class="heading"><h1 id="list-heading">${asked.q === "" ? "Search" : `Search: “${asked.q}”`}</h1></div>
${refineForm(options)}
${hits === null ? undefined : hits.length === 0 ? html`<p class="empty">${options.first ? "No more results." : "No link matches."}</p>`
    : bulkForm({
      self: options.self,
      collections: options.collections,
      links: hits.map((hit) => hit.link),
      // Search pages by rank: how many match is not counted, only that a later page exists.
      view: options.more || options.first ? searchView(asked) : undefined,
      total: options.more || options.first ? null : undefined,
      list: html`<ol class="links pickable" aria-label="Results, best first">${hits.map((hit) => hitItem(hit, collections, options.broken.has(hit.link.id)))}</ol>`,
      refusal: options.refusal,
    })}
${pager({ first: options.first, older: options.more }, "rank")}
</section>`;
  return shell({
    title: asked.q === "" ? "Search" : `Search: ${asked.q}`,
    user: options.user,
    query: asked.q,
    sidebar: collectionsSidebar(options.collections),
    content,
  });
}
