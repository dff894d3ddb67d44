/**
 * `PUT|GET|DELETE /api/v1/links/:id/copy`: the page copy of a link, one self-contained HTML file
 * the browser extension made of the page as it was shown. Registered before the API's JSON
 * parser: the copy's body is HTML, with its own limit.
 */
import { Elysia } from "elysia";
import type { Guards } from "../auth/requester";
import { CopySavedJson } from "../contract/copies";
import { MessageJson } from "../contract/common";
import { UnsupportedMediaType } from "../common/errors";
import { extractReadableInSteps } from "../capture/extract";
import { formatBytes } from "../common/format";
import { parseId } from "../common/ids";
import { apiRoute, errorDoc } from "../openapi/describe";
import { keepSentBody } from "../request/json-body";
import { readLimitedBytes } from "../request/limited";
import { COPY_TOO_LARGE } from "../shelf/copies";
import { COPY_LIMITS } from "../shelf/limits";
import { surfaces } from "../request/surface";
import { copyResponse } from "../capture/copy-response";
import type { WriteOnce } from "./idempotency";

const HTML_MEDIA_TYPE = /^text\/html\s*(;|$)/i;

/**
 * readCopyBody reads a copy's body: `text/html` only (415), at most COPY_LIMITS.bytes (413,
 * refused before it is read when its length says so). With an `Idempotency-Key`, the body's hash
 * is what the key is bound to.
 */
async function readCopyBody(request: Request): Promise<Uint8Array> {
  if (!HTML_MEDIA_TYPE.test(request.headers.get("content-type") ?? "")) throw new UnsupportedMediaType();
  const bytes = await readLimitedBytes(request, COPY_LIMITS.bytes, COPY_TOO_LARGE);
  keepSentBody(request, new Bun.CryptoHasher("sha256").update(bytes).digest("hex"));
  return bytes;
}

/** copyRoutes: the page copy of one of your links. */
export function copyRoutes({ clock }: { clock: () => number }, { apiUser }: Guards, once: WriteOnce) {
  return new Elysia()
    .use(surfaces)
    .use(apiUser)
    .use(once)
    .put("/links/:id/copy", async ({ params, body, shelf: asking, write }) => {
      const id = parseId(params.id);
      const html = body as Uint8Array;
      // A link without saved text is found by its copy's: read (a step at a time) before the write.
      const page = asking.links.contentSummary(id) === null ? await extractReadableInSteps(html, "text/html; charset=utf-8") : null;
      return write((shelf) => {
        const now = clock();
        const { copy, replaced } = shelf.copies.save(id, html, now);
        if (page && page.text.trim() !== "" && shelf.links.contentSummary(id) === null) shelf.links.setContent(id, page, "browser", now);
        return { message: replaced ? "Copy replaced." : "Copy saved.", copy };
      });
    }, {
      parse: ({ request }) => readCopyBody(request),
      ...apiRoute({
        tag: "copies", summary: "Keep a copy of a link's page", id: true,
        description: "The body is the copy: one self-contained HTML file (`Content-Type: text/html`), at most " +
          `${formatBytes(COPY_LIMITS.bytes)} before compression. It replaces the link's copy, if it had one. Stored compressed; ` +
          "a link without saved page text gets the copy's readable text (as if the extension had sent it), so search finds it; " +
          "your copies together may take at most LINKSHELF_COPY_QUOTA of stored (compressed) bytes. A refused copy stores nothing and leaves an older one.",
        ok: { description: "Stored: when, and its size before compression.", json: CopySavedJson },
        more: {
          413: errorDoc(`PAYLOAD_TOO_LARGE: the copy is larger than ${formatBytes(COPY_LIMITS.bytes)}; nothing was stored.`),
          415: errorDoc("UNSUPPORTED_MEDIA_TYPE: the body was not sent as text/html."),
          503: { ...errorDoc("BUSY: the server already holds as many bodies as it can at once; none of this one was read."), headers: { "Retry-After": "Seconds to wait." } },
          507: errorDoc("COPY_QUOTA_EXCEEDED: the copy would take your copies past the server's LINKSHELF_COPY_QUOTA (or it is 0); nothing was stored."),
        },
      }),
    })
    .get("/links/:id/copy", ({ request, shelf, params }) => copyResponse(request, shelf.copies.get(parseId(params.id))), apiRoute({
      tag: "copies", summary: "Read the copy of a link's page", id: true,
      description: "The HTML file as it was stored, served so that it can do no harm: `Content-Security-Policy: sandbox` (no scripts, " +
        "no same origin), nothing loaded from anywhere (inline styles and data: images and fonts only), `nosniff`, `no-referrer`.",
      ok: { description: "The copy.", media: ["text/html"], headers: { "Content-Security-Policy": "sandbox; default-src 'none'; ...", "Last-Modified": "When the copy was saved." } },
      more: { 404: errorDoc("NOT_FOUND: the id does not exist, belongs to another user, or the link has no copy.") },
    }))
    .delete("/links/:id/copy", ({ params, write }) => write((shelf) => {
      shelf.copies.delete(parseId(params.id));
      return { message: "Copy deleted." };
    }), apiRoute({
      tag: "copies", summary: "Delete the copy of a link's page", id: true,
      ok: { description: "Deleted.", json: MessageJson },
      more: { 404: errorDoc("NOT_FOUND: the id does not exist, belongs to another user, or the link has no copy.") },
    }));
}
