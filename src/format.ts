/**
 * How numbers and counts are written for people, on every page and in the command line: digits
 * grouped by commas (`20,094`), and a count with its noun in the right number (`1 link`, `2 links`).
 */

/** formatNumber writes a whole number with its thousands grouped: `20094` → `20,094`. */
export function formatNumber(n: number): string {
  // One format, made on first use: toLocaleString makes one at each call (thousands on a page of collections).
  return (grouped ??= new Intl.NumberFormat("en-US")).format(n);
}

let grouped: Intl.NumberFormat | undefined;

/** countOf writes a count and its noun: `countOf(1, "link")` → `1 link`, `countOf(2_284, "link")` → `2,284 links`. */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}
