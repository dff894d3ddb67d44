/** The sync's status in words, the same on the options page and in the popup. */
import { countOf } from "../words";
import type { SyncStore } from "./store";

/** statusLine is the last sync in one line: when, how many items, and the last problem in plain words. */
export function statusLine({ config, status, prompt }: SyncStore): string {
  if (prompt !== null) return `${prompt.message}.`;
  if (status === null) return config === null ? "" : "Not synced yet.";
  const at = new Date(status.at).toLocaleString();
  if (config === null) return status.message;
  return status.ok ? `Last sync ${at}: ${countOf(status.items, "item")}. ${status.message}` : `Last sync ${at}: ${countOf(status.items, "item")}. Problem: ${status.message}`;
}
