/**
 * The planner of every import, whatever its format (the readers are `formats/`, the export
 * `export.ts`): folders are collections, nested as in the file
 * (a browser's own folders, such as Chromium's "Bookmarks bar", are top-level collections like
 * any other), bookmarks are links, each collection's links and sub-collections in the file's
 * order. An import never publishes anything: it creates only private collections and adds only to
 * private ones (see placements), and its report lists every collection it puts links in.
 * The user's shelf writes what an import decides (`shelf.imports.write`), step by step in the
 * file's order, with the rules behind the API, in short transactions, all or nothing.
 */
import { COLLECTION_LIMITS, IMPORT_CHUNK, LINK_LIMITS, MEMBERSHIP_LIMITS } from "../shelf/limits";
import type { CollectionRow } from "../db/schema";
import { cleanName, codePoints, isHttpUrl, MAX_URL_LENGTH, Rules } from "../common/rules";
import { ValidationFailed } from "../common/errors";
import { formatNumber } from "../common/format";
import type { ImportedCollection, ImportedLink, ImportSource, ImportStep, ImportTarget } from "../shelf/types";
import type { Shelf } from "../shelf/shelf";
import type { ImportedLinkRow } from "../shelf/links";
import { parseNetscape, type NetscapeBookmark, type NetscapeDocument, type NetscapeFolder } from "./netscape";
import { fromNetscape, isImportDocument, type ImportDocument, type ImportFormat } from "./document";

export interface ImportReport {
  /** The kind of file it was, recognised by its content. */
  format: ImportFormat;
  linksCreated: number;
  /** Links the user had already that the import puts in more collections (one link, not a second one). */
  linksAdded: number;
  /** Links the import marks to read: those it creates, and those the user had that were not (a flag is added, never cleared). */
  linksToRead: number;
  /** Links the import marks archived, counted the same way. */
  linksArchived: number;
  /** Columns or fields of the file linkshelf does not know (their values are not imported). */
  unknownFields: string[];
  /** Names of the collections the import created, in the order of the file. */
  collectionsCreated: string[];
  /** Entries whose URL the user has already in that collection, or that repeat an entry of the file in the same collection. */
  duplicates: { name: string; url: string }[];
  /** Entries linkshelf cannot store (no URL, not http(s), too long...), with the reason. */
  skipped: { name: string; url: string; reason: string }[];
  /** Entries with a date that cannot be read (`ADD_DATE "invaliddate"`): the import kept its own time. */
  unreadDates: { name: string; url: string; dates: string[] }[];
  /**
   * Every collection the import puts links in or creates, the Inbox's stand-in first, then in
   * the order of the file: the preview, the report and `--dry-run` list these.
   */
  destinations: ImportDestination[];
}

/** A collection an import puts links in, or creates empty. */
export interface ImportDestination {
  name: string;
  /** The names of the collections it sits inside, the top level's first; empty at the top level. */
  path: string[];
  /** True when the import creates it; false when it adds to a collection the user has. */
  isNew: boolean;
  /** PRIVATE: an import creates only private collections and adds only to private ones (linkshelf JSON's public ones stay PUBLIC when asked: `keepPublic`). */
  visibility: CollectionRow["visibility"];
  /** Links the import puts in it (a link in two folders counts in both). */
  links: number;
  /** The user's PUBLIC collection the folder is named like, which the import leaves alone; null when none. */
  insteadOf: string | null;
}

/** What the person chose for an import besides its file. */
export interface ImportChoices {
  /** Where the file's top-level collections go: inside this PRIVATE collection of the user's (null or absent: the top level). */
  under?: number | null;
  /** Collections that were PUBLIC in a linkshelf JSON file are created PUBLIC (never otherwise). */
  keepPublic?: boolean;
}

/** Where a confirmed import comes from, for its record (the import page, or the CLI with the file's path). */
export interface ImportOrigin {
  source: ImportSource;
  fileName: string;
}

