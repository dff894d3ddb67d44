/**
 * The browser at the extension's boundary, in memory: a bookmarks tree, a storage area, tabs and
 * script injection that behave like the real APIs as far as the extension uses them, and a
 * fetch that hands requests to the real app.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BookmarkNode, Bookmarks, InjectionResult, Scripting, StorageArea, Tab } from "../../extension/src/webext";
import type { TestEnv } from "./helpers";

/**
 * How a browser reads `move`'s index within the same folder: Chromium as a position before the
 * bookmark leaves (moving down lands one short), Firefox-style as the final position.
 */
export type MoveSemantics = "before-removal" | "final";

interface Node {
  id: string;
  title: string;
  url?: string;
  folderType?: string;
  children?: Node[];
  parent?: Node;
}

export class FakeBookmarks implements Bookmarks {
  readonly root: Node = { id: "0", title: "", children: [] };
  readonly calls: string[] = [];
  private nextId = 100;

  constructor(private readonly semantics: MoveSemantics = "before-removal") {
    this.attach(this.root, { id: "1", title: "Bookmarks bar", folderType: "bookmarks-bar", children: [] });
    this.attach(this.root, { id: "2", title: "Other bookmarks", folderType: "other", children: [] });
  }

  get bar(): Node {
    return this.root.children![0]!;
  }

  private attach(parent: Node, node: Node, index = parent.children!.length) {
    node.parent = parent;
    parent.children!.splice(index, 0, node);
  }

  private find(id: string, from: Node = this.root): Node | undefined {
    if (from.id === id) return from;
    for (const child of from.children ?? []) {
      const found = this.find(id, child);
      if (found) return found;
    }
    return undefined;
  }

  private must(id: string): Node {
    const node = this.find(id);
    if (!node) throw new Error(`Can't find bookmark for id.`);
    return node;
  }

  private view(node: Node, deep = false): BookmarkNode {
    const view: BookmarkNode = { id: node.id, title: node.title };
    if (node.parent) {
      view.parentId = node.parent.id;
      view.index = node.parent.children!.indexOf(node);
    }
    if (node.url !== undefined) view.url = node.url;
    if (node.folderType !== undefined) view.folderType = node.folderType;
    if (deep && node.children) view.children = node.children.map((child) => this.view(child, true));
    return view;
  }

  async getTree() {
    return [this.view(this.root, true)];
  }
  async get(id: string) {
    return [this.view(this.must(id))];
  }
  async getChildren(id: string) {
    return (this.must(id).children ?? []).map((child) => this.view(child));
  }
  async getSubTree(id: string) {
    return [this.view(this.must(id), true)];
  }
  async create(details: { parentId: string; index?: number; title: string; url?: string }) {
    this.calls.push(`create ${details.title}`);
    const parent = this.must(details.parentId);
    const node: Node = { id: String(this.nextId++), title: details.title, ...(details.url === undefined ? { children: [] } : { url: details.url }) };
    this.attach(parent, node, Math.min(details.index ?? parent.children!.length, parent.children!.length));
    return this.view(node);
  }
  async move(id: string, destination: { parentId: string; index: number }) {
    this.calls.push(`move ${id}`);
    const node = this.must(id);
    const parent = this.must(destination.parentId);
    const from = node.parent!.children!.indexOf(node);
    let index = destination.index;
    if (this.semantics === "before-removal" && node.parent === parent && index > from) index--;
    node.parent!.children!.splice(from, 1);
    this.attach(parent, node, Math.min(index, parent.children!.length));
    return this.view(node);
  }
  async update(id: string, changes: { title?: string; url?: string }) {
    this.calls.push(`rename ${id}`);
    const node = this.must(id);
    if (changes.title !== undefined) node.title = changes.title;
    if (changes.url !== undefined) {
      if (node.url === undefined) throw new Error("Can't set URL of a bookmark folder.");
      node.url = changes.url;
    }
    return this.view(node);
  }
  async remove(id: string) {
    this.calls.push(`remove ${id}`);
    const node = this.must(id);
    if (node.children && node.children.length > 0) throw new Error("Can't remove non-empty folder (use recursive to force).");
    node.parent!.children!.splice(node.parent!.children!.indexOf(node), 1);
  }
  async removeTree(id: string) {
    this.calls.push(`removeTree ${id}`);
    const node = this.must(id);
    node.parent!.children!.splice(node.parent!.children!.indexOf(node), 1);
  }

