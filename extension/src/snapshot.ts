/**
 * Keeping a copy of a page as it is shown: one self-contained HTML file made from the live
 * document in the tab (its DOM as scripts left it, not the HTML the server first sent), the same
 * code in Chromium and Firefox.
 *
 * - Styles: every style sheet the page uses, in order (from the CSSOM where the browser lets us
 *   read it, which also holds rules scripts inserted; else fetched), as one `<style>`; `style`
 *   attributes kept. Every `url()` in them (images, fonts) becomes a `data:` URL.
 * - Images: each `<img>` as the image it shows (its `currentSrc`), `<input type=image>`,
 *   `poster` and SVG `<image>` alike, as `data:` URLs; `srcset`, `<source>` and lazy loading go.
 *   An `<img>` shown smaller than it is stored is drawn again at the size it was shown (src/shrink.ts);
 *   one its srcset showed at its own size gets that size as its `width`.
 * - Form values: what was typed or chosen is written into the copy (`value`, `checked`, `selected`,
 *   a text area's text).
 * - Removed: scripts, `<noscript>` (the page was shown with scripts), event handler attributes,
 *   `javascript:` URLs, `<base>`, `<meta http-equiv=refresh>`, frames, objects and embeds; links
 *   stay, made absolute.
 *
 * A resource the browser does not let the page read (another site's, without CORS) is left out:
 * the copy is served so that it loads nothing from anywhere, so an address would show nothing.
 */

import { dataUrlOf, type Needed, shrinkImage } from "./shrink";

/** Reads one resource as a `data:` URL, or null when it cannot be read (or is too large). */
export type Inline = (url: string) => Promise<string | null>;

/** Elements whose whole subtree is left out of a copy. */
const DROPPED = new Set(["script", "noscript", "template", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "portal", "slot"]);
/** Elements without an end tag. */
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
/** Attributes holding a URL to make absolute (and to refuse when it is `javascript:`). */
const URL_ATTRIBUTES = new Set(["href", "src", "action", "formaction", "poster", "cite", "background", "xlink:href"]);
/** A URL whose target would be a script. */
const SCRIPT_URL = /^\s*(javascript|vbscript):/i;

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttribute = (text: string) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

/** absolute resolves `url` against `base`, or null when it does not parse. */
function absolute(url: string, base: string): string | null {
  try {
    return new URL(url, base).href;
  } catch {
    return null;
  }
}

/** A CSS `url(...)`, quoted or not. */
const CSS_URL = /url\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^)'"\s]*))\s*\)/gi;

/**
 * inlineCss makes every `url()` of a style sheet's text a `data:` URL (resolved against `base`,
 * the sheet's own address); a `javascript:` one, or one that cannot be read, becomes `url()`,
 * which loads nothing. `@import` rules are dropped here: their sheets are inlined in their place.
 */
export async function inlineCss(css: string, base: string, inline: Inline): Promise<string> {
  const wanted = new Map<string, Promise<string | null>>();
  for (const match of css.matchAll(CSS_URL)) {
    const raw = (match[1] ?? match[2] ?? match[3] ?? "").replace(/\\(.)/g, "$1");
    if (raw === "" || raw.startsWith("data:") || raw.startsWith("#") || SCRIPT_URL.test(raw) || wanted.has(raw)) continue;
    const url = absolute(raw, base);
    wanted.set(raw, url === null ? Promise.resolve(null) : inline(url));
  }
  const found = new Map<string, string | null>();
  for (const [raw, data] of wanted) found.set(raw, await data);
  return css
    .replace(/@import\s+[^;]+;/gi, "")
    .replace(CSS_URL, (whole, double?: string, single?: string, bare?: string) => {
      const raw = (double ?? single ?? bare ?? "").replace(/\\(.)/g, "$1");
      if (raw.startsWith("data:") || raw.startsWith("#")) return whole;
      const data = found.get(raw);
      return data ? `url("${data}")` : "url()";
    });
}

/** The text of one style sheet and the address its `url()`s are relative to. */
interface SheetText {
  css: string;
  base: string;
}

/** underMedia keeps a sheet's `media` attribute (a print sheet must not style the screen). */
const underMedia = (texts: SheetText[], media: string | null): SheetText[] =>
  !media || media.trim() === "" || media.trim().toLowerCase() === "all" ? texts : texts.map((text) => ({ ...text, css: `@media ${media} {\n${text.css}\n}` }));