/**
 * Ends the name of the private collection that takes a folder's links in place of a PUBLIC
 * collection of the folder's name (`Reading (imported)`, then `Reading (imported 2)`...).
 */
const STAND_IN_SUFFIX = " (imported)";
/** Why an entry is skipped whose link is in MEMBERSHIP_LIMITS.perLink collections already: a link is in the first ones the file names. */
const IN_TOO_MANY = `A link is in at most ${MEMBERSHIP_LIMITS.perLink} collections: this one is in ${MEMBERSHIP_LIMITS.perLink} already`;
/** The name of the collection a folder without a name becomes. */
const UNNAMED_FOLDER = "Unnamed folder";

/** One link the import will create: the first entry of its URL, in every collection the URL appears in. */
interface PlannedLink extends ImportedLinkRow {
  text: string | undefined;
  copy: NetscapeBookmark["copy"];
  /** Where its entries go, each once (an array: most links are in one to four, and a Set costs more memory than its link). */
  placements: Placement[];
}

/**
 * Where one folder of the file goes (or the bookmarks outside any folder): a collection of the
 * user's at the same place in the tree, or one the import creates there.
 */
interface Placement {
  name: string;
  /** The user's PRIVATE collection it adds to; null when the import creates it. */
  id: number | null;
  /** The placement of the folder around it; null at the top level. */
  parent: Placement | null;
  /** The names of the collections it sits inside, the top level's first. */
  path: string[];
  /** The user's PUBLIC collection the folder's name matched, left alone; null when none. */
  insteadOf: string | null;
  /** Links the import puts in it. */
  links: number;
  /** For one the import would create: what it is made of. */
  made: { description: string | null; icon: string | undefined; visibility: CollectionRow["visibility"]; createdAt: number; updatedAt: number };
  /** Whether the import creates it: it is new and gets links, is empty in the file, or holds one that is created. */
  created: boolean;
}

/** One write of a confirmed import, in the order of the file: a folder's collection, a link, or a link met before in another folder. */
type Step =
  | { kind: "collection"; placement: Placement }
  | { kind: "link"; link: PlannedLink; placement: Placement }
  /** A link of the import's met again, or (its id) one the user had already. */
  | { kind: "member"; link: PlannedLink | number; placement: Placement }
  /** The flags the file gives links the user had (added, never cleared). */
  | { kind: "flags"; links: number[]; toRead: boolean; archived: boolean; placement?: undefined };

/** What an import will write, worked out from the file and the user's shelf without writing. */
interface ImportPlan {
  report: ImportReport;
  /** The writes, in the order of the file: so each collection's links and sub-collections keep the file's order. */
  steps: Step[];
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
  options: { dryRun?: boolean; record?: ImportOrigin; fileName?: string } & ImportChoices = {},
): Promise<ImportReport & { importId?: number }> {
  const read = typeof file === "string" ? parseNetscape(file) : file;
  const document = isImportDocument(read) ? read : fromNetscape(read);
  const plan = await planImport(shelf, document, now, options);
  if (isEmpty(plan.report)) throw nothingToImport(options.record?.fileName ?? options.fileName ?? "");
  if (options.dryRun) return plan.report;
  // Links and collections are counted as their transactions commit.
  const record = options.record && {
    ...options.record, links: 0, collections: 0,
    duplicates: plan.report.duplicates.length, skipped: plan.report.skipped.length,
  };
  const importId = await shelf.imports.write(importSteps(plan.steps), record, now);
  return importId === null ? plan.report : { ...plan.report, importId };
}

/** isEmpty: the file held no bookmark and no folder at all (an ordinary web page, a text file, a CSV of no known header...). */
const isEmpty = (report: ImportReport) =>
  report.linksCreated + report.collectionsCreated.length + report.duplicates.length + report.skipped.length === 0;

/**
 * nothingToImport refuses a file with nothing to import (`isEmpty`), the same on the page and in
 * the CLI: nothing is stored, and no import is recorded.
 */
