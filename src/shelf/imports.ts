/**
 * A shelf's imports: writing a confirmed import of a bookmark file, the record of every one,
 * and undoing one. The links and collections an import creates carry its id (`import_id`).
 */
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { imports, links } from "../db/schema";
import { Conflict, NotFound } from "../common/errors";
import { toImportJson } from "./json";
import { IMPORT_CHUNK } from "./limits";
import type { ImportedCollection, ImportedLink, ImportRecordInput, ImportStep, ImportTarget, ImportUndone } from "./types";
import type { ImportJson } from "../contract/imports";
import type { ShelfCollections } from "./collections";
import { addFlags, linkSaved, writeImportedLink, type ShelfLinks } from "./links";
import { Memberships, type NextPlaces } from "./memberships";
import { Rules } from "../common/rules";
import { deferIndexingMany, wakeIndexer } from "../fulltext/index-text";
import { collectionIdsOf } from "./scope";
import { saveContent } from "./contents";
import { ShelfCopies } from "./copies";
import { discardImport, discardLinks, type TrashSink } from "./trash";
import type { Owner } from "./scope";

/** An import whose record was undone while it was being written stops, and removes what it wrote. */
class UndoneWhileWriting extends Conflict {
  constructor() {
    super("IMPORT_UNDONE", "The import was undone while it was being written: it stopped, and nothing it wrote was kept.");
  }
}

/**
 * quiet is the connection's count of changed rows and the database's version (`data_version`:
 * changed by another connection's commit, the CLI's): the same before an import's transaction as
 * after its last one, nothing else wrote in between.
 */
function quiet(db: Owner["db"]): string {
  const { changes, version } = db.all<{ changes: number; version: number }>(sql`SELECT total_changes() AS changes, data_version AS version FROM pragma_data_version`)[0]!;
  return `${changes}/${version}`;
}

/** What an import has written in its committed transactions so far. */
interface Made {
  /** `saved`: it came with its page's text, so the page is not fetched. */
  links: { id: number; url: string; saved: boolean }[];
  collections: number[];
  importId: number | null;
}

export class ShelfImports {
  constructor(private readonly owner: Owner, private readonly collections: ShelfCollections, private readonly links: ShelfLinks) {}

