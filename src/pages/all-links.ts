import type { CollectionSummary, LinkSort } from "../shelf/types";
import type { Viewer } from "../shelf/shelf";
import { bulkForm } from "./bulk";
import { collectionsSidebar, sortOptions } from "./home";
import { html, type Html } from "./html";
import { linkItem } from "./links";
import { pager, shell } from "./shell";
import { filterBox, treeOptions } from "./tree";
import { countOf, formatNumber } from "../common/format";
import { LINK_PAGE } from "../shelf/limits";
import type { LinkJson } from "../contract/links";

/** What the all-links view shows: its order, its filters and its page (from 1). */
export interface AllLinksView {
  sort: LinkSort;
  collectionId?: number;
  favorites: boolean;
  broken: boolean;
  /** Only links on the reading list: the To read view. */
  toRead: boolean;
  archived: boolean;
  page: number;
}

export interface AllLinksOptions {
  user: Viewer;
  collections: CollectionSummary[];
  view: AllLinksView;
  /** The view's query without its page, as address parameters. */
  query: Record<string, string>;
  links: LinkJson[];
  /** How many links the view matches. */
  total: number;
  self: string;
  next?: string;
  previous?: string;
  first?: string;
  notice?: string | Html;
  refusal?: string;
  broken: Set<number>;
  /** On the To read view: the one-time offer to mark the links earlier imports put in collections named To read and Archive (how many); undefined when there is none. */
  readingOffer?: number;
}

/**
 * readingOfferForm is the one-time offer of the To read view: mark the links that earlier
 * imports put in collections named To read and Archive, or "No thanks" (either answer hides it for good).
 */
function readingOfferForm(links: number): Html {
  return html`<section class="notice" id="reading-offer" aria-labelledby="reading-offer-heading">
<p id="reading-offer-heading">Your earlier imports put ${countOf(links, "link")} in collections named To read and Archive. Mark them to read / archived instead?</p>
<p class="muted">The collections stay as they are; you may delete them afterwards.</p>
<form method="post" action="${READING_OFFER_PATH}" class="form-actions">
<button type="submit" name="answer" value="accept" id="reading-offer-accept">Mark them to read / archived</button>
<button type="submit" name="answer" value="decline" id="reading-offer-decline" class="secondary">No thanks</button>
</form>
</section>`;
}

/** Where the reading offer's form posts (`answer=accept|decline`). */
export const READING_OFFER_PATH = "/links/reading-offer";

/** viewForm is the all-links view's order and filters: a GET form, so a view is an address to bookmark. */
function viewForm({ view, collections }: AllLinksOptions): Html {
  return html`<form class="refine view" method="get" action="/links">
<div><label for="sort">Order</label>
<select id="sort" name="sort">
${sortOptions(view.sort, view.collectionId !== undefined)}
</select></div>
<div><label for="collection">In</label>
${filterBox(collections, "collection")}
<select id="collection" name="collection">
<option value="">All collections</option>
${treeOptions(collections, view.collectionId)}
</select></div>
<div>
<label class="choice"><input type="checkbox" name="favorites" value="on"${view.favorites ? html` checked` : ""}> Favorites only</label>
<label class="choice"><input type="checkbox" name="broken" value="on"${view.broken ? html` checked` : ""}> Broken only</label>
<label class="choice"><input type="checkbox" name="toread" value="on"${view.toRead ? html` checked` : ""}> To read only</label>
<label class="choice"><input type="checkbox" name="archived" value="on"${view.archived ? html` checked` : ""}> Archived only</label>
</div>
<button type="submit">Show</button>
</form>`;
}

/** rangeOf says where the page stands among the view's links: `41–60 of 2,284` (none past the end). */
function rangeOf({ view, links, total }: AllLinksOptions): string | undefined {
  if (links.length === 0) return undefined;
  const from = (view.page - 1) * LINK_PAGE.defaultLimit + 1;
  return `${formatNumber(from)}–${formatNumber(from + links.length - 1)} of ${formatNumber(total)}`;
}

/** allLinksPage: every link of the user across collections, in the order and with the filters of the view, a page at a time, inside the bulk form. */
export function allLinksPage(options: AllLinksOptions): Html {
  const { total } = options;
  // The reading list is this view with its one filter: it is named so.
  const title = options.view.toRead ? "To read" : "All links";
  const list = options.links.length === 0
    ? html`<p class="empty">${total === 0 ? (options.view.toRead ? "Nothing to read: put a link on the list with its Read later button, or with the browser extension." : "No link matches this view.") : "No more links: this page is past the end."}</p>`
    : html`<ul class="links pickable">${options.links.map((link) => linkItem(link, options.broken.has(link.id)))}</ul>`;
  const content = html`<section class="card" aria-labelledby="list-heading">
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : undefined}
${options.readingOffer === undefined ? undefined : readingOfferForm(options.readingOffer)}
<div class="heading"><h1 id="list-heading">${title} <span class="badge">${countOf(total, "link")}</span></h1>
<div class="actions"><a class="button" href="/links/new">Add link</a></div></div>
${viewForm(options)}
${bulkForm({ self: options.self, collections: options.collections, view: options.query, total, links: options.links, list, refusal: options.refusal })}
${pager({ first: options.first, previous: options.previous, older: options.next, range: rangeOf(options) }, "view")}
</section>`;
  return shell({ title, user: options.user, sidebar: collectionsSidebar(options.collections, { kind: "all" }), content });
}
