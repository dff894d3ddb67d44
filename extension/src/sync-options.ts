/**
 * The options page's Sync section: choosing a browser folder (`#sync-folder`, the profile's
 * folders as a tree, or a new "linkshelf" folder in Other bookmarks) and a collection
 * (`#sync-collection`, the tree, or a new one named like the folder), Start syncing, then Sync
 * now, Stop syncing and the status line.
 */
import { ApiError, createClient } from "./api";
import { byId, say } from "./dom";
import { findOtherBookmarks } from "./pins";
import { loadState } from "./state";
import { treeLabel, treeRows } from "./tree";
import type { CollectionJson } from "../../src/contract/collections";
import type { WebExt } from "./webext";
import { folderRows } from "./sync/sides";
import { stopSync, saveSync } from "./sync/store";
import { showSync } from "./sync-view";

/** The folder a new sync makes in Other bookmarks. */
export const SYNC_FOLDER_TITLE = "linkshelf";
const NEW = "new";

function option(value: string, label: string): HTMLOptionElement {
  const element = document.createElement("option");
  element.value = value;
  element.textContent = label;
  return element;
}

export function setUpSync(ext: WebExt): { render(): Promise<void> } {
  const folderSelect = byId<HTMLSelectElement>("sync-folder");
  const collectionSelect = byId<HTMLSelectElement>("sync-collection");
  const start = byId<HTMLButtonElement>("sync-start");
  const status = byId("sync-status");
  // The collections, read once per sign-in and after Start syncing: the page renders on every
  // storage change (each sync writes its status), and must not spend the user's rate limit.
  let listed: { token: string; collections: Promise<CollectionJson[]> } | null = null;
  const collectionsOf = (server: string, token: string) => {
    if (listed?.token !== token) {
      const collections = createClient({ origin: server, token }).listCollections();
      collections.catch(() => (listed = null));
      listed = { token, collections };
    }
    return listed.collections;
  };

  async function render(): Promise<void> {
    const sync = await showSync(ext);
    const state = await loadState(ext.storage.local);
    const signedIn = state.server !== null && state.token !== null;
    byId("sync-section").hidden = !signedIn && sync.config === null && sync.status === null;
    byId("sync-running").hidden = sync.config === null;
    byId("sync-setup").hidden = sync.config !== null || !signedIn;
    if (sync.config !== null) {
      const folder = await ext.bookmarks.get(sync.config.folderId).then((nodes) => nodes[0]?.title ?? "", () => "");
      byId("sync-folder-name").textContent = folder;
      byId("sync-collection-name").textContent = String(sync.config.collectionId);
      if (signedIn) {
        const found = await collectionsOf(state.server!, state.token!).then((all) => all.find((c) => c.id === sync.config!.collectionId)?.name, () => undefined);
        if (found !== undefined) byId("sync-collection-name").textContent = found;
      }
      return;
    }
    if (!signedIn) return;
    const folders = folderRows(await ext.bookmarks.getTree(), state.folderId);
    const chosenFolder = folderSelect.value;
    folderSelect.replaceChildren(
      option(NEW, `A new folder “${SYNC_FOLDER_TITLE}” in Other bookmarks`),
      ...folders.map(({ node, depth }) => option(node.id, `${"\u00a0\u00a0\u00a0".repeat(depth - 1)}📁 ${node.title || "Unnamed folder"}`)),
    );
    if (chosenFolder !== "" && [...folderSelect.options].some((o) => o.value === chosenFolder)) folderSelect.value = chosenFolder;
    try {
      const collections = await collectionsOf(state.server!, state.token!);
      const chosen = collectionSelect.value;
      // The Inbox holds no sub-collections, so it cannot stand for a folder.
      collectionSelect.replaceChildren(
        option(NEW, "A new collection named like the folder"),
        ...treeRows(collections).filter((row) => !row.collection.isDefault).map((row) => option(String(row.collection.id), treeLabel(row))),
      );
      if (chosen !== "" && [...collectionSelect.options].some((o) => o.value === chosen)) collectionSelect.value = chosen;
    } catch (error) {
      say(status, error instanceof ApiError ? error.message : String(error), "error");
    }
  }

  start.addEventListener("click", async () => {
    start.disabled = true;
    try {
      const state = await loadState(ext.storage.local);
      if (state.server === null || state.token === null) return say(status, "Sign in first.", "error");
      let folderId = folderSelect.value;
      let title = SYNC_FOLDER_TITLE;
      if (folderId === NEW) {
        const other = findOtherBookmarks(await ext.bookmarks.getTree());
        folderId = (await ext.bookmarks.create({ parentId: other.id, title: SYNC_FOLDER_TITLE })).id;
      } else {
        title = (await ext.bookmarks.get(folderId))[0]?.title || "Unnamed folder";
      }
      let collectionId = Number(collectionSelect.value);
      if (collectionSelect.value === NEW) {
        collectionId = (await createClient({ origin: state.server, token: state.token }).createCollection(title)).id;
      }
      listed = null;
      await saveSync(ext.storage.local, { config: { folderId, collectionId }, base: null, cursor: null, times: {}, status: null, prompt: null, approved: false });
      say(status, "Syncing for the first time: nothing is deleted on either side…");
      await render();
      await ext.runtime.sendMessage({ type: "sync-now" });
    } catch (error) {
      say(status, error instanceof ApiError ? error.message : `Could not start syncing: ${String(error)}`, "error");
    } finally {
      start.disabled = false;
      await render();
    }
  });

  byId("sync-now").addEventListener("click", async () => {
    say(status, "Syncing…");
    await ext.runtime.sendMessage({ type: "sync-now" });
    await render();
  });

  byId("sync-stop").addEventListener("click", async () => {
    await stopSync(ext.storage.local, { at: Date.now(), ok: true, message: "Syncing stopped. The folder and the collection are kept as they are.", items: 0 });
    await render();
  });

  return { render };
}
