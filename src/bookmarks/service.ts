/**
 * Import and export of Netscape bookmark files: folders are collections, bookmarks are links.
 * An import never publishes anything: it creates only private collections and adds only to
 * private ones (see placements), and its report lists every collection it puts links in.
 * The user's shelf writes what an import decides (`shelf.imports.write`), with the rules behind
 * the API, in short transactions, all or nothing.
 */
import { COLLECTION_LIMITS, IMPORT_CHUNK, LINK_LIMITS } from "../shelf/limits";
import type { CollectionRow } from "../db/schema";
import { cleanName, codePoints, isHttpUrl, MAX_URL_LENGTH, Rules } from "../rules";
import { formatNumber } from "../format";
import type { ImportedCollection, ImportedLink, ImportSource } from "../shelf/types";
import type { Shelf } from "../shelf/shelf";
import { parseNetscape, renderNetscape, type NetscapeBookmark, type NetscapeDocument, type NetscapeFolder, type RenderBookmark, type RenderFolder } from "./netscape";

export interface ImportReport {
  linksCreated: number;
  /** Names of the collections the import created, in the order of the file. */
  collectionsCreated: string[];
  /** Entries whose URL the user had already, or that repeat an entry of the file in the same collection. */
  duplicates: { name: string; url: string }[];
  /** Entries linkshelf cannot store (no URL, not http(s), too long...), with the reason. */
  skipped: { name: string; url: string; reason: string }[];
  /**
   * Every collection the import puts links in or creates, the Inbox's stand-in first, then in
   * the order of the file: the preview, the report and `--dry-run` list these.
   */
  destinations: ImportDestination[];
}

/** A collection an import puts links in, or creates empty. */
export interface ImportDestination {
  name: string;
  /** True when the import creates it; false when it adds to a collection the user has. */
  isNew: boolean;
  /** Always PRIVATE: an import creates only private collections and adds only to private ones. */
  visibility: CollectionRow["visibility"];
  /** Links the import puts in it (a link in two folders counts in both). */
  links: number;
  /** The user's PUBLIC collection the folder is named like, which the import leaves alone; null when none. */
  insteadOf: string | null;
}

/** Where a confirmed import comes from, for its record (the import page, or the CLI with the file's path). */
export interface ImportOrigin {
  source: ImportSource;
  fileName: string;
}

/** Separates the names of nested folders in a collection's name: `Work / Projects`. */
const FOLDER_SEPARATOR = " / ";
/**
 * Ends the name of the private collection that takes a folder's links in place of a PUBLIC
 * collection of the folder's name (`Reading (imported)`, then `Reading (imported 2)`...).
 */
const STAND_IN_SUFFIX = " (imported)";
/**
 * How much of a folder path is kept while names are built: more than any collection name can
 * hold (254 code points, at most 508 UTF-16 units), so cutting there changes no result, and a
 * file nested thousands of folders deep costs linear time.
 */
const PATH_KEEP = 1024;

/**
 * One link the import will create: the first entry of its URL, in every collection the URL
 * appears in (`collections`, set once every entry is read: the ids of the user's, the names of
 * the import's own).
 */
interface PlannedLink extends ImportedLink {
  name: string;
  url: string;
  description: string;
  /** The names of the folders it is in (as collectionNames gives them); null is outside any folder. */
  folders: Set<string | null>;
}

/** What an import will write, worked out from the file and the user's shelf without writing. */
interface ImportPlan {
  report: ImportReport;
  collections: ImportedCollection[];
  links: PlannedLink[];
}

/** Where the links of one folder go. */
interface Placement {
  /** The destination collection's name. */
  name: string;
  /** The user's PRIVATE collection of that name; null when the import creates it. */
  id: number | null;
  /** The user's PUBLIC collection the folder's name matched, left alone; null when none. */
  insteadOf: string | null;
}

