/**
 * A shelf's collections: every read and write of the `collections` table for one owner, and
 * the membership join the collection list and the export share. The Inbox rules live here:
 * it is listed first, keeps its own icon, and cannot be deleted.
 */
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { collections, linkCollections, links, type CollectionRow, type LinkRow } from "../db/schema";
import { readDatabaseStamp, StampedAnswers } from "../db/stamp";
import { Conflict, NotFound } from "../errors";
import { toCollectionJson, toLinkJson } from "./json";
import { COLLECTION_LIMITS } from "./limits";
import { DEFAULT_ICON, type CollectionSummary } from "./types";
import type { CollectionBody, CollectionJson } from "../contract/collections";
import type { LinkJson } from "../contract/links";
import { Rules } from "../rules";
import type { ShelfLinks } from "./links";
import { inboxId, INBOX, ownedCollection, type Owner } from "./scope";

/** compareCollections orders collections as every list shows them: the Inbox first, then by name ignoring case, then by id. */
export function compareCollections(a: { isDefault: boolean; name: string; id: number }, b: typeof a): number {
  if (a.isDefault !== b.isDefault) return a.isDefault ? -1 : 1;
  const nameA = a.name.toLowerCase();
  const nameB = b.name.toLowerCase();
  if (nameA !== nameB) return nameA < nameB ? -1 : 1;
  return a.id - b.id;
}

/**
 * KeptLists keeps each user's collection list body (`GET /api/v1/collections`, the extension's
 * start-up read, which can be megabytes) until anything in the database changes
 * (src/db/stamp.ts). The route that answers the list keeps one.
 */
export class KeptLists {
  private readonly bodies = new StampedAnswers<Uint8Array>();

  /** of is the owner's body kept at the database's present stamp, or `build()` kept now. */
  of({ db, user }: Owner, build: () => Uint8Array): Uint8Array {
    return this.bodies.get(readDatabaseStamp(db), user.id, build);
  }
}

/** One link in one of its collections: the membership join's row. */
export type Membership = LinkRow & { collectionId: number };

/** The columns of the membership join, in the order its rows are read (see memberships). */
const MEMBERSHIP_COLUMNS = {
  collectionId: linkCollections.collectionId, id: links.id, userId: links.userId, name: links.name,
  description: links.description, url: links.url, favorite: links.favorite, clicks: links.clicks,
  lastClickedAt: links.lastClickedAt, createdAt: links.createdAt, updatedAt: links.updatedAt,
};
const MEMBERSHIP_KEYS = Object.keys(MEMBERSHIP_COLUMNS) as (keyof Membership)[];

/**
 * checkCollection applies the rules to a collection body. `current` is the stored collection
 * on update: an omitted description or icon keeps its value, and `null` or "" clears it (a
 * cleared icon is the default one again: the Inbox's own for the Inbox).
 */
function checkCollection(input: CollectionBody, current?: CollectionRow) {
  const rules = new Rules();
  const name = rules.name("/name", input.name, 1, COLLECTION_LIMITS.name);
  const rawDescription = input.description === undefined ? current?.description ?? null : input.description;
  const description = rawDescription === null ? null : rules.text("/description", rawDescription, 0, COLLECTION_LIMITS.description) || null;
  const defaultIcon = current?.isDefault ? INBOX.icon : DEFAULT_ICON;
  const rawIcon = input.icon === undefined ? current?.icon ?? defaultIcon : input.icon;
  const icon = rawIcon.trim() === "" ? defaultIcon : rules.emoji("/icon", rawIcon);
  rules.check();
  return { name, description, visibility: input.visibility, icon };
}

/** refuseInbox: the Inbox cannot be deleted (links without a collection live there). */
function refuseInbox(collection: CollectionRow): void {
  if (collection.isDefault) throw new Conflict("DEFAULT_COLLECTION", "The Inbox collection cannot be deleted.");
}

export class ShelfCollections {
  constructor(private readonly owner: Owner, private readonly links: ShelfLinks) {}

  /** rows are the owner's collections, Inbox first, then by name. */
  rows(): CollectionRow[] {
    return this.owner.db.select().from(collections).where(eq(collections.userId, this.owner.user.id)).all().sort(compareCollections);
  }

  /** summaries list the owner's collections (Inbox first, then by name) with their link counts. One query. */
  summaries(): CollectionSummary[] {
    return this.owner.db
      .select({
        collection: collections,
        // Written out: drizzle would name the outer column `"id"`, without its table.
        linkCount: sql<number>`(SELECT count(*) FROM link_collections lc WHERE lc.collection_id = collections.id)`,
      })
      .from(collections)
      .where(eq(collections.userId, this.owner.user.id))
      .all()
      .map((row) => ({ ...row.collection, linkCount: row.linkCount }))
      .sort(compareCollections);
  }

  /** summary is one of the owner's collections with its link count (another user's id: NotFound). */
  summary(id: number): CollectionSummary {
    const found = this.summaries().find((collection) => collection.id === id);
    if (!found) throw new NotFound();
    return found;
  }

  /** inboxId is the id of the owner's Inbox. */
  inboxId(): number {
    return inboxId(this.owner);
  }

  /** deletable is one of the owner's collections that may be deleted: the Inbox is a Conflict. */
  deletable(id: number): CollectionSummary {
    const found = this.summary(id);
    refuseInbox(found);
    return found;
  }

  /** get is one of the owner's collections with its links, newest first (another user's id: NotFound). */
  get(id: number): CollectionJson {
    return toCollectionJson(ownedCollection(this.owner, id), this.owner.user, this.links.inCollection(id));
  }

