import type { CollectionSummary, LinkSort } from "../shelf/types";
import { LINK_PAGE } from "../shelf/limits";
import type { Viewer } from "../shelf/shelf";
import type { LinkJson } from "../contract/links";
import { ARRANGE_SCRIPT } from "./arrange";
import { bulkForm } from "./bulk";
import { escapeHtml, html, Html } from "./html";
import { linkItem } from "./links";
import { pager, shell, type Pages } from "./shell";
import { countOf, formatNumber } from "../common/format";
import { branchOf, filterBox } from "./tree";

/** The sorts as a view's select names them (`order` only for a view of one collection). */
const SORT_LABELS: Record<LinkSort, string> = {
  order: "The collection's order",
  newest: "Newest first",
  oldest: "Oldest first",
  clicks: "Most clicked",
  recent: "Recently clicked",
  name: "Name A–Z",
};

/** sortOptions are the `<option>`s of a view's sort, `chosen` selected; `order` only for a view of one collection. */
export function sortOptions(chosen: LinkSort, oneCollection: boolean): Html[] {
  return Object.entries(SORT_LABELS).filter(([sort]) => sort !== "order" || oneCollection)
    .map(([sort, label]) => html`<option value="${sort}"${sort === chosen ? html` selected` : ""}>${label}</option>`);
}

/** What the home page shows: one collection (in one of the sorts, a page of it from 1) or the favorites. */
export type HomeView =
  | { kind: "collection"; collection: CollectionSummary; sort: LinkSort; page: number }
  | { kind: "favorites" };

/** What the sidebar marks as shown: a view of the home page, or the all-links view. */
export type SidebarView = HomeView | { kind: "all" };

export interface HomeOptions {
  user: Viewer;
  collections: CollectionSummary[];
  view: HomeView;
  links: LinkJson[];
  /** How many links the collection holds (a collection's view). */
  total?: number;
  /** The list's other pages. */
  pages: Pages;
  /** This page's own address: the bulk form, the favorite toggles and the moves come back here. */
  self: string;
  notice?: string | Html;
  /** Which of `links` are broken. */
  broken: Set<number>;
  /** Why the last bulk action was refused. */
  refusal?: string;
}

/**
 * collectionsSidebar lists the views and the collections as a tree in their order, marking the
 * one `view` shows (none on other pages). The top two levels show; deeper ones are folded in a
 * `<details>` per collection, open along the shown collection's branch and below it. Once
 * there are more than FILTER_FROM collections, a filter box. One pass over `collections`
 * (depth first: a collection's sub-collections follow it), so nothing is copied once per level.
 */
export function collectionsSidebar(collections: CollectionSummary[], view?: SidebarView): Html {
  const current = (active: boolean) => (active ? html` aria-current="page"` : "");
  const shown = view?.kind === "collection" ? view.collection.id : undefined;
  const open = new Set(shown === undefined ? [] : branchOf(collections, shown).map((collection) => collection.id));
  const inside = new Map<number, number>();
  for (const { parentId } of collections) if (parentId !== null) inside.set(parentId, (inside.get(parentId) ?? 0) + 1);
  // Written as strings, each name escaped once: with thousands of collections the tagged
  // template's parts cost more than the rest of the page.
  let tree = "";
  const closers: string[] = [];
  collections.forEach((collection, at) => {
    const name = escapeHtml(collection.name);
    tree += `<li data-name="${name}"><a class="item" href="/?collection=${collection.id}" title="${name}" data-drop="${collection.id}"${collection.id === shown ? ' aria-current="page"' : ""}>
<span aria-hidden="true">${escapeHtml(collection.icon)}</span>
<span class="name">${name}</span>
${collection.visibility === "PUBLIC" ? '<span class="badge">Public</span>' : '<span class="visually-hidden">private,</span>'}
<span class="count"><span class="visually-hidden">links: </span>${formatNumber(collection.linkCount)}</span>
</a>`;
    const depth = collections[at + 1]?.depth ?? 1;
    if (depth > collection.depth) {
      const fold = collection.depth >= 2;
      tree += fold ? `<details${open.has(collection.id) ? " open" : ""}><summary>${countOf(inside.get(collection.id) ?? 0, "collection")}<span class="visually-hidden"> in ${name}</span></summary><ul>` : "<ul>";
      closers.push(fold ? "</ul></details></li>" : "</ul></li>");
      return;
    }
    tree += "</li>";
    for (let level = collection.depth; level > depth; level--) tree += closers.pop()!;
  });
  const here = view === undefined ? undefined : view.kind === "collection" ? `${view.collection.icon} ${view.collection.name}` : view.kind === "favorites" ? "★ Favorites" : "☰ All links";
  return html`<nav class="sidebar card" aria-label="Collections">
<details class="fold" data-fold>
<summary><span class="fold-title">Collections <span aria-hidden="true">▾</span></span>${here === undefined ? undefined : html`<span class="fold-here"><span class="visually-hidden">, showing </span>${here}</span>`}</summary>
<h2>Views</h2>
<ul class="views">
<li><a class="item" href="/links"${current(view?.kind === "all")}><span aria-hidden="true">☰</span><span class="name">All links</span></a></li>
<li><a class="item" href="/?view=favorites"${current(view?.kind === "favorites")}><span aria-hidden="true">★</span><span class="name">Favorites</span></a></li>
</ul>
<h2 class="gap">Collections</h2>
${filterBox(collections, "sidebar-tree")}
<ul class="tree" id="sidebar-tree">
${new Html(tree)}
</ul>
<a class="new" href="/collections/new">+ New collection</a>
</details>
</nav>`;
}