  /** titles lists a folder's children as `title url` lines (a subfolder as `title/`). */
  titles(id: string): string[] {
    return (this.must(id).children ?? []).map((child) => (child.url === undefined ? `${child.title}/` : `${child.title} ${child.url}`));
  }

  /** add puts a bookmark or folder somewhere directly, as the user would. */
  add(parentId: string, title: string, url?: string): string {
    const node: Node = { id: String(this.nextId++), title, ...(url === undefined ? { children: [] } : { url }) };
    this.attach(this.must(parentId), node);
    return node.id;
  }
}

export class FakeStorage implements StorageArea {
  readonly data = new Map<string, unknown>();
  /** The keys of every read, in order. */
  readonly reads: string[][] = [];
  async get(keys: string[]) {
    this.reads.push([...keys]);
    return Object.fromEntries(keys.filter((key) => this.data.has(key)).map((key) => [key, structuredClone(this.data.get(key))]));
  }
  async set(items: Record<string, unknown>) {
    for (const [key, value] of Object.entries(items)) this.data.set(key, structuredClone(value));
  }
  async remove(keys: string[]) {
    for (const key of keys) this.data.delete(key);
  }
}

/** The origin the app answers to through `app.handle` (Elysia does not route a host as short as `x`). */
export const APP_ORIGIN = "http://localhost";

/** appFetch is a fetch that hands every request to the real app, as if it were on the network. */
export function appFetch(env: TestEnv, seen: Request[] = []): typeof fetch {
  const send = async (input: string, init?: RequestInit) => {
    seen.push(new Request(input, init));
    return env.app.handle(new Request(input, init));
  };
  return send as typeof fetch;
}

/** FakeTabs records the tabs the extension opens or points elsewhere, and knows the tabs it was given. */
export class FakeTabs {
  readonly opened: { url: string; active?: boolean; in: "new tab" | "current tab" }[] = [];
  constructor(readonly known: Tab[] = []) {}
  async create(details: { url: string; active?: boolean }): Promise<Tab> {
    this.opened.push({ ...details, in: "new tab" });
    return { id: 1000 + this.opened.length, url: details.url };
  }
  async update(details: { url: string }): Promise<Tab> {
    this.opened.push({ ...details, in: "current tab" });
    return { id: 1, url: details.url };
  }
  async get(tabId: number): Promise<Tab> {
    const tab = this.known.find((known) => known.id === tabId);
    if (!tab) throw new Error(`No tab with id: ${tabId}.`);
    return tab;
  }
}

/**
 * FakeScripting is `scripting.executeScript` on one tab holding `document` (a linkedom page):
 * files are read from the built extension `folder` and run, and a function is run from its
 * source text as the browsers do, both with a `globalThis` of their own standing for the
 * extension's isolated world. A tab the browser does not let extensions script throws, with
 * Chromium's message.
 */
export class FakeScripting implements Scripting {
  readonly world: Record<string, unknown> = {};
  readonly calls: string[] = [];
  constructor(
    private readonly tabId: number,
    private readonly document: unknown,
    private readonly folder: string,
    private readonly scriptable = true,
  ) {}

  private run(source: string, args: unknown[]): unknown {
    return new Function("globalThis", "document", "args", source)(this.world, this.document, args);
  }

  async executeScript(details: { target: { tabId: number }; files?: string[]; func?: (...args: never[]) => unknown; args?: unknown[] }): Promise<InjectionResult[]> {
    this.calls.push(details.files ? `files ${details.files.join()}` : "func");
    if (details.target.tabId !== this.tabId) throw new Error(`No tab with id: ${details.target.tabId}.`);
    if (!this.scriptable) throw new Error("Cannot access contents of the page. Extension manifest must request permission to access the respective host.");
    if (details.files) {
      for (const file of details.files) this.run(readFileSync(join(this.folder, file), "utf8"), []);
      return [{ frameId: 0, result: undefined }];
    }
    return [{ frameId: 0, result: this.run(`return (${String(details.func)})(...args);`, details.args ?? []) }];
  }
}
