/**
 * The Netscape bookmark file (`<!DOCTYPE NETSCAPE-Bookmark-file-1>`), the format every browser
 * and bookmark service imports and exports: folders are `<DT><H3>name</H3>` followed by a
 * `<DL><p>` of their children, bookmarks are `<DT><A HREF=...>name</A>`, and a `<DD>` after
 * either carries its description. `<DT>`, `<DD>` and `<p>` are never closed, so the file is
 * read with htmlparser2, which applies HTML's implied end tags and decodes entities, and
 * walked as a stream of open/close/text events the way Firefox's own importer walks its DOM.
 * No regular expression reads the HTML.
 */
import { Parser } from "htmlparser2";
import { AppError } from "../common/errors";
import { formatNumber } from "../common/format";

export interface NetscapeFolder {
  /** The heading's text, trimmed (may be empty). */
  name: string;
  /** The text of a `<DD>` right after the heading, trimmed ("" when none). */
  description: string;
  /** ADD_DATE in milliseconds, null when absent or unreadable. */
  addDate: number | null;
  /** LAST_MODIFIED in milliseconds, null when absent or unreadable. */
  lastModified: number | null;
  /** LINKSHELF_ICON, as linkshelf's export writes it (unchecked); null when absent. */
  icon: string | null;
  /** The browser's toolbar folder (PERSONAL_TOOLBAR_FOLDER; Chromium's "Bookmarks bar", Firefox's "Bookmarks Toolbar"). */
  toolbar?: boolean;
  /** The collection was PUBLIC where it came from (linkshelf JSON); kept so only when the person asks. */
  public?: boolean;
  parent: NetscapeFolder | null;
  /** 1 for a folder outside any folder, its parent's depth + 1 inside one. */
  depth: number;
}

export interface NetscapeBookmark {
  /** The link text, trimmed (may be empty). */
  name: string;
  /** The HREF attribute, trimmed ("" when missing). */
  href: string;
  description: string;
  addDate: number | null;
  lastModified: number | null;
  /** LINKSHELF_FAVORITE="true", as linkshelf's export writes it. */
  favorite: boolean;
  /** TAGS="a,b" (linkding, Pinboard; Pocket's old export writes `tags=`), each trimmed, none empty. */
  tags?: string[];
  /** TOREAD="1" (linkding, Pinboard, linkshelf's export): the link is to read. */
  toRead?: boolean;
  /** Archived (LINKSHELF_ARCHIVED="true" of linkshelf's export, a service's archive, linkding's archived tag, linkshelf JSON). */
  archived?: boolean;
  /** The saved page text that comes with it (Omnivore's saved page, highlights; linkshelf JSON). */
  text?: string;
  /** The entry of the same item met first, when this is one more of its places (a tag's collection, the Archive...): it is counted once. */
  first?: NetscapeBookmark;
  /** Dates the file gives that cannot be read, each as the report lists it (`ADD_DATE "x"`). */
  unreadDates?: string[];
  /** The page copy that comes with it (linkshelf JSON written with --with-copies): its HTML and when it was kept. */
  copy?: { html: string; savedAt: number | null };
  /** Clicks and the last one, from linkshelf JSON. */
  clicks?: number;
  lastClickedAt?: number | null;
  /** The folder it is in; null outside any folder. */
  folder: NetscapeFolder | null;
  /** How many folders the file opens before it: its place among the folders, in the file's order. */
  foldersBefore: number;
}

export interface NetscapeDocument {
  /** Every folder in document order (parents before their children). */
  folders: NetscapeFolder[];
  /** Every `<A>` inside a `<DL>`, in document order. */
  bookmarks: NetscapeBookmark[];
  /** Attributes of its `<A>` and `<H3>` that linkshelf neither reads nor leaves out on purpose (SHORTCUTURL...), as the file spells them. */
  unknownAttributes?: string[];
}

/** The attributes of an `<A>` or an `<H3>` the reader reads. */
const READ_ATTRIBUTES = new Set(["href", "add_date", "last_modified", "tags", "toread", "linkshelf_archived", "linkshelf_favorite", "linkshelf_icon", "personal_toolbar_folder"]);
/**
 * The attributes left out on purpose, not listed: a browser's icons and visits, the encoding
 * hint, linkding's and Pinboard's PRIVATE (every import is private), Firefox's mark of its
 * "Other Bookmarks" folder (a folder like any other).
 */