  /**
   * write writes an import as its reader decided it, step by step in the file's order (each new
   * item at the end of its collection's order): the record when asked (`record`, in the first
   * transaction), then its collections, links and repeated links, in transactions of
   * IMPORT_CHUNK with the event loop running between them. All or nothing: when one fails, what
   * the earlier ones created is removed, with the record, and the error is thrown; an import
   * undone meanwhile stops (`IMPORT_UNDONE`), removes what it wrote since, and stays undone.
   * A link that comes with its page copy (`copy`) has it stored, within the owner's quota (past
   * it the whole import fails, as any refused step does). A link that comes with its page's text (`content`) has it stored as a browser capture, and
   * is not told to `afterWrite` (nothing to fetch); a `member` step may name one of the owner's
   * links by id (a URL the owner had, put in the import's collections).
   * Once all of it is committed, each other link it created is told to `afterWrite`. Returns the
   * record's id (null when not recorded). It takes the steps: each is let go (`undefined`) once
   * written, so that what is written can be collected while the rest is.
   */
  async write(steps: (ImportStep | undefined)[], record: ImportRecordInput | undefined, now: number): Promise<number | null> {
    const { db } = this.owner;
    const collectionIds = new Map<ImportedCollection, number>();
    // Weak: a link's step is let go once written and met again (a plan of 100,000 links is not held to the end).
    const linkIds = new WeakMap<ImportedLink, number>();
    const idOf = (target: ImportTarget) => (typeof target === "number" ? target : collectionIds.get(target)!);
    const made: Made = { links: [], collections: [], importId: null };
    const copies = new ShelfCopies(this.owner);
    let next = 0;
    // Each collection's next place, and the owner's collections checked: kept from one transaction
    // to the next while nothing else wrote to the database between them (`quiet`), looked up again otherwise.
    let places: NextPlaces = new Map();
    let checked = new Set<number>();
    let after: string | null = null;
    try {
      while (next < steps.length || (record && made.importId === null)) {
        const chunk = db.transaction(() => {
          const done: Omit<Made, "importId"> = { links: [], collections: [] };
          if (made.importId !== null && !this.stands(made.importId)) throw new UndoneWhileWriting();
          const importId = made.importId ?? (record ? this.record(record, now) : null);
          if (quiet(db) !== after) {
            places = new Map();
            checked = new Set();
          }
          const started = performance.now();
          let at = next;
          // The owner's collections this import puts links in, checked once (one the import made is the owner's).
          const target = (into: ImportTarget): number => {
            if (typeof into !== "number") return collectionIds.get(into)!;
            if (!checked.has(into)) {
              const rules = new Rules();
              collectionIdsOf(this.owner, [into], rules);
              rules.check();
              checked.add(into);
            }
            return into;
          };
          const marked: number[] = [];
          Memberships.within(this.owner, places, (memberships) => {
            while (at < steps.length && at - next < IMPORT_CHUNK.items && (at === next || performance.now() - started < IMPORT_CHUNK.millis)) {
              const step = steps[at]!;
              steps[at] = undefined;
              if (step.kind === "collection") {
                const parentId = step.parent === null ? null : idOf(step.parent);
                const created = this.collections.create({ ...step.input, parentId }, step.createdAt, importId, step.updatedAt);
                // It took its parent's next place: look that place up again.
                if (parentId !== null) places.delete(parentId);
                collectionIds.set(step, created.id);
                done.collections.push(created.id);
              } else if (step.kind === "member") {
                if (typeof step.link === "number") {
                  // One of the owner's links (checked) in a collection of the owner's or of this import.
                  const into = idOf(step.into);
                  this.links.addTo(step.link, into);
                  // It took that collection's next place: look that place up again.
                  places.delete(into);
                } else {
                  // A link of this import in a collection of the owner's or of this import: known to be the owner's.
                  memberships.add(linkIds.get(step.link)!, [target(step.into)]);
                }
              } else if (step.kind === "flags") {
                // Links the owner had: the file's flags are added, none cleared.
                addFlags(this.owner, step.links, step, now);
              } else {
                const { name, url, description, favorite, toRead, archived } = step;
                const created = writeImportedLink(this.owner, {
                  name, url, description: description ?? "", favorite: favorite ?? false, toRead: toRead ?? false, archived: archived ?? false, createdAt: step.createdAt, updatedAt: step.updatedAt,
                  clicks: step.clicks?.count ?? 0, lastClickedAt: step.clicks?.lastAt ?? null,
                }, target(step.into), importId, memberships);
                marked.push(created.id);
                if (step.content) saveContent(this.owner, created.id, step.content, "browser", now);
                if (step.copy) copies.save(created.id, new TextEncoder().encode(step.copy.html), step.copy.savedAt);
                linkIds.set(step, created.id);
                done.links.push({ id: created.id, url: created.url, saved: step.content !== undefined });
              }
              at++;
            }
          });
          deferIndexingMany(db, marked);
          // The record counts what is committed: an import stopped midway (a killed server) says what it wrote.
          if (importId !== null) this.wrote(importId, { links: done.links.length, collections: done.collections.length });
          return { done, at, importId };
        }, { behavior: "immediate" });
        after = quiet(db);
        made.importId = chunk.importId;
        made.links.push(...chunk.done.links);
        made.collections.push(...chunk.done.collections);
        next = chunk.at;
        if (next < steps.length) await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      wakeIndexer(db);
      // An import undone while it was written keeps its record, undone; what it wrote since the undo goes.
      if (error instanceof UndoneWhileWriting) made.importId = null;
      if (made.links.length + made.collections.length > 0 || made.importId !== null) await this.remove(made, now);
      throw error;
    }
    // Its links are indexed for search once all of it is written (a search meanwhile indexes them first).
    wakeIndexer(db);
    for (const link of made.links) if (!link.saved) linkSaved(this.owner, link);
    return made.importId;
  }

  /**
   * remove takes back what the committed transactions of a failed import created: its links,
   * IMPORT_CHUNK.removed per transaction with the event loop running between them (removing 60,000
   * links at once held the database for over half a second), then in one last transaction its
   * collections, the way deleting one does (a link put there since then, and nowhere else, goes
   * to the Inbox), and the import's record.
   */
  private async remove(made: Made, now: number): Promise<void> {
    const ids = made.links.map((link) => link.id);
    for (let at = 0; at < ids.length; at += IMPORT_CHUNK.removed) {
      if (at > 0) await new Promise((resolve) => setImmediate(resolve));
      this.links.deleteMany(ids.slice(at, at + IMPORT_CHUNK.removed));
    }
    this.collections.deleteMany(made.collections, now);
    if (made.importId !== null) this.forget(made.importId);
  }

  /** record stores an import's record (inside the transaction of its first writes) and returns its id. */
  private record(input: ImportRecordInput, now: number): number {
    return this.owner.db.insert(imports).values({ ...input, userId: this.owner.user.id, createdAt: now }).returning({ id: imports.id }).get()!.id;
  }

  /** wrote adds what one transaction of an import wrote to its record's counts (inside that transaction). */
  private wrote(id: number, written: { links: number; collections: number }): void {
    this.owner.db.update(imports)
      .set({ links: sql`${imports.links} + ${written.links}`, collections: sql`${imports.collections} + ${written.collections}` })
      .where(and(eq(imports.id, id), eq(imports.userId, this.owner.user.id))).run();
  }

  /** forget deletes the record of an import that failed (what it wrote is removed first). */
  private forget(id: number): void {
    this.owner.db.delete(imports).where(and(eq(imports.id, id), eq(imports.userId, this.owner.user.id))).run();
  }

  /** list is the owner's imports, newest first. */
  list(): ImportJson[] {
    return this.owner.db.select().from(imports).where(eq(imports.userId, this.owner.user.id)).orderBy(desc(imports.id)).all().map(toImportJson);
  }

  /** stands says whether the owner's import with that id exists and is not undone (an import being written checks it between its transactions). */
  private stands(id: number): boolean {
    return this.owner.db.select({ id: imports.id }).from(imports)
      .where(and(eq(imports.id, id), eq(imports.userId, this.owner.user.id), isNull(imports.undoneAt))).get() !== undefined;
  }

  /** get is one of the owner's imports that is not undone (another user's, unknown or undone: NotFound). */
  get(id: number): ImportJson {
    const row = this.owner.db.select().from(imports)
      .where(and(eq(imports.id, id), eq(imports.userId, this.owner.user.id), isNull(imports.undoneAt))).get();
    if (!row) throw new NotFound();
    return toImportJson(row);
  }

  /**
   * undo removes, in one transaction, the links the import created that still exist (wherever
   * they are now, edited or not) and then the collections it created that are left empty;
   * links that were there before it and collections still holding other links are kept. All of
   * it goes to the trash as ONE item, `Import of FILE (N links, M collections)`: restoring it puts
   * everything back and the import stands again; it is purged as a whole. The import is marked
   * undone; undoing it again, like another user's or an unknown one, is NotFound.
   */
  undo(id: number, now: number): ImportUndone {
    const { db } = this.owner;
    return db.transaction(() => {
      const record = this.get(id);
      const ids = db.select({ id: links.id }).from(links).where(and(eq(links.userId, this.owner.user.id), eq(links.importId, id))).all().map((link) => link.id);
      const sink: TrashSink = [];
      const removedLinks = discardLinks(this.owner, ids, now, sink);
      const removedCollections = this.collections.deleteEmptyImported(id, now, sink);
      discardImport(this.owner, id, undoneImportName(record.fileName, removedLinks, removedCollections), sink, now);
      db.update(imports).set({ undoneAt: now }).where(eq(imports.id, id)).run();
      return { links: removedLinks, collections: removedCollections };
    }, { behavior: "immediate" });
  }
}

/** undoneImportName names an undone import in the trash: `Import of bookmarks.html (2,133 links, 79 collections)`. */
export function undoneImportName(fileName: string, links: number, collections: number): string {
  const count = (n: number, noun: string) => `${n.toLocaleString("en-US")} ${noun}${n === 1 ? "" : "s"}`;
  return `Import of ${fileName === "" ? "a file" : fileName} (${count(links, "link")}, ${count(collections, "collection")})`;
}
