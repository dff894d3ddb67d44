/**
 * What every reader of an import file shares: the file as the readers look at it (`ImportInput`:
 * its bytes, a zip's directory, its text, a CSV's header, its JSON, each worked out once and only
 * when asked), the CSV reading, the dated collection a service's file goes into, and the small
 * readers of dates, lists and JSON fields.
 */
import { parse } from "csv-parse";
import { formatNumber } from "../../common/format";
import { dayOf, documentBuilder, fromNetscape, type ImportDocument, type ImportFormat } from "../document";
import { BookmarkFileRefused, decodeBookmarkFile, IMPORT_LIMITS, type NetscapeBookmark, type NetscapeDocument, type NetscapeFolder } from "../netscape";
import { zipDirectory, type ZipEntry } from "../zip";

/** Characters given to a parser at once; the event loop runs between them. */
export const STEP_CHARS = 256 * 1024;

/** A heading the saved page text's highlights follow. */
export const HIGHLIGHTS = "Highlights";

/** What a format's reader is given besides the file: the time, and the name of the collection a service's file goes into (`Pocket 2026-11-27`). */
export interface ReadContext {
  now: number;
  collection: string;
}

/**
 * ImportInput is an uploaded file as the formats' sniffs and readers look at it, recognised by
 * its content, never its name. Each view is worked out once, when first asked for: a zip's
 * directory is read only for a zip, the text decoded only for a file that is not one.
 */
export class ImportInput {
  #entries: ZipEntry[] | undefined;
  #text: string | undefined;
  #start: string | undefined;
  #json: { value: unknown } | undefined;

  constructor(readonly bytes: Uint8Array) {}

  /** startsWith: the file's first bytes are these. */
  startsWith(magic: readonly number[]): boolean {
    return magic.every((byte, at) => this.bytes[at] === byte);
  }

  /** A zip file (its first local header: `PK\x03\x04`). */
  get isZip(): boolean {
    return this.startsWith([0x50, 0x4b, 0x03, 0x04]);
  }

