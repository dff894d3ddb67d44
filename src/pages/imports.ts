import type { ImportDestination, ImportReport } from "../bookmarks/plan";
import { unreadDatesText } from "../bookmarks/document";
import { FORMAT_NAMES, FORMATS } from "../bookmarks/formats";
import type { ImportJson } from "../contract/imports";
import type { Viewer } from "../shelf/shelf";
import { html, Html } from "./html";
import { shell } from "./shell";
import { countOf, formatNumber } from "../common/format";

/** At most this many duplicates or skipped entries are listed on a page; the rest are counted. */
export const LISTED_ENTRIES = 200;

/** The import pages' own few rules (the shell's style covers the rest). */
const STYLE = html`<style>
.counts { display: grid; grid-template-columns: repeat(auto-fit, minmax(8.5rem, 1fr)); gap: .5rem; margin: .75rem 0 0; }
.counts div { border: 1px solid var(--border); border-radius: 8px; padding: .5rem .7rem; }
.counts dt { font-size: .85rem; color: var(--muted); }
.counts dd { margin: 0; font-size: 1.4rem; font-weight: 700; font-variant-numeric: tabular-nums; }
.entries { list-style: none; margin: 0; padding: 0; }
.entries > li { padding: .5rem 0; border-top: 1px solid var(--border); overflow-wrap: anywhere; }
.entries > li:first-child { border-top: 0; }
.entries .entry { font-weight: 600; }
.entries .url { display: block; color: var(--muted); font-size: .85rem; }
.entries .reason, .entries .instead { display: block; font-size: .9rem; }
.file { overflow-wrap: anywhere; }
.entries .facts { display: block; color: var(--muted); font-size: .85rem; }
input[type="file"] { padding: .45rem; }
</style>`;

/** sizeText says how big a file is, the way people read it. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}


/** URLs longer than this (in code points) are shown shortened in the lists, the whole URL on hover. */
export const SHOWN_URL_CHARS = 80;

/** urlLine shows an entry's URL: whole when short, else its start and end around `…`, with the whole URL as the title. */
function urlLine(url: string): Html {
  if (url === "") return html`<span class="url">(no URL)</span>`;
  const chars = [...url];
  if (chars.length <= SHOWN_URL_CHARS) return html`<span class="url">${url}</span>`;
  const shown = `${chars.slice(0, SHOWN_URL_CHARS - 20).join("")}…${chars.slice(-19).join("")}`;
  return html`<span class="url" title="${url}">${shown}</span>`;
}

export interface ImportPageOptions {
  user: Viewer;
  /** Why the last upload was not read, shown above the form. */
  error?: string;
  /** The largest file accepted, in bytes. */
  maxBytes: number;
}

/** importPage: download everything as a bookmarks file, or upload one to preview its import. */
export function importPage(options: ImportPageOptions): Html {
  const content = html`<div class="narrow stack">
<section class="card" aria-labelledby="export-heading">
<h1 id="export-heading">Import / export</h1>
<h2>Export</h2>
<p>All your links as one bookmarks file (HTML, the format every browser imports): each collection is a folder, the Inbox's links stand outside any folder.</p>
<p><a class="button" href="/export">Download bookmarks file</a></p>
<p>Everything linkshelf holds, to move it to another linkshelf: links with their clicks, the collection tree with its order, icons and visibility, and the saved page texts (JSON).</p>
<p><a class="button secondary" href="/export?format=json">Download linkshelf JSON</a></p>
</section>

<section class="card" aria-labelledby="import-heading">
<h2 id="import-heading">Import</h2>
<p>A bookmarks file exported by a browser (Chrome, Edge, Brave, Firefox, Safari), linkding or linkshelf, or one of these, as the browser or the service gives it (CSV, JSON or zip): ${FORMATS.filter((row) => row.format !== "netscape").map((row) => row.name).join(", ")}. Folders and tags become private collections; a service's file goes into one new collection named after it and the day.</p>
<p class="muted">You see what would happen first: nothing is stored until you confirm.</p>
${options.error ? html`<p class="error" role="alert" id="file-error">${options.error}</p>` : undefined}
<form method="post" action="/import" enctype="multipart/form-data">
<label for="file">Bookmarks file or export</label>
<input id="file" name="file" type="file" accept=".html,.htm,.csv,.json,.jsonlz4,.zip,text/html,text/csv,application/json,application/zip" required aria-describedby="file-hint${options.error ? " file-error" : ""}"${options.error ? new Html(' aria-invalid="true"') : ""}>
<p class="hint" id="file-hint">A file of at most ${sizeText(options.maxBytes)}; its kind is read from its content.</p>
<div class="form-actions"><button type="submit">Preview import</button></div>
</form>
</section>
</div>`;
  return shell({ title: "Import / export", user: options.user, content, head: STYLE });
}

