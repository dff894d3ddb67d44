/**
 * A shelf is one user's links, collections, memberships, imports, API tokens and approved extensions:
 * the only way in to them. The auth plugins resolve a request to a shelf (not a bare user),
 * and the API routes, the pages, the CLI and the importer call only its methods. Every query
 * behind them is scoped to the owner by construction, so no caller checks ownership: another
 * user's id is NotFound like an unknown one. Anonymous reads (a public link, a public
 * collection) go through src/shelf/visibility.ts instead.
 */
import type { Db } from "../db/client";
import type { UserRow } from "../db/schema";
import { ShelfCollections } from "./collections";
import { ShelfExtensions } from "./extensions";
import { ShelfImports } from "./imports";
import { ShelfLinks } from "./links";
import type { Owner } from "./scope";
import { ShelfTokens } from "./tokens";

export class Shelf implements Owner {
  readonly links: ShelfLinks;
  readonly collections: ShelfCollections;
  readonly tokens: ShelfTokens;
  readonly extensions: ShelfExtensions;
  readonly imports: ShelfImports;

  constructor(readonly db: Db, readonly user: UserRow) {
    this.links = new ShelfLinks(this);
    this.collections = new ShelfCollections(this, this.links);
    this.tokens = new ShelfTokens(this);
    this.extensions = new ShelfExtensions(this, this.tokens);
    this.imports = new ShelfImports(this, this.collections);
  }
}