  /**
   * memberships are every link of the owner in each of its collections, newest first (then by
   * collection). The rows are read as plain arrays and named by MEMBERSHIP_COLUMNS' order:
   * drizzle's per-row mapping cost more than the query itself at 10,000 links.
   */
  memberships(): Membership[] {
    const { db, user } = this.owner;
    const rows = db.values<unknown[]>(db.select(MEMBERSHIP_COLUMNS)
      .from(links)
      .innerJoin(linkCollections, eq(linkCollections.linkId, links.id))
      .where(eq(links.userId, user.id))
      .orderBy(desc(links.createdAt), desc(links.id), asc(linkCollections.collectionId)));
    return rows.map((values) => {
      const row: Record<string, unknown> = {};
      for (let at = 0; at < MEMBERSHIP_KEYS.length; at++) row[MEMBERSHIP_KEYS[at]!] = values[at];
      row.favorite = row.favorite === 1;
      return row as Membership;
    });
  }

  /**
   * listBody is the body of `GET /api/v1/collections`: all of the owner's collections with
   * their links (newest first), `{"collections":[...]}` encoded as UTF-8 once, so that it can
   * be kept and sent many times. Two queries, however many collections and links there are.
   * Each link is stringified once, on its own, then spliced into its collections; one
   * JSON.stringify over the whole nested list measured several times slower here. With
   * `kept`, the body kept there since the database last changed, when there is one.
   */
  listBody(kept?: KeptLists): Uint8Array {
    if (kept) return kept.of(this.owner, () => this.listBody());
    const linkJsonById = new Map<number, LinkJson>();
    const linkIdsByCollection = new Map<number, number[]>();
    for (const { collectionId, ...link } of this.memberships()) {
      let json = linkJsonById.get(link.id);
      if (!json) {
        json = toLinkJson(link, []);
        linkJsonById.set(link.id, json);
      }
      json.collectionIds.push(collectionId);
      const ids = linkIdsByCollection.get(collectionId);
      if (ids) ids.push(link.id);
      else linkIdsByCollection.set(collectionId, [link.id]);
    }
    const linkText = new Map<number, string>();
    for (const json of linkJsonById.values()) {
      json.collectionIds.sort((a, b) => a - b);
      linkText.set(json.id, JSON.stringify(json));
    }

    const parts = this.rows().map((row) => {
      const shell = JSON.stringify(toCollectionJson(row, this.owner.user, []));
      // The only unescaped `"links":[]` in the shell is the key itself: a quote inside a JSON string is always escaped.
      const at = shell.indexOf(EMPTY_LINKS) + EMPTY_LINKS.length - 1;
      const linkList = (linkIdsByCollection.get(row.id) ?? []).map((id) => linkText.get(id)).join(",");
      return shell.slice(0, at) + linkList + shell.slice(at);
    });
    return new TextEncoder().encode(`{"collections":[${parts.join(",")}]}`);
  }

  /** create makes an empty, non-default collection; an import passes its id. */
  create(input: CollectionBody, now: number, importId: number | null = null): CollectionJson {
    const values = checkCollection(input);
    const row = this.owner.db
      .insert(collections)
      .values({ ...values, userId: this.owner.user.id, isDefault: false, createdAt: now, updatedAt: now, importId })
      .returning()
      .all()[0]!;
    return toCollectionJson(row, this.owner.user, []);
  }

  /** update changes a collection's name, description, visibility and icon. */
  update(id: number, input: CollectionBody, now: number): void {
    const { db } = this.owner;
    db.transaction(() => {
      const values = checkCollection(input, ownedCollection(this.owner, id));
      db.update(collections).set({ ...values, updatedAt: now }).where(eq(collections.id, id)).run();
    }, { behavior: "immediate" });
  }

  /**
   * delete deletes a collection but never a link: links that were only in it move to the
   * Inbox, links that are elsewhere too just leave it. The Inbox cannot be deleted.
   */
  delete(id: number): void {
    const { db } = this.owner;
    db.transaction(() => {
      refuseInbox(ownedCollection(this.owner, id));
      const inbox = inboxId(this.owner);
      db.run(sql`
        INSERT INTO ${linkCollections} (link_id, collection_id)
        SELECT lc.link_id, ${inbox} FROM ${linkCollections} AS lc
        WHERE lc.collection_id = ${id}
          AND NOT EXISTS (SELECT 1 FROM ${linkCollections} AS other WHERE other.link_id = lc.link_id AND other.collection_id <> ${id})`);
      db.delete(collections).where(eq(collections.id, id)).run();
    }, { behavior: "immediate" });
  }

  /** deleteEmptyImported deletes the owner's collections that an import created and that hold no link (inside the caller's transaction); returns how many. */
  deleteEmptyImported(importId: number): number {
    return this.owner.db.delete(collections)
      .where(and(
        eq(collections.userId, this.owner.user.id), eq(collections.importId, importId), eq(collections.isDefault, false),
        sql`NOT EXISTS (SELECT 1 FROM ${linkCollections} WHERE ${linkCollections.collectionId} = ${collections.id})`,
      ))
      .returning({ id: collections.id }).all().length;
  }

  /** deleteMany deletes those of `ids` that are the owner's collections, each as `delete` does, in one transaction. */
  deleteMany(ids: readonly number[]): void {
    const { db } = this.owner;
    const wanted = new Set(ids);
    db.transaction(() => {
      for (const row of this.rows()) if (wanted.has(row.id)) this.delete(row.id);
    }, { behavior: "immediate" });
  }
}

const EMPTY_LINKS = '"links":[]';
