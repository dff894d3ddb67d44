/**
 * The sync's status and the failsafe's question, the same on the options page and in the popup:
 * `#sync-status` (one line), and `#sync-prompt` with `#sync-apply` and `#sync-put-back`.
 */
import { byId, say } from "../dom";
import type { WebExt } from "../webext";
import { loadSync, type SyncStore } from "./store";
import { statusLine } from "./status";

/** showSync fills the status line and the failsafe's question from storage, and wires the question's buttons once. */
export async function showSync(ext: WebExt): Promise<SyncStore> {
  const sync = await loadSync(ext.storage.local);
  say(byId("sync-status"), statusLine(sync), sync.prompt !== null || (sync.status !== null && !sync.status.ok) ? "error" : "info");
  const prompt = byId("sync-prompt");
  prompt.hidden = sync.prompt === null;
  byId("sync-prompt-message").textContent = sync.prompt === null ? "" : `${sync.prompt.message}:`;
  if (prompt.dataset.wired !== "1") {
    prompt.dataset.wired = "1";
    byId("sync-apply").addEventListener("click", () => void ext.runtime.sendMessage({ type: "sync-apply" }));
    byId("sync-put-back").addEventListener("click", () => void ext.runtime.sendMessage({ type: "sync-put-back" }));
  }
  return sync;
}