const IGNORED_ATTRIBUTES = new Set(["icon", "icon_uri", "last_visit", "last_charset", "private", "unfiled_bookmarks_folder"]);

/** The names browsers give their toolbar folder: a top-level collection of one of these is exported as the toolbar folder. */
export const TOOLBAR_NAMES = ["Bookmarks bar", "Bookmarks Toolbar", "Favorites bar"] as const;

/**
 * What one file may hold. A browser's export of a large collection stays far below these; a
 * hostile file of millions of nested folders is refused as soon as it crosses one, before the
 * rest of it is read, so neither its parse nor its import can exhaust the server.
 */
export const IMPORT_LIMITS = {
  /** Folders inside folders, counting every level from the top. */
  depth: 64,
  folders: 10_000,
  /** Every `<A>` inside a `<DL>`, whether it will be imported, skipped or found a duplicate. */
  bookmarks: 100_000,
} as const;

/** The file is beyond IMPORT_LIMITS: nothing of it is stored. */
export class BookmarkFileRefused extends AppError {
  constructor(message: string) {
    super(422, "IMPORT_REFUSED", `${message} Nothing was stored.`);
  }
}


const HEADINGS = new Set(["h2", "h3", "h4", "h5", "h6"]);
/** Tags after which a `<DD>`'s text is over: it is never closed explicitly. */
const ENDS_DESCRIPTION = new Set(["dt", "dd", "dl", "a", "h1", "h2", "h3", "h4", "h5", "h6", "hr"]);

interface Frame {
  folder: NetscapeFolder | null;
  /** `<DL>`s opened and not yet closed while this frame was current. */
  openLists: number;
}

type Capture =
  | { kind: "heading"; text: string; attributes: Record<string, string> }
  | { kind: "link"; text: string; attributes: Record<string, string> }
  | { kind: "description"; text: string; target: NetscapeFolder | NetscapeBookmark };

/**
 * parseNetscape reads a bookmark file's folders and bookmarks; it never throws on malformed
 * HTML, only BookmarkFileRefused for a file beyond IMPORT_LIMITS.
 */
export function parseNetscape(html: string): NetscapeDocument {
  const reader = netscapeReader();
  reader.write(html);
  return reader.end();
}

/** Characters given to the parser at once by parseNetscapeInSteps. */
export const STEP_CHARS = 256 * 1024;

/**
 * parseNetscapeInSteps is parseNetscape for a server: it reads the file a slice at a time and
 * lets the event loop run between slices, so other requests are answered while a large file
 * is read.
 */
