/**
 * The readers of other services' export files: Pocket (a zip of CSV parts, or one CSV),
 * Omnivore (a zip of JSON metadata, saved pages and highlights), Raindrop.io (CSV), Pinboard
 * (JSON), Instapaper (CSV) and Karakeep (JSON). Each gives the one form the planner takes
 * (`documentBuilder`): everything under one collection named after the service and the day,
 * folders as nested collections, tags under `Tags`, archived items also in `Archive`. A file is
 * recognised by its content (`readImportFile`), never by its name. CSV goes through csv-parse;
 * a zip is read by `zip.ts`, within ZIP_LIMITS counted on the bytes its files give.
 */
import { parse } from "csv-parse";
import { extractReadable } from "../capture/extract";
import { Parser } from "htmlparser2";
import { dateField, dayOf, documentBuilder, FORMAT_NAMES, fromNetscape, type ImportDocument, type ImportFormat, type SourceItem } from "./document";
import { isChromiumBookmarks, isFirefoxBackup, MOZ_LZ4_MAGIC, readChromiumBookmarks, readFirefoxBackup } from "./browsers";
import { readLinkshelfJson } from "./linkshelf-json";
import { BookmarkFileRefused, decodeBookmarkFile, parseNetscapeInSteps } from "./netscape";
import { inflateEntries, unzipEntries, zipDirectory } from "./zip";

/** Characters given to the CSV parser at once; the event loop runs between them. */
const CSV_STEP_CHARS = 256 * 1024;

/** A heading the saved page text's highlights follow. */
const HIGHLIGHTS = "Highlights";

/** Omnivore's stand-in URL of a newsletter it received by email: nothing to link to. */
const OMNIVORE_NO_URL = "https://omnivore.app/no_url?";

/** The columns each CSV format knows (the others are listed in the preview). */
const COLUMNS = {
  pocket: ["title", "url", "time_added", "cursor", "tags", "status"],
  raindrop: ["id", "title", "note", "excerpt", "url", "folder", "tags", "created", "cover", "highlights", "favorite"],
  instapaper: ["URL", "Title", "Selection", "Folder", "Timestamp", "Tags"],
} as const;

/**
 * readImportFile reads an uploaded file of any format linkshelf imports, recognised by its
 * content: a zip (Pocket's CSV parts, Omnivore's metadata), JSON (Pinboard, Karakeep, linkshelf),
 * CSV by its header (Pocket, Raindrop.io, Instapaper), else a bookmark file (HTML). `now` names
 * the import's collection (`Pocket 2026-11-27`). Throws BookmarkFileRefused (422, nothing stored)
 * for a damaged zip or one beyond ZIP_LIMITS (declared, or given while inflating), a zip or JSON
 * of no known shape, or a file beyond IMPORT_LIMITS.
 */
export async function readImportFile(bytes: Uint8Array, now: number): Promise<ImportDocument> {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) return readZip(bytes, now);
  if (MOZ_LZ4_MAGIC.every((byte, at) => bytes[at] === byte)) {
    throw new BookmarkFileRefused("This is Firefox's compressed bookmark backup (.jsonlz4), which linkshelf does not read. In Firefox, open Bookmarks › Manage bookmarks, then Import and Backup › Export Bookmarks to HTML, and import that file.");
  }
  const text = decodeBookmarkFile(bytes);
  const start = text.replace(/^\uFEFF/, "").trimStart();
  if (start.startsWith("{") || start.startsWith("[")) return readJson(start, now);
  if (POCKET_HTML.test(start.slice(0, POCKET_HTML_PRESCAN))) return readPocketHtml(start, now);
  const header = start.slice(0, start.search(/\r?\n|$/)).toLowerCase();
  if (/(^|,)"?time_added"?(,|$)/.test(header)) return readPocket([text], now);
  if (/(^|,)"?excerpt"?(,|$)/.test(header) && /(^|,)"?folder"?(,|$)/.test(header)) return readRaindrop(text, now);
  if (/(^|,)"?selection"?(,|$)/.test(header) && /(^|,)"?url"?(,|$)/.test(header)) return readInstapaper(text, now);
  return fromNetscape(await parseNetscapeInSteps(text));
}

/** A row of a CSV file by its header's names, with the line it starts on. */
interface CsvRow {
  line: number;
  record: Record<string, string>;
}

