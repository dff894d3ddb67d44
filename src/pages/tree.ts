/**
 * The tree of collections as the pages draw it: indented pickers, the filter box of a long
 * list, a collection's branch (its breadcrumbs) and its sub-collections. Every function reads
 * the collections as `summaries()` lists them: depth first, in order, each with its depth, so
 * a collection's sub-collections are the run of deeper ones right after it.
 */
import type { CollectionSummary } from "../shelf/types";
import { html, type Html } from "./html";

/** How many collections a list holds before it offers a filter box. */
export const FILTER_FROM = 20;

/** treeLabel is a collection as a select's option names it: indented by its depth, then its icon and name. */
export function treeLabel(collection: CollectionSummary): string {
  return `${"\u00a0\u00a0\u00a0".repeat(collection.depth - 1)}${collection.icon} ${collection.name}`;
}

/** treeOptions are the `<option>`s of a collection picker, the tree indented, `chosen` selected. */
export function treeOptions(collections: readonly CollectionSummary[], chosen?: number): Html[] {
  return collections.map((collection) => html`<option value="${collection.id}" data-name="${collection.name}"${collection.id === chosen ? html` selected` : ""}>${treeLabel(collection)}</option>`);
}

/**
 * filterBox is a search field that hides the items of the list `target` (those with a
 * `data-name`) whose name does not hold what is typed, once there are more than FILTER_FROM
 * collections. The signed-in pages' script shows and runs it: without scripts it stays hidden.
 */
export function filterBox(collections: readonly CollectionSummary[], target: string, label = "Filter collections"): Html | undefined {
  if (collections.length <= FILTER_FROM) return undefined;
  return html`<div class="filter" data-filter-box hidden><label class="visually-hidden" for="${target}-filter">${label}</label>
<input id="${target}-filter" type="search" data-filter="${target}" placeholder="${label}" autocomplete="off"></div>`;
}

/** branchOf is a collection and its parents, from the top level down to it (empty for an id not among them). */
export function branchOf(collections: readonly CollectionSummary[], id: number): CollectionSummary[] {
  const byId = new Map(collections.map((collection) => [collection.id, collection]));
  const branch: CollectionSummary[] = [];
  for (let at = byId.get(id); at; at = at.parentId === null ? undefined : byId.get(at.parentId)) branch.unshift(at);
  return branch;
}

/** subtreeOf is a collection and all its sub-collections, at any depth. */
export function subtreeOf(collections: readonly CollectionSummary[], id: number): CollectionSummary[] {
  const start = collections.findIndex((collection) => collection.id === id);
  if (start === -1) return [];
  let end = start + 1;
  while (end < collections.length && collections[end]!.depth > collections[start]!.depth) end++;
  return collections.slice(start, end);
}
