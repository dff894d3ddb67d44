/**
 * The readable text of a page, as Firefox's Reader View finds it: Mozilla's Readability over a
 * copy of the document (it changes the tree it reads), then the article's element turned into
 * lines. Runs inside the page (capture.ts) and, in the tests, over linkedom; so it names only
 * the few parts of the DOM it reads (the server's typecheck, which reads the tests, has no DOM).
 */
import { Readability } from "@mozilla/readability";
import type { ContentBody } from "../../src/contract/content";

/** Elements whose start and end break a line: one line per paragraph, heading, list item or table cell. */
const BLOCKS = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BR", "DD", "DETAILS", "DIV", "DL", "DT", "FIELDSET", "FIGCAPTION", "FIGURE",
  "FOOTER", "FORM", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HR", "LI", "MAIN", "NAV", "OL", "P", "PRE", "SECTION",
  "SUMMARY", "TABLE", "TBODY", "TD", "TFOOT", "TH", "THEAD", "TR", "UL",
]);
/** Elements never read: code, styles and what a reader never sees. */
const SKIPPED = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "svg", "IFRAME", "OBJECT", "CANVAS"]);
/** A node of the page, as far as textOf reads it. */
export interface PageNode {
  nodeType: number;
  nodeValue: string | null;
  childNodes: ArrayLike<PageNode>;
}

interface PageElement extends PageNode {
  tagName: string;
  hasAttribute(name: string): boolean;
  getAttribute(name: string): string | null;
}

/** The page's document, as far as readPage reads it. */
export interface PageDocument {
  title: string;
  documentElement: { getAttribute(name: string): string | null } | null;
  cloneNode(deep: true): unknown;
}

/** What Readability's constructor takes: the browser's Document. */
type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;

/**
 * textOf turns an element into lines: white space folded to one space inside each line, one
 * line per block, no empty lines; inside `pre` the page's own line breaks are kept.
 */
export function textOf(root: PageNode): string {
  const lines: string[] = [];
  let line = "";
  const flush = () => {
    const folded = line.replace(/\s+/g, " ").trim();
    if (folded !== "") lines.push(folded);
    line = "";
  };
  const walk = (node: PageNode, pre: boolean): void => {
    if (node.nodeType === TEXT_NODE) {
      const text = node.nodeValue ?? "";
      if (!pre) {
        line += text;
        return;
      }
      const parts = text.split("\n");
      parts.forEach((part: string, index: number) => {
        if (index > 0) flush();
        line += part;
      });
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const element = node as PageElement;
    const tag = element.tagName.toUpperCase();
    if (SKIPPED.has(tag) || element.hasAttribute("hidden") || element.getAttribute("aria-hidden") === "true") return;
    const block = BLOCKS.has(tag);
    if (block) flush();
    for (const child of Array.from(element.childNodes)) walk(child, pre || tag === "PRE");
    if (block) flush();
  };
  walk(root, false);
  flush();
  return lines.join("\n");
}

/** oneLine folds a metadata field to one line; blank is null. */
function oneLine(value: string | null | undefined): string | null {
  const folded = (value ?? "").replace(/\s+/g, " ").trim();
  return folded === "" ? null : folded;
}

/**
 * readPage reads `document` without changing it: the article's title, its text (textOf of what
 * Readability kept), excerpt, byline and language. A page Readability finds nothing in gives an
 * empty text (which is not sent), with the document's title and language.
 */
export function readPage(document: PageDocument): ContentBody {
  const copy = document.cloneNode(true) as ReadabilityDocument;
  const article = new Readability<PageNode>(copy, { serializer: (node) => node as unknown as PageNode }).parse();
  const lang = oneLine(article?.lang ?? document.documentElement?.getAttribute("lang"));
  if (article === null || !article.content) {
    return { title: oneLine(document.title), text: "", excerpt: null, byline: null, lang };
  }
  return { title: oneLine(article.title) ?? oneLine(document.title), text: textOf(article.content), excerpt: oneLine(article.excerpt), byline: oneLine(article.byline), lang };
}