/**
 * importBookmarks stores the bookmarks of a Netscape bookmark file for a user. The file is
 * its text, or what parseNetscape read of it (the import page reads a file once, for the
 * preview and the import it confirms). It works out the whole import first without writing;
 * with `dryRun` it stops there, so the report is the one a real import would give and nothing
 * is stored. Otherwise the shelf writes it (`shelf.imports.write`) in short transactions
 * (IMPORT_CHUNK), letting the event loop run between them, so a server keeps answering during a
 * large import. It is still all or nothing: when a transaction fails, what the earlier ones of
 * this import created is removed, and the error is thrown. Once all of it is committed, the
 * shelf's `afterWrite` hears of every link it made (the server's page capture queues them). With
 * `record`, the import is recorded in its first transaction, its links and collections carry the
 * record's id (so it can be undone), and the answer has `importId`; a failed import leaves no
 * record, and one undone while it is written stops, removes what it wrote, and stays undone.
 */
export async function importBookmarks(
  shelf: Shelf, file: string | NetscapeDocument, now: number,
  options: { dryRun?: boolean; record?: ImportOrigin } = {},
): Promise<ImportReport & { importId?: number }> {
  const document = typeof file === "string" ? parseNetscape(file) : file;
  const plan = await planImport(shelf, document, now);
  if (options.dryRun) return plan.report;
  // Links and collections are counted as their transactions commit.
  const record = options.record && {
    ...options.record, links: 0, collections: 0,
    duplicates: plan.report.duplicates.length, skipped: plan.report.skipped.length,
  };
  const importId = await shelf.imports.write(plan.collections, plan.links, record, now);
  return importId === null ? plan.report : { ...plan.report, importId };
}

/**
 * pauses gives the points where a long loop lets the event loop run: `due()` once the current
 * slice has run IMPORT_CHUNK.millis, then `await next()` starts the next slice after a macrotask.
 */
function pauses() {
  let started = performance.now();
  return {
    due: () => performance.now() - started >= IMPORT_CHUNK.millis,
    next: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      started = performance.now();
    },
  };
}

/**
 * planImport reads the user's links and collections and decides everything an import does,
 * writing nothing: its report, with the destinations the preview, the report page and
 * `--dry-run` list, is what the import then does. It lets the event loop run every IMPORT_CHUNK.millis (a file of 100,000 bookmarks
 * takes a few hundred milliseconds to plan).
 */
