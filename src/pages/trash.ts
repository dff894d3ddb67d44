/** The Trash page: deleted links and collections, newest first, with when each goes for good; restore them, or empty the trash after a confirmation. */
import type { Viewer } from "../shelf/shelf";
import type { TrashItemJson } from "../contract/trash";
import { html, type Html } from "./html";
import { when } from "./links";
import { pager, shell, type Pages } from "./shell";
import { countOf } from "../common/format";

/** What the trash holds: items, and the links and collections restoring all of them brings back. */
export interface TrashCounts {
  items: number;
  links: number;
  collections: number;
}

/** What the Trash page shows: one page of the trash, its counts and how long items stay. */
export interface TrashPageOptions {
  user: Viewer;
  /** How many days an item stays (0: the trash is off, deletes are immediate). */
  days: number;
  counts: TrashCounts;
  /** This page's items, newest first. */
  items: TrashItemJson[];
  pages: Pages;
  notice?: string | Html;
}

/** The form that restores the ticked items: its checkboxes sit in the rows, tied to it by its id. */
const CHOSEN_FORM = "restore-chosen";

/** itemValue is how a form names one trashed item: `link:12`, `collection:3`. */
const itemValue = (item: TrashItemJson) => `${item.kind}:${item.id}`;

/** holds says what a count of links and collections comes to: `12 links and 3 collections`. */
const holds = (links: number, collections: number) => `${countOf(links, "link")} and ${countOf(collections, "collection")}`;

/** comesBack says what restoring a collection brings back besides itself (deleted on its own, its links and sub-collections stayed on the shelf). */
function comesBack(item: TrashItemJson): string {
  if (item.links === 0 && item.collections === 1) return "Comes back by itself; its links and sub-collections still on the shelf go back into it.";
  const parts = [[item.collections - 1, "sub-collection"], [item.links, "link"]] as const;
  return `Comes back with ${parts.filter(([count]) => count > 0).map(([count, noun]) => countOf(count, noun)).join(" and ")}.`;
}

/** trashItem is one row: its checkbox, kind, name, when it was deleted and goes for good, and its Restore button. */
function trashItem(item: TrashItemJson, days: number): Html {
  const value = itemValue(item);
  return html`<li>
<input class="pick" type="checkbox" form="${CHOSEN_FORM}" name="item" value="${value}" aria-label="Select ${item.name}">
<span class="kind" aria-hidden="true">${item.kind === "link" ? "🔗" : item.kind === "collection" ? "📁" : "📥"}</span>
<div>
<span class="title">${item.name}</span> <span class="badge">${item.kind}</span>
<div class="meta">Deleted ${when(item.deletedAt)}${days > 0 ? html` · goes for good on ${when(item.purgeAt)}` : undefined}</div>
${item.kind === "collection" ? html`<p class="description">${comesBack(item)}</p>` : undefined}
${item.kind === "import" ? html`<p class="description">An undone import: restoring it brings back ${holds(item.links, item.collections)}, and the import stands again.</p>` : undefined}
</div>
<div class="row-actions"><form method="post" action="/trash/restore">
<input type="hidden" name="item" value="${value}">
<button type="submit" class="secondary" aria-label="Restore ${item.name}">Restore</button>
</form></div>
</li>`;
}

/** trashPage lists the trash a page at a time, with its counts, a Restore button per item, one for the ticked ones, and the way to empty it. */
export function trashPage({ user, days, counts, items, pages, notice }: TrashPageOptions): Html {
  const hint = days > 0
    ? `Deleted links and collections stay here for ${countOf(days, "day")}, then go for good. Restoring one puts it back where it was.`
    : "The trash is off (LINKSHELF_TRASH_DAYS=0): deleting a link or a collection deletes it at once.";
  const list = items.length === 0
    ? html`<p class="empty">${counts.items === 0 ? "The trash is empty." : "No more items: this page is past the end."}</p>`
    : html`<ul class="links pickable">${items.map((item) => trashItem(item, days))}</ul>
<form id="${CHOSEN_FORM}" method="post" action="/trash/restore" class="form-actions"><button type="submit">Restore selected</button></form>`;
  const content = html`<section class="card" aria-labelledby="trash-heading">
${notice ? html`<p class="notice" role="status">${notice}</p>` : undefined}
<div class="heading"><h1 id="trash-heading">Trash <span class="badge">${countOf(counts.items, "item")}</span></h1>
${counts.items > 0 ? html`<div class="actions"><a class="button secondary" href="/trash/empty">Empty trash…</a></div>` : undefined}</div>
${counts.items > 0 ? html`<p>They hold ${holds(counts.links, counts.collections)}.</p>` : undefined}
<p class="hint">${hint}</p>
${list}
${pager(pages, "view")}
</section>`;
  return shell({ title: "Trash", user, content });
}

/** emptyTrashPage asks before emptying the trash: a form, so it works without scripts. */
export function emptyTrashPage(user: Viewer, counts: TrashCounts): Html {
  const content = html`<div class="narrow card">
<h1>Empty the trash?</h1>
${counts.items === 0 ? html`<p>The trash is empty.</p>
<p><a href="/trash">Back to the trash</a></p>` : html`<p>Everything in it is deleted for good: ${countOf(counts.items, "item")}, holding ${holds(counts.links, counts.collections)}. This cannot be undone.</p>
<form method="post" action="/trash/empty" class="form-actions">
<button type="submit" class="danger">Empty trash</button>
<a href="/trash">Cancel</a>
</form>`}
</div>`;
  return shell({ title: "Empty the trash", user, content });
}