/**
 * readCsv reads CSV text by its header, a slice at a time with the event loop running between
 * slices, giving each row to `each` as it is parsed (none are gathered: a file of 100,000 rows
 * is never held twice). Rows that do not parse are left out and listed in `skipped` by their
 * line; columns beyond `known` are listed in `unknown`.
 */
async function readCsv(text: string, known: readonly string[], into: ImportDocument, each: (row: CsvRow) => void): Promise<void> {
  let header: string[] = [];
  const refused = new Set<number>();
  const parser = parse({
    bom: true, info: true, skip_empty_lines: true, skip_records_with_error: true,
    columns: (names: string[]) => (header = names.map((name) => name.trim())),
    on_skip: (error) => {
      // One entry per line, however many errors its parse met.
      const line = Number(error?.lines ?? 0);
      if (refused.has(line)) return;
      refused.add(line);
      into.skipped.push({ name: `Line ${line}`, url: "", reason: `The line does not parse as CSV: ${error?.message ?? "unknown error"}.` });
    },
  });
  let failure: unknown;
  parser.on("data", ({ record, info }: { record: Record<string, string>; info: { lines: number } }) => {
    // A reader's refusal (too many items) ends the reading once the parser is done with this slice.
    if (failure !== undefined) return;
    try {
      each({ line: info.lines, record });
    } catch (error) {
      failure = error;
    }
  });
  const ended = new Promise<void>((resolve, reject) => {
    parser.on("end", resolve);
    parser.on("error", reject);
  });
  for (let at = 0; at < text.length && failure === undefined; at += CSV_STEP_CHARS) {
    parser.write(text.slice(at, at + CSV_STEP_CHARS));
    await new Promise((resolve) => setImmediate(resolve));
  }
  parser.end();
  await ended;
  if (failure !== undefined) throw failure;
  for (const name of header) if (!known.includes(name) && !into.unknownFields.includes(name)) into.unknownFields.push(name);
}

/** A reader's start: the document under the service's dated collection. */
const start = (format: ImportFormat, now: number) => documentBuilder(format, `${FORMAT_NAMES[format]} ${dayOf(now)}`);

/** seconds reads a Unix time in seconds as milliseconds; null when it is not a positive number. */
function seconds(value: unknown): number | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const n = Number(value);
  return value !== "" && Number.isFinite(n) && n > 0 ? Math.round(n * 1000) : null;
}

/** isoTime reads an ISO 8601 time (or a Unix time in seconds) as milliseconds; null when unreadable. */
function isoTime(value: unknown): number | null {
  if (typeof value === "number") return value < 1e11 ? seconds(value) : value;
  if (typeof value !== "string" || value === "") return null;
  const millis = Date.parse(value);
  return Number.isNaN(millis) ? null : millis;
}

/** split cuts a list of tags or a path at `separator`, each part trimmed, none empty. */
const split = (value: string | undefined, separator: string | RegExp) =>
  (value ?? "").split(separator).map((part) => part.trim()).filter((part) => part !== "");

/** joined is the non-empty texts, a blank line between them. */
const joined = (...texts: (string | undefined | null)[]) => texts.map((text) => text?.trim() ?? "").filter((text) => text !== "").join("\n\n");

/** readPocket reads Pocket's CSV parts (one CSV, or each CSV of its zip, in order), each made when its turn comes. */
async function readPocket(parts: Iterable<string> | AsyncIterable<string>, now: number): Promise<ImportDocument> {
  const { document, add } = start("pocket", now);
  for await (const part of parts) {
    await readCsv(part, COLUMNS.pocket, document, ({ record }) => {
      const unreadDates: string[] = [];
      add({
        name: record.title ?? "", url: record.url ?? "", description: "", folders: [],
        tags: split(record.tags, "|"), archived: record.status === "archive", favorite: false,
        createdAt: dateField("time_added", record.time_added, seconds, unreadDates), unreadDates,
      });
    });
  }
  return document;
}

/** Pocket's older HTML export: links carrying `time_added`, which no browser's file has. */
const POCKET_HTML = /<a\s[^>]*\btime_added\s*=/i;
/** How much of the file is searched for POCKET_HTML (its first link comes right after a heading). */
const POCKET_HTML_PRESCAN = 64 * 1024;
/** The heading of the section of archived items in Pocket's HTML export (the other is "Unread"). */
const POCKET_ARCHIVE_HEADING = "read archive";

/**
 * readPocketHtml reads Pocket's older HTML export: `<h1>Unread</h1><ul><li><a href time_added
 * tags>title</a></li>...</ul><h1>Read Archive</h1><ul>...`. Each link is an item, `time_added`
 * its creation (seconds), `tags` comma-separated, those under "Read Archive" archived.
 */
