import type { StorageArea } from "./webext";

export const DEFAULT_PIN_COUNT = 10;
export const MAX_PIN_COUNT = 100;

/** What happened at the last refresh of the pinned folder, shown on the options page. */
export interface LastSync {
  at: number;
  ok: boolean;
  message: string;
}

/** Everything the extension keeps, in `storage.local` (never synced: the token stays on this device). */
export interface State {
  /** The server's origin, e.g. `http://192.168.1.20:3000`. */
  server: string | null;
  token: string | null;
  pinCount: number;
  /** The bookmarks folder the extension owns, remembered so a renamed folder stays ours. */
  folderId: string | null;
  /** Why the user was signed out, until they sign in again. */
  signedOutReason: string | null;
  lastSync: LastSync | null;
  /** Keep a copy of every page saved from the popup (the options page's "keep a copy of every page I save"). */
  keepCopies: boolean;
}

const KEYS = ["server", "token", "pinCount", "folderId", "signedOutReason", "lastSync", "keepCopies"] as const;

/** loadState reads the stored state, with defaults for what was never set. */
export async function loadState(storage: StorageArea): Promise<State> {
  const stored = await storage.get([...KEYS]);
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);
  const count = stored.pinCount;
  return {
    server: text(stored.server),
    token: text(stored.token),
    pinCount: typeof count === "number" && Number.isInteger(count) && count >= 1 && count <= MAX_PIN_COUNT ? count : DEFAULT_PIN_COUNT,
    folderId: text(stored.folderId),
    signedOutReason: text(stored.signedOutReason),
    lastSync: (stored.lastSync as LastSync | undefined) ?? null,
    keepCopies: stored.keepCopies === true,
  };
}

/** saveSignIn keeps a fresh token for `server` and clears any earlier sign-out reason. */
export async function saveSignIn(storage: StorageArea, server: string, token: string): Promise<void> {
  await storage.set({ server, token, signedOutReason: "" });
}

/** forgetToken signs out: the token is dropped here (the server keeps it until revoked there). */
export async function forgetToken(storage: StorageArea, reason: string | null): Promise<void> {
  await storage.remove(["token"]);
  await storage.set({ signedOutReason: reason ?? "" });
}
