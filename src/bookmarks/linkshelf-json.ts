/**
 * linkshelf's own JSON export, the one that keeps everything: every link (name, URL,
 * description, favorite, to read, archived, clicks, last click, dates, with `withText` its saved page text, and
 * with `withCopies` its page copy),
 * the collection tree with each collection's order of links and sub-collections, icons and
 * visibility. Importing it into an empty linkshelf gives the same shelf back (its collections
 * PRIVATE unless the person keeps the public ones public).
 */
import { byPosition, type Placed } from "../shelf/order";
import type { CollectionRow } from "../db/schema";
import type { Membership } from "../shelf/collections";
import type { Shelf } from "../shelf/shelf";
import { copyHtml } from "../shelf/copies";
import { formatNumber } from "../common/format";
import type { ImportDocument } from "./document";
import { BookmarkFileRefused, IMPORT_LIMITS, type NetscapeBookmark, type NetscapeFolder } from "./netscape";

/** The shelf's tree as an export walks it: the Inbox's links, then the top-level collections, each with its items in order. */
export interface ShelfTree {
  inbox: Membership[];
  top: TreeCollection[];
}

/** A collection with its links and sub-collections, in the collection's order. */
export interface TreeCollection {
  row: CollectionRow;
  items: ({ kind: "link"; link: Membership } | { kind: "collection"; collection: TreeCollection })[];
}

/** shelfTree reads the owner's whole tree: two queries, however large. */
export function shelfTree(shelf: Shelf): ShelfTree {
  type Entry = Placed & { item: TreeCollection["items"][number] };
  const placed = new Map<number, Entry[]>();
  const place = (parentId: number, entry: Entry) => {
    const list = placed.get(parentId);
    if (list) list.push(entry);
    else placed.set(parentId, [entry]);
  };
  for (const link of shelf.collections.memberships()) place(link.collectionId, { kind: "link", id: link.id, position: link.position, item: { kind: "link", link } });
  const collections: TreeCollection[] = [];
  const top: TreeCollection[] = [];
  let inbox: number | null = null;
  for (const row of shelf.collections.rows()) {
    if (row.isDefault) {
      inbox = row.id;
      continue;
    }
    const collection: TreeCollection = { row, items: [] };
    collections.push(collection);
    if (row.parentId === null) top.push(collection);
    else place(row.parentId, { kind: "collection", id: row.id, position: row.position, item: { kind: "collection", collection } });
  }
  const inOrder = (id: number) => (placed.get(id) ?? []).sort(byPosition).map((entry) => entry.item);
  for (const collection of collections) collection.items = inOrder(collection.row.id);
  const inboxLinks = inbox === null ? [] : inOrder(inbox).flatMap((item) => (item.kind === "link" ? [item.link] : []));
  return { inbox: inboxLinks, top };
}

/** A link of the export, referred to by its place in `links`. */
interface JsonLink {
  name: string;
  url: string;
  description: string;
  favorite: boolean;
  /** On the reading list; a file written before the flags has none (read as false). */
  toRead?: boolean;
  /** Archived; a file written before the flags has none (read as false). */
  archived?: boolean;
  clicks: number;
  lastClickedAt: string | null;
  createdAt: string;
  updatedAt: string;
  text?: string;
  /** With --with-copies: the link's page copy, its HTML as it was stored. */
  copy?: { savedAt: string; html: string };
}

/** A collection of the export, its items in order: `{link: n}` or `{collection: {...}}`. */
interface JsonCollection {
  name: string;
  description: string | null;
  icon: string;
  visibility: CollectionRow["visibility"];
  createdAt: string;
  updatedAt: string;
  items: ({ link: number } | { collection: JsonCollection })[];
}

/** The whole file. */
export interface LinkshelfExport {
  format: "linkshelf";
  version: 1;
  exportedAt: string;
  links: JsonLink[];
  /** The Inbox's links, in its order. */
  inbox: number[];
  collections: JsonCollection[];
}

