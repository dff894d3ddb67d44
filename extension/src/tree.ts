/**
 * The popup's collection pickers as a tree: `GET /api/v1/collections` lists the collections
 * depth first, in their order, each with its `parentId`, so one pass gives every depth.
 */
import type { CollectionJson } from "../../src/contract/collections";

/** How many collections a picker holds before it offers a filter box (as the web pages do). */
export const FILTER_FROM = 20;

/** A collection with its depth in the tree (1 at the top level). */
export interface TreeRow {
  collection: CollectionJson;
  depth: number;
}

/** treeRows gives each collection its depth from its parent's; one whose parent is not listed before it is at the top level. */
export function treeRows(collections: readonly CollectionJson[]): TreeRow[] {
  const depths = new Map<number, number>();
  return collections.map((collection) => {
    const depth = collection.parentId === null ? 1 : (depths.get(collection.parentId) ?? 0) + 1;
    depths.set(collection.id, depth);
    return { collection, depth };
  });
}

/** treeLabel is a collection as a select's option names it: indented by its depth, then its icon and name. */
export function treeLabel({ collection, depth }: TreeRow): string {
  return `${"\u00a0\u00a0\u00a0".repeat(depth - 1)}${collection.icon} ${collection.name}`;
}

/** shownBy says whether a collection's name holds the words typed in a filter box (letters in any case; none: every one). */
export function shownBy(name: string, words: string): boolean {
  return name.toLowerCase().includes(words.trim().toLowerCase());
}