async function planImport(shelf: Shelf, document: NetscapeDocument, now: number): Promise<ImportPlan> {
  const report: ImportReport = { linksCreated: 0, collectionsCreated: [], duplicates: [], skipped: [], destinations: [] };

  const collectionName = collectionNames(document.folders);
  const fileNames = new Set<string>();
  for (const folder of document.folders) {
    const name = collectionName(folder);
    if (name !== null) fileNames.add(name);
  }
  const place = placements(shelf.collections.rows(), fileNames);
  const pause = pauses();
  const stored = new Set<string>();
  for (const url of shelf.links.urls()) {
    if (pause.due()) await pause.next();
    stored.add(urlKey(url));
  }
  const planned = new Map<string, PlannedLink>();
  for (const bookmark of document.bookmarks) {
    if (pause.due()) await pause.next();
    const url = bookmark.href;
    const name = linkName(bookmark);
    const problem = urlProblem(url);
    if (problem !== null) {
      report.skipped.push({ name, url, reason: problem });
      continue;
    }
    const key = urlKey(url);
    const collection = collectionName(bookmark.folder);
    const plan = planned.get(key);
    if (stored.has(key) || plan?.folders.has(collection)) {
      report.duplicates.push({ name, url });
    } else if (plan) {
      plan.folders.add(collection);
    } else {
      planned.set(key, {
        name,
        url,
        description: fit(bookmark.description, LINK_LIMITS.description),
        favorite: bookmark.favorite,
        createdAt: pastDate(bookmark.addDate, now),
        folders: new Set([collection]),
        collections: [],
      });
    }
  }

  // Links per destination, each link once in each (two folders may share one destination).
  const linksIn = new Map<string, number>();
  const count = (name: string) => linksIn.set(name, (linksIn.get(name) ?? 0) + 1);
  for (const plan of planned.values()) {
    if (pause.due()) await pause.next();
    const placed = Array.from(plan.folders, place);
    plan.collections = placed.map((placement) => placement.id ?? placement.name);
    if (placed.length === 1) count(placed[0]!.name);
    else new Set(placed.map((placement) => placement.name)).forEach(count);
  }
  const hasContent = new Set<NetscapeFolder>();
  for (const bookmark of document.bookmarks) if (bookmark.folder) hasContent.add(bookmark.folder);
  for (const folder of document.folders) if (folder.parent) hasContent.add(folder.parent);
  // An empty folder in the file is kept as an empty collection; an unnamed one or a browser's own root is not,
  // nor one that holds only folders, unless linkshelf's export wrote it for a collection of its own (LINKSHELF_ICON).
  const keptEmpty = (folder: NetscapeFolder) =>
    !((hasContent.has(folder) && folder.icon === null) || folder.browserRoot || cleanName(folder.name) === "");

  // The bookmarks outside any folder first (the Inbox, or its private stand-in), then each folder in the order of the file.
  const newCollections: ImportedCollection[] = [];
  const destinations = new Map<string, ImportDestination>();
  for (const folder of [null, ...document.folders]) {
    if (pause.due()) await pause.next();
    const name = folder === null ? null : collectionName(folder);
    if (folder !== null && name === null) continue;
    const placement = place(name);
    if (destinations.has(placement.name)) continue;
    const links = linksIn.get(placement.name) ?? 0;
    const isNew = placement.id === null;
    const create = isNew && (links > 0 || (folder !== null && keptEmpty(folder)));
    // Not a destination (yet): a collection of the user's that gets no link, or a folder not kept.
    if (!create && (isNew || links === 0)) continue;
    if (create) {
      // Always private: a file from elsewhere must not publish anything; a valid icon is kept, another one ignored.
      const description = folder === null || folder.description === "" ? null : fit(folder.description, COLLECTION_LIMITS.description);
      const icon = folder !== null && folder.icon !== null && isIcon(folder.icon) ? folder.icon : undefined;
      const input = { name: placement.name, description, visibility: "PRIVATE" as const, icon };
      newCollections.push({ input, createdAt: folder === null ? now : pastDate(folder.addDate, now) });
      report.collectionsCreated.push(placement.name);
    }
    destinations.set(placement.name, { name: placement.name, isNew, visibility: "PRIVATE", links, insteadOf: placement.insteadOf });
  }
  report.linksCreated = planned.size;
  report.destinations = [...destinations.values()];
  return { report, collections: newCollections, links: [...planned.values()] };
}

/**
 * placements decides where the links of each folder go, by the folder's name (null: outside
 * any folder), so that an import never publishes anything:
 * - into the user's PRIVATE collection of that name (the first of it, the Inbox first; the
 *   bookmarks outside any folder into the Inbox), when there is one;
 * - into a new private collection of that name, when the user has no collection of it;
 * - otherwise (only PUBLIC collections have the name, or the Inbox is PUBLIC) into a private
 *   stand-in, `Name (imported)`, or `Name (imported 2)`, 3... past names that only public
 *   collections have or that the file's folders have themselves. An existing private stand-in
 *   is added to, so importing the same file again merges there. The name is cut to leave room
 *   for its ending (COLLECTION_LIMITS.name in all), and two cut names are never one stand-in.
 * An import never changes any collection's visibility.
 */