async function readPocketHtml(html: string, now: number): Promise<ImportDocument> {
  const { document, add } = start("pocket", now);
  let heading: string | null = null;
  let archived = false;
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
        heading = null;
      } else if (name === "a" && link) {
        const { text, attributes } = link;
        link = null;
        const unreadDates: string[] = [];
        try {
          add({
            name: text.trim(), url: attributes.href!.trim(), description: "", folders: [], tags: split(attributes.tags, ","), archived, favorite: false,
            createdAt: dateField("time_added", attributes.time_added, seconds, unreadDates), unreadDates,
          });
        } catch (error) {
          failure ??= error;
        }
      }
    },
  }, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
  for (let at = 0; at < html.length && failure === undefined; at += CSV_STEP_CHARS) {
    parser.write(html.slice(at, at + CSV_STEP_CHARS));
    await new Promise((resolve) => setImmediate(resolve));
  }
  parser.end();
  if (failure !== undefined) throw failure;
  return document;
}

/** readRaindrop reads Raindrop.io's CSV export: folders are `/` paths, tags comma-separated, highlights kept as the page text. */
async function readRaindrop(text: string, now: number): Promise<ImportDocument> {
  const { document, add } = start("raindrop", now);
  await readCsv(text, COLUMNS.raindrop, document, ({ record }) => {
    const unreadDates: string[] = [];
    const item: SourceItem = {
      name: record.title ?? "", url: record.url ?? "", description: joined(record.note, record.excerpt),
      folders: [split(record.folder, "/")], tags: split(record.tags, ","), archived: false,
      favorite: record.favorite === "true", createdAt: dateField("created", record.created, isoTime, unreadDates), unreadDates,
    };
    if (record.highlights?.trim()) item.text = `${HIGHLIGHTS}\n\n${record.highlights.trim()}`;
    add(item);
  });
  return document;
}

/** Instapaper's own folders: the default one, and the two that are flags. */
const INSTAPAPER = { unread: "Unread", archive: "Archive", starred: "Starred" } as const;

/**
 * readInstapaper reads Instapaper's CSV export: `Archive` and `Starred` are flags, `Unread` the
 * import's collection, other folders collections; `Tags` (newer exports) a JSON list of names.
 */
async function readInstapaper(text: string, now: number): Promise<ImportDocument> {
  const { document, add } = start("instapaper", now);
  await readCsv(text, COLUMNS.instapaper, document, ({ record }) => {
    const folder = (record.Folder ?? "").trim();
    const own = folder === "" || Object.values(INSTAPAPER).includes(folder as never) ? [] : split(folder, "/");
    const unreadDates: string[] = [];
    add({
      name: record.Title ?? "", url: record.URL ?? "", description: record.Selection ?? "", folders: [own], tags: instapaperTags(record.Tags),
      archived: folder === INSTAPAPER.archive, favorite: folder === INSTAPAPER.starred,
      createdAt: dateField("Timestamp", record.Timestamp, seconds, unreadDates), unreadDates,
    });
  });
  return document;
}

/** instapaperTags reads Instapaper's `Tags` cell: a JSON list of names (`["coding"]`), or else names separated by commas. */
function instapaperTags(cell: string | undefined): string[] {
  const value = (cell ?? "").trim();
  if (value.startsWith("[")) {
    try {
      const list: unknown = JSON.parse(value);
      if (Array.isArray(list)) return list.map((tag) => (typeof tag === "string" ? tag : isObject(tag) ? text(tag.name) : "")).map((tag) => tag.trim()).filter((tag) => tag !== "");
    } catch {
      // Not JSON after all: read as a plain list.
    }
  }
  return split(value, ",");
}

/** readJson tells Pinboard's array, Karakeep's object and linkshelf's own export apart by their shape. */
function readJson(text: string, now: number): ImportDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BookmarkFileRefused("The file looks like JSON but does not parse.");
  }
  if (Array.isArray(value) && value.every((item) => isObject(item) && typeof item.href === "string")) return readPinboard(value, now);
  if (Array.isArray(value) && value.length > 0 && value.every(isOmnivoreItem)) return readOmnivore([value], () => undefined, now);
  if (isObject(value) && value.format === "linkshelf") return readLinkshelfJson(value);
  if (isObject(value) && Array.isArray(value.bookmarks)) return readKarakeep(value, now);
  if (isChromiumBookmarks(value)) return readChromiumBookmarks(value);
  if (isFirefoxBackup(value)) return readFirefoxBackup(value);
  throw new BookmarkFileRefused(
    "The JSON file is none of the exports linkshelf imports (Pinboard, Karakeep, Chromium's Bookmarks file, Firefox's bookmark backup, Omnivore's metadata, linkshelf).",
  );
}

