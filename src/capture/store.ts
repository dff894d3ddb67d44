/**
 * Where the server's page fetches go: the link's saved content, through the shelf's rules
 * (src/shelf/contents.ts `storeFetchedContent`: only a link that still exists and belongs to
 * the user, and never over content the browser extension captured).
 */
import type { Db } from "../db/client";
import { CONTENT_LIMITS, LANGUAGE_TAG } from "../contract/content-limits";
import { storeFetchedContent as storeContent } from "../shelf/contents";
import type { CapturedContent } from "../shelf/types";
import type { StoreContent } from "./fetcher";

/** cut keeps at most `max` code points of a page's field. */
const cut = (text: string, max: number) => [...text].slice(0, max).join("");

/**
 * fitted makes what a page said fit the content's rules: a page writes what it likes in its
 * title, description and author, so they are cut to their limits, and a language that is not
 * a language tag is left out. The text is cut by the store itself.
 */
export function fitted(content: CapturedContent): CapturedContent {
  return {
    text: content.text,
    title: cut(content.title, CONTENT_LIMITS.title),
    excerpt: cut(content.excerpt, CONTENT_LIMITS.excerpt),
    byline: cut(content.byline, CONTENT_LIMITS.byline),
    lang: LANGUAGE_TAG.test(content.lang) && content.lang.length <= CONTENT_LIMITS.lang ? content.lang : "",
  };
}

/** storeFetchedContent is the fetcher's store for a server on `db`. */
export function storeFetchedContent(db: Db): StoreContent {
  return (linkId, userId, content, now) => void storeContent(db, { linkId, userId }, fitted(content), now);
}