/** rulesOf reads a sheet's rules from the CSSOM, an `@import`ed sheet in its place; null when the browser does not let the page read them. */
function rulesOf(sheet: CSSStyleSheet, base: string): SheetText[] | null {
  let rules: CSSRuleList;
  try {
    rules = sheet.cssRules;
  } catch {
    return null;
  }
  const texts: SheetText[] = [];
  const own = sheet.href ?? base;
  let css = "";
  for (const rule of Array.from(rules)) {
    const imported = (rule as CSSImportRule).styleSheet;
    if (rule.constructor.name === "CSSImportRule" || (imported && "href" in rule)) {
      if (css) texts.push({ css, base: own });
      css = "";
      const inner = imported ? rulesOf(imported, own) : null;
      if (inner) texts.push(...inner);
      continue;
    }
    css += `${rule.cssText}\n`;
  }
  if (css) texts.push({ css, base: own });
  return texts;
}

/**
 * styleSheetsOf is the text of every sheet the document applies, in document order: a `<style>`
 * or `<link rel=stylesheet>` from the CSSOM when readable (rules scripts inserted included),
 * else a `<style>`'s own text, or the linked sheet fetched (null: left out).
 */
async function styleSheetsOf(document: Document, fetchText: (url: string) => Promise<string | null>): Promise<SheetText[]> {
  const base = document.baseURI;
  const texts: SheetText[] = [];
  for (const node of Array.from(document.querySelectorAll("style, link[rel~=stylesheet]"))) {
    const sheet = (node as HTMLStyleElement | HTMLLinkElement).sheet as CSSStyleSheet | null | undefined;
    if (sheet && sheet.disabled) continue;
    const media = node.getAttribute("media");
    const fromCssom = sheet ? rulesOf(sheet, base) : null;
    if (fromCssom) {
      texts.push(...underMedia(fromCssom, media));
      continue;
    }
    if (node.tagName.toLowerCase() === "style") {
      texts.push(...underMedia([{ css: node.textContent ?? "", base }], media));
      continue;
    }
    const href = absolute(node.getAttribute("href") ?? "", base);
    const css = href === null ? null : await fetchText(href);
    if (css !== null && href !== null) texts.push(...underMedia([{ css, base: href }], media));
  }
  return texts;
}

/** What an element is, read once: its tag name in lower case. */
const tagOf = (element: Element) => element.localName.toLowerCase();

/**
 * snapshotDocument serializes `document` as one self-contained HTML file (see above), reading
 * resources through `inline` and linked style sheets through `fetchText`. `keptAt` names when,
 * in the comment at its top.
 */
