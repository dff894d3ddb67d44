/**
 * The sync's status and the failsafe's question, the same on the options page and in the popup:
 * `#sync-status` (one line), and `#sync-prompt`, one box at the top of the page: the question
 * (`#sync-prompt-message`), the names of up to ten of the items it would delete
 * (`#sync-prompt-names`), how many more (`#sync-prompt-more`), `#sync-apply` and `#sync-put-back`.
 */
import { byId, say } from "./dom";
import type { WebExt } from "./webext";
import { loadSync, type SyncStore } from "./sync/store";
import { promptWords, statusLine } from "./sync-status";

/** showSync fills the status line and the failsafe's question from storage, and wires the question's buttons once. */
export async function showSync(ext: WebExt): Promise<SyncStore> {
  const sync = await loadSync(ext.storage.local);
  say(byId("sync-status"), statusLine(sync), sync.prompt === null && sync.status !== null && !sync.status.ok ? "error" : "info");
  const prompt = byId("sync-prompt");
  prompt.hidden = sync.prompt === null;
  const words = sync.prompt === null ? { message: "", names: [], more: "" } : promptWords(sync.prompt);
  byId("sync-prompt-message").textContent = words.message;
  byId("sync-prompt-names").replaceChildren(...words.names.map((name) => {
    const item = document.createElement("li");
    item.textContent = name;
    return item;
  }));
  byId("sync-prompt-more").textContent = words.more;
  byId("sync-prompt-more").hidden = words.more === "";
  if (prompt.dataset.wired !== "1") {
    prompt.dataset.wired = "1";
    byId("sync-apply").addEventListener("click", () => void ext.runtime.sendMessage({ type: "sync-apply" }));
    byId("sync-put-back").addEventListener("click", () => void ext.runtime.sendMessage({ type: "sync-put-back" }));
  }
  return sync;
}