const iso = (millis: number) => new Date(millis).toISOString();

/** The export without its links' saved text and copies: the links in the file's order, their ids in the same order, and those with a copy. */
interface ExportParts {
  head: Pick<LinkshelfExport, "format" | "version" | "exportedAt">;
  links: JsonLink[];
  ids: number[];
  copied: Set<number>;
  inbox: number[];
  collections: JsonCollection[];
}

/** exportParts reads the owner's shelf (two queries) and lays it out as linkshelf JSON, without saved text or copies. */
function exportParts(shelf: Shelf, now: number): ExportParts {
  const tree = shelfTree(shelf);
  const links: JsonLink[] = [];
  const ids: number[] = [];
  const copied = new Set<number>();
  const index = new Map<number, number>();
  const ref = (link: Membership): number => {
    let at = index.get(link.id);
    if (at === undefined) {
      at = links.length;
      index.set(link.id, at);
      links.push({
        name: link.name, url: link.url, description: link.description, favorite: link.favorite, toRead: link.toRead, archived: link.archived, clicks: link.clicks,
        lastClickedAt: link.lastClickedAt === null ? null : iso(link.lastClickedAt), createdAt: iso(link.createdAt), updatedAt: iso(link.updatedAt),
      });
      ids.push(link.id);
      if (link.copySavedAt !== null) copied.add(link.id);
    }
    return at;
  };
  const collection = ({ row, items }: TreeCollection): JsonCollection => ({
    name: row.name, description: row.description, icon: row.icon, visibility: row.visibility, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt),
    items: items.map((item) => (item.kind === "link" ? { link: ref(item.link) } : { collection: collection(item.collection) })),
  });
  const inbox = tree.inbox.map(ref);
  const collections = tree.top.map(collection);
  return { head: { format: "linkshelf", version: 1, exportedAt: iso(now) }, links, ids, copied, inbox, collections };
}

/** What an export may add to each link: its saved page text, its page copy. */
interface ExportOptions {
  withText?: boolean;
  withCopies?: boolean;
}

/**
 * withExtras adds to a link's JSON what the options ask for and it has: its saved page text, its
 * page copy (each read as the export is written: a link deleted meanwhile has none).
 */
function withExtras(shelf: Shelf, parts: ExportParts, at: number, options: ExportOptions): JsonLink {
  const json = parts.links[at]!;
  const id = parts.ids[at]!;
  if (options.withText && shelf.links.contentSummary(id) !== null) json.text = shelf.links.content(id).text;
  const copy = options.withCopies && parts.copied.has(id) ? shelf.copies.find(id) : undefined;
  if (copy) json.copy = { savedAt: copy.savedAt, html: new TextDecoder().decode(copyHtml(copy)) };
  return json;
}

/** exportJson writes the owner's shelf as linkshelf JSON; `withText` adds each link's saved page text, `withCopies` its page copy. */
export function exportJson(shelf: Shelf, now: number, options: ExportOptions = {}): LinkshelfExport {
  const parts = exportParts(shelf, now);
  const links = parts.links.map((_, at) => withExtras(shelf, parts, at, options));
  return { ...parts.head, links, inbox: parts.inbox, collections: parts.collections };
}

/**
 * exportJsonText is `JSON.stringify(exportJson(...))`, the same bytes, a part at a time: the shelf
 * is read at once, first; each link's saved text is read as its part is pulled.
 */
export function* exportJsonText(shelf: Shelf, now: number, options: ExportOptions = {}): Generator<string> {
  const parts = exportParts(shelf, now);
  yield `${JSON.stringify(parts.head).slice(0, -1)},"links":[`;
  for (let at = 0; at < parts.links.length; at++) yield `${at === 0 ? "" : ","}${JSON.stringify(withExtras(shelf, parts, at, options))}`;
  yield `],"inbox":${JSON.stringify(parts.inbox)},"collections":${JSON.stringify(parts.collections)}}`;
}

