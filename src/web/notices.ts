import { COLLECTION_ACTIONS, type CollectionSummary } from "../shelf/types";
import { BULK_MAX_IDS, type BulkAction } from "../contract/links";
import { countOf } from "../common/format";
import { TREE_DEPTH } from "../shelf/limits";
import { html, type Html } from "../pages/html";

/**
 * What a successful form says on the page it redirects to. The redirect carries a code
 * (`?done=link-added`), never the text, so no one can put words on the page through a link.
 */
export const NOTICES = {
  "link-added": "Link added.",
  "reading-offer-accepted": "Done: the links of the collections named To read and Archive that your imports made are marked to read and archived. The collections are still there with their links: delete them when you no longer need them.",
  "reading-offer-declined": "The offer will not be shown again: the collections named To read and Archive stay as they are.",
  "link-added-address": "Link added, named after its address: its page's title could not be read. Edit it to give it another name.",
  "link-saved": "Link saved.",
  "link-deleted": "Link deleted.",
  "link-trashed": html`Link moved to the <a href="/trash">Trash</a>, where you can restore it.`,
  "capture-queued": "The page will be fetched in the background: reload this page in a moment to see what was saved.",
  "collection-created": "Collection created.",
  "collection-saved": "Collection saved.",
  "collection-deleted": "Collection deleted. Links that were only in it are now in the Inbox.",
  "collection-trashed": html`Collection moved to the <a href="/trash">Trash</a>, where you can restore it. Links that were only in it are now in the Inbox.`,
  "collection-deleted-all": "Collection deleted with its sub-collections and the links that were only in it.",
  "collection-trashed-all": html`Collection moved to the <a href="/trash">Trash</a> with its sub-collections and the links that were only in it: one restore brings all of it back.`,
  "trash-restored": "Restored: each item is back where it was (a link whose collections are gone is in the Inbox, a collection whose parent is gone at the top level).",
  "trash-restored-top": `Restored, but not every collection is back inside its parent: some are at the top level, because inside it they would have been nested more than ${TREE_DEPTH} levels deep.`,
  "trash-nothing-chosen": "Nothing was restored: tick the items to restore first.",
  "trash-emptied": "Trash emptied: what it held is deleted for good.",
  "password-changed": "Password changed. Every other browser and device was signed out.",
  "token-revoked": "Token revoked.",
  "link-checked": "Link checked: the result is below.",
  "link-ignored": "The link will not be flagged again. Its checks go on.",
  "link-unignored": "The link is flagged again when its checks fail.",
  "link-moved": "The link now points at its new address.",
  "import-undone": "Import undone: the links it created and its collections left empty were removed.",
  // On a collection's page the home page adds the Undo button to it (sortedNotice).
  "sorted": "Sorted A–Z.",
  "sort-undone": "Sort undone: the order is as it was before.",
  "sort-stale": "Not undone: the order has changed since it was sorted, so it stays as it is.",
  "sort-gone": "Nothing to undo: the sort was undone already, or the server has restarted since.",
  "extension-removed": "Extension removed, with its tokens. It asks for your approval again the next time it signs in.",
} as const;

export type NoticeCode = keyof typeof NOTICES;

/** noticeOf reads the `done` parameter of a page's address: the notice's words, some with a link. */
export function noticeOf(code: unknown): string | Html | undefined {
  return typeof code === "string" && Object.hasOwn(NOTICES, code) ? NOTICES[code as NoticeCode] : undefined;
}

/** withNotice adds `done=<code>` to a same-site path. */
export function withNotice(path: string, code: NoticeCode): string {
  const url = new URL(path, "http://x");
  url.searchParams.set("done", code);
  return url.pathname + url.search + url.hash;
}

/** What each bulk action did, as its notice says it. */
const BULK_DONE: Record<BulkAction, string> = {
  favorite: "marked as favorites",
  unfavorite: "removed from favorites",
  delete: "deleted",
  move: "moved to",
  add: "added to",
  remove: "removed from",
};

/**
 * withBulkNotice adds to a same-site path what a bulk action did: `done=bulk-<action>`, how
 * many links, and the collection it named. The page words it (bulkNoticeOf).
 */
export function withBulkNotice(path: string, action: BulkAction, count: number, collectionId?: number): string {
  const url = new URL(path, "http://x");
  url.searchParams.set("done", `bulk-${action}`);
  url.searchParams.set("count", String(count));
  if (collectionId === undefined) url.searchParams.delete("to");
  else url.searchParams.set("to", String(collectionId));
  return url.pathname + url.search + url.hash;
}

/**
 * bulkNoticeOf words a bulk action's notice ("12 links moved to 📚 Reading") from the address:
 * the words are the server's, the count a number up to BULK_MAX_IDS, the collection one of
 * `collections` (by id); anything else is no notice.
 */
export function bulkNoticeOf(query: Record<string, unknown>, collections: readonly CollectionSummary[]): string | undefined {
  const done = query.done;
  const action = typeof done === "string" && done.startsWith("bulk-") ? done.slice(5) : "";
  if (!Object.hasOwn(BULK_DONE, action)) return undefined;
  const count = Number(query.count);
  if (!Number.isSafeInteger(count) || count < 1 || count > BULK_MAX_IDS) return undefined;
  const collection = collections.find((c) => String(c.id) === query.to);
  const target = COLLECTION_ACTIONS.includes(action as BulkAction) ? (collection ? ` ${collection.icon} ${collection.name}` : " a collection") : "";
  return `${countOf(count, "link")} ${BULK_DONE[action as BulkAction]}${target}.`;
}
