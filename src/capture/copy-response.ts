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
import { copyHtmlOffThread, type StoredCopy } from "../shelf/copies";

/** The headers of every answer carrying a copy. */
export const COPY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": "sandbox; default-src 'none'; style-src 'unsafe-inline' data:; img-src data:; font-src data:; media-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "private, no-store",
};

/** takesZstd: does the client take a Zstandard-encoded answer (`zstd` in `Accept-Encoding`, without `q=0`)? */
function takesZstd(request: Request): boolean {
  return (request.headers.get("accept-encoding") ?? "").split(",").some((part) => {
    const [coding, ...parameters] = part.toLowerCase().split(";").map((piece) => piece.trim());
    const q = parameters.find((parameter) => parameter.startsWith("q="));
    return coding === "zstd" && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * copyResponse answers with a copy, under COPY_HEADERS: to a client that takes Zstandard, its
 * stored bytes as they are (`Content-Encoding: zstd`: nothing to decompress, a third of the bytes
 * to send); to any other, the HTML file decompressed off the server's thread (Bun's thread pool:
 * 5 MB takes ~5 ms, which the server's other requests do not wait for).
 */
export async function copyResponse(request: Request, copy: StoredCopy): Promise<Response> {
  const headers: Record<string, string> = { ...COPY_HEADERS, "Last-Modified": new Date(copy.savedAt).toUTCString(), Vary: "Accept-Encoding" };
  if (takesZstd(request)) return new Response(copy.zstd, { headers: { ...headers, "Content-Encoding": "zstd" } });
  return new Response(await copyHtmlOffThread(copy), { headers });
}