/** refuse is the answer to a file that says it is linkshelf JSON but is not laid out as one. */
const refuse = (what: string) => new BookmarkFileRefused(`The linkshelf JSON file is damaged: ${what}.`);

/** time reads an ISO time of the file; null when absent or unreadable. */
function time(value: unknown): number | null {
  const millis = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isNaN(millis) ? null : millis;
}

/**
 * readLinkshelfJson reads linkshelf's JSON export as the planner takes it: the Inbox's links
 * outside any folder, each collection a folder at its place in the tree with its items in
 * order, and what a bookmark file cannot carry (visibility, clicks, saved text).
 */
export function readLinkshelfJson(value: Record<string, unknown>): ImportDocument {
  if (value.version !== 1) throw refuse("linkshelf reads version 1 of its export");
  const document: ImportDocument = { format: "linkshelf", unknownFields: [], skipped: [], folders: [], bookmarks: [] };
  const links = Array.isArray(value.links) ? (value.links as JsonLink[]) : [];
  if (links.length > IMPORT_LIMITS.bookmarks) {
    throw new BookmarkFileRefused(`The file holds more than ${formatNumber(IMPORT_LIMITS.bookmarks)} links, the most linkshelf imports from one file.`);
  }
  const entry = (at: unknown, folder: NetscapeFolder | null) => {
    const link = typeof at === "number" ? links[at] : undefined;
    if (typeof link !== "object" || link === null) throw refuse(`an item names link ${String(at)}, which it does not hold`);
    const bookmark: NetscapeBookmark = {
      name: String(link.name ?? ""), href: String(link.url ?? ""), description: String(link.description ?? ""),
      addDate: time(link.createdAt), lastModified: time(link.updatedAt), favorite: link.favorite === true,
      toRead: link.toRead === true, archived: link.archived === true, folder, foldersBefore: document.folders.length, clicks: Number(link.clicks) || 0, lastClickedAt: time(link.lastClickedAt),
    };
    if (typeof link.text === "string") bookmark.text = link.text;
    const copy = link.copy as Partial<NonNullable<JsonLink["copy"]>> | undefined;
    if (typeof copy === "object" && copy !== null && typeof copy.html === "string") bookmark.copy = { html: copy.html, savedAt: time(copy.savedAt) };
    document.bookmarks.push(bookmark);
  };
  const walk = (collection: JsonCollection, parent: NetscapeFolder | null) => {
    if (typeof collection !== "object" || collection === null || !Array.isArray(collection.items)) throw refuse("a collection has no list of items");
    const depth = parent === null ? 1 : parent.depth + 1;
    if (depth > IMPORT_LIMITS.depth) throw new BookmarkFileRefused(`The file nests collections more than ${IMPORT_LIMITS.depth} deep, deeper than linkshelf imports.`);
    if (document.folders.length === IMPORT_LIMITS.folders) {
      throw new BookmarkFileRefused(`The file holds more than ${formatNumber(IMPORT_LIMITS.folders)} collections, the most linkshelf imports from one file.`);
    }
    const folder: NetscapeFolder = {
      name: String(collection.name ?? ""), description: String(collection.description ?? ""), addDate: time(collection.createdAt),
      lastModified: time(collection.updatedAt), icon: typeof collection.icon === "string" ? collection.icon : null,
      public: collection.visibility === "PUBLIC", parent, depth,
    };
    document.folders.push(folder);
    for (const item of collection.items) {
      if ("collection" in item) walk(item.collection, folder);
      else entry(item.link, folder);
    }
  };
  for (const at of Array.isArray(value.inbox) ? value.inbox : []) entry(at, null);
  for (const collection of Array.isArray(value.collections) ? (value.collections as JsonCollection[]) : []) walk(collection, null);
  return document;
}
