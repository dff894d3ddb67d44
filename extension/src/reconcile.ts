/**
 * The pure part of pinning: what the folder holds now versus the favorites it should show,
 * turned into the fewest bookmark operations. Indices are final positions: an operation moves
 * or inserts so that the item ends at `index` in the folder as it is after the operations
 * before it (the way an array's remove-then-insert works).
 */

/** A child of the folder as the browser reports it, in folder order; a subfolder has no url. */
export interface Current {
  id: string;
  title: string;
  url?: string;
}

/** A bookmark the folder should hold. Urls are unique (`<server>/l/<id>`). */
export interface Target {
  title: string;
  url: string;
}

export type Op =
  | { type: "remove"; id: string; folder: boolean }
  | { type: "move"; id: string; index: number }
  | { type: "create"; index: number; title: string; url: string }
  | { type: "rename"; id: string; title: string };

/**
 * reconcile returns the operations that turn `current` into exactly `target`: removals of what
 * is not wanted (or a second bookmark of one url), creations of what is missing, renames of kept
 * bookmarks whose title changed, and moves of only the kept bookmarks outside a longest run that
 * is already in target order, so the count of each kind is the least possible.
 */
export function reconcile(current: readonly Current[], target: readonly Target[]): Op[] {
  const position = new Map(target.map((item, index) => [item.url, index]));
  const ops: Op[] = [];
  const kept: { id: string; title: string; at: number }[] = [];
  const seen = new Set<string>();
  for (const item of current) {
    const at = item.url === undefined ? undefined : position.get(item.url);
    if (at === undefined || seen.has(item.url!)) {
      ops.push({ type: "remove", id: item.id, folder: item.url === undefined });
      continue;
    }
    seen.add(item.url!);
    kept.push({ id: item.id, title: item.title, at });
  }

  const staying = new Set(longestIncreasingRun(kept.map((item) => item.at)).map((index) => kept[index]!.id));
  const byPosition = new Map(kept.map((item) => [item.at, item]));
  // Simulated folder (ids; new bookmarks as placeholders) to compute each final index.
  const folder: string[] = kept.map((item) => item.id);
  const placed: string[] = [];
  target.forEach((want, at) => {
    const existing = byPosition.get(at);
    const key = existing?.id ?? `new:${at}`;
    if (existing === undefined || !staying.has(existing.id)) {
      if (existing !== undefined) folder.splice(folder.indexOf(key), 1);
      // Right after the bookmark that precedes it in the target, which is already in place.
      const index = at === 0 ? 0 : folder.indexOf(placed[at - 1]!) + 1;
      folder.splice(index, 0, key);
      ops.push(existing === undefined ? { type: "create", index, title: want.title, url: want.url } : { type: "move", id: existing.id, index });
    }
    placed.push(key);
  });

  for (const item of kept) {
    const title = target[item.at]!.title;
    if (item.title !== title) ops.push({ type: "rename", id: item.id, title });
  }
  return ops;
}

/** longestIncreasingRun returns the indices of one longest strictly increasing subsequence (O(n log n)). */
export function longestIncreasingRun(values: readonly number[]): number[] {
  const tails: number[] = [];
  const previous: number[] = [];
  values.forEach((value, index) => {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (values[tails[middle]!]! < value) low = middle + 1;
      else high = middle;
    }
    previous[index] = low > 0 ? tails[low - 1]! : -1;
    tails[low] = index;
  });
  const run: number[] = [];
  for (let index = tails.length > 0 ? tails[tails.length - 1]! : -1; index !== -1; index = previous[index]!) run.push(index);
  return run.reverse();
}
