/**
 * What a successful form says on the page it redirects to. The redirect carries a code
 * (`?done=link-added`), never the text, so no one can put words on the page through a link.
 */
export const NOTICES = {
  "link-added": "Link added.",
  "link-saved": "Link saved.",
  "link-deleted": "Link deleted.",
  "capture-queued": "The page will be fetched in the background: reload this page in a moment to see what was saved.",
  "collection-created": "Collection created.",
  "collection-saved": "Collection saved.",
  "collection-deleted": "Collection deleted. Links that were only in it are now in the Inbox.",
  "password-changed": "Password changed. Every other browser and device was signed out.",
  "token-revoked": "Token revoked.",
  "link-checked": "Link checked: the result is below.",
  "link-ignored": "The link will not be flagged again. Its checks go on.",
  "link-moved": "The link now points at its new address.",
  "import-undone": "Import undone: the links it created and its collections left empty were removed.",
  "extension-removed": "Extension removed, with its tokens. It asks for your approval again the next time it signs in.",
} as const;

export type NoticeCode = keyof typeof NOTICES;

/** noticeOf reads the `done` parameter of a page's address. */
export function noticeOf(code: unknown): string | undefined {
  return typeof code === "string" && Object.hasOwn(NOTICES, code) ? NOTICES[code as NoticeCode] : undefined;
}

/** withNotice adds `done=<code>` to a same-site path. */
export function withNotice(path: string, code: NoticeCode): string {
  const url = new URL(path, "http://x");
  url.searchParams.set("done", code);
  return url.pathname + url.search + url.hash;
}
