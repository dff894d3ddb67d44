/**
 * The write side of a shelf's links: every write of the `links` table and of a link's
 * memberships for one owner (the memberships written through src/shelf/memberships.ts, their one
 * writer), and the rules of a link's fields every writer applies (`linkFields`). `ShelfLinks`
 * extends the read side (`LinkLists`, src/shelf/link-lists.ts): the API, the web pages, the
 * importer and the CLI reach links only through `shelf.links`.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { preparedQueries } from "../db/client";
import { linkCollections, linkHealth, links, type LinkRow } from "../db/schema";
import { Conflict, NotFound } from "../common/errors";
import { toLinkJson } from "./json";
import { LINK_LIMITS, MEMBERSHIP_LIMITS, MEMBERSHIP_MESSAGES } from "./limits";
import { COLLECTION_ACTIONS, type CapturedContent } from "./types";
import { BULK_MAX_IDS, type BulkLinksBody, type CreateLinkBody, type LinkJson, type UpdateLinkBody } from "../contract/links";
import { Rules } from "../common/rules";
import { deferIndexing, indexLink } from "../fulltext/index-text";
import type { ContentBody, ContentSource } from "../contract/content";
import { saveContent, type ContentSaved } from "./contents";
import { deleteLinks, discardLinks } from "./trash";
import { addMemberships, appendLinks, type Memberships } from "./memberships";
import { collectionIdsOf, inboxId, ownedCollection, type Owner } from "./scope";
import { LinkLists, listed, NO_COPY } from "./link-lists";

/** What creating a link runs, built once per database (a POST's own cost is mostly these). */
const linkQueries = preparedQueries((db) => ({
  insertLink: db
    .insert(links)
    .values({
      userId: sql.placeholder("userId"), name: sql.placeholder("name"), description: sql.placeholder("description"),
      url: sql.placeholder("url"), favorite: sql.placeholder("favorite"),
      toRead: sql.placeholder("toRead"), archived: sql.placeholder("archived"),
      createdAt: sql.placeholder("now"), updatedAt: sql.placeholder("now"),
    })
    .returning()
    .prepare(),
}));

/**
 * fullLinks is how many of `ids` (links of the owner's) are in MEMBERSHIP_LIMITS.perLink
 * collections already and not in `collectionId`: adding them there would pass the limit.
 */
function fullLinks({ db }: Owner, ids: readonly number[], collectionId: number): number {
  return db.all<{ n: number }>(sql`
    SELECT count(*) AS n FROM (
      SELECT lc.link_id FROM ${linkCollections} AS lc WHERE lc.link_id IN ${listed(ids)}
      GROUP BY lc.link_id HAVING count(*) >= ${MEMBERSHIP_LIMITS.perLink} AND max(lc.collection_id = ${collectionId}) = 0
    )`)[0]!.n;
}

/**
 * checkBulk applies the rules of a bulk request: 1 to BULK_MAX_IDS positive ids, each once; a
 * collection for move, add and remove, and none for the other actions.
 */
function checkBulk(input: BulkLinksBody): void {
  const rules = new Rules();
  if (input.ids.length === 0 || input.ids.length > BULK_MAX_IDS) {
    rules.fail("/ids", `Expected 1 to ${BULK_MAX_IDS} ids`);
  } else {
    const seen = new Map<number, number>();
    input.ids.forEach((id, at) => {
      if (!Number.isSafeInteger(id) || id < 1) rules.fail(`/ids/${at}`, "Expected the id of one of your links (a positive whole number)");
      else if (seen.has(id)) rules.fail(`/ids/${at}`, `Expected each id once: ${id} is also at /ids/${seen.get(id)}`);
      else seen.set(id, at);
    });
  }
  const needsCollection = COLLECTION_ACTIONS.includes(input.action);
  if (needsCollection && input.collectionId === undefined) rules.fail("/collectionId", `Required by ${input.action}`);
  if (!needsCollection && input.collectionId !== undefined) rules.fail("/collectionId", `Expected no collectionId with ${input.action}: only move, add and remove name a collection`);
  rules.check();
}

/** The values an update keeps when its input omits them (a new link: the defaults). */
type Kept = Pick<LinkRow, "description" | "toRead" | "archived">;
const NEW_LINK: Kept = { description: "", toRead: false, archived: false };

/**
 * linkFields applies the rules of a link's own fields (its name, description and URL) into
 * `rules` and gives them as stored: the one place they are written, for every writer of links
 * (checkLink for the API, the pages and a batch; writeImportedLink for an import).
 */
