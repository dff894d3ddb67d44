/**
 * How a page copy is served, by the API and the pages alike: as its HTML file, under a policy
 * that lets it do no harm whatever it holds. The copy is someone's page: it may carry scripts,
 * event handlers, a `<meta refresh>`, a `<base>`, forms posting anywhere, SVG with script,
 * `javascript:` URLs. `sandbox` (without `allow-scripts`, `allow-same-origin`, `allow-forms`,
 * `allow-top-navigation`, `allow-popups`) runs none of it, in an opaque origin that reaches no
 * cookie and no storage of this server; `default-src 'none'` with inline styles and `data:` images,
 * fonts and media loads nothing from anywhere; the rest keeps the browser from guessing another
 * type, from telling any site where the copy was opened, and from framing it.
 */
import type { StoredCopy } from "../shelf/copies";

/** The headers of every answer carrying a copy. */
export const COPY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": "sandbox; default-src 'none'; style-src 'unsafe-inline' data:; img-src data:; font-src data:; media-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "private, no-store",
};

/** copyResponse answers with a copy, under COPY_HEADERS. */
export function copyResponse(copy: StoredCopy): Response {
  return new Response(copy.html, { headers: { ...COPY_HEADERS, "Last-Modified": new Date(copy.savedAt).toUTCString() } });
}
