/**
 * Readable text of a saved page, on the server: Mozilla's Readability (the extractor behind
 * Firefox's Reader View) over linkedom, a DOM without a browser. Readability finds the
 * article and drops navigation, sidebars, ads and footers; the text is then read from the
 * article's elements, one line per paragraph, heading or list item.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { CAPTURE_LIMITS, cut, normalizeText } from "../src/capture/content";
import type { CapturedContent } from "../src/shelf/types";
import { decodePage } from "../src/capture/decode";

/** Elements whose end starts a new line of text. */
const BLOCK = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BR", "DD", "DETAILS", "DIV", "DL", "DT", "FIGCAPTION", "FIGURE", "FOOTER",
  "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HR", "LI", "MAIN", "NAV", "OL", "P", "PRE", "SECTION", "SUMMARY",
  "TABLE", "TR", "UL", "CAPTION", "TD", "TH",
]);
/** Elements whose text is never part of what a reader reads. */
const SKIPPED = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "MATH", "IFRAME", "OBJECT", "CANVAS", "SELECT", "BUTTON"]);
/** What a page without an article loses before its body's text is taken. */
const CHROME = "script, style, noscript, template, nav, header, footer, aside, form, [role=navigation], [role=banner], [role=contentinfo]";

interface TextNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  firstChild: TextNode | null;
  nextSibling: TextNode | null;
}

/** textOf reads an element's text: runs of white space folded to one space, a new line after each block. */
function textOf(root: TextNode): string {
  const parts: string[] = [];
  const walk = (node: TextNode) => {
    if (node.nodeType === 3) {
      parts.push(node.textContent ?? "");
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const name = node.nodeName.toUpperCase();
    if (SKIPPED.has(name)) return;
    // Siblings by link: linkedom builds `childNodes` anew at each access.
    for (let child = node.firstChild; child; child = child.nextSibling) walk(child);
    if (BLOCK.has(name)) parts.push("\n");
  };
  walk(root);
  return normalizeText(parts.join(""));
}

const line = (value: string | null | undefined, units: number) => cut(normalizeText(value ?? "").replace(/\n/g, " "), units);

/**
 * extractReadable reads a page (its bytes, decoded as decodePage says, or text already
 * decoded) and returns its title, readable text, excerpt, byline and language, or null when
 * there is no text at all. `url` is the page's address (after redirects), which Readability
 * uses to resolve relative links. Text longer than CAPTURE_LIMITS.textUnits is cut there.
 */
export function extractWithReadability(html: string | Uint8Array, url: string, contentType?: string | null): CapturedContent | null {
  const source = typeof html === "string" ? html : decodePage(html, contentType);
  const { document } = parseHTML(source);
  const pageTitle = document.title ?? "";
  const pageLang = document.documentElement?.getAttribute("lang") ?? "";
  // Readability reads the base URI for relative links; linkedom's document has none of its own.
  Object.defineProperty(document, "baseURI", { value: url });
  Object.defineProperty(document, "documentURI", { value: url });
  const article = new Readability<TextNode>(document as unknown as ConstructorParameters<typeof Readability>[0], { serializer: (node) => node as unknown as TextNode }).parse();

  let text: string;
  if (article?.content) {
    text = textOf(article.content);
  } else {
    const body = document.body;
    if (!body) return null;
    for (const element of body.querySelectorAll(CHROME)) element.remove();
    text = textOf(body as unknown as TextNode);
  }
  const title = line(article?.title || pageTitle, CAPTURE_LIMITS.titleUnits);
  if (text === "" && title === "") return null;
  return {
    title,
    text: cut(text, CAPTURE_LIMITS.textUnits),
    excerpt: line(article?.excerpt, CAPTURE_LIMITS.excerptUnits),
    byline: line(article?.byline, CAPTURE_LIMITS.bylineUnits),
    lang: line(article?.lang || pageLang, CAPTURE_LIMITS.langUnits),
  };
}