function linkFields(rules: Rules, input: Pick<LinkRow, "name" | "description" | "url">): Pick<LinkRow, "name" | "description" | "url"> {
  return {
    name: rules.name("/name", input.name, 1, LINK_LIMITS.name),
    description: rules.text("/description", input.description, 0, LINK_LIMITS.description),
    url: rules.url("/url", input.url),
  };
}

/** checkLink applies the rules of a link's fields; `kept` holds the values an omitted field keeps; `known`: collections found to be the owner's already. */
function checkLink(owner: Owner, input: CreateLinkBody, kept: Kept, known?: ReadonlySet<number>) {
  const rules = new Rules();
  const { name, description, url } = linkFields(rules, { name: input.name, description: input.description ?? kept.description, url: input.url });
  const collectionIds = collectionIdsOf(owner, input.collectionIds, rules, known);
  rules.check();
  return { name, description, url, favorite: input.favorite, toRead: input.toRead ?? kept.toRead, archived: input.archived ?? kept.archived, collectionIds };
}

/**
 * What a writer of many links in one transaction (a batch) keeps from one link to the next: the
 * transaction's memberships (each collection's next place, and the change feed's marks written
 * once at its end) and the collections it found to be the owner's (not looked up again).
 */
export interface LinkWriting {
  memberships: Memberships;
  owned: ReadonlySet<number>;
}

/**
 * writeLink stores a new link (clicks 0) in its collections, or the Inbox, inside the caller's
 * transaction: the rules and the insert of every link written. The caller's transaction is what
 * rolls back a failure, and the caller tells `afterWrite` once it is committed (linkSaved).
 */
export function writeLink(owner: Owner, input: CreateLinkBody, now: number, writing?: LinkWriting): LinkJson {
  const { db, user } = owner;
  const { collectionIds, ...fields } = checkLink(owner, input, NEW_LINK, writing?.owned);
  const queries = linkQueries(db);
  const row = queries.insertLink.all({ userId: user.id, ...fields, now })[0]!;
  if (writing) writing.memberships.add(row.id, collectionIds);
  else addMemberships(owner, row.id, collectionIds);
  deferIndexing(db, row.id);
  return toLinkJson(row, collectionIds, NO_COPY);
}

/** An import's link as the shelf stores it: the API's fields, its reading flags, its dates and clicks (a linkshelf JSON export's), in one collection. */
export interface ImportedLinkRow {
  name: string;
  url: string;
  description: string;
  favorite: boolean;
  toRead: boolean;
  archived: boolean;
  createdAt: number;
  updatedAt: number;
  clicks: number;
  lastClickedAt: number | null;
}

/**
 * writeImportedLink stores one link of an import at the end of one collection's order, inside the
 * import's transaction: the rules of a link's fields, then one insert of the link (with its
 * clicks) and one of its membership (through the transaction's `memberships`), each a statement
 * compiled once. The caller has made sure the collection is the owner's (one the import made, or
 * one it checked in this transaction), marks the links for the index (deferIndexingMany) and
 * tells `afterWrite` once committed; `memberships` marks the change feed. Returns the link's id
 * and URL as stored.
 */
