/**
 * The browser's bookmark events, as the folder sync hears them: each event notes when the person
 * changed which fields, in memory; a burst of events (a folder dragged in, 1,500 bookmarks
 * deleted one by one) is written to storage once, when it ends, and starts one sync. Nothing is
 * read from storage per event: the events of a burst cost one read and one write of the change
 * times, however many there are. The sync's own writes are not the person's changes.
 */
import type { BookmarkNode } from "../webext";
import type { Times } from "./merge";
import { recordChange } from "./store";
import type { StorageArea } from "../webext";

/** A burst of bookmark changes is sent once, this long after its last change. */
export const SYNC_DEBOUNCE_MS = 2000;
/** The bookmark events of the sync's own writes arrive up to this long after them; they are not changes to send. */
export const OWN_EVENTS_MS = 1500;

export interface BookmarkEventDeps {
  storage: StorageArea;
  /** Runs one sync (after any running one). */
  sync: () => Promise<unknown>;
  now?: () => number;
  setTimer?: (run: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

export class BookmarkEvents {
  private pending: Record<string, Times> = {};
  private timer: unknown = undefined;
  private writing = false;
  private quietUntil = 0;
  private readonly now: () => number;
  private readonly setTimer: (run: () => void, ms: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;

  constructor(private readonly deps: BookmarkEventDeps) {
    this.now = deps.now ?? Date.now;
    this.setTimer = deps.setTimer ?? ((run, ms) => setTimeout(run, ms));
    this.clearTimer = deps.clearTimer ?? ((timer) => clearTimeout(timer as ReturnType<typeof setTimeout>));
  }

  /** syncWriting is told when the sync starts and stops writing bookmarks. */
  syncWriting(on: boolean): void {
    this.writing = on;
    if (!on) this.quietUntil = this.now() + OWN_EVENTS_MS;
  }

  created(id: string, node: BookmarkNode): void {
    const at = this.now();
    this.note({ [id]: { title: at, url: at, parent: at }, ...(node.parentId === undefined ? {} : { [node.parentId]: { order: at } }) });
  }

  changed(id: string, change: { title?: string; url?: string }): void {
    const at = this.now();
    this.note({ [id]: { ...("title" in change ? { title: at } : {}), ...("url" in change ? { url: at } : {}) } });
  }

  moved(id: string, place: { parentId: string; oldParentId?: string }): void {
    const at = this.now();
    this.note({ [id]: { parent: at }, [place.parentId]: { order: at }, ...(place.oldParentId === undefined ? {} : { [place.oldParentId]: { order: at } }) });
  }

  removed(place: { parentId: string }): void {
    this.note({ [place.parentId]: { order: this.now() } });
  }

  reordered(id: string): void {
    this.note({ [id]: { order: this.now() } });
  }

  /** flush writes the burst's change times and starts a sync (when a folder is synced); what the timer runs. */
  async flush(): Promise<void> {
    if (await this.write()) await this.deps.sync();
  }

  /**
   * write stores the change times noted so far (nothing when there are none), so that a sync
   * starting now (Sync now, the minute's check) weighs the latest changes by their own times. It
   * answers whether it wrote any for a synced folder.
   */
  async write(): Promise<boolean> {
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
    const changes = this.pending;
    this.pending = {};
    if (Object.keys(changes).length === 0) return false;
    return recordChange(this.deps.storage, changes);
  }

  private note(changes: Record<string, Times>): void {
    if (this.writing || this.now() < this.quietUntil) return;
    for (const [id, fields] of Object.entries(changes)) this.pending[id] = { ...this.pending[id], ...fields };
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = this.setTimer(() => void this.flush(), SYNC_DEBOUNCE_MS);
  }
}