function nothingToImport(fileName: string): ValidationFailed {
  const name = fileName === "" ? "The file" : `“${fileName}”`;
  return new ValidationFailed([{ path: "/file", message: `${name} holds no bookmarks, so there is nothing to import. Choose a bookmarks file exported by a browser (an HTML file that starts with <!DOCTYPE NETSCAPE-Bookmark-file-1>) or the export of one of the services listed.` }]);
}

/**
 * pauses gives the points where a long loop lets the event loop run: `due()` once the current
 * slice has run IMPORT_CHUNK.planMillis, then `await next()` starts the next slice after a macrotask.
 */
function pauses() {
  let started = performance.now();
  return {
    due: () => performance.now() - started >= IMPORT_CHUNK.planMillis,
    next: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      started = performance.now();
    },
  };
}

/**
 * planImport reads the user's links and collections and decides everything an import does,
 * writing nothing: its report, with the destinations the preview, the report page and
 * `--dry-run` list, is what the import then does. It walks the file in its order, folders and
 * bookmarks as they come, so that the steps it plans keep each folder's order. It lets the
 * event loop run every IMPORT_CHUNK.planMillis (a file of 100,000 bookmarks takes a few hundred
 * milliseconds to plan).
 */
async function planImport(shelf: Shelf, document: ImportDocument, now: number, choices: ImportChoices & { dryRun?: boolean }): Promise<ImportPlan> {
  const report: ImportReport = {
    format: document.format, linksCreated: 0, linksAdded: 0, linksToRead: 0, linksArchived: 0, unknownFields: document.unknownFields,
    collectionsCreated: [], duplicates: [], skipped: [...document.skipped], unreadDates: [], destinations: [],
  };
  const place = placements(shelf.collections.rows(), document.folders, now, choices);
  const pause = pauses();
  /** The user's links by URL, with the collections each is in and those the import adds it to. */
  const stored = new Map<string, { id: number; in: Set<number>; placements: Placement[] }>();
  for (const { id, url, collectionId } of shelf.collections.memberships()) {
    if (pause.due()) await pause.next();
    const key = urlKey(url);
    const had = stored.get(key);
    if (had) had.in.add(collectionId);
    else stored.set(key, { id, in: new Set([collectionId]), placements: [] });
  }
  const added = new Set<number>();
  /** The user's links the file marks to read, and archived: the flags are added to them (OR), never cleared. */
  const hadToRead = new Set<number>();
  const hadArchived = new Set<number>();
  const flaggedBefore = shelf.links.flaggedIds();
  // A service's item the user has already gains the file's collections; a browser file's bookmark is left as it is.
  const adopts = document.format !== "netscape";

  const loose = place(null);
  const steps: Step[] = [{ kind: "collection", placement: loose }];
  // A dry run gives its report only: none of its steps are kept.
  const plan = (step: Step) => void (choices.dryRun || steps.push(step));
  const folderPlacements: Placement[] = [];
  const placementOf = new Map<NetscapeFolder, Placement>();
  let opened = 0;
  /** openFolders places the folders the file opens before the `upTo`th. */
  const openFolders = (upTo: number) => {
    for (; opened < upTo; opened++) {
      const folder = document.folders[opened]!;
      const placement = place(folder);
      folderPlacements.push(placement);
      placementOf.set(folder, placement);
      if (placement.id === null) plan({ kind: "collection", placement });
    }
  };
  const planned = new Map<string, PlannedLink>();
  // A service's item comes as one entry per collection, one after the other: the last entry's
  // name, problem and key are its next entry's (each reading parses the URL again).
  let last: { entry: NetscapeBookmark; name: string; problem: string | null; key: string } | undefined;
  // A URL read once (the preview's plan) is not read again (the confirmed import's).
  const canonical = (document.canonicalUrls ??= new Set());
  // An item in several collections (its tags, the Archive...) is one entry of the file: skipped or a duplicate once.
  const reported = new Set<NetscapeBookmark>();
  const once = (bookmark: NetscapeBookmark, list: { name: string; url: string }[], entry: { name: string; url: string; reason?: string }) => {
    const item = bookmark.first ?? bookmark;
    if (reported.has(item)) return;
    reported.add(item);
    list.push(entry);
  };
  for (const bookmark of document.bookmarks) {
    if (pause.due()) await pause.next();
    openFolders(bookmark.foldersBefore);
    const url = bookmark.href;
    if (last?.entry.href !== url || last.entry.name !== bookmark.name) {
      const known = canonical.has(url);
      last = { entry: bookmark, name: linkName(bookmark), ...(known ? { problem: null, key: url } : readUrl(url)) };
      if (!known && last.problem === null && last.key === url) canonical.add(url);
    }
    const { name, problem, key } = last;
    if (problem !== null) {
      once(bookmark, report.skipped, { name, url, reason: problem });
      continue;
    }
    if (bookmark.unreadDates) report.unreadDates.push({ name, url, dates: bookmark.unreadDates });
    const placement = bookmark.folder === null ? loose : placementOf.get(bookmark.folder)!;
    const link = planned.get(key);
    const had = stored.get(key);
    // Whatever else happens to the entry (a duplicate, in too many collections), its flags reach its link.
    if (had) {
      if (bookmark.toRead && !flaggedBefore.toRead.has(had.id)) hadToRead.add(had.id);
      if (bookmark.archived && !flaggedBefore.archived.has(had.id)) hadArchived.add(had.id);
    } else if (link) {
      link.toRead ||= bookmark.toRead === true;
      link.archived ||= bookmark.archived === true;
    }
    if (had && !adopts) {
      once(bookmark, report.duplicates, { name, url });
      continue;
    }
    if (had) {
      if ((placement.id !== null && had.in.has(placement.id)) || had.placements.includes(placement)) {
        once(bookmark, report.duplicates, { name, url });
      } else if (had.in.size + had.placements.length >= MEMBERSHIP_LIMITS.perLink) {
        once(bookmark, report.skipped, { name, url, reason: IN_TOO_MANY });
      } else {
        placement.links++;
        had.placements.push(placement);
        added.add(had.id);
        plan({ kind: "member", link: had.id, placement });
      }
      continue;
    }
    if (link?.placements.includes(placement)) {
      once(bookmark, report.duplicates, { name, url });
      continue;
    }
    if (link && link.placements.length >= MEMBERSHIP_LIMITS.perLink) {
      once(bookmark, report.skipped, { name, url, reason: IN_TOO_MANY });
      continue;
    }
    placement.links++;
    if (link) {
      link.placements.push(placement);
      plan({ kind: "member", link, placement });
    } else {
      const { createdAt, updatedAt } = datesOf(bookmark, now);
      const fresh: PlannedLink = {
        name, url, description: fit(bookmark.description, LINK_LIMITS.description), favorite: bookmark.favorite,
        toRead: bookmark.toRead === true, archived: bookmark.archived === true, createdAt, updatedAt, placements: [placement],
        text: bookmark.text, copy: bookmark.copy, clicks: bookmark.clicks ?? 0, lastClickedAt: bookmark.lastClickedAt ?? null,
      };
      planned.set(key, fresh);
      plan({ kind: "link", link: fresh, placement });
    }
  }
  openFolders(document.folders.length);
  // The flags of the links the user had: the links marked both ways, then those marked one way.
  const both = [...hadToRead].filter((id) => hadArchived.has(id));
  const onlyToRead = [...hadToRead].filter((id) => !hadArchived.has(id));
  const onlyArchived = [...hadArchived].filter((id) => !hadToRead.has(id));
  if (both.length > 0) plan({ kind: "flags", links: both, toRead: true, archived: true });
  if (onlyToRead.length > 0) plan({ kind: "flags", links: onlyToRead, toRead: true, archived: false });
  if (onlyArchived.length > 0) plan({ kind: "flags", links: onlyArchived, toRead: false, archived: true });

  // A new folder is created when it gets links, is empty in the file, or holds one that is created; children first.
  const hasContent = new Set<NetscapeFolder>();
  for (const bookmark of document.bookmarks) if (bookmark.folder) hasContent.add(bookmark.folder);
  for (const folder of document.folders) if (folder.parent) hasContent.add(folder.parent);
  for (let at = document.folders.length - 1; at >= 0; at--) {
    const placement = folderPlacements[at]!;
    placement.created ||= placement.id === null && (placement.links > 0 || !hasContent.has(document.folders[at]!));
    if (placement.created && placement.parent?.id === null) placement.parent.created = true;
  }
  loose.created = loose.id === null && loose.links > 0;

  // The bookmarks outside any folder first (the Inbox, or its private stand-in), then each folder in the order of the file.
  for (const placement of [loose, ...folderPlacements]) {
    if (!placement.created && (placement.id === null || placement.links === 0)) continue;
    if (placement.created) report.collectionsCreated.push(placement.name);
    const { name, path, links, insteadOf } = placement;
    const visibility = placement.created ? placement.made.visibility : "PRIVATE";
    report.destinations.push({ name, path, isNew: placement.created, visibility, links, insteadOf });
  }
  report.linksCreated = planned.size;
  report.linksAdded = added.size;
  report.linksToRead = hadToRead.size;
  report.linksArchived = hadArchived.size;
  for (const link of planned.values()) {
    if (link.toRead) report.linksToRead++;
    if (link.archived) report.linksArchived++;
  }
  return { report, steps: steps.filter((step) => step.kind !== "collection" || step.placement.created) };
}

