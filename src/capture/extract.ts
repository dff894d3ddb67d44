/**
 * Readable text of a saved page, on the server: one pass of htmlparser2's tokenizer, no DOM
 * built (Readability over a linkedom DOM, which bench/capture.ts compares with it, is several
 * times slower and holds several times the memory on a large page). Every run of text is put in a block (a paragraph, heading, list item, cell...) that remembers what it
 * was inside of: page chrome (`nav`, `header`, `footer`, `aside`, `form`, ARIA landmarks of the
 * same kind), an element whose class or id says it is not content (ad, sidebar, related,
 * share, comments, newsletter...), and the article container it belongs to (`article`,
 * `main`, `[role=main]`, `[itemprop=articleBody]`). Then the blocks are chosen: those of the
 * container holding the most text when it holds enough, else every block outside chrome;
 * either way without blocks that are mostly link text (menus, "more coverage" lists).
 */
import { Parser } from "htmlparser2";
import type { CapturedContent } from "../shelf/types";
import { normalizeText, within } from "./content";
import { decodePage } from "./decode";

/** Elements whose text is never read. */
const SKIPPED = new Set(["script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas", "select", "button", "textarea", "head", "dialog"]);
/** Elements that are page chrome around the content. */
const CHROME = new Set(["nav", "header", "footer", "aside", "form", "menu"]);
const CHROME_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alert", "menu", "menubar"]);
/** Elements that start and end a block of text. */
const BLOCKS = new Set([
  "address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt", "figcaption", "figure", "footer",
  "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary",
  "table", "tr", "td", "th", "caption", "ul", "tbody", "thead", "tfoot", "body", "html", "form", "fieldset", "legend",
]);
/** Void elements: no end tag follows, so no frame is pushed for them. */
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
/** Words in a class or id that mark an element as not content... */
const UNLIKELY = new Set([
  "ad", "ads", "adsense", "advert", "advertisement", "banner", "breadcrumb", "breadcrumbs", "comment", "comments", "cookie", "cookies",
  "disqus", "footer", "masthead", "menu", "nav", "navbar", "navigation", "newsletter", "outbrain", "pagination", "popular", "promo",
  "related", "share", "sharing", "sidebar", "social", "sponsor", "sponsored", "subscribe", "taboola", "widget", "popup", "modal", "skip",
]);
/** ...unless they also say it is. */
const LIKELY = new Set(["article", "body", "content", "entry", "main", "post", "story", "text", "prose"]);
/** A container's text (outside links, chrome and unlikely parts) needed to stand for the page. */
const MIN_CONTAINER_CHARS = 250;
/** A block whose link text is more than this share of its text is navigation. */
const MAX_LINK_DENSITY = 0.5;

interface Frame {
  name: string;
  skip: boolean;
  chrome: boolean;
  unlikely: boolean;
  link: boolean;
  /** Index of the article container this element is in (its own, or an ancestor's); -1 for none. */
  container: number;
  /** Inside an SVG or MathML element (whose `<title>` is not the page's). */
  foreign: boolean;
}

interface Block {
  text: string;
  linkChars: number;
  chrome: boolean;
  unlikely: boolean;
  /** The innermost container the block is in; -1 for none. */
  container: number;
}

const words = (value: string | undefined) => (value ?? "").toLowerCase().split(/[\s_-]+/).filter((word) => word !== "");

function unlikelyByName(attributes: Record<string, string>): boolean {
  const named = [...words(attributes.class), ...words(attributes.id)];
  return named.some((word) => UNLIKELY.has(word)) && !named.some((word) => LIKELY.has(word));
}

const isContainer = (name: string, attributes: Record<string, string>) =>
  name === "article" || name === "main" || attributes.role === "main" || attributes.itemprop === "articleBody";

/**
 * PageReader takes a page's text in pieces (`write`) and gives its capture at the `end`. The
 * pieces may split a tag anywhere: the tokenizer keeps its state between them.
 */
class PageReader {
  private readonly stack: Frame[] = [{ name: "#root", skip: false, chrome: false, unlikely: false, link: false, container: -1, foreign: false }];
  private readonly blocks: Block[] = [];
  private readonly containerChars: number[] = [];
  private readonly containerParents: number[] = [];
  private current: string[] = [];
  private currentLinkChars = 0;
  private title = "";
  private inTitle = false;
  private firstHeading = "";
  private inHeading = false;
  private headingSeen = false;
  private readonly meta: Record<string, string> = {};
  private lang = "";
  private bylineText = "";
  private bylineDepth = -1;
  private readonly parser: Parser;