function placements(rows: CollectionRow[], fileNames: ReadonlySet<string>): (folder: string | null) => Placement {
  const privateByName = new Map<string, CollectionRow>();
  const taken = new Set<string>();
  for (const row of [...rows].sort(byAge)) {
    taken.add(row.name);
    if (row.visibility === "PRIVATE" && !privateByName.has(row.name)) privateByName.set(row.name, row);
  }
  const inbox = rows.find((row) => row.isDefault)!;
  /** Stand-in names given so far, each with the name it stands in for. */
  const standsFor = new Map<string, string>();
  const standIn = (name: string): Placement => {
    for (let count = 1; ; count++) {
      const suffix = count === 1 ? STAND_IN_SUFFIX : ` (imported ${count})`;
      const candidate = `${fit(name, COLLECTION_LIMITS.name - suffix.length)}${suffix}`;
      if (fileNames.has(candidate) || (standsFor.get(candidate) ?? name) !== name) continue;
      const own = privateByName.get(candidate);
      if (own || !taken.has(candidate)) {
        standsFor.set(candidate, name);
        return { name: candidate, id: own?.id ?? null, insteadOf: name };
      }
    }
  };
  const placed = new Map<string | null, Placement>();
  return (folder) => {
    let placement = placed.get(folder);
    if (!placement) {
      const name = folder ?? inbox.name;
      const own = folder === null ? (inbox.visibility === "PRIVATE" ? inbox : undefined) : privateByName.get(folder);
      placement = own ? { name, id: own.id, insteadOf: null } : taken.has(name) ? standIn(name) : { name, id: null, insteadOf: null };
      placed.set(folder, placement);
    }
    return placement;
  };
}

const byAge = (a: { isDefault: boolean; id: number }, b: { isDefault: boolean; id: number }) =>
  Number(b.isDefault) - Number(a.isDefault) || a.id - b.id;

/**
 * collectionNames names the collection each folder's bookmarks go to: the names of the folder
 * and its ancestors joined by " / " (`Work / Projects`), leaving out unnamed folders and a
 * browser's own root folders above it (Chromium's "Bookmarks bar", Firefox's "Bookmarks
 * Toolbar" / "Other Bookmarks": their subfolders stand on their own, their own bookmarks go to
 * a collection of that name). Null (no named folder) is the Inbox. Built in one pass over the
 * folders, parents first, each path from its parent's.
 */
function collectionNames(folders: NetscapeFolder[]): (folder: NetscapeFolder | null) => string | null {
  /** The path a folder's subfolders continue ("" for none), cut at PATH_KEEP. */
  const pathForChildren = new Map<NetscapeFolder, string>();
  const names = new Map<NetscapeFolder, string | null>();
  for (const folder of folders) {
    const above = folder.parent === null ? "" : pathForChildren.get(folder.parent)!;
    const ownName = cleanName(folder.name);
    const own = ownName === "" ? above : above === "" ? ownName : `${above}${FOLDER_SEPARATOR}${ownName}`;
    const path = own.slice(0, PATH_KEEP);
    pathForChildren.set(folder, folder.browserRoot ? above : path);
    names.set(folder, path === "" ? null : fit(path, COLLECTION_LIMITS.name));
  }
  return (folder) => (folder === null ? null : names.get(folder)!);
}

/**
 * linkName is the bookmark's name, or its URL when it has none (as browsers show it), made to
 * pass the name rule (cleanName) and cut to the limit.
 */
function linkName(bookmark: NetscapeBookmark): string {
  return fit(cleanName(bookmark.name) || cleanName(bookmark.href), LINK_LIMITS.name);
}

/**
 * fit trims text and cuts it to `max` code points, ending with "…" when cut. It reads no
 * further than the cut, however long the text.
 */
function fit(text: string, max: number): string {
  const trimmed = text.trim();
  // A code point is one or two UTF-16 units: no more units than `max`, no more code points.
  if (trimmed.length <= max) return trimmed;
  let count = 0;
  let index = 0;
  let cut = 0;
  for (const char of trimmed) {
    count++;
    if (count === max) cut = index;
    if (count > max) return trimmed.slice(0, cut).trimEnd() + "…";
    index += char.length;
  }
  return trimmed;
}

/** isIcon applies the API's icon rule without failing: an icon it would refuse is simply not imported. */
function isIcon(icon: string): boolean {
  const rules = new Rules();
  rules.emoji("/icon", icon);
  return rules.errors.length === 0;
}

/** pastDate is the file's date when it has one that is not in the future, else now. */
function pastDate(millis: number | null, now: number): number {
  return millis !== null && millis <= now ? millis : now;
}

