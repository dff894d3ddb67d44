/**
 * What the folder sync's end-to-end tests read and write on both sides: the server through its
 * API with the CLI's token, and a browser's bookmarks through expressions evaluated inside the
 * extension (the same text for Chromium's service worker and Firefox's extension pages).
 */
import { expect } from "bun:test";
import type { CollectionJson } from "../../src/contract/collections";
import type { LinkJson } from "../../src/contract/links";

/** The parts of a listed collection treeLines reads. */
export interface ListedCollection {
  id: number;
  name: string;
  order: { kind: "link" | "collection"; id: number }[];
  links: { id: number; name: string; url: string }[];
}

/**
 * treeLines is a collection's subtree as lines, in its order: `Name/` for a sub-collection (its
 * items indented below), `Name url` for a link; the form the tests write a browser folder in too.
 */
export function treeLines(collections: readonly ListedCollection[], collectionId: number): string[] {
  const byId = new Map(collections.map((collection) => [collection.id, collection]));
  const lines: string[] = [];
  const walk = (id: number, depth: number) => {
    const collection = byId.get(id)!;
    const links = new Map(collection.links.map((link) => [link.id, link]));
    for (const item of collection.order) {
      if (item.kind === "collection") {
        lines.push(`${"  ".repeat(depth)}${byId.get(item.id)!.name}/`);
        walk(item.id, depth + 1);
      } else {
        const link = links.get(item.id)!;
        lines.push(`${"  ".repeat(depth)}${link.name} ${link.url}`);
      }
    }
  };
  walk(collectionId, 0);
  return lines;
}

/** The API as the person (or another client) uses it, with a token of the stack's user. */
export class SyncApi {
  constructor(readonly origin: string, readonly token: string) {}

  async call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** under is the collection and its sub-collections at every depth (`GET /api/v1/collections?under=`). */
  async under(collectionId: number): Promise<CollectionJson[]> {
    return (await this.call<{ collections: CollectionJson[] }>("GET", `/api/v1/collections?under=${collectionId}`)).collections;
  }

  /** tree is a collection's subtree as lines (treeLines). */
  async tree(collectionId: number): Promise<string[]> {
    return treeLines(await this.under(collectionId), collectionId);
  }

  /** find is the id of the link, or the sub-collection, of that name in the subtree. */
  async find(collectionId: number, kind: "link" | "collection", name: string): Promise<number> {
    const collections = await this.under(collectionId);
    const found = kind === "collection"
      ? collections.find((collection) => collection.name === name)?.id
      : collections.flatMap((collection) => collection.links).find((link) => link.name === name)?.id;
    if (found === undefined) throw new Error(`no ${kind} named ${name} under ${collectionId}`);
    return found;
  }

  /** trash is what the trash holds, as `kind name`, newest first. */
  async trash(): Promise<string[]> {
    return (await this.call<{ items: { kind: string; name: string }[] }>("GET", "/api/v1/trash")).items.map((item) => `${item.kind} ${item.name}`);
  }

  async createCollection(name: string, parentId?: number): Promise<number> {
    return (await this.call<{ collection: { id: number } }>("POST", "/api/v1/collections", { name, visibility: "PRIVATE", ...(parentId === undefined ? {} : { parentId }) })).collection.id;
  }

  async createLink(name: string, url: string, collectionIds: number[]): Promise<number> {
    return (await this.call<{ link: { id: number } }>("POST", "/api/v1/links", { name, url, favorite: false, collectionIds })).link.id;
  }

  /** updateLink changes a link's name, address or collections, keeping the rest. */
  async updateLink(id: number, fields: { name?: string; url?: string; collectionIds?: number[] }): Promise<void> {
    const { link } = await this.call<{ link: LinkJson }>("GET", `/api/v1/links/${id}`);
    await this.call("PUT", `/api/v1/links/${id}`, { name: fields.name ?? link.name, url: fields.url ?? link.url, favorite: link.favorite, collectionIds: fields.collectionIds ?? link.collectionIds });
  }

  async renameCollection(id: number, name: string): Promise<void> {
    await this.call("PUT", `/api/v1/collections/${id}`, { name, visibility: "PRIVATE" });
  }

  /** order puts a collection's items in the order of their names (each a link's or a sub-collection's). */
  async order(collectionId: number, names: string[]): Promise<void> {
    const subtree = await this.under(collectionId);
    const collection = subtree[0];
    const subs = new Map(subtree.map((sub) => [sub.id, sub.name]));
    const nameOf = (item: { kind: string; id: number }) => (item.kind === "collection" ? subs.get(item.id) : collection!.links.find((link) => link.id === item.id)?.name);
    const order = names.map((name) => {
      const item = collection!.order.find((candidate) => nameOf(candidate) === name);
      if (item === undefined) throw new Error(`no item named ${name} in ${collectionId}`);
      return item;
    });
    await this.call("PUT", `/api/v1/collections/${collectionId}/order`, { order });
  }

  async deleteLink(id: number): Promise<void> {
    await this.call("DELETE", `/api/v1/links/${id}`);
  }

  /** deleteCollection sends the collection with its subtree and the links only in it to the trash. */
  async deleteCollection(id: number): Promise<void> {
    await this.call("DELETE", `/api/v1/collections/${id}?contents=1`);
  }
}

/**
 * The text of a function evaluated inside the extension (a Chromium service worker or page,
 * a Firefox extension page): `api` is `chrome` or `browser`, whichever the browser has.
 */
const API = `(globalThis.browser ?? globalThis.chrome)`;

/** treeOf is an expression for the bookmark folder's contents as lines in the form of SyncApi.tree, as JSON. */
export function treeOf(folderId: string): string {
  return `${API}.bookmarks.getSubTree(${JSON.stringify(folderId)}).then(([root]) => {
    const lines = [];
    const walk = (node, depth) => {
      for (const child of node.children ?? []) {
        if (child.url === undefined) {
          lines.push("  ".repeat(depth) + child.title + "/");
          walk(child, depth + 1);
        } else lines.push("  ".repeat(depth) + child.title + " " + child.url);
      }
    };
    walk(root, 0);
    return JSON.stringify(lines);
  })`;
}

/**
 * bookmarkCall is an expression that calls `bookmarks.<method>` with the arguments and answers
 * its result as JSON: the person's edits, made through the same API the browser's own bookmark
 * manager uses, so the extension hears the same events.
 */
export function bookmarkCall(method: "create" | "update" | "move" | "remove" | "removeTree" | "getChildren" | "get", ...args: unknown[]): string {
  return `${API}.bookmarks.${method}(${args.map((arg) => JSON.stringify(arg)).join(", ")}).then((result) => JSON.stringify(result ?? null))`;
}

/** childId is an expression for the id of the child of `parentId` with that title. */
export function childId(parentId: string, title: string): string {
  return `${API}.bookmarks.getChildren(${JSON.stringify(parentId)}).then((children) => {
    const found = children.find((child) => child.title === ${JSON.stringify(title)});
    if (!found) throw new Error("no bookmark titled " + ${JSON.stringify(title)});
    return JSON.stringify(found.id);
  })`;
}

/** expectStatus checks the sync's status line: the last sync's time, how many items it holds, and what it did. */
export function expectStatus(line: string, items: number, message: RegExp): void {
  const match = /^Last sync (.+?): (\d+) items?\. (.*)$/.exec(line);
  expect(match, `status line ${JSON.stringify(line)}`).not.toBeNull();
  expect(Number(match![2])).toBe(items);
  expect(match![3]).toMatch(message);
}