/** isOmnivoreItem: an item of an Omnivore export's `metadata_*.json` (unzipped: the file alone, without the saved pages). */
function isOmnivoreItem(item: unknown): boolean {
  return isObject(item) && typeof item.url === "string" && typeof item.slug === "string" && "savedAt" in item;
}

/** isObject: a JSON object (not an array, not null). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** text is a JSON field as a string ("" when it is not one). */
const text = (value: unknown) => (typeof value === "string" ? value : "");

/** unknownKeys adds the keys of `item` beyond `known` to the document's unknown fields. */
function unknownKeys(document: ImportDocument, item: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(item)) if (!known.includes(key) && !document.unknownFields.includes(key)) document.unknownFields.push(key);
}

const PINBOARD_KEYS = ["href", "description", "extended", "meta", "hash", "time", "shared", "toread", "tags"] as const;

/** readPinboard reads Pinboard's JSON export: `description` is the title, `extended` the notes, tags space-separated. */
function readPinboard(items: Record<string, unknown>[], now: number): ImportDocument {
  const { document, add } = start("pinboard", now);
  for (const item of items) {
    unknownKeys(document, item, PINBOARD_KEYS);
    const unreadDates: string[] = [];
    add({
      name: text(item.description), url: text(item.href), description: text(item.extended), folders: [],
      tags: split(text(item.tags), /\s+/), archived: false, favorite: false, toRead: item.toread === "yes",
      createdAt: dateField("time", item.time, isoTime, unreadDates), unreadDates,
    });
  }
  return document;
}

const KARAKEEP_KEYS = ["createdAt", "title", "tags", "lists", "content", "note", "archived", "favourited"] as const;

/** readKarakeep reads Karakeep's JSON export: its lists (nested by `parentId`) are collections; text bookmarks are skipped. */
function readKarakeep(value: Record<string, unknown>, now: number): ImportDocument {
  const { document, folder, add } = start("karakeep", now);
  const lists = new Map<string, { name: string; icon: string; parentId: string | null }>();
  for (const list of Array.isArray(value.lists) ? value.lists : []) {
    if (isObject(list)) lists.set(String(list.id), { name: text(list.name), icon: text(list.icon), parentId: list.parentId == null ? null : String(list.parentId) });
  }
  // Each list is its own collection, even beside another of the same name: found by its id.
  const folderOf = (id: string) => {
    const path: { name: string; id: string }[] = [];
    for (let at: string | null = id, seen = new Set<string>(); at !== null && lists.has(at) && !seen.has(at); at = lists.get(at)!.parentId) {
      seen.add(at);
      path.unshift({ name: lists.get(at)!.name, id: at });
    }
    return folder(path.map((list) => list.name), path.map((list) => list.id));
  };
  // Every list is a collection, with its icon, even an empty one.
  for (const [id, list] of lists) {
    const made = folderOf(id);
    if (made && list.icon !== "") made.icon = list.icon;
  }
  for (const item of value.bookmarks as unknown[]) {
    if (!isObject(item)) continue;
    unknownKeys(document, item, KARAKEEP_KEYS);
    const content = isObject(item.content) ? item.content : {};
    if (content.type !== "link") {
      document.skipped.push({ name: text(item.title) || text(content.text).slice(0, 80), url: "", reason: "A text note of Karakeep's, not a link." });
      continue;
    }
    const tags = Array.isArray(item.tags) ? item.tags.map((tag) => (isObject(tag) ? text(tag.name) : text(tag))) : [];
    const memberOf = Array.isArray(item.lists) ? item.lists.filter((id) => lists.has(String(id))).map((id) => folderOf(String(id))!) : [];
    const unreadDates: string[] = [];
    add({
      name: text(item.title), url: text(content.url), description: text(item.note), folders: memberOf, tags: tags.filter((tag) => tag !== ""),
      archived: item.archived === true, favorite: item.favourited === true, createdAt: dateField("createdAt", item.createdAt, isoTime, unreadDates), unreadDates,
    });
  }
  return document;
}