/** One level of the user's tree (the top level, or one collection's sub-collections), as placements reads it. */
interface Level {
  /** Its PRIVATE collections (not the Inbox) by name, in the level's order; each is taken by one folder at most. */
  private: Map<string, CollectionRow[]>;
  /** Names its PUBLIC collections have (the Inbox's included when it is PUBLIC). */
  public: Set<string>;
  /** Names any of its collections has. */
  taken: Set<string>;
  /** Stand-in names given at this level so far. */
  given: Set<string>;
}

/**
 * placements decides where each folder of the file goes, parents before their children (null:
 * the bookmarks outside any folder), so that an import never publishes anything. A folder
 * inside one the import creates is created too. Otherwise, at its place in the user's tree
 * (the top level, or inside the collection its parent folder goes to), it goes:
 * - into the user's PRIVATE collection of its name there (the first one no other folder of the
 *   file took, in the level's order); the bookmarks outside any folder into the Inbox. The Inbox
 *   holds no sub-collections: a folder named like it is a collection of its own;
 * - into a new private collection of its name, when no collection there has it;
 * - otherwise (only PUBLIC collections there have the name, or the Inbox is PUBLIC) into a
 *   private stand-in there, `Name (imported)`, or `Name (imported 2)`, 3... past names that
 *   public collections there have, that the file's folders there have themselves, or that
 *   another folder took. An existing private stand-in is added to, so importing the same file
 *   again merges there. The name is cut to leave room for its ending (COLLECTION_LIMITS.name in all).
 * A folder without a name is UNNAMED_FOLDER. An import never changes any collection's visibility.
 */
