import type { LinkJson } from "../../src/contract/links";
import { ApiError, createClient } from "./api";
import { countOf } from "./words";
import { reconcile, type Op, type Target } from "./reconcile";
import { forgetToken, loadState, type LastSync } from "./state";
import type { BookmarkNode, Bookmarks, StorageArea } from "./webext";

/** The one folder the extension owns: it changes nothing outside it. */
export const FOLDER_TITLE = "linkshelf";

/** What the title of a pinned favorite the server calls broken starts with. */
export const BROKEN_MARK = "⚠ ";

/** copyDay is the day a copy was kept, as its offer says it: "3 May 2026" (UTC). */
export const copyDay = (savedAt: string): string =>
  new Date(savedAt).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

/**
 * favoriteTargets: the first `count` favorites (the server's order: most clicked first), each
 * opened through `/l/:id` so a click counts; the title of a `broken` one starts with BROKEN_MARK,
 * and a broken one with a page copy opens the copy instead, its title saying of which day.
 */
export function favoriteTargets(origin: string, favorites: readonly LinkJson[], count: number, broken: ReadonlySet<number> = new Set()): Target[] {
  return favorites.slice(0, count).map((link) => {
    if (!broken.has(link.id)) return { title: link.name, url: `${origin}/l/${link.id}` };
    if (link.copy) return { title: `${BROKEN_MARK}${link.name} (the copy of ${copyDay(link.copy.savedAt)})`, url: `${origin}/links/${link.id}/copy` };
    return { title: `${BROKEN_MARK}${link.name}`, url: `${origin}/l/${link.id}` };
  });
}

/**
 * brokenIds asks which links are broken. A server without the link checker (older than it)
 * answers 404: then no favorite is marked. Signing out and waiting are the sync's to handle.
 */
async function brokenIds(client: ReturnType<typeof createClient>): Promise<Set<number>> {
  try {
    return new Set((await client.listBroken()).links.map((item) => item.link.id));
  } catch (error) {
    if (error instanceof ApiError && error.kind !== "refused") throw error;
    return new Set();
  }
}

/** findBookmarksBar picks the bookmarks bar among the roots: Chromium's "bookmarks-bar" (id "1"), Firefox's "toolbar_____". */
export function findBookmarksBar(tree: readonly BookmarkNode[]): BookmarkNode {
  const roots = tree[0]?.children ?? [];
  const bar = roots.find((node) => node.folderType === "bookmarks-bar" || node.id === "toolbar_____") ?? roots.find((node) => node.id === "1") ?? roots[0];
  if (!bar) throw new Error("This browser has no bookmarks bar.");
  return bar;
}

/** findOtherBookmarks picks "Other bookmarks" among the roots: Chromium's "other" (id "2"), Firefox's "unfiled_____". */
export function findOtherBookmarks(tree: readonly BookmarkNode[]): BookmarkNode {
  const roots = tree[0]?.children ?? [];
  const other = roots.find((node) => node.folderType === "other" || node.id === "unfiled_____") ?? roots.find((node) => node.id === "2") ?? roots.at(-1);
  if (!other) throw new Error("This browser has no bookmark folders.");
  return other;
}

/** ensureFolder returns the remembered folder if it still exists, else a "linkshelf" folder on the bar (found or created). */
export async function ensureFolder(bookmarks: Bookmarks, rememberedId: string | null): Promise<string> {
  if (rememberedId !== null) {
    const found = await bookmarks.get(rememberedId).catch(() => []);
    if (found[0] && found[0].url === undefined) return rememberedId;
  }
  const bar = findBookmarksBar(await bookmarks.getTree());
  const existing = (await bookmarks.getChildren(bar.id)).find((node) => node.url === undefined && node.title === FOLDER_TITLE);
  return existing?.id ?? (await bookmarks.create({ parentId: bar.id, title: FOLDER_TITLE })).id;
}

/** applyOps carries out reconcile's operations inside `folderId`. */
export async function applyOps(bookmarks: Bookmarks, folderId: string, ops: readonly Op[]): Promise<void> {
  for (const op of ops) {
    if (op.type === "remove") await (op.folder ? bookmarks.removeTree(op.id) : bookmarks.remove(op.id));
    else if (op.type === "rename") await bookmarks.update(op.id, { title: op.title });
    else if (op.type === "create") await bookmarks.create({ parentId: folderId, index: op.index, title: op.title, url: op.url });
    else await moveTo(bookmarks, folderId, op.id, op.index);
  }
}

/**
 * moveTo puts a bookmark at final position `index` of its folder. Moving towards the end of the
 * same folder is where browsers differ: Chromium reads the index as a position before the
 * bookmark leaves its place, so it lands one short; that case is detected and corrected.
 */
export async function moveTo(bookmarks: Bookmarks, parentId: string, id: string, index: number): Promise<void> {
  const from = (await bookmarks.get(id))[0]?.index;
  await bookmarks.move(id, { parentId, index });
  if (from === undefined || from >= index) return;
  if ((await bookmarks.get(id))[0]?.index === index - 1) await bookmarks.move(id, { parentId, index: index + 1 });
}

export interface SyncOutcome {
  lastSync: LastSync;
  /** When the server asked to wait (429), the seconds to wait before trying again. */
  retryAfterSeconds: number;
  ops: Op[];
}

export interface SyncDeps {
  bookmarks: Bookmarks;
  storage: StorageArea;
  fetch?: typeof fetch;
  now?: () => number;
}

/**
 * syncFavorites mirrors the server's favorites into the folder: reads them and which links are
 * broken (marked in their titles), finds or creates the folder, and applies the fewest operations. A revoked token signs the extension out; every
 * outcome is stored as `lastSync` for the options page.
 */
export async function syncFavorites({ bookmarks, storage, fetch: send, now = Date.now }: SyncDeps): Promise<SyncOutcome> {
  const state = await loadState(storage);
  let outcome: SyncOutcome;
  if (state.server === null || state.token === null) {
    outcome = { lastSync: { at: now(), ok: false, message: "Not signed in." }, retryAfterSeconds: 0, ops: [] };
  } else {
    try {
      const client = createClient({ origin: state.server, token: state.token, fetch: send, now });
      const favorites = await client.listFavorites();
      const broken = await brokenIds(client);
      const folderId = await ensureFolder(bookmarks, state.folderId);
      if (folderId !== state.folderId) await storage.set({ folderId });
      const current = (await bookmarks.getChildren(folderId)).map(({ id, title, url }) => ({ id, title, url }));
      const targets = favoriteTargets(state.server, favorites, state.pinCount, broken);
      const ops = reconcile(current, targets);
      await applyOps(bookmarks, folderId, ops);
      const message = `${countOf(targets.length, "favorite")} pinned to the bookmarks bar.`;
      outcome = { lastSync: { at: now(), ok: true, message }, retryAfterSeconds: 0, ops };
    } catch (error) {
      if (error instanceof ApiError && error.kind === "unauthorized") await forgetToken(storage, error.message);
      const message = error instanceof ApiError ? error.message : `Could not update the bookmarks folder: ${String(error)}`;
      const retryAfterSeconds = error instanceof ApiError ? error.retryAfterSeconds : 0;
      outcome = { lastSync: { at: now(), ok: false, message }, retryAfterSeconds, ops: [] };
    }
  }
  await storage.set({ lastSync: outcome.lastSync });
  return outcome;
}