export function writeImportedLink(owner: Owner, input: ImportedLinkRow, collectionId: number, importId: number | null, memberships: Memberships): { id: number; url: string } {
  const rules = new Rules();
  const { name, description, url } = linkFields(rules, input);
  rules.check();
  // Raw statement (a measured hot path, the import's): the new row's id without RETURNING, which costs SQLite a result table per row (~2 µs).
  const id = Number(owner.db.$client
    .query<never, [number, string, string, string, number, number, number, number, number | null, number, number, number | null]>(
      "INSERT INTO links (user_id, name, description, url, favorite, to_read, archived, clicks, last_clicked_at, created_at, updated_at, import_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    .run(owner.user.id, name, description, url, input.favorite ? 1 : 0, input.toRead ? 1 : 0, input.archived ? 1 : 0, input.clicks, input.lastClickedAt, input.createdAt, input.updatedAt, importId).lastInsertRowid);
  memberships.add(id, [collectionId]);
  return { id, url };
}

/**
 * addFlags sets the reading flags `flags` names on some of the owner's links, inside the caller's
 * transaction, and never clears one (an import meeting a link again, the offer to turn the
 * "To read" and "Archive" collections into flags): a flag already set stays, a flag not named is
 * left as it is. A link that changes has its updatedAt moved (the change feed carries it); one
 * that already had them is left alone.
 */
export function addFlags(owner: Owner, ids: readonly number[], flags: { toRead: boolean; archived: boolean }, now: number): void {
  if (ids.length === 0 || (!flags.toRead && !flags.archived)) return;
  const toRead = flags.toRead ? 1 : 0;
  const archived = flags.archived ? 1 : 0;
  owner.db.update(links)
    .set({ toRead: sql`${links.toRead} OR ${toRead}`, archived: sql`${links.archived} OR ${archived}`, updatedAt: now })
    .where(and(eq(links.userId, owner.user.id), inArray(links.id, listed(ids)),
      sql`((${toRead} AND NOT ${links.toRead}) OR (${archived} AND NOT ${links.archived}))`))
    .run();
}

/** linkSaved tells the owner's `afterWrite` of a link whose page is new (created, or given another URL), once its write is committed. */
export function linkSaved(owner: Owner, link: { id: number; url: string }, page?: CapturedContent | null): void {
  owner.afterWrite?.linkSaved(link.id, owner.user.id, link.url, page);
}

/** `shelf.links`: the reads of LinkLists (src/shelf/link-lists.ts) and the writes of one owner's links. */
export class ShelfLinks extends LinkLists {
  /**
   * setContent stores the page content of one of the owner's links and re-indexes it; a
   * `server` content never replaces a `browser` one (then `stored` is false).
   */
  setContent(id: number, input: ContentBody, source: ContentSource, now: number): ContentSaved {
    return saveContent(this.owner, id, input, source, now);
  }

  /**
   * create stores a new link (clicks 0) in its collections, or the Inbox, in a transaction of its
   * own, then tells `afterWrite`; `page` is the link's page when the caller read it already.
   */
  create(input: CreateLinkBody, now: number, page?: CapturedContent | null): LinkJson {
    const link = this.owner.db.transaction(() => writeLink(this.owner, input, now), { behavior: "immediate" });
    linkSaved(this.owner, link, page);
    return link;
  }

  /**
   * add is `create` inside the caller's transaction (the API's writes run in the group commit's):
   * no savepoint of its own, which cost a POST a fifth of its time. `afterWrite` hears of the link
   * at once, so the caller's must wait for the commit (the API's does). A caller writing many links
   * in its transaction (a batch) keeps its memberships and the collections it found from one to the next (`writing`).
   */
  add(input: CreateLinkBody, now: number, writing?: LinkWriting): LinkJson {
    const link = writeLink(this.owner, input, now, writing);
    linkSaved(this.owner, link);
    return link;
  }

  /**
   * addTo puts one of the owner's links at the end of one of the owner's collections' order
   * (either unknown, or another user's: NotFound), inside the caller's transaction; the link's
   * updatedAt stays. An import adds a link it met before to the next folder it is in.
   */
  addTo(id: number, collectionId: number): void {
    this.row(id);
    ownedCollection(this.owner, collectionId);
    if (fullLinks(this.owner, [id], collectionId) > 0) {
      const rules = new Rules();
      rules.fail("/collectionIds", MEMBERSHIP_MESSAGES.perLink);
      rules.check();
    }
    addMemberships(this.owner, id, [collectionId]);
  }

  /**
   * update replaces a link's fields and collections (an omitted description keeps its value); a
   * new URL is told to `afterWrite` once committed. A collection the link stays in keeps its place
   * in that collection's order; a new one gets it at the end.
   */
  update(id: number, input: UpdateLinkBody, now: number): void {
    const { db } = this.owner;
    const newUrl = db.transaction(() => {
      const before = this.row(id);
      const { collectionIds, ...fields } = checkLink(this.owner, input, before);
      db.update(links).set({ ...fields, updatedAt: now }).where(eq(links.id, id)).run();
      const kept = new Set(db.select({ id: linkCollections.collectionId }).from(linkCollections).where(eq(linkCollections.linkId, id)).all().map((row) => row.id));
      db.delete(linkCollections).where(and(eq(linkCollections.linkId, id), sql`${linkCollections.collectionId} NOT IN ${listed(collectionIds)}`)).run();
      addMemberships(this.owner, id, collectionIds.filter((collectionId) => !kept.has(collectionId)));
      indexLink(db, id);
      const moved = fields.url !== before.url;
      // What was found at the old address says nothing of the new one.
      if (moved) db.delete(linkHealth).where(eq(linkHealth.linkId, id)).run();
      return moved ? fields.url : undefined;
    }, { behavior: "immediate" });
    if (newUrl !== undefined) linkSaved(this.owner, { id, url: newUrl });
  }

  /**
   * setFlags puts one of the owner's links on or off the reading list and in or out of the
   * archive (a flag omitted keeps its value), as an update would (updatedAt moves; the change
   * feed carries it). Returns the link as it now is.
   */
  setFlags(id: number, flags: { toRead?: boolean; archived?: boolean }, now: number): LinkJson {
    const { db } = this.owner;
    db.transaction(() => {
      const link = this.row(id);
      db.update(links).set({ toRead: flags.toRead ?? link.toRead, archived: flags.archived ?? link.archived, updatedAt: now }).where(eq(links.id, id)).run();
    }, { behavior: "immediate" });
    return this.get(id);
  }

  /** toggleFavorite flips a link's favorite flag, as an update would (updatedAt moves). */
  toggleFavorite(id: number, now: number): void {
    const { db } = this.owner;
    db.transaction(() => {
      const link = this.row(id);
      db.update(links).set({ favorite: !link.favorite, updatedAt: now }).where(eq(links.id, id)).run();
    }, { behavior: "immediate" });
  }

  /** delete deletes one of the owner's links: into the trash (src/shelf/trash.ts), with its memberships, text and health. */
  delete(id: number, now: number): void {
    this.owner.db.transaction(() => {
      this.row(id);
      discardLinks(this.owner, [id], now);
    }, { behavior: "immediate" });
  }

  /** deleteMany deletes those of `ids` that are the owner's links for good (never into the trash: a failed import's own), in one transaction. */
  deleteMany(ids: readonly number[]): void {
    this.owner.db.transaction(() => void deleteLinks(this.owner, inArray(links.id, listed(ids))), { behavior: "immediate" });
  }

  /**
   * bulk applies one action to many of the owner's links in one transaction, all or nothing,
   * in a bounded number of statements however many ids: the rules (ValidationFailed), then
   * every id must be one of the owner's links and the collection one of theirs (NotFound), an added link
   * must stay in at most MEMBERSHIP_LIMITS.perLink collections (ValidationFailed),
   * and links cannot be removed from the Inbox (Conflict). Every action but delete moves the
   * links' updatedAt, as the single update doing the same would. Returns how many links it acted on.
   */
  bulk(input: BulkLinksBody, now: number): number {
    checkBulk(input);
    const { db, user } = this.owner;
    const ids = listed(input.ids);
    return db.transaction(() => {
      const owned = db.select({ n: sql<number>`count(*)` }).from(links).where(and(eq(links.userId, user.id), inArray(links.id, ids))).get()!.n;
      if (owned !== input.ids.length) throw new NotFound();
      const collection = input.collectionId === undefined ? undefined : ownedCollection(this.owner, input.collectionId);
      const touch = (favorite?: boolean) =>
        db.update(links).set({ updatedAt: now, ...(favorite === undefined ? {} : { favorite }) }).where(and(eq(links.userId, user.id), inArray(links.id, ids))).run();
      // At the end of the collection's order, in the order the ids are given.
      const addTo = (collectionId: number, onlyHomeless = false) => appendLinks(this.owner, collectionId, input.ids, onlyHomeless);
      switch (input.action) {
        case "favorite":
        case "unfavorite":
          touch(input.action === "favorite");
          break;
        case "delete":
          discardLinks(this.owner, input.ids, now);
          break;
        case "move":
          db.delete(linkCollections).where(and(inArray(linkCollections.linkId, ids), sql`${linkCollections.collectionId} <> ${collection!.id}`)).run();
          addTo(collection!.id);
          touch();
          break;
        case "add": {
          const full = fullLinks(this.owner, input.ids, collection!.id);
          if (full > 0) {
            const rules = new Rules();
            rules.fail("/ids", MEMBERSHIP_MESSAGES.bulkFull(full));
            rules.check();
          }
          addTo(collection!.id);
          touch();
          break;
        }
        case "remove":
          if (collection!.isDefault) throw new Conflict("DEFAULT_COLLECTION", "Links cannot be removed from the Inbox collection: move them to another collection instead.");
          db.delete(linkCollections).where(and(eq(linkCollections.collectionId, collection!.id), inArray(linkCollections.linkId, ids))).run();
          addTo(inboxId(this.owner), true);
          touch();
          break;
      }
      return input.ids.length;
    }, { behavior: "immediate" });
  }
}