/** moveButtons are the "Move up" and "Move down" buttons of one item of an order (none where it cannot go), posting `by` to their form, or to `formaction` (inside the bulk form). */
function moveButtons(name: string, up: boolean, down: boolean, formaction?: string): Html | undefined {
  if (!up && !down) return undefined;
  const target = formaction === undefined ? "" : html` formaction="${formaction}"`;
  return html`<span class="moves">${up ? html`<button type="submit" class="move" name="by" value="up"${target} aria-label="Move up: ${name}" title="Move up">↑</button>` : undefined}${
    down ? html`<button type="submit" class="move" name="by" value="down"${target} aria-label="Move down: ${name}" title="Move down">↓</button>` : undefined}</span>`;
}

/** shiftForm moves a collection among its parent's items (or the top level's), back to `self`. */
function shiftForm(collection: CollectionSummary, self: string, up: boolean, down: boolean): Html | undefined {
  const buttons = moveButtons(collection.name, up, down);
  return buttons && html`<form method="post" action="/collections/${collection.id}/shift"><input type="hidden" name="next" value="${self}">${buttons}</form>`;
}

/** placeOf says whether a collection may move up (not past the Inbox) and down among its siblings. */
function placeOf(collections: readonly CollectionSummary[], collection: CollectionSummary): { up: boolean; down: boolean } {
  const siblings = collections.filter((other) => other.parentId === collection.parentId);
  const at = siblings.indexOf(collection);
  return { up: !collection.isDefault && at > 0 && !siblings[at - 1]!.isDefault, down: !collection.isDefault && at < siblings.length - 1 };
}

/** breadcrumbs name a sub-collection's parents, each a link, down to it. */
function breadcrumbs(collections: readonly CollectionSummary[], collection: CollectionSummary): Html | undefined {
  if (collection.depth === 1) return undefined;
  return html`<nav class="crumbs" aria-label="Breadcrumbs"><ol>${branchOf(collections, collection.id).map((step) =>
    html`<li><a href="/?collection=${step.id}"${step.id === collection.id ? html` aria-current="page"` : ""}>${step.name}</a></li>`)}</ol></nav>`;
}

function heading(options: HomeOptions): Html {
  const { view } = options;
  if (view.kind === "favorites") {
    return html`<div class="heading"><h1 id="list-heading"><span aria-hidden="true">★</span> Favorites</h1></div>
<p class="muted">Ranked the way the browser extension pins them: most clicked first, then most recently clicked.</p>`;
  }
  const { collection } = view;
  const { up, down } = placeOf(options.collections, collection);
  return html`${breadcrumbs(options.collections, collection)}
<div class="heading">
<h1 id="list-heading"><span aria-hidden="true">${collection.icon}</span> ${collection.name} <span class="badge">${collection.visibility === "PUBLIC" ? "Public" : "Private"}</span></h1>
<div class="actions">
<a class="button" href="/links/new?collection=${collection.id}">Add link</a>
${collection.isDefault ? undefined : html`<a class="button secondary" href="/collections/new?parent=${collection.id}">Add sub-collection</a>`}
<a class="button secondary" href="/collections/${collection.id}/edit">Edit collection</a>
${collection.visibility === "PUBLIC" ? html`<a href="/c/${collection.id}">Public page</a>` : undefined}
${shiftForm(collection, options.self, up, down)}
</div>
</div>
${collection.description ? html`<p class="muted">${collection.description}</p>` : undefined}`;
}

