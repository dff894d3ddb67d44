/**
 * When two addresses are the same saved page, for the popup's "Already saved": a pure function
 * of the text, no network. Conservative on purpose: two addresses that might show different
 * pages (another path, another query value, a non-empty fragment) stay different.
 */
import type { CollectionJson } from "../../src/contract/collections";
import type { LinkJson } from "../../src/contract/links";

/** Query parameters that only say where a visitor came from: `utm_*`, Facebook's and Google Ads' click ids. */
function isTracking(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith("utm_") || lower === "fbclid" || lower === "gclid";
}

/** parameterName is the decoded name of one `name=value` part of a query. */
function parameterName(part: string): string {
  const raw = part.split("=", 1)[0]!.replaceAll("+", " ");
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * normalizeUrl is the form two addresses of the same page share: scheme and host lower-cased
 * and the default port dropped (the URL parser's own rules: `:80` for http, `:443` for https),
 * one trailing slash of the path ignored, the tracking parameters `utm_*`, `fbclid` and `gclid`
 * removed (every other parameter kept, in its order and spelling), and an empty query or an
 * empty fragment (`#`) dropped. A non-empty fragment is kept: pages that route by it
 * (`#/inbox`, `#/settings`) are different pages. Anything but http and https is only parsed;
 * text that is not an address is returned trimmed.
 */
export function normalizeUrl(input: string): string {
  const text = input.trim();
  const url = URL.parse(text);
  if (url === null) return text;
  if (url.protocol !== "http:" && url.protocol !== "https:") return url.href;
  const query = url.search
    .slice(1)
    .split("&")
    .filter((part) => part !== "" && !isTracking(parameterName(part)));
  const path = url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname;
  const credentials = url.username === "" && url.password === "" ? "" : `${url.username}${url.password === "" ? "" : `:${url.password}`}@`;
  return `${url.protocol}//${credentials}${url.host}${path}${query.length > 0 ? `?${query.join("&")}` : ""}${url.hash.length > 1 ? url.hash : ""}`;
}

/** sameUrl tells whether two addresses are the same page by normalizeUrl. */
export function sameUrl(a: string, b: string): boolean {
  return normalizeUrl(a) === normalizeUrl(b);
}

/** Where an address is already saved: the newest link with that address, and the collections holding any such link. */
export interface SavedMatch {
  link: LinkJson;
  collections: CollectionJson[];
}

/** findSaved looks the page `url` up among the user's collections by normalizeUrl; null when it was never saved. */
export function findSaved(collections: readonly CollectionJson[], url: string): SavedMatch | null {
  const wanted = normalizeUrl(url);
  let newest: LinkJson | null = null;
  const holders: CollectionJson[] = [];
  for (const collection of collections) {
    const matches = collection.links.filter((link) => normalizeUrl(link.url) === wanted);
    if (matches.length === 0) continue;
    holders.push(collection);
    for (const link of matches) if (newest === null || link.id > newest.id) newest = link;
  }
  return newest === null ? null : { link: newest, collections: holders };
}
