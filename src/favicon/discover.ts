/**
 * Icon discovery in an origin's root page, with Bun's HTMLRewriter (lol-html, a streaming
 * HTML tokenizer): no regular expression ever looks at the HTML itself.
 */

/** An icon a page declares, with how strongly it is preferred. */
export interface IconCandidate {
  url: URL;
  /** The largest declared dimension in pixels; Infinity for SVG and `sizes="any"`. */
  size: number;
}

/** The default size of an apple-touch-icon that declares none (what iOS asks for). */
const APPLE_TOUCH_DEFAULT = 180;

const relTokens = (rel: string) => rel.toLowerCase().split(/[\t\n\f\r ]+/).filter(Boolean);

/** iconKind: `icon` (also within `shortcut icon`), `apple-touch-icon` and its `-precomposed` twin. */
function iconKind(rel: string): "icon" | "apple-touch-icon" | null {
  const tokens = relTokens(rel);
  if (tokens.includes("icon")) return "icon";
  if (tokens.includes("apple-touch-icon") || tokens.includes("apple-touch-icon-precomposed")) return "apple-touch-icon";
  return null;
}

/** declaredSize reads `sizes` ("16x16 32x32", "any") as the largest dimension, or null if none. */
export function declaredSize(sizes: string | null): number | null {
  if (sizes === null) return null;
  let largest: number | null = null;
  for (const token of relTokens(sizes)) {
    if (token === "any") return Infinity;
    const match = /^(\d{1,5})x(\d{1,5})$/.exec(token);
    if (match) largest = Math.max(largest ?? 0, Number(match[1]), Number(match[2]));
  }
  return largest;
}

interface DeclaredLink {
  kind: "icon" | "apple-touch-icon";
  href: string;
  sizes: string | null;
  type: string | null;
}

/**
 * discoverIcons lists the icons a page declares with `<link rel>`, best first: the largest
 * declared size wins, SVG and `sizes="any"` count as largest, an apple-touch-icon without
 * sizes counts as 180 px and a plain icon without sizes as 0; ties keep document order.
 * hrefs are resolved against the document base (the page URL after redirects, or the
 * first `<base href>`); only http(s) icons are kept, duplicates once.
 */
export function discoverIcons(html: Uint8Array, pageUrl: URL): IconCandidate[] {
  const declared: DeclaredLink[] = [];
  let baseHref: string | null = null;
  new HTMLRewriter()
    .on("base[href]", {
      element(element) {
        baseHref ??= element.getAttribute("href");
      },
    })
    .on("link[rel][href]", {
      element(element) {
        const kind = iconKind(element.getAttribute("rel") ?? "");
        const href = element.getAttribute("href")?.trim();
        if (!kind || !href) return;
        declared.push({ kind, href, sizes: element.getAttribute("sizes"), type: element.getAttribute("type") });
      },
    })
    .transform(html);

  const declaredBase = baseHref !== null ? URL.parse(baseHref, pageUrl.href) : null;
  const base = declaredBase?.protocol === "http:" || declaredBase?.protocol === "https:" ? declaredBase : pageUrl;
  const seen = new Set<string>();
  const candidates: IconCandidate[] = [];
  for (const link of declared) {
    const url = URL.parse(link.href, base.href);
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) continue;
    url.hash = "";
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    const svg = link.type?.trim().toLowerCase() === "image/svg+xml" || url.pathname.toLowerCase().endsWith(".svg");
    const size = svg ? Infinity : declaredSize(link.sizes) ?? (link.kind === "apple-touch-icon" ? APPLE_TOUCH_DEFAULT : 0);
    candidates.push({ url, size });
  }
  // Array.prototype.sort is stable: equal sizes keep document order.
  return candidates.sort((a, b) => (a.size === b.size ? 0 : b.size - a.size));
}
