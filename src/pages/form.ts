import { countOf } from "../common/format";
import type { FieldErrorJson } from "../contract/errors";
import type { Viewer } from "../shelf/shelf";
import { html, type Html } from "./html";
import { shell } from "./shell";

/** The messages of a refused form, by field name (the service's path without its `/`). */
export type FieldErrors = Map<string, string[]>;

/** fieldErrorsOf turns a service's `{path, message}` list into messages by field name. */
export function fieldErrorsOf(errors: FieldErrorJson[] | undefined): FieldErrors {
  const byField: FieldErrors = new Map();
  for (const error of errors ?? []) {
    const name = error.path.replace(/^\//, "").split("/")[0] ?? "";
    byField.set(name, [...(byField.get(name) ?? []), error.message]);
  }
  return byField;
}

/** errorSummary heads a refused form; announced to screen readers. */
export function errorSummary(errors: FieldErrors, what: string): Html | undefined {
  if (errors.size === 0) return undefined;
  return html`<p class="error" role="alert">${what} was not saved: check the ${errors.size === 1 ? "field" : "fields"} marked below.</p>`;
}

/** fieldMessages renders a field's messages, referenced by the control's aria-describedby. */
export function fieldMessages(id: string, messages: string[] | undefined): Html | undefined {
  if (!messages?.length) return undefined;
  return html`<p class="field-error" id="${id}-error">${messages.join(". ")}</p>`;
}

/** describedBy is the aria-describedby (hint, then error) and aria-invalid of a control. */
function describedBy(id: string, hint: boolean, invalid: boolean): Html {
  const ids = [hint ? `${id}-hint` : "", invalid ? `${id}-error` : ""].filter(Boolean).join(" ");
  return html`${ids ? html` aria-describedby="${ids}"` : ""}${invalid ? html` aria-invalid="true"` : ""}`;
}

export interface TextFieldOptions {
  name: string;
  label: string;
  value: string;
  errors: FieldErrors;
  type?: "text" | "url" | "password" | "email";
  required?: boolean;
  hint?: string;
  autocomplete?: string;
  multiline?: boolean;
  /** The form's id prefix, so two forms on one page do not share ids. */
  idPrefix?: string;
  extra?: Html;
}

/** textField: a labelled input (or textarea) with its hint and the service's messages beside it. */
export function textField(options: TextFieldOptions): Html {
  const id = `${options.idPrefix ?? ""}${options.name}`;
  const messages = options.errors.get(options.name);
  const aria = describedBy(id, options.hint !== undefined, Boolean(messages?.length));
  const common = html`id="${id}" name="${options.name}"${options.required ? html` required` : ""}${
    options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ""}${aria}${options.extra}`;
  const control = options.multiline
    ? html`<textarea ${common}>${options.value}</textarea>`
    : html`<input ${common} type="${options.type ?? "text"}" value="${options.value}">`;
  return html`<label for="${id}">${options.label}</label>
${control}
${options.hint !== undefined ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : undefined}
${fieldMessages(id, messages)}`;
}

/** invalidGroup is the aria of a fieldset whose choices were refused. */
export function invalidGroup(id: string, messages: string[] | undefined): Html {
  return messages?.length ? html` aria-describedby="${id}-error" aria-invalid="true"` : html``;
}

export interface DeletePageOptions {
  user: Viewer;
  /** `link`, `collection`: the page says "Delete this <what>?". */
  what: string;
  /** What is about to be deleted, as the page names it. */
  subject: Html;
  /** What happens besides (a sentence on the trash follows). */
  consequence: string;
  /** How many days the deleted thing stays in the trash; 0: it is deleted at once ("This cannot be undone."). */
  trashDays: number;
  /** A second way to delete it, as another submit button of the form (a collection: with its links). */
  also?: { label: string; name: string; value: string; consequence: string };
  /** The thing's own address: the form posts to `<address>/delete`; Cancel goes to `<address>/edit`. */
  address: string;
  /** Where to go afterwards (the `next` field), when the form carries one. */
  next?: string;
}

/** deletePage asks before deleting: a form, so it works without scripts. */
export function deletePage({ user, what, subject, consequence, address, next, trashDays, also }: DeletePageOptions): Html {
  const after = trashDays > 0 ? `It goes to the trash, where you can restore it for ${countOf(trashDays, "day")}.` : "This cannot be undone.";
  const content = html`<div class="narrow card">
<h1>Delete this ${what}?</h1>
<p>${subject}</p>
<p>${consequence} ${after}</p>
${also === undefined ? undefined : html`<p>${also.consequence}</p>`}
<form method="post" action="${address}/delete" class="form-actions">
${next === undefined ? undefined : html`<input type="hidden" name="next" value="${next}">`}
<button type="submit" class="danger">Delete ${what}</button>
${also === undefined ? undefined : html`<button type="submit" class="danger" name="${also.name}" value="${also.value}">${also.label}</button>`}
<a href="${address}/edit">Cancel</a>
</form>
</div>`;
  return shell({ title: `Delete ${what}`, user, content });
}
