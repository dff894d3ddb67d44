import type { CollectionSummary } from "../shelf/types";
import type { Viewer } from "../shelf/shelf";
import type { LinkJson } from "../contract/links";
import { bulkForm } from "./bulk";
import { html, type Html } from "./html";
import { linkItem } from "./links";
import { pager, shell } from "./shell";
import { formatNumber } from "../format";

/** What the home page shows: one collection or the favorites. */
export type HomeView =
  | { kind: "collection"; collection: CollectionSummary }
  | { kind: "favorites" };

/** What the sidebar marks as shown: a view of the home page, or the all-links view. */
export type SidebarView = HomeView | { kind: "all" };

export interface HomeOptions {
  user: Viewer;
  collections: CollectionSummary[];
  view: HomeView;
  links: LinkJson[];
  /** The address of the next page of this list, if there is one. */
  older?: string;
  /** Whether this is a later page (a link back to the first). */
  first?: string;
  /** This page's own address: the bulk form and the favorite toggles come back here. */
  self: string;
  notice?: string;
  /** Which of `links` are broken. */
  broken: Set<number>;
  /** Why the last bulk action was refused. */
  refusal?: string;
}

/** collectionsSidebar lists the views and the collections, marking the one `view` shows (none on other pages). */
export function collectionsSidebar(collections: CollectionSummary[], view?: SidebarView): Html {
  const current = (active: boolean) => (active ? html` aria-current="page"` : "");
  return html`<nav class="sidebar card" aria-label="Collections">
<h2>Views</h2>
<ul>
<li><a class="item" href="/links"${current(view?.kind === "all")}><span aria-hidden="true">☰</span><span class="name">All links</span></a></li>
<li><a class="item" href="/?view=favorites"${current(view?.kind === "favorites")}><span aria-hidden="true">★</span><span class="name">Favorites</span></a></li>
</ul>
<h2 class="gap">Collections</h2>
<ul>
${collections.map((collection) => html`<li><a class="item" href="/?collection=${collection.id}"${current(view?.kind === "collection" && view.collection.id === collection.id)}>
<span aria-hidden="true">${collection.icon}</span>
<span class="name">${collection.name}</span>
${collection.visibility === "PUBLIC" ? html`<span class="badge">Public</span>` : html`<span class="visually-hidden">private,</span>`}
<span class="count"><span class="visually-hidden">links: </span>${formatNumber(collection.linkCount)}</span>
</a></li>`)}
</ul>
<a class="new" href="/collections/new">+ New collection</a>
</nav>`;
}

function heading(options: HomeOptions): Html {
  const { view } = options;
  if (view.kind === "favorites") {
    return html`<div class="heading"><h1 id="list-heading"><span aria-hidden="true">★</span> Favorites</h1></div>
<p class="muted">Ranked the way the browser extension pins them: most clicked first, then most recently clicked.</p>`;
  }
  const { collection } = view;
  return html`<div class="heading">
<h1 id="list-heading"><span aria-hidden="true">${collection.icon}</span> ${collection.name} <span class="badge">${collection.visibility === "PUBLIC" ? "Public" : "Private"}</span></h1>
<div class="actions">
<a class="button" href="/links/new?collection=${collection.id}">Add link</a>
<a class="button secondary" href="/collections/${collection.id}/edit">Edit collection</a>
${collection.visibility === "PUBLIC" ? html`<a href="/c/${collection.id}">Public page</a>` : undefined}
</div>
</div>
${collection.description ? html`<p class="muted">${collection.description}</p>` : undefined}`;
}

function emptyText(view: HomeView): string {
  if (view.kind === "favorites") return "No favorites yet: mark a link with ☆ to pin it.";
  return "No links in this collection yet.";
}

/**
 * homePage: the collections sidebar and one list of links (a collection or the favorites),
 * inside the bulk form; a collection's "all matching" is every link in it.
 */
export function homePage(options: HomeOptions): Html {
  const { view } = options;
  const title = view.kind === "collection" ? view.collection.name : "Favorites";
  const list = options.links.length === 0 ? html`<p class="empty">${emptyText(view)}</p>`
    : html`<ul class="links pickable">${options.links.map((link) => linkItem(link, options.broken.has(link.id)))}</ul>`;
  const content = html`<section class="card" aria-labelledby="list-heading">
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : undefined}
${heading(options)}
${bulkForm({
    self: options.self,
    collections: options.collections,
    here: view.kind === "collection" ? view.collection : undefined,
    view: view.kind === "collection" ? { sort: "newest", collection: String(view.collection.id) } : undefined,
    total: view.kind === "collection" ? view.collection.linkCount : undefined,
    links: options.links,
    list,
    refusal: options.refusal,
  })}
${pager(options)}
</section>`;
  return shell({
    title,
    user: options.user,
    sidebar: collectionsSidebar(options.collections, view),
    content,
  });
}
