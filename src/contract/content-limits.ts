/**
 * What a saved page's content may hold, shared by the server's rules and the extension (which
 * fits what it read to them before sending). Plain values, no schema: the extension bundles this
 * module.
 */

/**
 * The whole `PUT .../content` body in bytes, the text kept in bytes of UTF-8 (cut at a
 * character), the other fields in code points after trimming.
 */
export const CONTENT_LIMITS = { bodyBytes: 2 * 1024 * 1024, textBytes: 1024 * 1024, title: 1000, excerpt: 2000, byline: 500, lang: 35 } as const;

/** A content's language tag (BCP 47's shape, not its registry): `en`, `pt-BR`, `zh-Hant-TW`. */
export const LANGUAGE_TAG = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;

/** A page copy (`PUT .../copy`): at most 20 MiB of HTML before compression (a long article with its images inlined). */
export const COPY_LIMITS = { bytes: 20 * 1024 * 1024 } as const;