export async function snapshotDocument(document: Document, inline: Inline, fetchText: (url: string) => Promise<string | null>, keptAt: Date): Promise<string> {
  const base = document.baseURI;
  const sheets = await styleSheetsOf(document, fetchText);
  const css = (await Promise.all(sheets.map((sheet) => inlineCss(sheet.css, sheet.base, inline)))).join("\n");

  // Every image first, all at once: the serializer below then only looks them up.
  const images = new Map<string, Promise<string | null>>();
  const want = (raw: string | null | undefined): void => {
    if (!raw || raw.startsWith("data:") || SCRIPT_URL.test(raw)) return;
    const url = absolute(raw, base);
    if (url !== null && !images.has(url)) images.set(url, inline(url));
  };
  const imageOf = (element: Element): string | null | undefined => {
    const tag = tagOf(element);
    if (tag === "img") return (element as HTMLImageElement).currentSrc || element.getAttribute("src");
    if (tag === "input" && element.getAttribute("type")?.toLowerCase() === "image") return element.getAttribute("src");
    if (tag === "image") return element.getAttribute("href") ?? element.getAttribute("xlink:href");
    return undefined;
  };
  const styled = new Map<string, Promise<string>>();
  for (const element of Array.from(document.querySelectorAll("*"))) {
    want(imageOf(element));
    want(element.getAttribute("poster"));
    const style = element.getAttribute("style");
    if (style && /url\(/i.test(style) && !styled.has(style)) styled.set(style, inlineCss(style, base, inline));
  }
  const resolved = new Map<string, string | null>();
  for (const [url, data] of images) resolved.set(url, await data);
  await shrinkShownImages(document, base, resolved);
  const styles = new Map<string, string>();
  for (const [style, text] of styled) styles.set(style, await text);
  const dataOf = (raw: string | null | undefined): string | null => {
    if (!raw) return null;
    if (raw.startsWith("data:")) return raw;
    const url = absolute(raw, base);
    return url === null ? null : resolved.get(url) ?? null;
  };

  // An image its srcset sizes (a density other than 1) shows at a size its pixels alone would not
  // give once the srcset is gone: when it is shown at that size, it is written as its width.
  const densityWidths = new Map<Element, number>();
  for (const image of Array.from(document.querySelectorAll("img"))) {
    if (image.hasAttribute("width") || !(image.hasAttribute("srcset") || image.parentElement?.localName === "picture")) continue;
    if (image.naturalWidth > 0 && image.width === image.naturalWidth) densityWidths.set(image, image.naturalWidth);
  }

  const out: string[] = [];
  const attributesOf = (element: Element): [string, string][] => {
    const tag = tagOf(element);
    const kept: [string, string][] = [];
    const image = imageOf(element);
    for (const { name, value } of Array.from(element.attributes)) {
      const lower = name.toLowerCase();
      if (lower.startsWith("on") || lower === "srcset" || lower === "sizes" || lower === "loading" || lower === "integrity" || lower === "nonce") continue;
      if (lower === "value" || lower === "checked" || lower === "selected") continue;
      if (lower === "style") {
        kept.push([name, styles.get(value) ?? value]);
        continue;
      }
      if (image !== undefined && (lower === "src" || lower === "href" || lower === "xlink:href")) {
        const data = dataOf(image);
        if (data) kept.push([name, data]);
        continue;
      }
      if (lower === "poster") {
        const data = dataOf(value);
        if (data) kept.push([name, data]);
        continue;
      }
      if (URL_ATTRIBUTES.has(lower)) {
        if (SCRIPT_URL.test(value)) continue;
        // A reference inside the page (an SVG <use>, an anchor) stays as it is.
        if (value.startsWith("#")) {
          kept.push([name, value]);
          continue;
        }
        // A link or a form's target stays, made absolute: the copy shows where it led.
        const url = lower === "href" || lower === "action" || lower === "formaction" || lower === "cite" ? absolute(value, base) : null;
        if (url !== null) kept.push([name, url]);
        continue;
      }
      kept.push([name, value]);
    }
    // What was typed or chosen, as the page showed it.
    if (tag === "input") {
      const input = element as HTMLInputElement;
      const type = (input.getAttribute("type") ?? "text").toLowerCase();
      if (type === "checkbox" || type === "radio") {
        if (input.checked) kept.push(["checked", ""]);
        if (input.getAttribute("value") !== null) kept.push(["value", input.getAttribute("value")!]);
      } else if (type !== "password" && type !== "file") {
        kept.push(["value", input.value]);
      }
    }
    // An image given by its srcset alone (no src) shows what it showed.
    if (tag === "img" && !element.hasAttribute("src")) {
      const data = dataOf(image);
      if (data) kept.push(["src", data]);
    }
    const densityWidth = densityWidths.get(element);
    if (densityWidth !== undefined) kept.push(["width", String(densityWidth)]);
    if (tag === "option" && (element as HTMLOptionElement).selected) kept.push(["selected", ""]);
    if (tag === "option" && element.getAttribute("value") !== null) kept.push(["value", element.getAttribute("value")!]);
    return kept;
  };
  const write = (node: Node, inRawText = false): void => {
    if (node.nodeType === 3) {
      out.push(inRawText ? node.textContent ?? "" : escapeText(node.textContent ?? ""));
      return;
    }
    if (node.nodeType === 8) return;
    if (node.nodeType !== 1) return;
    const element = node as Element;
    const tag = tagOf(element);
    if (DROPPED.has(tag)) return;
    if (tag === "meta" && /refresh|set-cookie|content-security-policy/i.test(element.getAttribute("http-equiv") ?? "")) return;
    if (tag === "meta" && element.hasAttribute("charset")) return;
    if (tag === "link") return;
    if (tag === "style") return;
    if (tag === "canvas") {
      // A drawing is kept as the picture it shows, when the page may read it back.
      let data: string | null = null;
      try {
        data = (element as HTMLCanvasElement).toDataURL();
      } catch {
        data = null;
      }
      if (data) out.push(`<img src="${escapeAttribute(data)}" width="${(element as HTMLCanvasElement).width}" height="${(element as HTMLCanvasElement).height}" alt="">`);
      return;
    }
    if (tag === "source" && element.parentElement && ["picture", "video", "audio"].includes(tagOf(element.parentElement))) return;
    out.push(`<${element.localName}`);
    for (const [name, value] of attributesOf(element)) out.push(value === "" && (name === "checked" || name === "selected") ? ` ${name}` : ` ${name}="${escapeAttribute(value)}"`);
    out.push(">");
    if (tag === "head") {
      out.push(`<meta charset="utf-8">`);
      if (css) out.push(`<style>${css.replace(/<\/style/gi, "<\\/style")}</style>`);
    }
    if (VOID.has(tag)) return;
    if (tag === "textarea") out.push(escapeText((element as HTMLTextAreaElement).value));
    else for (const child of Array.from(element.childNodes)) write(child);
    out.push(`</${element.localName}>`);
  };
  const source = absolute(document.URL, document.URL) ?? "";
  out.push(`<!doctype html>\n<!-- Kept by linkshelf from ${source.replace(/--/g, "%2D%2D")} on ${keptAt.toISOString()} -->\n`);
  write(document.documentElement);
  return out.join("");
}

/**
 * shrinkShownImages draws again (src/shrink.ts) each `<img>` the page showed smaller than it is
 * stored: at the largest size any `<img>` of that address was rendered, times the pixel ratio
 * (at least 1). An address also used where its size is unknown (an image not rendered, one shown
 * at its own size by `object-fit: none`, a poster, an `<input type=image>`, an SVG `<image>`) is
 * kept as it is. The copy keeps the page's sizes (attributes and styles), and the new image is
 * never smaller than what they gave it, so the layout does not move.
 */
async function shrinkShownImages(document: Document, base: string, resolved: Map<string, string | null>): Promise<void> {
  const window = document.defaultView as (Window & typeof globalThis) | null;
  if (!window) return;
  const ratio = Math.max(1, window.devicePixelRatio || 1);
  const needed = new Map<string, Needed | null>();
  /** The address an image was read from, as the copy maker keyed it; null for a `data:` URL or none. */
  const urlOf = (raw: string | null | undefined) => (raw && !raw.startsWith("data:") ? absolute(raw, base) : null);
  const keep = (raw: string | null | undefined) => {
    const url = urlOf(raw);
    if (url !== null) needed.set(url, null);
  };
  for (const element of Array.from(document.querySelectorAll("img"))) {
    const url = urlOf(element.currentSrc || element.getAttribute("src"));
    if (url === null || needed.get(url) === null) continue;
    const box = element.getBoundingClientRect();
    const fit = window.getComputedStyle(element).objectFit;
    // The rendered size (`width`/`height` of a rendered image), or its box with any transform, whichever is larger.
    const width = Math.max(element.width, box.width) * ratio;
    const height = Math.max(element.height, box.height) * ratio;
    if (!element.complete || element.naturalWidth === 0 || box.width === 0 || box.height === 0 || fit === "none" || fit === "scale-down") {
      needed.set(url, null);
      continue;
    }
    const before = needed.get(url);
    needed.set(url, { width: Math.max(before?.width ?? 0, width), height: Math.max(before?.height ?? 0, height) });
  }
  for (const element of Array.from(document.querySelectorAll("input[type=image i], image, [poster]"))) {
    for (const name of ["src", "poster", "href", "xlink:href"]) keep(element.getAttribute(name));
  }
  // One at a time: a decoded photo takes tens of megabytes.
  for (const [url, size] of needed) {
    const data = resolved.get(url);
    if (size && data) resolved.set(url, await shrinkImage(window, data, size));
  }
}

/** The largest resource a copy inlines: one image or font beyond it is left out. */
export const MAX_RESOURCE_BYTES = 8 * 1024 * 1024;

/**
 * pageReaders are the `inline` and `fetchText` of the page in `window`: its own site's resources
 * with its cookies (what the person saw signed in), another site's as that site lets any page
 * read them (CORS), each read once, none larger than MAX_RESOURCE_BYTES.
 */
export function pageReaders(window: Window & typeof globalThis): { inline: Inline; fetchText: (url: string) => Promise<string | null> } {
  const origin = window.location.origin;
  const get = async (url: string): Promise<Blob | null> => {
    if (!/^https?:/i.test(url)) return null;
    try {
      const response = await window.fetch(url, { credentials: new URL(url).origin === origin ? "include" : "omit", cache: "force-cache" });
      if (!response.ok) return null;
      const blob = await response.blob();
      return blob.size > MAX_RESOURCE_BYTES ? null : blob;
    } catch {
      return null;
    }
  };
  const cache = new Map<string, Promise<string | null>>();
  const inline: Inline = (url) => {
    let data = cache.get(url);
    if (!data) {
      data = get(url).then((blob) => blob && dataUrlOf(window, blob));
      cache.set(url, data);
    }
    return data;
  };
  const fetchText = async (url: string) => (await get(url))?.text() ?? null;
  return { inline, fetchText };
}