function placements(rows: CollectionRow[], folders: readonly NetscapeFolder[], now: number, choices: ImportChoices): (folder: NetscapeFolder | null) => Placement {
  const levels = new Map<number | null, Level>();
  const levelOf = (parentId: number | null): Level => {
    let level = levels.get(parentId);
    if (!level) {
      level = { private: new Map(), public: new Set(), taken: new Set(), given: new Set() };
      levels.set(parentId, level);
    }
    return level;
  };
  let inbox: CollectionRow | undefined;
  /** The collection the person chose to hold the file's top level: only one of their PRIVATE ones, never the Inbox. */
  const under = choices.under == null ? null : rows.find((row) => row.id === choices.under && row.visibility === "PRIVATE" && !row.isDefault);
  if (under === undefined) throw new ValidationFailed([{ path: "/under", message: "Choose one of your private collections, or the top level." }]);
  for (const row of rows) {
    const level = levelOf(row.parentId);
    level.taken.add(row.name);
    if (row.visibility === "PUBLIC") level.public.add(row.name);
    if (row.isDefault) inbox = row;
    else if (row.visibility === "PRIVATE") level.private.set(row.name, [...(level.private.get(row.name) ?? []), row]);
  }
  /** The names of the folders of the file inside each folder (null: at the top of the file). */
  const fileNames = new Map<NetscapeFolder | null, Set<string>>();
  for (const folder of folders) {
    const names = fileNames.get(folder.parent) ?? new Set<string>();
    names.add(folderName(folder));
    fileNames.set(folder.parent, names);
  }
  const placed = new Map<NetscapeFolder, Placement>();
  const made = (folder: NetscapeFolder | null) => {
    const { createdAt, updatedAt } = datesOf(folder ?? { addDate: null, lastModified: null }, now);
    return {
      // Always private: a file from elsewhere must not publish anything; a valid icon is kept, another one ignored.
      description: folder === null || folder.description === "" ? null : fit(folder.description, COLLECTION_LIMITS.description),
      icon: folder !== null && folder.icon !== null && isIcon(folder.icon) ? folder.icon : undefined,
      visibility: choices.keepPublic && folder?.public ? "PUBLIC" as const : "PRIVATE" as const,
      createdAt,
      updatedAt,
    };
  };
  const placement = (name: string, id: number | null, parent: Placement | null, insteadOf: string | null, folder: NetscapeFolder | null): Placement =>
    ({ name, id, parent, path: parent === null ? [] : [...parent.path, parent.name], insteadOf, links: 0, made: made(folder), created: false });
  const byId = new Map(rows.map((row) => [row.id, row]));
  const pathOf = (row: CollectionRow): string[] => (row.parentId === null ? [] : [...pathOf(byId.get(row.parentId)!), byId.get(row.parentId)!.name]);
  const holder: Placement | null = under === null ? null : { ...placement(under.name, under.id, null, null, null), path: pathOf(under) };
  /** standIn is the private collection that takes a folder's links instead of a PUBLIC collection of its name. */
  const standIn = (level: Level, name: string, parent: Placement | null, folder: NetscapeFolder | null): Placement => {
    const inFile = fileNames.get(folder?.parent ?? null);
    for (let count = 1; ; count++) {
      const suffix = count === 1 ? STAND_IN_SUFFIX : ` (imported ${count})`;
      const candidate = `${fit(name, COLLECTION_LIMITS.name - suffix.length)}${suffix}`;
      if (inFile?.has(candidate) || level.given.has(candidate)) continue;
      const own = level.private.get(candidate)?.shift();
      if (own || !level.taken.has(candidate)) {
        level.given.add(candidate);
        return placement(candidate, own?.id ?? null, parent, name, folder);
      }
    }
  };
  return (folder) => {
    if (folder === null) {
      const top = levelOf(null);
      return inbox!.visibility === "PRIVATE" ? placement(inbox!.name, inbox!.id, null, null, null) : standIn(top, inbox!.name, null, null);
    }
    const parent = folder.parent === null ? holder : placed.get(folder.parent)!;
    const name = folderName(folder);
    let found: Placement;
    if (parent !== null && parent.id === null) {
      found = placement(name, null, parent, null, folder);
    } else {
      const level = levelOf(parent?.id ?? null);
      const own = level.private.get(name)?.shift();
      found = own ? placement(name, own.id, parent, null, folder)
        : level.public.has(name) ? standIn(level, name, parent, folder) : placement(name, null, parent, null, folder);
    }
    placed.set(folder, found);
    return found;
  };
}

