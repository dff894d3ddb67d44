/**
 * A shelf's imports: the record of every confirmed import of a bookmark file, and undoing one.
 * The links and collections an import creates carry its id (`import_id`), written by
 * `links.write` and `collections.create` when the importer passes it.
 */
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { imports, links } from "../db/schema";
import { NotFound } from "../errors";
import { toImportJson } from "./json";
import type { ImportRecordInput, ImportUndone } from "./types";
import type { ImportJson } from "../contract/imports";
import type { ShelfCollections } from "./collections";
import { deleteLinks } from "./links";
import type { Owner } from "./scope";

export class ShelfImports {
  constructor(private readonly owner: Owner, private readonly collections: ShelfCollections) {}

  /** record stores an import's record (inside the transaction of its first writes) and returns its id. */
  record(input: ImportRecordInput, now: number): number {
    return this.owner.db.insert(imports).values({ ...input, userId: this.owner.user.id, createdAt: now }).returning({ id: imports.id }).get()!.id;
  }

  /** wrote adds what one transaction of an import wrote to its record's counts (inside that transaction). */
  wrote(id: number, written: { links: number; collections: number }): void {
    this.owner.db.update(imports)
      .set({ links: sql`${imports.links} + ${written.links}`, collections: sql`${imports.collections} + ${written.collections}` })
      .where(and(eq(imports.id, id), eq(imports.userId, this.owner.user.id))).run();
  }

  /** forget deletes the record of an import that failed (what it wrote is removed first). */
  forget(id: number): void {
    this.owner.db.delete(imports).where(and(eq(imports.id, id), eq(imports.userId, this.owner.user.id))).run();
  }

  /** list is the owner's imports, newest first. */
  list(): ImportJson[] {
    return this.owner.db.select().from(imports).where(eq(imports.userId, this.owner.user.id)).orderBy(desc(imports.id)).all().map(toImportJson);
  }

  /** stands says whether the owner's import with that id exists and is not undone (an import being written checks it between its transactions). */
  stands(id: number): boolean {
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
   * links that were there before it and collections still holding other links are kept. The
   * import is marked undone; undoing it again, like another user's or an unknown one, is NotFound.
   */
  undo(id: number, now: number): ImportUndone {
    const { db } = this.owner;
    return db.transaction(() => {
      this.get(id);
      const removedLinks = deleteLinks(this.owner, eq(links.importId, id));
      const removedCollections = this.collections.deleteEmptyImported(id);
      db.update(imports).set({ undoneAt: now }).where(eq(imports.id, id)).run();
      return { links: removedLinks, collections: removedCollections };
    }, { behavior: "immediate" });
  }
}
