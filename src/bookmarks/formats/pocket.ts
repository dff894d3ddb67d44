/**
 * Pocket's exports: the zip of CSV parts its export page gives (or one CSV: `title,url,
 * time_added,tags,status`, older ones with `cursor`), and its older HTML page (`<h1>Unread</h1>`
 * and `<h1>Read Archive</h1>` lists of links carrying `time_added` and `tags`).
 */
import { Parser } from "htmlparser2";
import { dateField, type ImportDocument } from "../document";
import { inflateEntries } from "../zip";
import { readCsv, seconds, split, start, STEP_CHARS, type ImportInput, type ReadContext } from "./common";
import { isOmnivoreZip } from "./omnivore";

/** The columns Pocket's CSV has (others are listed in the preview). */
const COLUMNS = ["title", "url", "time_added", "cursor", "tags", "status"] as const;

/** Pocket's older HTML export: links carrying `time_added`, which no browser's file has. */
const POCKET_HTML = /<a\s[^>]*\btime_added\s*=/i;
/** How much of the file is searched for POCKET_HTML (its first link comes right after a heading). */
const POCKET_HTML_PRESCAN = 64 * 1024;
/** The heading of the section of archived items in Pocket's HTML export (the other is "Unread"). */
const POCKET_ARCHIVE_HEADING = "read archive";
/** The heading of the section of unread items (Pocket's reading list) in the same export. */
const POCKET_UNREAD_HEADING = "unread";

/** sniff: a zip of CSV parts (not Omnivore's), a CSV with `time_added`, or the HTML page whose links carry it. */
export function sniff(input: ImportInput): boolean {
  if (input.isZip) return !isOmnivoreZip(input) && input.zipEntries.some(isCsv);
  return input.hasColumn("time_added") || (!input.looksJson && POCKET_HTML.test(input.start.slice(0, POCKET_HTML_PRESCAN)));
}

const isCsv = ({ name }: { name: string }) => name.toLowerCase().endsWith(".csv");

/**
 * read reads Pocket's file: a zip's CSV parts one at a time, in the order of their names, each
 * inflated when its turn comes (within ZIP_LIMITS, counted on what they give); one CSV; or the
 * HTML page.
 */
export function read(input: ImportInput, context: ReadContext): Promise<ImportDocument> {
  if (input.isZip) {
    const parts = input.zipEntries.filter(isCsv).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return readCsvParts((async function* () {
      for await (const [, data] of inflateEntries(input.bytes, parts)) yield new TextDecoder().decode(data);
    })(), context);
  }
  if (input.hasColumn("time_added")) return readCsvParts([input.text], context);
  return readPocketHtml(input.start, context);
}

/**
 * readCsvParts reads Pocket's CSV parts, each made when its turn comes: `title` → name, `url`,
 * `time_added` (seconds) → created, `tags` (`|`) → tag collections, `status` `unread` → to read,
 * `archive` → archived.
 */
async function readCsvParts(parts: Iterable<string> | AsyncIterable<string>, context: ReadContext): Promise<ImportDocument> {
  const { document, add } = start("pocket", context);
  for await (const part of parts) {
    await readCsv(part, COLUMNS, document, ({ record }) => {
      const unreadDates: string[] = [];
      add({
        name: record.title ?? "", url: record.url ?? "", description: "", folders: [],
        tags: split(record.tags, "|"), archived: record.status === "archive", toRead: record.status === "unread", favorite: false,
        createdAt: dateField("time_added", record.time_added, seconds, unreadDates), unreadDates,
      });
    });
  }
  return document;
}

/**
 * readPocketHtml reads Pocket's older HTML export: `<h1>Unread</h1><ul><li><a href time_added
 * tags>title</a></li>...</ul><h1>Read Archive</h1><ul>...`. Each link is an item, `time_added`
 * its creation (seconds), `tags` comma-separated, those under "Unread" to read, those under "Read Archive" archived.
 */
async function readPocketHtml(html: string, context: ReadContext): Promise<ImportDocument> {
  const { document, add } = start("pocket", context);
  let heading: string | null = null;
  let archived = false;
  let toRead = false;
  let link: { text: string; attributes: Record<string, string> } | null = null;
  let failure: unknown;
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === "h1") heading = "";
      else if (name === "a" && attributes.href !== undefined) link = { text: "", attributes };
    },
    ontext(text) {
      if (link) link.text += text;
      else if (heading !== null) heading += text;
    },
    onclosetag(name) {
      if (name === "h1" && heading !== null) {
        archived = heading.trim().toLowerCase() === POCKET_ARCHIVE_HEADING;
        toRead = heading.trim().toLowerCase() === POCKET_UNREAD_HEADING;
        heading = null;
      } else if (name === "a" && link) {
        const { text, attributes } = link;
        link = null;
        const unreadDates: string[] = [];
        try {
          add({
            name: text.trim(), url: attributes.href!.trim(), description: "", folders: [], tags: split(attributes.tags, ","), archived, toRead, favorite: false,
            createdAt: dateField("time_added", attributes.time_added, seconds, unreadDates), unreadDates,
          });
        } catch (error) {
          failure ??= error;
        }
      }
    },
  }, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
  for (let at = 0; at < html.length && failure === undefined; at += STEP_CHARS) {
    parser.write(html.slice(at, at + STEP_CHARS));
    await new Promise((resolve) => setImmediate(resolve));
  }
  parser.end();
  if (failure !== undefined) throw failure;
  return document;
}