export async function parseNetscapeInSteps(html: string): Promise<NetscapeDocument> {
  const reader = netscapeReader();
  for (let at = 0; at < html.length; at += STEP_CHARS) {
    reader.write(html.slice(at, at + STEP_CHARS));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return reader.end();
}

/**
 * netscapeReader is the parser behind parseNetscape, fed in pieces (`write`) and finished with
 * `end`. It throws BookmarkFileRefused from the `write` that crosses a limit, having kept only
 * what came before.
 */
function netscapeReader(): { write(chunk: string): void; end(): NetscapeDocument } {
  const folders: NetscapeFolder[] = [];
  const bookmarks: NetscapeBookmark[] = [];
  const frames: Frame[] = [{ folder: null, openLists: 0 }];
  let openLists = 0;
  let capture: Capture | null = null;
  let lastItem: NetscapeFolder | NetscapeBookmark | null = null;
  const top = () => frames[frames.length - 1]!;
  const unknownAttributes: string[] = [];
  /** noteAttributes lists the attributes of a tag beyond those read or left out on purpose, in the file's spelling (upper case). */
  const noteAttributes = (attributes: Record<string, string>) => {
    for (const name of Object.keys(attributes)) {
      if (READ_ATTRIBUTES.has(name) || IGNORED_ATTRIBUTES.has(name)) continue;
      const spelled = name.toUpperCase();
      if (!unknownAttributes.includes(spelled)) unknownAttributes.push(spelled);
    }
  };

  const finishDescription = () => {
    if (capture?.kind !== "description") return;
    capture.target.description = withNotes(capture.text);
    capture = null;
  };
  const finishLink = () => {
    if (capture?.kind !== "link") return;
    const { text, attributes } = capture;
    const unread: string[] = [];
    const bookmark: NetscapeBookmark = {
      name: text.trim(),
      href: (attributes.href ?? "").trim(),
      description: "",
      addDate: dateAttribute(attributes, "add_date", unread),
      // Only the creation date is listed when unreadable: the import's own time takes its place (a change date is then the creation's).
      lastModified: readDate(attributes.last_modified),
      favorite: attributes.linkshelf_favorite === "true",
      tags: (attributes.tags ?? "").split(",").map((tag) => tag.trim()).filter((tag) => tag !== ""),
      toRead: attributes.toread === "1",
      archived: attributes.linkshelf_archived === "true",
      folder: top().folder,
      foldersBefore: folders.length,
    };
    if (unread.length > 0) bookmark.unreadDates = unread;
    noteAttributes(attributes);
    if (bookmarks.length === IMPORT_LIMITS.bookmarks) {
      throw new BookmarkFileRefused(`The file holds more than ${formatNumber(IMPORT_LIMITS.bookmarks)} bookmarks, the most linkshelf imports from one file. Split it into smaller files.`);
    }
    bookmarks.push(bookmark);
    lastItem = bookmark;
    capture = null;
  };

  const parser = new Parser({
    onopentag(name, attributes) {
      if (ENDS_DESCRIPTION.has(name)) finishDescription();
      if (name === "a" || HEADINGS.has(name)) finishLink();
      if (HEADINGS.has(name)) {
        // A heading right after another one, before any <DL>: the first folder was empty (Firefox reads it so too).
        if (top().folder !== null && top().openLists === 0) frames.pop();
        capture = { kind: "heading", text: "", attributes };
      } else if (name === "a") {
        // Links outside every <DL> are a page's navigation, not bookmarks.
        if (openLists > 0) capture = { kind: "link", text: "", attributes };
      } else if (name === "dl") {
        // The top list, then one per folder: lists nested deeper than that many are refused as deep folders.
        if (openLists > IMPORT_LIMITS.depth) throw tooDeep();
        top().openLists++;
        openLists++;
      } else if (name === "dd") {
        if (lastItem) capture = { kind: "description", text: "", target: lastItem };
      } else if (name === "hr" || name === "h1") {
        lastItem = null;
      }
    },
    ontext(text) {
      if (capture) capture.text += text;
    },
    onclosetag(name) {
      if (name === "a") {
        finishLink();
      } else if (HEADINGS.has(name) && capture?.kind === "heading") {
        const { text, attributes } = capture;
        const parent = top().folder;
        const depth = parent === null ? 1 : parent.depth + 1;
        if (depth > IMPORT_LIMITS.depth) throw tooDeep();
        if (folders.length === IMPORT_LIMITS.folders) {
          throw new BookmarkFileRefused(`The file holds more than ${formatNumber(IMPORT_LIMITS.folders)} folders, the most linkshelf imports from one file. Split it into smaller files.`);
        }
        const folder: NetscapeFolder = {
          name: text.trim(),
          description: "",
          addDate: readDate(attributes.add_date),
          lastModified: readDate(attributes.last_modified),
          icon: attributes.linkshelf_icon ?? null,
          parent,
          depth,
        };
        if (attributes.personal_toolbar_folder?.toLowerCase() === "true") folder.toolbar = true;
        noteAttributes(attributes);
        folders.push(folder);
        frames.push({ folder, openLists: 0 });
        lastItem = folder;
        capture = null;
      } else if (name === "dd") {
        finishDescription();
      } else if (name === "dl") {
        finishDescription();
        finishLink();
        if (openLists === 0) return;
        openLists--;
        const frame = top();
        if (frame.openLists > 0) frame.openLists--;
        if (frame.folder !== null && frame.openLists === 0) frames.pop();
        lastItem = null;
      }
    },
  }, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
  return {
    write: (chunk) => parser.write(chunk),
    end: () => {
      parser.end();
      return unknownAttributes.length > 0 ? { folders, bookmarks, unknownAttributes } : { folders, bookmarks };
    },
  };
}

/** linkding writes a bookmark's notes into its `<DD>` after the description, between these markers. */
const NOTES = { open: "[linkding-notes]", close: "[/linkding-notes]" } as const;

/** withNotes is a `<DD>`'s text, trimmed, with linkding's notes set off from the description by a blank line. */
function withNotes(text: string): string {
  const start = text.indexOf(NOTES.open);
  if (start < 0) return text.trim();
  const end = text.indexOf(NOTES.close, start);
  const notes = text.slice(start + NOTES.open.length, end < 0 ? undefined : end).trim();
  return [text.slice(0, start).trim(), notes].filter((part) => part !== "").join("\n\n");
}

const tooDeep = () =>
  new BookmarkFileRefused(`The file nests folders more than ${IMPORT_LIMITS.depth} deep, deeper than linkshelf imports. Move the deepest folders up, or split the file.`);

/**
 * readDate reads ADD_DATE or LAST_MODIFIED, which are seconds since the epoch; some tools
 * write milliseconds or microseconds, told apart by size (seconds stay below 10^11 until the
 * year 5138). Anything that is not a plain positive integer is null.
 */
function readDate(value: string | undefined): number | null {
  if (value === undefined) return null;
  const digits = value.trim();
  if (digits === "" || digits.length > 19 || ![...digits].every((c) => c >= "0" && c <= "9")) return null;
  const n = Number(digits);
  if (n <= 0) return null;
  if (n < 1e11) return n * 1000;
  if (n < 1e14) return n;
  return Math.floor(n / 1000);
}

/**
 * dateAttribute reads a date attribute (readDate); a value that is there but cannot be read is
 * added to `unread` as the report lists it (`ADD_DATE "invaliddate"`). An empty value or 0 is no date.
 */
function dateAttribute(attributes: Record<string, string>, name: string, unread: string[]): number | null {
  const value = attributes[name];
  const date = readDate(value);
  if (date === null && value !== undefined && !/^\s*0*\s*$/.test(value)) unread.push(`${name.toUpperCase()} "${value.trim()}"`);
  return date;
}

/** How much of the file is searched for the `<META>` that declares its encoding (HTML's prescan reads 1024 bytes). */
const PRESCAN_BYTES = 4096;

/**
 * decodeBookmarkFile turns a file's bytes into text: a byte order mark wins, then the
 * charset its `<META>` declares (old exports say windows-1252 or ISO-8859-1), then UTF-8 when
 * the bytes are valid UTF-8, and windows-1252 otherwise (what browsers assume for such files).
 * An unknown charset label is treated as undeclared.
 */
export function decodeBookmarkFile(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder("utf-8").decode(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  const declared = declaredCharset(bytes.subarray(0, PRESCAN_BYTES));
  if (declared) return declared.decode(bytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/** declaredCharset finds `<meta charset>` or `<meta http-equiv content="...; charset=X">` in the head of a file. */
function declaredCharset(head: Uint8Array): TextDecoder | null {
  // Every charset a META can name is ASCII-compatible, so windows-1252 reads the tags right.
  const text = new TextDecoder("windows-1252").decode(head);
  let label: string | null = null;
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name !== "meta" || label !== null) return;
      label = attributes.charset ?? charsetParameter(attributes.content ?? "");
    },
  }, { lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.end(text);
  if (label === null) return null;
  try {
    const decoder = new TextDecoder(label);
    // HTML ignores a META that claims UTF-16: the META itself was just read as ASCII.
    return decoder.encoding.startsWith("utf-16") ? new TextDecoder("utf-8") : decoder;
  } catch {
    return null;
  }
}

/** charsetParameter reads `charset=X` out of a Content-Type value such as `text/html; charset=UTF-8`. */
function charsetParameter(contentType: string): string | null {
  for (const part of contentType.split(";")) {
    const [key, value] = part.split("=", 2);
    if (key?.trim().toLowerCase() === "charset" && value) return value.trim().replace(/^["']|["']$/g, "");
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Writing

export interface RenderBookmark {
  kind: "link";
  name: string;
  url: string;
  description: string;
  /** Milliseconds. */
  addDate: number;
  lastModified: number;
  favorite: boolean;
  /** Written as linkding's TOREAD="1" (linkding and linkshelf read it). */
  toRead?: boolean;
  /** Written as LINKSHELF_ARCHIVED="true" (linkshelf reads it; browsers ignore it). */
  archived?: boolean;
}

export interface RenderFolder {
  kind: "folder";
  name: string;
  description: string | null;
  icon: string;
  addDate: number;
  lastModified: number;
  /** Written as the browser's toolbar folder (PERSONAL_TOOLBAR_FOLDER="true"). */
  toolbar?: boolean;
  /** Its bookmarks and folders, in their order. */
  items: RenderItem[];
}

/** A bookmark or a folder, as renderNetscape writes it. */
export type RenderItem = RenderBookmark | RenderFolder;

/**
 * renderNetscape writes a bookmark file laid out exactly as Chromium writes one (uppercase
 * tags, one item per line, `<DL><p>` / `</DL><p>` lines, dates in seconds), because
 * Chromium's importer reads it line by line rather than as HTML; Firefox parses it as HTML.
 * `<DD>` lines carry descriptions (Chromium skips them). The items outside any folder come
 * first, as given; each folder's bookmarks and folders follow in their order. What only
 * linkshelf knows travels in attributes browsers ignore: LINKSHELF_ICON on a folder,
 * LINKSHELF_FAVORITE on a favorite, LINKSHELF_ARCHIVED on an archived link, and linkding's TOREAD="1"
 * on a link to read. Chromium's reader finds attributes by substring: LINKSHELF_FAVORITE,
 * LINKSHELF_ARCHIVED and TOREAD contain none of the names it seeks on an <A> (HREF, ICON, ADD_DATE,
 * SHORTCUTURL, POST_DATA, FEEDURL), and on an <H3> it seeks only ADD_DATE and PERSONAL_TOOLBAR_FOLDER.
 */
export function renderNetscape(items: readonly RenderItem[]): string {
  return [...netscapeLines(items)].join("");
}

/** netscapeLines is renderNetscape's text a line at a time (each ending in a line break), written as it is pulled. */
export function* netscapeLines(items: readonly RenderItem[]): Generator<string> {
  yield [
    "<!DOCTYPE NETSCAPE-Bookmark-file-1>",
    "<!-- This is an automatically generated file.",
    "     It will be read and overwritten.",
    "     DO NOT EDIT! -->",
    '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">',
    "<TITLE>Bookmarks</TITLE>",
    "<H1>Bookmarks</H1>",
    "<DL><p>",
  ].join("\n") + "\n";
  function* write(item: RenderItem, indent: string): Generator<string> {
    const dates = `ADD_DATE="${seconds(item.addDate)}" LAST_MODIFIED="${seconds(item.lastModified)}"`;
    if (item.kind === "link") {
      const favorite = item.favorite ? ' LINKSHELF_FAVORITE="true"' : "";
      const flags = (item.toRead ? ' TOREAD="1"' : "") + (item.archived ? ' LINKSHELF_ARCHIVED="true"' : "");
      yield `${indent}<DT><A HREF="${escapeHtml(item.url)}" ${dates}${favorite}${flags}>${escapeHtml(item.name)}</A>\n`;
      if (item.description !== "") yield `${indent}<DD>${escapeHtml(item.description)}\n`;
      return;
    }
    const toolbar = item.toolbar ? ' PERSONAL_TOOLBAR_FOLDER="true"' : "";
    yield `${indent}<DT><H3 ${dates}${toolbar} LINKSHELF_ICON="${escapeHtml(item.icon)}">${escapeHtml(item.name)}</H3>\n`;
    if (item.description) yield `${indent}<DD>${escapeHtml(item.description)}\n`;
    yield `${indent}<DL><p>\n`;
    for (const inner of item.items) yield* write(inner, `${indent}    `);
    yield `${indent}</DL><p>\n`;
  }
  for (const item of items) yield* write(item, "    ");
  yield "</DL><p>\n";
}

const seconds = (millis: number) => Math.floor(millis / 1000);

/** The five references Chromium's importer decodes (`base::UnescapeForHTML`); every HTML parser knows them too. */
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const NEEDS_ESCAPE = /[&<>"'\u0000-\u001f\u007f]/g;

/**
 * escapeHtml makes text safe inside an element or a double-quoted attribute. C0 control
 * characters (a line break in a name would split Chromium's line-based reading) become
 * numeric references, which HTML parsers decode back to the same character.
 */
export function escapeHtml(text: string): string {
  return text.replace(NEEDS_ESCAPE, (char) => ESCAPES[char] ?? `&#${char.charCodeAt(0)};`);
}
