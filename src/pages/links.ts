import type { CollectionSummary } from "../shelf/types";
import type { Viewer } from "../shelf/shelf";
import type { LinkJson } from "../contract/links";
import { deletePage, errorSummary, fieldMessages, invalidGroup, textField, type FieldErrors } from "./form";
import { html, type Html } from "./html";
import { shell } from "./shell";
import { filterBox } from "./tree";
import { countOf } from "../common/format";

/** Built on first use: a date format loads ICU's locale data, a few milliseconds at every start otherwise. */
let day: Intl.DateTimeFormat | undefined;

/** when shows an ISO timestamp as a short UTC date, the full instant in `datetime` and the tooltip. */
export function when(isoTime: string): Html {
  return html`<time datetime="${isoTime}" title="${isoTime}">${(day ??= new Intl.DateTimeFormat("en", { dateStyle: "medium", timeZone: "UTC" })).format(new Date(isoTime))}</time>`;
}

/** whenExactly shows an ISO timestamp to the minute, in UTC (`2026-11-27 14:03 UTC`), the full instant in `datetime` and the tooltip. */
export function whenExactly(isoTime: string): Html {
  return html`<time datetime="${isoTime}" title="${isoTime}">${isoTime.slice(0, 10)} ${isoTime.slice(11, 16)} UTC</time>`;
}

/** hostOf is the host a link points at, shown under its name. */
export function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}

/** brokenMark is the mark of a broken link in a list (nothing for another), leading to the health page. */
export function brokenMark(broken: boolean): Html | undefined {
  return broken ? html` <a class="badge broken" href="/health" title="The link checker could not reach this link: see Link health">⚠ broken</a>` : undefined;
}

/** copyOffer links to a link's page copy by the day it was kept ("Open the copy of 3 May 2026"); nothing without one. */
export function copyOffer(link: Pick<LinkJson, "id" | "copy">): Html | undefined {
  return link.copy ? html`<a class="copy-offer" href="/links/${link.id}/copy">Open the copy of ${when(link.copy.savedAt)}</a>` : undefined;
}

/** faviconFor asks the server's own favicon proxy for the site's icon; one URL per origin, so the browser caches it once. */
export function faviconFor(url: string): Html {
  const origin = URL.parse(url)?.origin ?? url;
  return html`<img src="/favicon?url=${encodeURIComponent(origin)}" alt="" width="16" height="16" loading="lazy" decoding="async">`;
}

/** pickBox is a list row's checkbox of the bulk form (src/pages/bulk.ts), named for screen readers by the link's name. */
export function pickBox(link: LinkJson): Html {
  return html`<input class="pick" type="checkbox" name="ids" value="${link.id}" aria-label="Select ${link.name}">`;
}

/**
 * flagButtons are a link's "Mark read" (or "Read later") and "Archive" (or "Unarchive")
 * buttons: each posts its one flag to `/links/:id/flags` (a button of the form around it: the
 * bulk form of a list, or flagForm's own), which returns to the form's `next`; with scripts, the
 * pages' script posts it without leaving the page and puts these buttons, as the server draws
 * them anew, in place of the old ones.
 */
export function flagButtons(link: Pick<LinkJson, "id" | "name" | "toRead" | "archived">): Html {
  return html`<button type="submit" class="flag" data-flag formaction="/links/${link.id}/flags" name="toRead" value="${link.toRead ? "false" : "true"}" aria-label="${link.toRead ? "Mark read" : "Read later"}: ${link.name}" title="${link.toRead ? "Take it off your reading list" : "Put it on your reading list"}">${link.toRead ? "Mark read" : "Read later"}</button>
<button type="submit" class="flag" data-flag formaction="/links/${link.id}/flags" name="archived" value="${link.archived ? "false" : "true"}" aria-label="${link.archived ? "Unarchive" : "Archive"}: ${link.name}">${link.archived ? "Unarchive" : "Archive"}</button>`;
}

/** flagForm is flagButtons in a form of their own (a link's page), returning to `next`. */
export function flagForm(link: LinkJson, next: string): Html {
  return html`<form class="flags" method="post" action="/links/${link.id}/flags" data-link-flags="${link.id}"><input type="hidden" name="next" value="${next}">${flagButtons(link)}</form>`;
}

/**
 * linkItem is one row of a link list inside the bulk form (src/pages/bulk.ts): its checkbox,
 * icon, name (through `/l/:id`, so opening it counts a click), host, description, clicks and
 * last click; a favorite toggle (a button of the bulk form posting to the link's own toggle,
 * which returns to the form's `next`), its reading list and archive buttons (flagButtons), the
 * link's page and its edit form, after the `moves` given (a collection's order). A `broken` link is
 * marked, and offers its page copy when it has one.
 */
export function linkItem(link: LinkJson, broken = false, moves?: Html): Html {
  const clicks = countOf(link.clicks, "click");
  return html`<li data-link="${link.id}" id="link-${link.id}">
${pickBox(link)}
${faviconFor(link.url)}
<div>
<a class="title" href="/l/${link.id}">${link.name}</a>${brokenMark(broken)}${broken && link.copy ? html` ${copyOffer(link)}` : undefined}
<div class="host">${hostOf(link.url)}</div>
${link.description ? html`<p class="description">${link.description}</p>` : undefined}
<div class="meta">${clicks} · ${link.lastClickedAt ? html`last click ${when(link.lastClickedAt)}` : "never clicked"}</div>
</div>
<div class="row-actions">
${moves}
<span class="flags" data-link-flags="${link.id}">${flagButtons(link)}</span>
<button type="submit" formaction="/links/${link.id}/favorite" class="star" aria-pressed="${link.favorite ? "true" : "false"}" aria-label="Favorite: ${link.name}" title="${link.favorite ? "Remove from favorites" : "Mark as favorite"}">${link.favorite ? "★" : "☆"}</button>
<a href="/links/${link.id}" aria-label="Details of ${link.name}">Details</a>
<a class="edit" href="/links/${link.id}/edit" aria-label="Edit ${link.name}">Edit</a>
</div>
</li>`;
}