/**
 * importSteps turns the plan's steps, in place, into the steps the shelf writes: a placement the import creates
 * becomes the step that makes its collection, and the others name the user's collection by id.
 */
function importSteps(steps: Step[]): ImportStep[] {
  const made = new Map<Placement, ImportedCollection>();
  const written = new Map<PlannedLink, ImportedLink>();
  const target = (placement: Placement): ImportTarget => placement.id ?? made.get(placement)!;
  const step = (step: Step): ImportStep => {
    if (step.kind === "flags") return { kind: "flags", links: step.links, toRead: step.toRead, archived: step.archived };
    const { placement } = step;
    if (step.kind === "collection") {
      const { description, icon, visibility, createdAt, updatedAt } = placement.made;
      const parent = placement.parent === null ? null : target(placement.parent);
      const collection: ImportedCollection = { kind: "collection", input: { name: placement.name, description, visibility, icon }, parent, createdAt, updatedAt };
      made.set(placement, collection);
      return collection;
    }
    if (step.kind === "member") return { kind: "member", link: typeof step.link === "number" ? step.link : written.get(step.link)!, into: target(placement) };
    const { name, url, description, favorite, toRead, archived, createdAt, updatedAt, text, copy, clicks, lastClickedAt } = step.link;
    const link: ImportedLink = { kind: "link", name, url, description, favorite, toRead, archived, createdAt, updatedAt, into: target(placement) };
    if (text !== undefined) link.content = { text };
    if (copy !== undefined) link.copy = { html: copy.html, savedAt: copy.savedAt ?? createdAt };
    if (clicks > 0) link.clicks = { count: clicks, lastAt: lastClickedAt };
    written.set(step.link, link);
    return link;
  };
  // In place: a plan of 275,000 steps is not held twice.
  const converted = steps as (Step | ImportStep)[];
  for (let at = 0; at < steps.length; at++) converted[at] = step(steps[at]!);
  return converted as ImportStep[];
}

