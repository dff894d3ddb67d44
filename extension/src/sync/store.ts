/** What the folder sync keeps in `storage.local`, beside the sign-in (state.ts). */
import type { StorageArea } from "../webext";
import type { Times } from "./merge";
import type { Base } from "./tree";

/** The pair being synced: a browser folder and a collection. */
export interface SyncConfig {
  folderId: string;
  collectionId: number;
}

/** The last sync's outcome, for the options page and the popup. */
export interface SyncStatus {
  /** When this sync (or attempt) ended. */
  at: number;
  ok: boolean;
  /** The outcome in plain words: what was done, or what went wrong. */
  message: string;
  /** How many items (bookmarks and folders) the last successful sync left synced. */
  items: number;
  /** When the last successful sync ended: `at` when this one succeeded, an earlier one's when it failed; null before any. */
  okAt?: number | null;
}

/** A sync stopped by the failsafe, waiting for the person's answer. */
export interface SyncPrompt {
  message: string;
  /** The last synced items the sync would delete (on either side), which "Put them back" keeps. */
  keys: string[];
  /** How many items the question is about (those of the side, or sides, past the failsafe's bounds). */
  count?: number;
  /** The names of the first of them (at most PROMPT_NAMES), as the person knows them. */
  names?: string[];
}

/** How many of the items the failsafe would delete it names. */
export const PROMPT_NAMES = 10;

export interface SyncStore {
  config: SyncConfig | null;
  /** The state after the last completed sync; null before the first. */
  base: Base | null;
  /** The change feed's cursor at the last sync. */
  cursor: string | null;
  /** When the browser changed each bookmark (by bookmark id), from its events since the last sync. */
  times: Record<string, Times>;
  status: SyncStatus | null;
  prompt: SyncPrompt | null;
  /** "Apply" was chosen: the next sync deletes what the failsafe stopped. */
  approved: boolean;
}

const KEYS = { config: "syncConfig", base: "syncBase", cursor: "syncCursor", times: "syncTimes", status: "syncStatus", prompt: "syncPrompt", approved: "syncApproved" } as const;

/** loadSync reads the whole sync state (one storage read). */
export async function loadSync(storage: StorageArea): Promise<SyncStore> {
  return readSync(storage, Object.values(KEYS));
}

/**
 * loadSyncParts reads only the named parts (one storage read): the others come back empty. What
 * runs on every bookmark event must not read the last synced state, thousands of items.
 */
export async function loadSyncParts<K extends keyof SyncStore>(storage: StorageArea, parts: readonly K[]): Promise<Pick<SyncStore, K>> {
  return readSync(storage, parts.map((part) => KEYS[part]));
}

async function readSync(storage: StorageArea, keys: string[]): Promise<SyncStore> {
  const stored = await storage.get(keys);
  return {
    config: (stored[KEYS.config] as SyncConfig | undefined) ?? null,
    base: (stored[KEYS.base] as Base | undefined) ?? null,
    cursor: (stored[KEYS.cursor] as string | undefined) ?? null,
    times: (stored[KEYS.times] as Record<string, Times> | undefined) ?? {},
    status: (stored[KEYS.status] as SyncStatus | undefined) ?? null,
    prompt: (stored[KEYS.prompt] as SyncPrompt | undefined) ?? null,
    approved: stored[KEYS.approved] === true,
  };
}

/** saveSync stores the given parts; a null part is removed. */
export async function saveSync(storage: StorageArea, parts: Partial<SyncStore>): Promise<void> {
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  for (const [name, value] of Object.entries(parts)) {
    const key = KEYS[name as keyof SyncStore];
    if (value === null || value === false) remove.push(key);
    else set[key] = value;
  }
  if (remove.length > 0) await storage.remove(remove);
  if (Object.keys(set).length > 0) await storage.set(set);
}

/** stopSync forgets the pair and what was synced (the bookmarks and the collection stay as they are), keeping a last word. */
export async function stopSync(storage: StorageArea, status: SyncStatus | null): Promise<void> {
  await saveSync(storage, { config: null, base: null, cursor: null, times: {}, prompt: null, approved: false, status });
}

/**
 * recordChange notes when the browser changed bookmarks' fields (times from its events): one
 * read of the times, one write. It answers false, recording nothing, when no folder is synced.
 */
export async function recordChange(storage: StorageArea, changes: Record<string, Times>): Promise<boolean> {
  const { config, times } = await loadSyncParts(storage, ["config", "times"]);
  if (config === null) return false;
  for (const [id, fields] of Object.entries(changes)) times[id] = { ...times[id], ...fields };
  await storage.set({ [KEYS.times]: times });
  return true;
}
