/** Reading the query string of a page's address. */

/** oneValue is a query parameter given once; a repeated one (`?q=a&q=b`) is not one value and counts as absent. */
export function oneValue(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
