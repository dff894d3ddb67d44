import { Elysia } from "elysia";
import { matchesEtag } from "../request/etag";
import { describeRoute } from "../openapi/describe";
import { readIcons } from "./icons.macro" with { type: "macro" };
import { surfaces } from "../request/surface";
import { MANIFEST_PATH, WEB_APP_MANIFEST } from "./manifest";

/** The icons of assets/ (drawn from assets/icon.svg by `npm run icons`), inlined at build time. */
const ICONS: Record<string, string> = readIcons();

interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
}

/** asset prepares one answer body with its type and a strong ETag of its bytes. */
function asset(body: Uint8Array, type: string): Asset {
  return { body, type, etag: `"${new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 27)}"` };
}

/** The served files: path, file under assets/ (or the manifest), media type, and what the OpenAPI document says. */
const SERVED = [
  { path: "/favicon.ico", file: "favicon.ico", type: "image/x-icon", summary: "The site icon (16, 32 and 48 px PNG images in one ICO file)" },
  { path: "/icon.svg", file: "icon.svg", type: "image/svg+xml", summary: "The site icon as SVG, the drawing every other icon is made from" },
  { path: "/icons/icon-180.png", file: "icons/icon-180.png", type: "image/png", summary: "The 180 px icon (apple-touch-icon)" },
  { path: "/icons/icon-192.png", file: "icons/icon-192.png", type: "image/png", summary: "The 192 px icon of the web app manifest" },
  { path: "/icons/icon-512.png", file: "icons/icon-512.png", type: "image/png", summary: "The 512 px icon of the web app manifest" },
  { path: MANIFEST_PATH, file: null, type: "application/manifest+json", summary: "The web app manifest, with a share target that opens the add-link form" },
] as const;

/** The paths of the icons and the manifest: public, never rate-limited. */
export const ASSET_PATHS = SERVED.map((served) => served.path);

/**
 * assetRoutes: the icons and the web app manifest, for anyone (a browser asks for them
 * before any sign-in), not rate-limited, cached for a day and revalidated by ETag.
 */
export function assetRoutes() {
  const app = new Elysia().use(surfaces);
  for (const served of SERVED) {
    let prepared: Asset | undefined;
    // Decoded on first use: start-up does not pay for icons nobody asked for yet.
    const get = () =>
      (prepared ??= asset(served.file === null ? new TextEncoder().encode(JSON.stringify(WEB_APP_MANIFEST)) : Buffer.from(ICONS[served.file]!, "base64"), served.type));
    app.get(served.path, ({ request }) => {
      const { body, type, etag } = get();
      const headers = { "Content-Type": type, "Cache-Control": "public, max-age=86400", ETag: etag, "X-Content-Type-Options": "nosniff" };
      if (matchesEtag(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
      return new Response(body, { headers });
    }, {
      surface: { kind: "browser", limited: false, callers: ["anyone"] },
      detail: describeRoute({
        tag: "assets", summary: served.summary,
        description: "Public, not rate-limited; `Cache-Control: public, max-age=86400` with an ETag (`If-None-Match` gets 304).",
        responses: { 200: { description: "The file.", media: [served.type] }, 304: { description: "Not modified since the ETag given." } },
      }),
    });
  }
  return app;
}