/** An Omnivore export's list of items, wherever the zip puts it. */
const OMNIVORE_METADATA = /(^|\/)metadata_[^/]*\.json$/;
/** An Omnivore export's saved page or highlights of one item. */
const OMNIVORE_ITEM_FILE = /(^|\/)(content\/[^/]*\.html|highlights\/[^/]*\.md)$/;

/**
 * readZip reads a zip as Omnivore's export (`metadata_*.json`) or Pocket's (CSV parts), told
 * apart by the names in its directory. Only the files that export's reader uses are inflated,
 * within ZIP_LIMITS counted on what they give (`inflateEntries`). Pocket's parts are inflated
 * one at a time, in the order of their names, each when its turn comes.
 */
async function readZip(bytes: Uint8Array, now: number): Promise<ImportDocument> {
  const entries = zipDirectory(bytes).filter((entry) => !entry.name.endsWith("/"));
  const omnivore = entries.some((entry) => OMNIVORE_METADATA.test(entry.name));
  const wanted = entries.filter(({ name }) => (omnivore ? OMNIVORE_METADATA.test(name) || OMNIVORE_ITEM_FILE.test(name) : name.toLowerCase().endsWith(".csv")));
  if (wanted.length === 0) throw new BookmarkFileRefused("The zip file is none of the exports linkshelf imports (Pocket, Omnivore).");
  const utf8 = (data: Uint8Array | undefined) => new TextDecoder().decode(data);
  if (!omnivore) {
    const parts = wanted.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return readPocket((async function* () {
      for await (const [, data] of inflateEntries(bytes, parts)) yield utf8(data);
    })(), now);
  }
  const files = await unzipEntries(bytes, wanted);
  const names = [...files.keys()].sort();
  // Pages and highlights by their folder and file name, wherever the zip puts those folders.
  const byTail = new Map(names.map((name) => [name.split("/").slice(-2).join("/"), name]));
  return readOmnivore(names.filter((name) => OMNIVORE_METADATA.test(name)).map((name) => utf8(files.get(name))), (kind, slug) => {
    const name = byTail.get(`${kind}/${slug}.${kind === "content" ? "html" : "md"}`);
    return name === undefined ? undefined : utf8(files.get(name));
  }, now);
}

const OMNIVORE_KEYS = ["id", "slug", "title", "description", "author", "url", "state", "labels", "savedAt", "updatedAt", "publishedAt"] as const;

/**
 * readOmnivore reads Omnivore's export: the items of its metadata files, each with its saved
 * page (`content/<slug>.html`, read as text) and highlights (`highlights/<slug>.md`) as the
 * link's saved page text. Newsletters received by email have no URL and are skipped.
 */
function readOmnivore(metadata: (string | unknown[])[], file: (kind: "content" | "highlights", slug: string) => string | undefined, now: number): ImportDocument {
  const { document, add } = start("omnivore", now);
  for (const part of metadata) {
    let items: unknown = part;
    if (typeof part === "string") {
      try {
        items = JSON.parse(part);
      } catch {
        throw new BookmarkFileRefused("A metadata file of the Omnivore export does not parse as JSON.");
      }
    }
    for (const item of Array.isArray(items) ? items : []) {
      if (!isObject(item)) continue;
      unknownKeys(document, item, OMNIVORE_KEYS);
      const url = text(item.url);
      if (url.startsWith(OMNIVORE_NO_URL)) {
        document.skipped.push({ name: text(item.title), url, reason: "A newsletter Omnivore received by email: it has no web address." });
        continue;
      }
      const slug = text(item.slug);
      const page = slug === "" ? undefined : file("content", slug);
      const highlights = slug === "" ? undefined : file("highlights", slug)?.trim();
      const pageText = page === undefined ? "" : extractReadable(page)?.text ?? "";
      const saved = joined(pageText, highlights ? `${HIGHLIGHTS}\n\n${highlights}` : "");
      const labels = Array.isArray(item.labels) ? item.labels.map((label) => (isObject(label) ? text(label.name) : text(label))) : [];
      const unreadDates: string[] = [];
      const entry: SourceItem = {
        name: text(item.title), url, description: text(item.description), folders: [], tags: labels.filter((label) => label !== ""),
        // Omnivore's app writes `Archived`, its own exporter `archived`.
        archived: text(item.state).toLowerCase() === "archived", favorite: false,
        createdAt: dateField("savedAt", item.savedAt, isoTime, unreadDates), updatedAt: isoTime(item.updatedAt), unreadDates,
      };
      if (saved !== "") entry.text = saved;
      add(entry);
    }
  }
  return document;
}
