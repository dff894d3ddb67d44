/**
 * Acting on many links at once: the one form around a list of links (each row's checkbox, an
 * action bar, and the view's query for "all matching"), the confirmation of a bulk delete,
 * and the keyboard shortcuts of the list pages with their help dialog.
 */
import type { CollectionSummary } from "../shelf/types";
import { BULK_MAX_IDS, type LinkJson } from "../contract/links";
import type { Viewer } from "../shelf/shelf";
import { html, type Html } from "./html";
import { shell } from "./shell";
import { filterBox, treeOptions } from "./tree";
import { countOf, formatNumber } from "../common/format";

export interface BulkFormOptions {
  /** The list page's own address: where the form returns to. */
  self: string;
  collections: CollectionSummary[];
  /** The collection the list shows, if it shows one: "Remove from this collection" acts on it (not on the Inbox). */
  here?: CollectionSummary;
  /** The view's query, carried for "all matching": sort, favorites, collection, broken. */
  view?: Record<string, string>;
  /** How many links the view matches (with `view`); null when only "more than this page" is known (search results). */
  total?: number | null;
  /** The links of this page, in order. */
  links: LinkJson[];
  /** The list itself (its rows hold the checkboxes). */
  list: Html;
  /** Why the last bulk action was refused: shown above the bar. */
  refusal?: string;
}

const ACTIONS = [
  ["favorite", "Mark as favorites"],
  ["unfavorite", "Remove from favorites"],
  ["move", "Move to the collection…"],
  ["add", "Add to the collection…"],
  ["remove", "Remove from this collection"],
  ["delete", "Delete…"],
] as const;

/**
 * bulkForm is the list inside one form (`POST /links/bulk`): an action, a collection for move
 * and add, and three ways to choose the links: the ticked ones, every one on this page (their
 * ids carried in `page-ids`), or every link the view matches, up to BULK_MAX_IDS (the view's
 * query carried in `view-*` fields). Its bar is folded to one line ("Many links at once") until
 * opened, or until a refusal shows; works without scripts; the shortcuts script adds a "Select
 * all on this page" checkbox and opens the bar when a link is ticked.
 */
export function bulkForm(options: BulkFormOptions): Html {
  const { here, view, total } = options;
  const removable = here !== undefined && !here.isDefault;
  const actions = ACTIONS.filter(([action]) => action !== "remove" || removable);
  return html`<form id="bulk" class="bulk" method="post" action="/links/bulk">
<input type="hidden" name="next" value="${options.self}">
${here ? html`<input type="hidden" name="here" value="${here.id}">` : undefined}
<input type="hidden" name="page-ids" value="${options.links.map((link) => link.id).join(",")}">
${view ? Object.entries(view).map(([name, value]) => html`<input type="hidden" name="view-${name}" value="${value}">`) : undefined}
${options.refusal ? html`<p class="error" role="alert" id="bulk-error">${options.refusal}</p>` : undefined}
${options.links.length === 0 ? undefined : html`<details class="bulk-bar" data-bulk-fold${options.refusal ? html` open` : ""}>
<summary>Many links at once</summary>
<fieldset>
<legend class="visually-hidden">Many links at once</legend>
<div class="bulk-fields">
<div><label for="bulk-action">Action</label>
<select id="bulk-action" name="action">
${actions.map(([action, label]) => html`<option value="${action}">${label}</option>`)}
</select></div>
<div><label for="bulk-collection">Collection (move, add)</label>
${filterBox(options.collections, "bulk-collection")}
<select id="bulk-collection" name="collectionId">
<option value="" selected>Choose a collection…</option>
${treeOptions(options.collections)}
</select></div>
</div>
<div class="actions">
<button type="submit" name="scope" value="selected">Apply to selected</button>
<button type="submit" name="scope" value="page" class="secondary">Apply to all on this page</button>
${view && total === null ? html`<button type="submit" name="scope" value="all" class="secondary">Apply to all matching</button>` : undefined}
${view && typeof total === "number" && total > options.links.length && total <= BULK_MAX_IDS ? html`<button type="submit" name="scope" value="all" class="secondary">Apply to all ${formatNumber(total)} matching</button>` : undefined}
</div>
${view && total === null ? html`<p class="hint">“All matching” acts on at most ${countOf(BULK_MAX_IDS, "link")}: narrow the search if it finds more.</p>` : undefined}
${view && typeof total === "number" && total > BULK_MAX_IDS ? html`<p class="hint">${formatNumber(total)} links match, more than the ${formatNumber(BULK_MAX_IDS)} one action may change: choose a collection, favorites or broken links above (or search) to act on all of them at once, or act on a page at a time.</p>` : undefined}
</fieldset>
</details>
<label class="choice" data-select-all hidden><input type="checkbox" id="select-all"> Select all on this page</label>`}
${options.list}
</form>
`;
}

/** bulkDeletePage asks before deleting many links: the ids go along as hidden fields. */
export function bulkDeletePage(user: Viewer, ids: readonly number[], next: string): Html {
  const count = countOf(ids.length, "link");
  const content = html`<div class="narrow card">
<h1>Delete ${count}?</h1>
<p>They leave every collection, with their clicks and saved pages. This cannot be undone.</p>
<form method="post" action="/links/bulk" class="form-actions">
<input type="hidden" name="next" value="${next}">
<input type="hidden" name="action" value="delete">
<input type="hidden" name="confirmed" value="yes">
${ids.map((id) => html`<input type="hidden" name="ids" value="${id}">`)}
<button type="submit" name="scope" value="selected" class="danger">Delete ${count}</button>
<a href="${next}">Cancel</a>
</form>
</div>`;
  return shell({ title: `Delete ${count}`, user, content });
}

