/** The sync's status in words, the same on the options page and in the popup. */
import { countOf } from "./words";
import type { SyncPrompt, SyncStore } from "./sync/store";

/**
 * statusLine is the sync in one line: when the last successful sync ended and how many items it
 * holds, then what it did, or the last problem in plain words with its own time. The failsafe's
 * question is not repeated here: it stands in its own box (promptWords).
 */
export function statusLine({ config, status, prompt }: SyncStore): string {
  if (status === null) return config === null ? "" : prompt !== null ? "Not synced yet. Waiting for your answer: Apply or Put them back." : "Not synced yet.";
  if (config === null) return status.message;
  const time = (at: number) => new Date(at).toLocaleString();
  const okAt = status.okAt ?? (status.ok ? status.at : null);
  const last = okAt === null ? "Not synced yet." : `Last sync ${time(okAt)}: ${countOf(status.items, "item")}.`;
  if (prompt !== null) return `${last} Waiting for your answer: Apply or Put them back.`;
  return status.ok ? `${last} ${status.message}` : `${last} Problem at ${time(status.at)}: ${status.message}`;
}

/** promptWords is the failsafe's question: the sentence, the names of up to ten of the items it would delete, and how many more. */
export function promptWords(prompt: SyncPrompt): { message: string; names: string[]; more: string } {
  const names = prompt.names ?? [];
  const more = (prompt.count ?? prompt.keys.length) - names.length;
  return { message: `${prompt.message}:`, names, more: more > 0 ? `and ${more.toLocaleString("en-US")} more` : "" };
}