/** counts: the numbers of a report, as a definition list (the page's heading says whether they happened yet). */
function counts(report: ImportReport): Html {
  const items: [string, number][] = [
    ["New links", report.linksCreated],
    // A browser file leaves the links you have as they are; a service's file puts them in its collections.
    ...(report.format === "netscape" ? [] : [["Links you had, in more collections", report.linksAdded] as [string, number]]),
    // The file's reading states, when it has any: flags on the links (new ones, and ones you had that lacked them).
    ...(report.linksToRead > 0 ? [["Marked to read", report.linksToRead] as [string, number]] : []),
    ...(report.linksArchived > 0 ? [["Marked archived", report.linksArchived] as [string, number]] : []),
    ["New collections", report.collectionsCreated.length],
    ["Duplicates", report.duplicates.length],
    ["Skipped", report.skipped.length],
  ];
  return html`<dl class="counts">${items.map(([label, count]) => html`<div><dt>${label}</dt><dd>${formatNumber(count)}</dd></div>`)}</dl>`;
}

/** more says how many entries a list left out. */
function more(total: number): Html | undefined {
  return total > LISTED_ENTRIES ? html`<p class="muted">…and ${countOf(total - LISTED_ENTRIES, "more", "more")} not listed here.</p>` : undefined;
}

const visibilityText = { PRIVATE: "Private", PUBLIC: "Public" } as const;

/**
 * destinationItem: a collection the import puts links in, new or existing, where it sits in the
 * tree (`Bikes › Home`), its visibility and how many links go there; a stand-in says which
 * public collection it keeps the links out of.
 */
function destinationItem(destination: ImportDestination, collectionLink: (destination: ImportDestination) => string | undefined): Html {
  const href = collectionLink(destination);
  const path = [...destination.path, destination.name].join(" › ");
  return html`<li><span class="entry">${href ? html`<a href="${href}">${path}</a>` : path}</span>
<span class="facts">${destination.isNew ? "New" : "Existing"} collection · ${visibilityText[destination.visibility]} · ${countOf(destination.links, "link")}</span>
${destination.insteadOf === null ? undefined : html`<span class="instead">Your collection ${destination.insteadOf} is public: the import does not add to it.</span>`}</li>`;
}

/** details: where the links go, then every duplicate and skipped entry (up to LISTED_ENTRIES each). */
function details(report: ImportReport, done: boolean, collectionLink: (destination: ImportDestination) => string | undefined): Html {
  const { destinations, duplicates, skipped, unreadDates } = report;
  return html`${destinations.length > 0 ? html`<section class="card" aria-labelledby="destinations-heading">
<h2 id="destinations-heading">${done ? "Where the links went" : "Where the links go"}</h2>
<p class="muted">An import adds only to private collections and creates only private ones: a folder named like one of your public collections gets a private collection of its own.</p>
<ul class="entries destinations">${destinations.slice(0, LISTED_ENTRIES).map((destination) => destinationItem(destination, collectionLink))}</ul>
${more(destinations.length)}
</section>` : undefined}
${duplicates.length > 0 ? html`<section class="card" aria-labelledby="duplicates-heading">
<h2 id="duplicates-heading">Duplicates</h2>
<p class="muted">You already have these URLs (or the file repeats them in one folder): the links you have are left as they are.</p>
<ul class="entries">${duplicates.slice(0, LISTED_ENTRIES).map((entry) => html`<li><span class="entry">${entry.name}</span>${urlLine(entry.url)}</li>`)}</ul>
${more(duplicates.length)}
</section>` : undefined}
${skipped.length > 0 ? html`<section class="card" aria-labelledby="skipped-heading">
<h2 id="skipped-heading">Skipped</h2>
<p class="muted">linkshelf cannot store these entries.</p>
<ul class="entries">${skipped.slice(0, LISTED_ENTRIES).map((entry) => html`<li><span class="entry">${entry.name}</span>${urlLine(entry.url)}<span class="reason">${entry.reason}</span></li>`)}</ul>
${more(skipped.length)}
</section>` : undefined}
${unreadDates.length > 0 ? html`<section class="card" aria-labelledby="dates-heading">
<h2 id="dates-heading">Dates not read</h2>
<p class="muted">These entries are imported, but a date of theirs is not one linkshelf reads.</p>
<ul class="entries">${unreadDates.slice(0, LISTED_ENTRIES).map((entry) => html`<li><span class="entry">${entry.name}</span>${urlLine(entry.url)}<span class="reason">${unreadDatesText(entry.dates)}</span></li>`)}</ul>
${more(unreadDates.length)}
</section>` : undefined}`;
}

export interface ImportPreviewOptions {
  user: Viewer;
  key: string;
  fileName: string;
  fileBytes: number;
  report: ImportReport;
  /** How long the preview waits, in minutes. */
  keptMinutes: number;
  /** The user's private collections the file's collections may go into instead of the top level, by their place in the tree. */
  parents: { id: number; path: string[] }[];
}

