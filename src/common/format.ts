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

/** formatBytes writes a size in binary units, to one decimal where it helps: `512 bytes`, `1.5 KiB`, `20 MiB`, `2 GiB`. */
export function formatBytes(bytes: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  if (bytes < 1024) return countOf(bytes, "byte");
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) || value >= 100 ? Math.round(value) : value.toFixed(1).replace(/\.0$/, "")} ${units[unit]}`;
}
