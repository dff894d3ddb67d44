/**
 * The background script (Chromium service worker, Firefox event page): keeps the pinned folder
 * in step with the server, on start, on a timer, after a save and when the settings change, and
 * offers "Save page to linkshelf…" and "Save link to linkshelf…" in the context menu and the
 * address bar's keyword `ls`. Listeners are registered at the top level so a restarted worker
 * receives the event that woke it.
 */
import { MENU_ITEMS, menuPopupQuery } from "./menu";
import { createOmnibox, DEFAULT_SUGGESTION, type OmniboxHandlers } from "./omnibox";
import { syncFavorites, type SyncOutcome } from "./pins";
import { approve, putBack, syncFolder } from "./sync/engine";
import { BookmarkEvents } from "./sync/events";
import { webext } from "./webext";

const ext = webext();
const REFRESH_ALARM = "linkshelf-refresh";
const RETRY_ALARM = "linkshelf-retry";
const REFRESH_MINUTES = 15;
/** Settings whose change calls for a refresh (the sync's own writes are not among them). */
const WATCHED = ["server", "token", "pinCount"];

let queue: Promise<unknown> = Promise.resolve();

/** refresh runs one sync after any running one (two at once would both add the same bookmarks). */
function refresh(): Promise<SyncOutcome> {
  const next = queue.then(() => syncFavorites({ bookmarks: ext.bookmarks, storage: ext.storage.local }));
  queue = next.catch(() => undefined);
  return next.then((outcome) => {
    // Rate limited: try once more when the server says, not before.
    if (outcome.retryAfterSeconds > 0) void ext.alarms.create(RETRY_ALARM, { when: Date.now() + outcome.retryAfterSeconds * 1000 });
    return outcome;
  });
}

/** The folder sync: every minute (one request when nothing changed), soon after a bookmark changes, and when asked. */
const SYNC_ALARM = "linkshelf-sync";
const SYNC_MINUTES = 1;

let syncQueue: Promise<unknown> = Promise.resolve();

/** syncNow runs one folder sync after any running one, with the change times noted until then. */
function syncNow(force = false): Promise<unknown> {
  const next = syncQueue.then(async () => {
    await events.write();
    return syncFolder({ bookmarks: ext.bookmarks, storage: ext.storage.local, writing: (on) => events.syncWriting(on) }, { force });
  });
  syncQueue = next.catch(() => undefined);
  return next;
}

/** The person's bookmark changes: noted in memory, written once per burst, then one sync. */
const events: BookmarkEvents = new BookmarkEvents({ storage: ext.storage.local, sync: () => syncNow() });
ext.bookmarks.onCreated.addListener((id, node) => events.created(id, node));
ext.bookmarks.onChanged.addListener((id, change) => events.changed(id, change));
ext.bookmarks.onMoved.addListener((id, place) => events.moved(id, place));
ext.bookmarks.onRemoved.addListener((_id, place) => events.removed(place));
// Firefox lacks it: reaching for it there would stop this script before its other listeners.
ext.bookmarks.onChildrenReordered?.addListener((id) => events.reordered(id));

function start() {
  void ext.alarms.create(REFRESH_ALARM, { periodInMinutes: REFRESH_MINUTES });
  void ext.alarms.create(SYNC_ALARM, { periodInMinutes: SYNC_MINUTES });
  void refresh();
  void syncNow();
}

ext.runtime.onInstalled.addListener(({ reason }) => {
  void ext.contextMenus.removeAll().then(() => {
    for (const item of MENU_ITEMS) ext.contextMenus.create(item);
  });
  // A new install has no server yet: the options page is where that starts.
  if (reason === "install") void ext.runtime.openOptionsPage();
  start();
});
ext.runtime.onStartup.addListener(start);
ext.alarms.onAlarm.addListener(({ name }) => void (name === SYNC_ALARM ? syncNow() : refresh()));

ext.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && WATCHED.some((key) => key in changes)) void refresh();
});

/** What the options page and the popup ask of the folder sync, each answered once the sync ran. */
const SYNC_MESSAGES: Record<string, () => Promise<unknown>> = {
  "sync-now": () => syncNow(true),
  "sync-apply": () => approve(ext.storage.local).then(() => syncNow()),
  "sync-put-back": () => putBack(ext.storage.local).then(() => syncNow()),
};

ext.runtime.onMessage.addListener((message, _sender, respond) => {
  const type = (message as { type?: unknown } | null)?.type;
  const action = typeof type === "string" ? SYNC_MESSAGES[type] : undefined;
  if (action !== undefined) {
    action().then(() => respond({ ok: true }), (error: unknown) => respond({ ok: false, message: String(error) }));
    return true;
  }
  if (type !== "refresh") return;
  refresh().then(respond, (error: unknown) => respond({ lastSync: { at: Date.now(), ok: false, message: String(error) } }));
  return true;
});

ext.contextMenus.onClicked.addListener((info, tab) => {
  const query = menuPopupQuery(info, tab);
  if (query === null) return;
  void ext.windows.create({ url: ext.runtime.getURL(`popup.html?${query}`), type: "popup", width: 440, height: 640 });
});

const omnibox = createOmnibox({
  storage: ext.storage.local,
  tabs: ext.tabs,
  openOptionsPage: () => ext.runtime.openOptionsPage(),
  flavor: ext.runtime.getURL("").startsWith("moz-extension:") ? "firefox" : "chromium",
});
void ext.omnibox.setDefaultSuggestion({ description: DEFAULT_SUGGESTION });
ext.omnibox.onInputChanged.addListener((text, suggest) => void omnibox.inputChanged(text, suggest));
ext.omnibox.onInputEntered.addListener((text, disposition) => void omnibox.inputEntered(text, disposition));
// The very handlers the listeners call, for the end-to-end test to call in this worker.
(globalThis as { linkshelfOmnibox?: OmniboxHandlers }).linkshelfOmnibox = omnibox;