/** arrangement is a collection's sort (a GET form) and, for two items or more, the form that sorts its order A–Z. */
function arrangement(view: Extract<HomeView, { kind: "collection" }>, children: number, self: string): Html {
  const { collection } = view;
  return html`<div class="arrange">
<form class="sort" method="get" action="/">
<input type="hidden" name="collection" value="${collection.id}">
<label for="sort">Order</label>
<select id="sort" name="sort">
${sortOptions(view.sort, true)}
</select>
<button type="submit" class="secondary">Show</button>
</form>
${children + collection.linkCount < 2 ? undefined : html`<a class="button secondary" href="/collections/${collection.id}/sort?${new URLSearchParams({ next: self }).toString()}" title="Puts its sub-collections first, then its links, each by name (asks first)">Sort these A–Z…</a>`}
</div>`;
}

/** sortedNotice says a collection was sorted A–Z, with the button that undoes it once (back to `self`). */
export function sortedNotice(collectionId: number, self: string): Html {
  return html`Sorted A–Z. <form class="inline" method="post" action="/collections/${collectionId}/sort/undo"><input type="hidden" name="next" value="${self}"><button type="submit" class="secondary">Undo</button></form>`;
}

/** subCollections lists a collection's sub-collections in its order, each with its moves (on the first page only). */
function subCollections(parent: number, children: readonly CollectionSummary[], self: string): Html {
  return html`<h2 id="inside-heading">Collections inside</h2>
<ul class="children" aria-labelledby="inside-heading" data-arrange="${parent}" data-total="${children.length}">
${children.map((child, at) => html`<li data-collection="${child.id}" id="collection-${child.id}">
<span aria-hidden="true">${child.icon}</span>
<a href="/?collection=${child.id}">${child.name}</a>
<span class="muted">${countOf(child.linkCount, "link")}${child.visibility === "PUBLIC" ? " · public" : ""}</span>
${shiftForm(child, self, at > 0, at < children.length - 1)}
</li>`)}
</ul>`;
}

function emptyText(view: HomeView): string {
  if (view.kind === "favorites") return "No favorites yet: mark a link with ☆ to pin it.";
  return view.page > 1 ? "No more links: this page is past the end." : "No links in this collection yet.";
}

/**
 * homePage: the collections sidebar and one list (a collection or the favorites). A
 * collection's page has its breadcrumbs, its sub-collections first (on its first page), then
 * its links inside the bulk form, in its own order by default or in another sort; in its own
 * order, each item has buttons to move it up or down, and every one may be sorted A–Z. A
 * collection's "all matching" is every link in it.
 */
export function homePage(options: HomeOptions): Html {
  const { view, self } = options;
  const title = view.kind === "collection" ? view.collection.name : "Favorites";
  const first = view.kind === "collection" ? (view.page - 1) * LINK_PAGE.defaultLimit : 0;
  const arrangeable = view.kind === "collection" && view.sort === "order";
  const moves = (link: LinkJson, at: number) => !arrangeable ? undefined
    : moveButtons(link.name, first + at > 0, first + at < (options.total ?? 0) - 1, `/collections/${view.collection.id}/links/${link.id}/shift`);
  const list = options.links.length === 0 ? html`<p class="empty">${emptyText(view)}</p>`
    : html`<ul class="links pickable"${arrangeable && view.kind === "collection" ? html` data-arrange="${view.collection.id}" data-from="${first}" data-total="${options.total ?? options.links.length}"` : ""}>${options.links.map((link, at) => linkItem(link, options.broken.has(link.id), moves(link, at)))}</ul>`;
  const children = view.kind === "collection" ? options.collections.filter((child) => child.parentId === view.collection.id) : [];
  const content = html`<section class="card" aria-labelledby="list-heading">
${options.notice ? html`<div class="notice" role="status">${options.notice}</div>` : undefined}
${heading(options)}
${view.kind === "collection" ? arrangement(view, children.length, self) : undefined}
${view.kind === "collection" && view.page === 1 && children.length > 0 ? html`${subCollections(view.collection.id, children, self)}<h2>Links</h2>` : undefined}
${bulkForm({
    self,
    collections: options.collections,
    here: view.kind === "collection" ? view.collection : undefined,
    view: view.kind === "collection" ? { sort: view.sort, collection: String(view.collection.id) } : undefined,
    total: options.total,
    links: options.links,
    list,
    refusal: options.refusal,
  })}
${pager(options.pages, "view")}
</section>`;
  return shell({
    title,
    user: options.user,
    sidebar: collectionsSidebar(options.collections, view),
    content,
    script: arrangeable ? ARRANGE_SCRIPT : undefined,
  });
}