  constructor() {
    this.parser = new Parser({
      onopentag: (name, attributes) => this.open(name, attributes),
      ontext: (text) => this.text(text),
      onclosetag: (name) => this.close(name),
    }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
  }

  write(piece: string): void {
    this.parser.write(piece);
  }

  private top(): Frame {
    return this.stack[this.stack.length - 1]!;
  }

  private flush(): void {
    if (this.current.length === 0) return;
    const text = normalizeText(this.current.join("")).replace(/\n/g, " ");
    const frame = this.top();
    if (text !== "") {
      const block = { text, linkChars: this.currentLinkChars, chrome: frame.chrome, unlikely: frame.unlikely, container: frame.container };
      this.blocks.push(block);
      // Counted for the innermost container only; end() adds each container's count to its parents'.
      if (!block.chrome && !block.unlikely && block.container !== -1) this.containerChars[block.container]! += text.length - this.currentLinkChars;
    }
    this.current = [];
    this.currentLinkChars = 0;
  }

  private open(name: string, attributes: Record<string, string>): void {
    const parent = this.top();
    // The page's <title> sits in <head>, whose other text is skipped; an SVG's <title> is not the page's.
    if (name === "title" && this.title === "" && !parent.foreign) this.inTitle = true;
    if (name === "html" && attributes.lang) this.lang = attributes.lang;
    if (name === "meta") {
      const key = (attributes.name ?? attributes.property ?? attributes["http-equiv"] ?? "").toLowerCase();
      if (key !== "" && attributes.content !== undefined && !(key in this.meta)) this.meta[key] = attributes.content;
    }
    if (VOID.has(name)) {
      if (name === "br" || name === "hr") this.current.push("\n");
      return;
    }
    if (BLOCKS.has(name)) this.flush();
    const role = (attributes.role ?? "").toLowerCase();
    const skip = parent.skip || SKIPPED.has(name) || attributes.hidden !== undefined || attributes["aria-hidden"] === "true"
      || /display\s*:\s*none/i.test(attributes.style ?? "");
    const chrome = parent.chrome || CHROME.has(name) || CHROME_ROLES.has(role);
    const container = !skip && isContainer(name, attributes);
    const unlikely = parent.unlikely || (name !== "body" && name !== "html" && !container && unlikelyByName(attributes));
    let containerIndex = parent.container;
    if (container) {
      this.containerParents.push(parent.container);
      this.containerChars.push(0);
      containerIndex = this.containerChars.length - 1;
    }
    const foreign = parent.foreign || name === "svg" || name === "math";
    this.stack.push({ name, skip, chrome, unlikely, link: parent.link || name === "a", container: containerIndex, foreign });
    if (!skip && (name === "h1" || name === "h2") && !this.headingSeen) {
      this.inHeading = true;
      this.headingSeen = true;
    }
    if (!skip && this.bylineDepth === -1 && this.bylineText === ""
      && (attributes.rel === "author" || attributes.itemprop === "author" || words(attributes.class).some((word) => word === "byline" || word === "author"))) {
      this.bylineDepth = this.stack.length;
    }
  }

  private text(text: string): void {
    if (this.inTitle) {
      this.title += text;
      return;
    }
    const frame = this.top();
    if (frame.skip) return;
    if (this.inHeading) this.firstHeading += text;
    if (this.bylineDepth !== -1) this.bylineText += text;
    this.current.push(text);
    if (frame.link) this.currentLinkChars += normalizeText(text).length;
  }

  private close(name: string): void {
    if (VOID.has(name)) return;
    if (name === "title") this.inTitle = false;
    // htmlparser2 closes what it opened (implied closes included, innermost first), so the
    // frame on top is this element's.
    if (this.top().name !== name || this.stack.length === 1) return;
    if (BLOCKS.has(name)) this.flush();
    if (name === "h1" || name === "h2") this.inHeading = false;
    if (this.bylineDepth === this.stack.length) this.bylineDepth = -1;
    this.stack.pop();
  }

  /** end chooses the readable blocks and returns the capture; null when the page has no text and no title. */
  end(): CapturedContent | null {
    this.parser.end();
    this.flush();
    const { blocks, containerChars, containerParents, meta } = this;
    // A container comes after its parent: from the last to the first, each count reaches every ancestor.
    for (let at = containerChars.length - 1; at >= 0; at--) {
      if (containerParents[at] !== -1) containerChars[containerParents[at]!]! += containerChars[at]!;
    }
    // The article container with the most text, if it has enough; else the whole page.
    let best = -1;
    for (let at = 0; at < containerChars.length; at++) {
      if (containerChars[at]! >= MIN_CONTAINER_CHARS && (best === -1 || containerChars[at]! > containerChars[best]!)) best = at;
    }
    const readable = (block: Block) => block.linkChars <= MAX_LINK_DENSITY * block.text.length;
    // Which containers are the chosen one or inside it, parents before children.
    const inBest = containerParents.map(() => false);
    for (let at = 0; at < containerParents.length; at++) inBest[at] = at === best || (containerParents[at] !== -1 && inBest[containerParents[at]!]!);
    const content = (block: Block) =>
      !block.chrome && !block.unlikely && (best === -1 || (block.container !== -1 && inBest[block.container]!)) && readable(block);
    let chosen = blocks.filter(content);
    // A page made only of what looks like chrome (a sidebar, a list of links) still has its text.
    if (chosen.length === 0) chosen = blocks.filter(readable);
    if (chosen.length === 0) chosen = blocks;
    const text = chosen.map((block) => block.text).join("\n");

    const oneLine = (value: string | undefined) => normalizeText(value ?? "").replace(/\n/g, " ");
    const title = oneLine(this.title) || oneLine(meta["og:title"]) || oneLine(this.firstHeading);
    if (text === "" && title === "") return null;
    const lines = text.split("\n");
    const firstParagraph = lines.find((line) => line.length >= EXCERPT_PARAGRAPH_CHARS) ?? lines[0] ?? "";
    return within({
      title,
      text,
      excerpt: oneLine(meta.description) || oneLine(meta["og:description"]) || firstParagraph.slice(0, EXCERPT_CHARS),
      byline: oneLine(meta.author) || oneLine(this.bylineText).replace(/^by\s+/i, ""),
      lang: oneLine(this.lang) || oneLine(meta["content-language"]),
    });
  }
}

/** Without a meta description, the excerpt is the first line this long (else the first line), cut to EXCERPT_CHARS. */
const EXCERPT_PARAGRAPH_CHARS = 80;
const EXCERPT_CHARS = 300;
/** How much of a page is read between two turns of the event loop in extractReadableInSteps. */
const STEP_CHARS = 32 * 1024;

/** Waits between two steps of an extraction, told how long the step before took (ms). */
export type Between = (spentMillis: number) => Promise<void>;

const nextTurn: Between = () => new Promise((resolve) => setImmediate(resolve));

const decoded = (html: string | Uint8Array, contentType?: string | null) => (typeof html === "string" ? html : decodePage(html, contentType));

/**
 * extractReadable reads a page (its bytes, decoded by decodePage with the HTTP `contentType`,
 * or text already decoded) and returns its title, readable text (one line per paragraph),
 * excerpt, byline and language, each cut to CAPTURE_LIMITS; null when it has neither text nor title.
 */
export function extractReadable(html: string | Uint8Array, contentType?: string | null): CapturedContent | null {
  const reader = new PageReader();
  reader.write(decoded(html, contentType));
  return reader.end();
}

/**
 * extractReadableInSteps is extractReadable reading STEP_CHARS at a time and awaiting
 * `between` after each step (by default the next turn of the event loop), so a large page never
 * holds up the server's answers for long.
 */
export async function extractReadableInSteps(html: string | Uint8Array, contentType?: string | null, between: Between = nextTurn): Promise<CapturedContent | null> {
  let started = performance.now();
  const text = decoded(html, contentType);
  const reader = new PageReader();
  for (let at = 0; at < text.length; at += STEP_CHARS) {
    reader.write(text.slice(at, at + STEP_CHARS));
    await between(performance.now() - started);
    started = performance.now();
  }
  const content = reader.end();
  await between(performance.now() - started);
  return content;
}
