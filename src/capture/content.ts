/** The limits of a capture of a page, and the text rules every capture follows (what it holds: CapturedContent of src/shelf/types.ts). */
import type { CapturedContent } from "../shelf/types";

export const CAPTURE_LIMITS = {
  /** The text kept, in UTF-16 code units (JavaScript string length, as search offsets count): 1 MiB of them. */
  textUnits: 1024 * 1024,
  /** Title, excerpt, byline and language are cut to these many code units. */
  titleUnits: 1000,
  excerptUnits: 2000,
  bylineUnits: 500,
  langUnits: 35,
} as const;

/**
 * normalizeText folds white space inside each line to one space, trims every line, drops
 * empty lines, and joins the lines with one `\n`: paragraphs stay apart, layout does not.
 */
export function normalizeText(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(/[\s\u00a0]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}

/** cut keeps at most `units` UTF-16 code units of `text`, never half of a surrogate pair. */
export function cut(text: string, units: number): string {
  if (text.length <= units) return text;
  const code = text.charCodeAt(units - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? units - 1 : units);
}

/** within cuts every field of a capture to its limit. */
export function within(content: CapturedContent): CapturedContent {
  return {
    title: cut(content.title, CAPTURE_LIMITS.titleUnits),
    text: cut(content.text, CAPTURE_LIMITS.textUnits),
    excerpt: cut(content.excerpt, CAPTURE_LIMITS.excerptUnits),
    byline: cut(content.byline, CAPTURE_LIMITS.bylineUnits),
    lang: cut(content.lang, CAPTURE_LIMITS.langUnits),
  };
}