/** What a link form holds: as stored, or as typed when the service refused it. */
export interface LinkFormValues {
  name: string;
  url: string;
  description: string;
  favorite: boolean;
  collectionIds: number[];
}

export interface LinkFormOptions {
  user: Viewer;
  /** Absent: a new link. */
  linkId?: number;
  values: LinkFormValues;
  collections: CollectionSummary[];
  errors: FieldErrors;
  /** Where to go after saving or cancelling (a path on this server). */
  next: string;
  /** Whether a new link left without a name is named after its page's title (the server fetches pages). */
  titleFromPage?: boolean;
  /** The link already saved with this URL: the form says so and offers to add it anyway. */
  saved?: SavedBefore;
}

/** A link saved before with the URL being added, and the collections it is in. */
export interface SavedBefore {
  link: LinkJson;
  collections: CollectionSummary[];
}

/** Built on first use, like `day`: "3 May 2026". */
let dayMonth: Intl.DateTimeFormat | undefined;

/** savedBefore says when and where a URL was saved already, asking whether to add it anyway. */
function savedBefore({ link, collections }: SavedBefore): Html {
  const on = (dayMonth ??= new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" })).format(new Date(link.createdAt));
  const places = collections.map((collection, at) => html`${at > 0 ? ", " : ""}<a href="/?collection=${collection.id}#link-${link.id}">${collection.icon} ${collection.name}</a>`);
  return html`<div class="notice" role="alert" id="saved-before"><p><strong>Already saved on <time datetime="${link.createdAt}">${on}</time>${collections.length > 0 ? html` in ${places}` : ""}</strong> — add anyway?</p>
<p class="hint">As <a href="/links/${link.id}">${link.name}</a>. “Add anyway” saves it a second time.</p></div>`;
}

/** linkFormPage: add or edit a link; collections as a group of checkboxes, the tree indented (none ticked: the Inbox). */
export function linkFormPage(options: LinkFormOptions): Html {
  const { values, errors, linkId } = options;
  const editing = linkId !== undefined;
  const chosen = new Set(values.collectionIds);
  const collectionErrors = errors.get("collectionIds");
  const content = html`<div class="narrow card">
<h1>${editing ? "Edit link" : "Add a link"}</h1>
${errorSummary(errors, "The link")}
${options.saved ? savedBefore(options.saved) : undefined}
<form method="post" action="${editing ? `/links/${linkId}` : "/links"}" novalidate>
<input type="hidden" name="next" value="${options.next}">
${editing
    ? textField({ name: "name", label: "Name", value: values.name, errors, required: true })
    : textField({ name: "name", label: "Name (optional)", value: values.name, errors, hint: options.titleFromPage ? "Leave it empty to use the page's title (its address when the title cannot be read)" : "Leave it empty to name it after its address" })}
${textField({ name: "url", label: "URL", value: values.url, errors, type: "url", required: true, hint: "An address starting with http:// or https://" })}
${textField({ name: "description", label: "Description (optional)", value: values.description, errors, multiline: true, hint: "At most 300 characters" })}
<label class="choice"><input type="checkbox" name="favorite" value="on"${values.favorite ? html` checked` : ""}> Favorite (pinned by the browser extension)</label>
<fieldset${invalidGroup("collectionIds", collectionErrors)}>
<legend>Collections</legend>
<p class="hint" id="collections-hint">None ticked: the link goes to the Inbox.</p>
${filterBox(options.collections, "collection-choices")}
<div class="tree-choices" id="collection-choices">
${options.collections.map((collection) => html`<label class="choice" style="--depth: ${collection.depth}" data-name="${collection.name}"><input type="checkbox" name="collectionIds" value="${collection.id}"${chosen.has(collection.id) ? html` checked` : ""}> <span aria-hidden="true">${collection.icon}</span> ${collection.name}</label>`)}
</div>
${fieldMessages("collectionIds", collectionErrors)}
</fieldset>
<div class="form-actions">
<button type="submit">${editing ? "Save link" : "Add link"}</button>
${options.saved ? html`<button type="submit" name="anyway" value="yes" class="secondary">Add anyway</button>` : undefined}
<a href="${options.next}">Cancel</a>
${editing ? html`<a href="/links/${linkId}" class="push">Details and saved page</a>
<a href="/links/${linkId}/delete">Delete link…</a>` : undefined}
</div>
</form>
</div>`;
  return shell({ title: editing ? "Edit link" : "Add a link", user: options.user, content });
}

/** linkDeletePage asks before deleting: a form, so it works without scripts. */
export function linkDeletePage(user: Viewer, link: LinkJson, next: string, trashDays: number): Html {
  return deletePage({
    user,
    trashDays,
    what: "link",
    subject: html`<strong>${link.name}</strong><br><span class="muted">${link.url}</span>`,
    consequence: `It leaves every collection, with its ${countOf(link.clicks, "click")}.`,
    address: `/links/${link.id}`,
    next,
  });
}
