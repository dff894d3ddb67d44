import type { OrderItem } from "../contract/collections";

/** How many sorts are kept for an Undo at once (the oldest is forgotten first). */
const KEPT_SORTS = 1_000;

/** What the page's Undo of a sort decides: the order restored, or why not. */
export type UndoOutcome = "undone" | "stale" | "gone";

const sameOrder = (a: readonly OrderItem[], b: readonly OrderItem[]) =>
  a.length === b.length && a.every((item, at) => item.kind === b[at]!.kind && item.id === b[at]!.id);

/**
 * SortUndo keeps, for the page's "Sort these A–Z", each collection's order from before its last
 * sort and the order the sort wrote, so the page that follows can undo it once. It lives in the
 * server's memory (a restart forgets it, and the Undo then says there is nothing to undo) and
 * holds at most KEPT_SORTS sorts.
 */
export class SortUndo {
  private readonly kept = new Map<string, { before: OrderItem[]; sorted: OrderItem[] }>();

  /** keep records a sort of one user's collection: its order before and after. */
  keep(userId: number, collectionId: number, before: OrderItem[], sorted: OrderItem[]): void {
    const key = `${userId}/${collectionId}`;
    this.kept.delete(key);
    this.kept.set(key, { before, sorted });
    if (this.kept.size > KEPT_SORTS) this.kept.delete(this.kept.keys().next().value!);
  }

  /**
   * undo hands `restore` the order from before the collection's last sort when its order now is
   * still the sorted one ("undone"); "stale" when it changed since, "gone" when no sort is kept.
   * Either way the sort is forgotten: it is undone once.
   */
  undo(userId: number, collectionId: number, current: readonly OrderItem[], restore: (before: OrderItem[]) => void): UndoOutcome {
    const key = `${userId}/${collectionId}`;
    const sort = this.kept.get(key);
    if (!sort) return "gone";
    this.kept.delete(key);
    if (!sameOrder(current, sort.sorted)) return "stale";
    restore(sort.before);
    return "undone";
  }
}
