/**
 * The part of the WebExtension API linkshelf uses, typed here instead of pulling in
 * `@types/chrome`: it is exactly the boundary the unit tests fake. In Manifest V3 both
 * Chromium's `chrome` and Firefox's `browser` return promises from these calls.
 */

export interface BookmarkNode {
  id: string;
  parentId?: string;
  index?: number;
  title: string;
  url?: string;
  children?: BookmarkNode[];
  /** Chromium 134+ names its permanent folders ("bookmarks-bar", "other", "mobile"). */
  folderType?: string;
  /** Firefox: "bookmark", "folder" or "separator" (Chromium has no separators). */
  type?: string;
}

/** What a bookmark event tells of a move or a removal. */
export interface BookmarkPlace {
  parentId: string;
  index: number;
  oldParentId?: string;
}

export interface Bookmarks {
  getTree(): Promise<BookmarkNode[]>;
  get(id: string): Promise<BookmarkNode[]>;
  getChildren(id: string): Promise<BookmarkNode[]>;
  /** The node with all its descendants (one element). */
  getSubTree(id: string): Promise<BookmarkNode[]>;
  create(details: { parentId: string; index?: number; title: string; url?: string }): Promise<BookmarkNode>;
  move(id: string, destination: { parentId: string; index: number }): Promise<BookmarkNode>;
  update(id: string, changes: { title?: string; url?: string }): Promise<BookmarkNode>;
  remove(id: string): Promise<void>;
  removeTree(id: string): Promise<void>;
}

export interface StorageArea {
  get(keys: string[]): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string[]): Promise<void>;
}

export interface Identity {
  getRedirectURL(): string;
  launchWebAuthFlow(details: { url: string; interactive: boolean }): Promise<string | undefined>;
}

export interface Permissions {
  request(permissions: { origins: string[] }): Promise<boolean>;
}

export interface Tab {
  id?: number;
  /** The window holding the tab. */
  windowId?: number;
  /** With the `tabs` permission, any tab's; without it, only the tabs `activeTab` or a host permission covers. */
  url?: string;
  title?: string;
}

/** One frame's answer to `scripting.executeScript`. */
export interface InjectionResult {
  frameId?: number;
  result?: unknown;
}

export interface Scripting {
  executeScript(details: { target: { tabId: number }; files: string[] }): Promise<InjectionResult[]>;
  executeScript<Args extends unknown[]>(details: { target: { tabId: number }; func: (...args: Args) => unknown; args: Args }): Promise<InjectionResult[]>;
}

/** How the user chose an omnibox entry: Enter, Alt+Enter, or a middle click. */
export type Disposition = "currentTab" | "newForegroundTab" | "newBackgroundTab";

export interface Suggestion {
  /** What onInputEntered receives when this suggestion is chosen. */
  content: string;
  /** Chromium reads it as XML (`<match>`, `<url>`, `<dim>`); Firefox shows it as plain text. */
  description: string;
}

export interface Omnibox {
  setDefaultSuggestion(suggestion: { description: string }): void | Promise<void>;
  onInputChanged: Event<(text: string, suggest: (suggestions: Suggestion[]) => void) => void>;
  onInputEntered: Event<(text: string, disposition: Disposition) => void>;
}

export interface Tabs {
  /** The tabs matching every given field: the active tab of the current window, or all tabs of one window. */
  query(query: { active?: boolean; currentWindow?: boolean; windowId?: number }): Promise<Tab[]>;
  get(tabId: number): Promise<Tab>;
  create(details: { url: string; active?: boolean }): Promise<Tab>;
  /** Without a tab id: the active tab of the current window. */
  update(details: { url: string }): Promise<Tab>;
}

export interface MenuClick {
  menuItemId: string | number;
  pageUrl?: string;
  linkUrl?: string;
  /** Firefox only: the text of the link clicked. */
  linkText?: string;
  /** The selected text, which Chromium gives for a link only when the link's text is selected. */
  selectionText?: string;
}

interface Event<Listener> {
  addListener(listener: Listener): void;
}

/** The bookmark events the sync listens to (the user's changes and the extension's own alike). */
export interface BookmarkEvents {
  onCreated: Event<(id: string, node: BookmarkNode) => void>;
  onChanged: Event<(id: string, change: { title?: string; url?: string }) => void>;
  onMoved: Event<(id: string, place: BookmarkPlace) => void>;
  onRemoved: Event<(id: string, place: BookmarkPlace) => void>;
  /** Chromium only: Firefox has no such event (a reorder there is a move of each bookmark). */
  onChildrenReordered?: Event<(id: string) => void>;
}

/** The whole API object the extension's scripts use. */
export interface WebExt {
  bookmarks: Bookmarks & BookmarkEvents;
  storage: { local: StorageArea; onChanged: Event<(changes: Record<string, unknown>, area: string) => void> };
  identity: Identity;
  permissions: Permissions;
  tabs: Tabs;
  scripting: Scripting;
  omnibox: Omnibox;
  windows: { create(details: { url: string; type: "popup"; width: number; height: number }): Promise<unknown> };
  alarms: {
    create(name: string, info: { periodInMinutes?: number; when?: number }): Promise<void> | void;
    onAlarm: Event<(alarm: { name: string }) => void>;
  };
  contextMenus: {
    create(details: { id: string; title: string; contexts: string[] }): void;
    removeAll(): Promise<void>;
    onClicked: Event<(info: MenuClick, tab?: Tab) => void>;
  };
  runtime: {
    getURL(path: string): string;
    /** The system the browser runs on (`os`: "linux", "win", "mac", "android", "cros", ...). */
    getPlatformInfo?(): Promise<{ os: string }>;
    openOptionsPage(): Promise<void>;
    sendMessage(message: unknown): Promise<unknown>;
    onMessage: Event<(message: unknown, sender: unknown, respond: (answer: unknown) => void) => boolean | void>;
    onStartup: Event<() => void>;
    onInstalled: Event<(details: { reason: string }) => void>;
  };
}

/** webext is Firefox's `browser` where it exists, else Chromium's `chrome`. */
export function webext(): WebExt {
  const scope = globalThis as { browser?: WebExt; chrome?: WebExt };
  const api = scope.browser ?? scope.chrome;
  if (!api) throw new Error("not running inside a browser extension");
  return api;
}