  /** The zip's files (not its folders), from its directory; refused (BookmarkFileRefused) when damaged or beyond ZIP_LIMITS. */
  get zipEntries(): ZipEntry[] {
    return (this.#entries ??= zipDirectory(this.bytes).filter((entry) => !entry.name.endsWith("/")));
  }

  /** The file as text (decodeBookmarkFile: a byte order mark, a declared charset, UTF-8, else windows-1252). */
  get text(): string {
    return (this.#text ??= decodeBookmarkFile(this.bytes));
  }

  /** The text from its first character that is not a byte order mark or white space. */
  get start(): string {
    return (this.#start ??= this.text.replace(/^\uFEFF/, "").trimStart());
  }

  /** The first line in lower case: a CSV's header. */
  get header(): string {
    const start = this.start;
    return start.slice(0, start.search(/\r?\n|$/)).toLowerCase();
  }

  /** The file starts like JSON (`{` or `[`). */
  get looksJson(): boolean {
    return !this.isZip && /^[[{]/.test(this.start);
  }

  /** The file's JSON value; refused when it starts like JSON but does not parse. */
  get json(): unknown {
    if (!this.#json) {
      try {
        this.#json = { value: JSON.parse(this.start) };
      } catch {
        throw new BookmarkFileRefused("The file looks like JSON but does not parse.");
      }
    }
    return this.#json.value;
  }

  /** hasColumn: the CSV header names this column (any case, quoted or not). */
  hasColumn(name: string): boolean {
    return !this.isZip && !this.looksJson && new RegExp(`(^|,)"?${name}"?(,|$)`).test(this.header);
  }
}

/** start is a service's reader's start: the document under the service's dated collection. */
export const start = (format: ImportFormat, context: ReadContext) => documentBuilder(format, context.collection);

/** collectionName is the collection a service's file goes into: its name and the day (`Pocket 2026-11-27`). */
export const collectionName = (name: string, now: number) => `${name} ${dayOf(now)}`;

/** A row of a CSV file by its header's names, with the line it starts on. */
export interface CsvRow {
  line: number;
  record: Record<string, string>;
}

/**
 * readCsv reads CSV text by its header, a slice at a time with the event loop running between
 * slices, giving each row to `each` as it is parsed (none are gathered: a file of 100,000 rows
 * is never held twice). Rows that do not parse are left out and listed in `skipped` by their
 * line; columns beyond `known` are listed in `unknown`.
 */
export async function readCsv(text: string, known: readonly string[], into: ImportDocument, each: (row: CsvRow) => void): Promise<void> {
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
  for (let at = 0; at < text.length && failure === undefined; at += STEP_CHARS) {
    parser.write(text.slice(at, at + STEP_CHARS));
    await new Promise((resolve) => setImmediate(resolve));
  }
  parser.end();
  await ended;
  if (failure !== undefined) throw failure;
  for (const name of header) if (!known.includes(name) && !into.unknownFields.includes(name)) into.unknownFields.push(name);
}

/** seconds reads a Unix time in seconds as milliseconds; null when it is not a positive number. */
export function seconds(value: unknown): number | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const n = Number(value);
  return value !== "" && Number.isFinite(n) && n > 0 ? Math.round(n * 1000) : null;
}

/** isoTime reads an ISO 8601 time (or a Unix time in seconds) as milliseconds; null when unreadable. */
export function isoTime(value: unknown): number | null {
  if (typeof value === "number") return value < 1e11 ? seconds(value) : value;
  if (typeof value !== "string" || value === "") return null;
  const millis = Date.parse(value);
  return Number.isNaN(millis) ? null : millis;
}

/** split cuts a list of tags or a path at `separator`, each part trimmed, none empty. */
export const split = (value: string | undefined, separator: string | RegExp) =>
  (value ?? "").split(separator).map((part) => part.trim()).filter((part) => part !== "");

/** joined is the non-empty texts, a blank line between them. */
export const joined = (...texts: (string | undefined | null)[]) => texts.map((text) => text?.trim() ?? "").filter((text) => text !== "").join("\n\n");

/** isObject: a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** text is a JSON field as a string ("" when it is not one). */
export const text = (value: unknown) => (typeof value === "string" ? value : "");

/** unknownKeys adds the keys of `item` beyond `known` to the document's unknown fields. */
export function unknownKeys(document: ImportDocument, item: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(item)) if (!known.includes(key) && !document.unknownFields.includes(key)) document.unknownFields.push(key);
}


/** browserTree is a browser's JSON file read as a bookmark file's tree (as the HTML reader gives it), built in the file's order within IMPORT_LIMITS. */
export function browserTree() {
  const document: NetscapeDocument = { folders: [], bookmarks: [], unknownAttributes: [] };
  const unknown = (key: string) => {
    if (!document.unknownAttributes!.includes(key)) document.unknownAttributes!.push(key);
  };
  const folder = (name: string, parent: NetscapeFolder | null, dates: { addDate: number | null; lastModified: number | null }): NetscapeFolder => {
    const depth = parent === null ? 1 : parent.depth + 1;
    if (depth > IMPORT_LIMITS.depth) throw new BookmarkFileRefused(`The file nests folders more than ${IMPORT_LIMITS.depth} deep, deeper than linkshelf imports.`);
    if (document.folders.length === IMPORT_LIMITS.folders) {
      throw new BookmarkFileRefused(`The file holds more than ${formatNumber(IMPORT_LIMITS.folders)} folders, the most linkshelf imports from one file. Split it into smaller files.`);
    }
    const made: NetscapeFolder = { name, description: "", ...dates, icon: null, parent, depth };
    document.folders.push(made);
    return made;
  };
  const bookmark = (entry: Omit<NetscapeBookmark, "foldersBefore" | "favorite">) => {
    if (document.bookmarks.length === IMPORT_LIMITS.bookmarks) {
      throw new BookmarkFileRefused(`The file holds more than ${formatNumber(IMPORT_LIMITS.bookmarks)} bookmarks, the most linkshelf imports from one file. Split it into smaller files.`);
    }
    document.bookmarks.push({ ...entry, favorite: false, foldersBefore: document.folders.length });
  };
  const done = (format: ImportFormat): ImportDocument => {
    if (document.unknownAttributes!.length === 0) delete document.unknownAttributes;
    return fromNetscape(document, format);
  };
  return { folder, bookmark, unknown, done };
}

/** microseconds reads a count of microseconds (a number or a string of digits) after `epochMs` as milliseconds since 1970; null when it is none. */
export function microseconds(value: unknown, epochMs: number): number | null {
  if (typeof value !== "number" && !(typeof value === "string" && /^\s*\d+\s*$/.test(value))) return null;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) return null;
  const millis = Math.floor(n / 1000) - epochMs;
  return millis > 0 ? millis : null;
}

/** microsecondsField reads one node's date field; a value that is there but cannot be read is added to `unread`. */
export function microsecondsField(node: Record<string, unknown>, key: string, epochMs: number, unread?: string[]): number | null {
  const millis = microseconds(node[key], epochMs);
  if (millis === null && unread && node[key] !== undefined && node[key] !== null && String(node[key]).trim() !== "" && Number(node[key]) !== 0) {
    unread.push(`${key} "${String(node[key])}"`);
  }
  return millis;
}

