/**
 * A shelf is one user's links, collections, memberships, imports, API tokens, approved extensions, link health and idempotency keys:
 * the only way in to them. The auth plugins resolve a request to a shelf (not a bare user),
 * and the API routes, the pages, the CLI and the importer call only its methods. Every query
 * behind them is scoped to the owner by construction, so no caller checks ownership: another
 * user's id is NotFound like an unknown one. Anonymous reads (a public link, a public
 * collection) go through src/shelf/visibility.ts instead.
 */
import type { Db } from "../db/client";
import type { UserRow } from "../db/schema";
import { ShelfChanges } from "./changes";
import { ShelfCollections } from "./collections";
import { ShelfCopies } from "./copies";
import { ShelfExtensions } from "./extensions";
import { ShelfHealth } from "./link-health";
import { ShelfImports } from "./imports";
import { ShelfKeys } from "./idempotency-keys";
import { ShelfLinks } from "./links";
import { ShelfReadingOffer } from "./reading-offer";
import type { Owner } from "./scope";
import { ShelfTokens } from "./tokens";
import { ShelfTrash } from "./trash";
import type { AfterWrite } from "./types";

/**
 * The database as the shelf names it: what a route, the page guard or the redirect holds to
 * open a shelf or to call one of the shelf's functions (visibility.ts, clicks.ts), never to query
 * it. Everything above the shelf names it so and imports nothing of src/db/.
 */
export type ShelfDb = Db;

/** Who a signed-in page is drawn for: the user, how many of their links are on the reading list, broken, and how many items their trash holds (the navigation shows each). */
export interface Viewer extends UserRow {
  toRead: number;
  brokenLinks: number;
  trashItems: number;
}

export class Shelf implements Owner {
  readonly links: ShelfLinks;
  readonly collections: ShelfCollections;
  readonly tokens: ShelfTokens;
  readonly extensions: ShelfExtensions;
  readonly health: ShelfHealth;
  readonly imports: ShelfImports;
  readonly trash: ShelfTrash;
  readonly changes: ShelfChanges;
  readonly keys: ShelfKeys;
  readonly copies: ShelfCopies;
  /** The one-time offer to turn the "To read" and "Archive" collections of earlier imports into the reading flags. */
  readonly readingOffer: ShelfReadingOffer;

  /**
   * `afterWrite`: what follows the shelf's committed writes of links (the app gives its page
   * capture; none in the CLI). `trashDays`: how long deleted items stay in the trash (the app's
   * LINKSHELF_TRASH_DAYS; 30 when not given, 0 deletes at once). `copyQuota`: the stored bytes
   * the owner's page copies may take (LINKSHELF_COPY_QUOTA; 2 GiB when not given).
   */
  constructor(readonly db: Db, readonly user: UserRow, readonly afterWrite?: AfterWrite, readonly trashDays?: number, readonly copyQuota?: number) {
    this.links = new ShelfLinks(this);
    this.collections = new ShelfCollections(this, this.links);
    this.tokens = new ShelfTokens(this);
    this.extensions = new ShelfExtensions(this, this.tokens);
    this.health = new ShelfHealth(this, this.links);
    this.imports = new ShelfImports(this, this.collections, this.links);
    this.trash = new ShelfTrash(this);
    this.changes = new ShelfChanges(this, this.links);
    this.keys = new ShelfKeys(this);
    this.copies = new ShelfCopies(this);
    this.readingOffer = new ShelfReadingOffer(this);
  }

  /** viewer is the signed-in pages' view of the owner: the user, their count of links to read, of broken links and of trashed items (one query each). */
  viewer(): Viewer {
    return { ...this.user, toRead: this.links.toReadCount(), brokenLinks: this.health.counts().broken, trashItems: this.trash.counts().items };
  }
}
