import type { CollectionSummary } from "../shelf/types";
import type { Viewer } from "../shelf/shelf";
import { deletePage, errorSummary, fieldMessages, invalidGroup, textField, type FieldErrors } from "./form";
import { html, type Html } from "./html";
import { shell } from "./shell";
import { countOf } from "../common/format";
import { readId } from "../common/ids";
import { filterBox, subtreeOf, treeOptions } from "./tree";

/** What a collection form holds: as stored, or as typed when the service refused it. */
export interface CollectionFormValues {
  name: string;
  description: string;
  /** The icon typed in the free field (it wins over `iconChoice`). */
  icon: string;
  /** The icon chosen among ICON_CHOICES. */
  iconChoice: string;
  visibility: string;
  /** Whether anyone may open its links' page copies while it is public. */
  copiesPublic: boolean;
  /** The parent chosen, as the picker's value ("": the top level); undefined where there is no picker (the Inbox's form). */
  parentId?: string;
}

export interface CollectionFormOptions {
  user: Viewer;
  /** Absent: a new collection. */
  collection?: CollectionSummary;
  /** Every collection of the user, as `summaries()` lists them: the parent picker's tree. */
  collections: CollectionSummary[];
  values: CollectionFormValues;
  errors: FieldErrors;
}

/** The emoji offered as a collection's icon, as radio buttons; the free field takes any other. */
export const ICON_CHOICES = [
  "📥", "📚", "📖", "📰", "🎵", "🎬", "🎮", "🧪", "💻", "🛠️", "🎨", "📷", "✈️", "🏠", "🍳", "🫖", "🌱", "🏃", "💼", "💰",
  "🛒", "🎓", "❤️", "⭐", "🔖", "📌", "💡", "🧭", "🐾", "🎁",
] as const;

const VISIBILITIES = [
  { value: "PRIVATE", label: "Private", hint: "Only you see it." },
  { value: "PUBLIC", label: "Public", hint: "Anyone with the address can read it and its feed, and open its links." },
] as const;

/**
 * parentPicker chooses where a collection goes: the top level or inside another, the tree
 * indented; never the Inbox, nor (editing) the collection itself or one of its sub-collections.
 * The Inbox's own form has none: it stays at the top level.
 */
function parentPicker({ collections, collection, values, errors }: CollectionFormOptions): Html | undefined {
  if (values.parentId === undefined) return undefined;
  const inside = new Set(collection ? subtreeOf(collections, collection.id).map((child) => child.id) : []);
  const offered = collections.filter((other) => !other.isDefault && !inside.has(other.id));
  const messages = errors.get("parentId");
  return html`<label for="parentId">Inside</label>
${filterBox(offered, "parentId", "Filter the collections to put it in")}
<select id="parentId" name="parentId"${messages?.length ? html` aria-describedby="parentId-error" aria-invalid="true"` : ""}>
<option value="">Top level</option>
${treeOptions(offered, readId(values.parentId))}
</select>
${fieldMessages("parentId", messages)}`;
}

/** collectionFormPage: create or edit a collection (name, description, emoji icon, visibility, parent). */
export function collectionFormPage(options: CollectionFormOptions): Html {
  const { values, errors, collection } = options;
  const visibilityErrors = errors.get("visibility");
  const content = html`<div class="narrow card">
<h1>${collection ? "Edit collection" : "New collection"}</h1>
${errorSummary(errors, "The collection")}
<form method="post" action="${collection ? `/collections/${collection.id}` : "/collections"}" novalidate>
${textField({ name: "name", label: "Name", value: values.name, errors, required: true })}
${parentPicker(options)}
${textField({ name: "description", label: "Description (optional)", value: values.description, errors, multiline: true, hint: "At most 254 characters" })}
${textField({ name: "icon", label: "Icon", value: values.icon, errors, hint: "One emoji, such as a flag; it wins over a choice below; both empty: the default icon", autocomplete: "off", extra: html` spellcheck="false"` })}
<fieldset>
<legend>Or choose an emoji</legend>
<div class="emoji">
${ICON_CHOICES.map((emoji) => html`<label><input type="radio" name="icon-choice" value="${emoji}"${values.iconChoice === emoji ? html` checked` : ""}> ${emoji}</label>`)}
</div>
</fieldset>
<fieldset${invalidGroup("visibility", visibilityErrors)}>
<legend>Visibility</legend>
${VISIBILITIES.map((option) => html`<label class="choice"><input type="radio" name="visibility" value="${option.value}"${values.visibility === option.value ? html` checked` : ""}> ${option.label} <span class="muted">— ${option.hint}</span></label>`)}
${fieldMessages("visibility", visibilityErrors)}
<label class="choice"><input type="checkbox" name="copiesPublic" value="on" id="copies-public"${values.copiesPublic ? html` checked` : ""}> While public, let anyone open the page copies of its links <span class="muted">— copies your browser kept may show what you saw signed in</span></label>
</fieldset>
<div class="form-actions">
<button type="submit">${collection ? "Save collection" : "Create collection"}</button>
<a href="${collection ? `/?collection=${collection.id}` : "/"}">Cancel</a>
${collection && !collection.isDefault ? html`<a href="/collections/${collection.id}/delete" class="push">Delete collection…</a>` : undefined}
</div>
${collection?.isDefault ? html`<p class="hint">The Inbox cannot be deleted: links without a collection live there.</p>` : undefined}
</form>
</div>`;
  return shell({ title: collection ? "Edit collection" : "New collection", user: options.user, content });
}

/** collectionDeletePage asks before deleting, and says what happens to the links. */
export function collectionDeletePage(user: Viewer, collection: CollectionSummary, trashDays: number): Html {
  const count = `Its ${countOf(collection.linkCount, "link")}`;
  return deletePage({
    user,
    trashDays,
    also: {
      label: "Delete with its links", name: "contents", value: "1",
      consequence: "Delete with its links: its sub-collections and the links that are in no other collection go with it, and one restore brings all of it back.",
    },
    what: "collection",
    subject: html`<span aria-hidden="true">${collection.icon}</span> <strong>${collection.name}</strong>`,
    consequence: `${count} stay: a link that is in no other collection moves to the Inbox, and its sub-collections move up to its place.`,
    address: `/collections/${collection.id}`,
  });
}

/** iconValues splits a stored icon between the form's choices and its free field. */
export function iconValues(icon: string): Pick<CollectionFormValues, "icon" | "iconChoice"> {
  return (ICON_CHOICES as readonly string[]).includes(icon) ? { icon: "", iconChoice: icon } : { icon, iconChoice: "" };
}

/**
 * sortConfirmPage asks before sorting a collection's items A–Z (`items` of them): the order is
 * rewritten at once, and a browser folder synced with the collection follows it.
 */
export function sortConfirmPage(user: Viewer, collection: CollectionSummary, items: number, next: string): Html {
  const question = `Sort ${countOf(items, "item")} of ${collection.name} A–Z?`;
  const content = html`<div class="narrow card">
<h1>${question}</h1>
<p>Its sub-collections come first, then its links, each by name. This changes the order in synced browsers too.</p>
<p class="muted">The page that follows can undo it once, as long as the order has not changed since.</p>
<form method="post" action="/collections/${collection.id}/sort" class="form-actions">
<input type="hidden" name="next" value="${next}">
<input type="hidden" name="confirmed" value="yes">
<button type="submit">Sort A–Z</button>
<a href="${next}">Cancel</a>
</form>
</div>`;
  return shell({ title: question, user, content });
}