/** folderName is the name of the collection a folder becomes: its own, made to pass the name rule and cut to the limit, or UNNAMED_FOLDER. */
function folderName(folder: NetscapeFolder): string {
  return fit(cleanName(folder.name), COLLECTION_LIMITS.name) || UNNAMED_FOLDER;
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

/**
 * datesOf is when a bookmark or folder of the file was created and last changed: its ADD_DATE, or
 * without one its LAST_MODIFIED (it was there by then), or else now; changed never before created.
 */
function datesOf({ addDate, lastModified }: { addDate: number | null; lastModified: number | null }, now: number): { createdAt: number; updatedAt: number } {
  const createdAt = pastDate(addDate ?? lastModified, now);
  return { createdAt, updatedAt: Math.max(createdAt, lastModified === null ? createdAt : pastDate(lastModified, now)) };
}

/** pastDate is the file's date when it has one that is not in the future, else now. */
function pastDate(millis: number | null, now: number): number {
  return millis !== null && millis <= now ? millis : now;
}

/**
 * readUrl says why a URL cannot be stored, with the rule the API applies (`problem`, null when
 * it can), and what two URLs of the same page share (`key`: host case, default port, empty path
 * spelled out), reading the URL once.
 */
function readUrl(url: string): { problem: string | null; key: string } {
  const refused = (problem: string) => ({ problem, key: url });
  if (url === "") return refused("The bookmark has no URL.");
  const parsed = URL.parse(url);
  if (parsed === null) return refused("The URL is not an absolute URL.");
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return refused(`linkshelf keeps only http and https links, not ${parsed.protocol} ones.`);
  }
  if (isHttpUrl(url, parsed)) return { problem: null, key: parsed.href };
  if (/\s/u.test(url)) return refused("The URL contains spaces.");
  if (codePoints(url) > MAX_URL_LENGTH) return refused(`The URL is longer than ${formatNumber(MAX_URL_LENGTH)} characters.`);
  const rules = new Rules();
  rules.url("/url", url);
  return refused(`${rules.errors[0]!.message}.`);
}

/** urlKey is what two URLs of the same page share (see readUrl). */
function urlKey(url: string): string {
  return URL.parse(url)?.href ?? url;
}