/** urlProblem says why a URL cannot be stored, with the rule the API applies, or null when it can. */
function urlProblem(url: string): string | null {
  if (url === "") return "The bookmark has no URL.";
  const parsed = URL.parse(url);
  if (parsed === null) return "The URL is not an absolute URL.";
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `linkshelf keeps only http and https links, not ${parsed.protocol} ones.`;
  }
  if (isHttpUrl(url)) return null;
  if (/\s/u.test(url)) return "The URL contains spaces.";
  if (codePoints(url) > MAX_URL_LENGTH) return `The URL is longer than ${formatNumber(MAX_URL_LENGTH)} characters.`;
  const rules = new Rules();
  rules.url("/url", url);
  return `${rules.errors[0]!.message}.`;
}

/** urlKey is what two URLs of the same page share (host case, default port, empty path spelled out). */
function urlKey(url: string): string {
  return URL.parse(url)?.href ?? url;
}

/**
 * exportBookmarks writes all of a user's links as a Netscape bookmark file: one folder per
 * collection (Inbox first, then by name), one `<A>` per membership (a link in two collections
 * appears in both), newest first. The Inbox's links stand outside any folder, where an import
 * (ours, or a browser's) takes them back to the Inbox / the import's own folder. Collections
 * named like nested folders (`Dev / Rust`, as an import names them) are written nested, so
 * a browser shows Rust inside Dev and an import gives the same names back.
 */
export function exportBookmarks(shelf: Shelf): string {
  const byCollection = new Map<number, RenderBookmark[]>();
  for (const { collectionId, name, url, description, createdAt, updatedAt, favorite } of shelf.collections.memberships()) {
    const bookmark: RenderBookmark = { name, url, description, addDate: createdAt, lastModified: updatedAt, favorite };
    const list = byCollection.get(collectionId);
    if (list) list.push(bookmark);
    else byCollection.set(collectionId, [bookmark]);
  }
  let loose: RenderBookmark[] = [];
  const folders: RenderFolder[] = [];
  for (const row of shelf.collections.rows()) {
    const bookmarks = byCollection.get(row.id) ?? [];
    if (row.isDefault) loose = bookmarks;
    else folders.push({ name: row.name, description: row.description, icon: row.icon, addDate: row.createdAt, lastModified: row.updatedAt, bookmarks, folders: [] });
  }
  return renderNetscape(loose, nestFolders(folders));
}

/**
 * folderPath splits a collection's name into the folder names an import joined into it
 * (`Dev / Rust` -> Dev, Rust). A name with an empty or space-edged part cannot come from
 * one, and stays one folder.
 */
function folderPath(name: string): string[] {
  const parts = name.split(FOLDER_SEPARATOR);
  return parts.every((part) => part !== "" && part === part.trim()) ? parts : [name];
}

/**
 * nestFolders puts each collection's folder inside the folder of the collection its name
 * continues (`Dev / Rust` inside `Dev`), named by its last part. A missing parent is made as a
 * folder of folders only, which an import does not turn into a collection, so importing the
 * export again changes nothing. Order is kept: parents where they or their first child come.
 */
function nestFolders(folders: RenderFolder[]): RenderFolder[] {
  const top: RenderFolder[] = [];
  const byPath = new Map<string, RenderFolder>();
  for (const folder of folders) if (!byPath.has(folder.name)) byPath.set(folder.name, folder);
  const placed = new Set<RenderFolder>();
  /** place puts a folder (by its path) where it belongs, making missing parents; returns it. */
  const place = (path: string[], folder: RenderFolder | undefined, first: RenderFolder): RenderFolder => {
    const fullName = path.join(FOLDER_SEPARATOR);
    const target = folder ?? byPath.get(fullName) ?? {
      name: fullName, description: null, icon: null, addDate: first.addDate, lastModified: first.lastModified, bookmarks: [], folders: [],
    };
    if (placed.has(target)) return target;
    placed.add(target);
    byPath.set(fullName, byPath.get(fullName) ?? target);
    if (path.length === 1) {
      top.push(target);
    } else {
      const parent = place(path.slice(0, -1), undefined, first);
      target.name = path.at(-1)!;
      parent.folders.push(target);
    }
    return target;
  };
  for (const folder of folders) place(folderPath(folder.name), folder, folder);
  return top;
}