/** choices: where the file's collections go, and for linkshelf JSON whether public collections stay public (sent with the confirmation). */
function choices(report: ImportReport, parents: ImportPreviewOptions["parents"]): Html {
  return html`<label for="under">Put the new collections</label>
<select id="under" name="under"><option value="">at the top level</option>${parents.map(({ id, path }) => html`<option value="${String(id)}">inside ${path.join(" › ")}</option>`)}</select>
${report.format === "linkshelf" ? html`<label><input type="checkbox" name="keepPublic" value="on"> Keep public collections public</label>` : undefined}`;
}

/** importPreviewPage: what a dry run of the uploaded file found, and the button that imports it for real. */
export function importPreviewPage(options: ImportPreviewOptions): Html {
  const { report } = options;
  const nothing = report.linksCreated + report.linksAdded + report.linksToRead + report.linksArchived === 0 && report.collectionsCreated.length === 0;
  const content = html`<div class="narrow stack">
<section class="card" aria-labelledby="preview-heading">
<h1 id="preview-heading">Import preview</h1>
<p class="file">${options.fileName === "" ? "The file" : html`<strong>${options.fileName}</strong>`} (${sizeText(options.fileBytes)}).
${nothing ? "There is nothing new in it to import." : "Nothing is stored until you import it."}</p>
<p>Recognised as: <strong>${FORMAT_NAMES[report.format]}</strong>.</p>
${report.unknownFields.length > 0 ? html`<p class="muted">Not imported, because linkshelf does not know them: the columns or fields ${report.unknownFields.join(", ")}.</p>` : undefined}
${counts(report)}
<div class="form-actions">
${nothing ? undefined : html`<form method="post" action="/import/${options.key}/confirm">${choices(report, options.parents)}<button type="submit">Import ${countOf(report.linksCreated, "link")}</button></form>`}
<form method="post" action="/import/${options.key}/cancel"><button type="submit" class="secondary">${nothing ? "Back" : "Cancel"}</button></form>
</div>
<p class="hint">This preview is kept for ${options.keptMinutes} minutes.</p>
</section>
${details(report, false, () => undefined)}
</div>`;
  return shell({ title: "Import preview", user: options.user, content, head: STYLE });
}

export interface ImportReportOptions {
  user: Viewer;
  fileName: string;
  report: ImportReport;
  /** The import's record, when it was recorded: the page offers to undo it. */
  importId?: number;
  /** The address of a destination's collection (by its place in the tree), for the ones that still exist. */
  collectionLink: (destination: ImportDestination) => string | undefined;
}

/** importReportPage: what the import stored, and what it left out and why. */
export function importReportPage(options: ImportReportOptions): Html {
  const { report } = options;
  const content = html`<div class="narrow stack">
<section class="card" aria-labelledby="report-heading">
<h1 id="report-heading">Import done</h1>
<p class="notice" role="status">Imported ${countOf(report.linksCreated, "link")} and created ${countOf(report.collectionsCreated.length, "collection")}${options.fileName === "" ? "" : ` from ${options.fileName}`}.</p>
${counts(report)}
<div class="form-actions"><a class="button" href="/">See your links</a><a href="/import">Import another file</a>${options.importId === undefined ? undefined : html`<a href="/imports/${options.importId}/undo">Undo this import</a>`}</div>
</section>
${details(report, true, options.collectionLink)}
</div>`;
  return shell({ title: "Import done", user: options.user, content, head: STYLE });
}

export interface UndoImportOptions {
  user: Viewer;
  record: ImportJson;
}

/** undoImportPage asks before undoing an import, with what it created: a form, so it works without scripts. */
export function undoImportPage({ user, record }: UndoImportOptions): Html {
  const content = html`<div class="narrow card">
<h1>Undo this import?</h1>
<p class="file">${record.fileName === "" ? "A file" : record.fileName}, imported ${record.createdAt.slice(0, 10)}.</p>
<dl class="counts">
<div><dt>Links it created</dt><dd>${record.links}</dd></div>
<div><dt>Collections it created</dt><dd>${record.collections}</dd></div>
</dl>
<p>The links this import created go to the <a href="/trash">Trash</a>, wherever they are now and even if you edited them, with the collections it created that are left empty: one item there, “Import of ${record.fileName === "" ? "a file" : record.fileName}”, whose Restore brings all of it back and makes the import stand again, until the trash lets it go (with the trash off, they are deleted at once). Links you had before it are kept, and so is a collection of it that holds other links.</p>
<form method="post" action="/imports/${record.id}/undo" class="form-actions">
<button type="submit" class="danger">Undo import</button>
<a href="/account">Cancel</a>
</form>
</div>`;
  return shell({ title: "Undo import", user, content, head: STYLE });
}
