/** Reading a request's path from its URL, cheaply: the access log and the error mapping need it on every request. */

/**
 * pathOf returns the path of a request URL without its query string and without building a
 * URL object. A URL that is only a path (Bun gives one when `Host` does not parse) is read
 * as such.
 */
export function pathOf(url: string): string {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.indexOf("?", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}
