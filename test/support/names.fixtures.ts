/**
 * Names on both sides of the name rule (links, collections, users, tokens): what a name may
 * hold and what it may not, with the message each refusal carries.
 */
import { NAME_MESSAGES } from "../../src/common/rules";

/** Names that are stored (trimmed) as they are. */
export const GOOD_NAMES: Record<string, string> = {
  "an emoji ZWJ sequence (U+200D inside an emoji)": "👩‍👩‍👧",
  "an emoji ZWJ sequence in words": "Family 👩‍👩‍👧 trip",
  "a combining accent": "Cafe\u0301",
  "a single combining mark on a letter": "e\u0301",
  "Arabic with a right-to-left mark": "\u0645\u0631\u062D\u0628\u0627\u200F",
  "a zero-width space between letters": "a\u200Bb",
  "a flag and a keycap": "🇫🇷 1️⃣",
  "one character": "x",
  "a tab and a line feed at the ends (trimmed)": "\tpadded\n",
};

/** Names refused for a character they hold (after trimming: a tab or line feed at an end is trimmed, not refused). */
export const FORBIDDEN_NAMES: Record<string, string> = {
  "NUL (C0)": "a\u0000b",
  "BEL (C0)": "bell\u0007",
  "a tab inside": "tab\tinside",
  "a line feed inside": "one\ntwo",
  "a carriage return inside": "one\rtwo",
  "an escape sequence": "\u001B[31mred",
  "DEL": "a\u007Fb",
  "NEL (C1)": "a\u0085b",
  "CSI (C1)": "a\u009B31m",
  "LINE SEPARATOR": "one\u2028two",
  "PARAGRAPH SEPARATOR": "one\u2029two",
  "LRE": "\u202Aabc",
  "RLE": "\u202Babc",
  "PDF": "abc\u202C",
  "LRO": "\u202Dabc",
  "RLO (exe-by-reversal)": "invoice\u202Efdp.exe",
  "LRI": "\u2066abc",
  "RLI": "\u2067abc",
  "FSI": "\u2068abc",
  "PDI": "abc\u2069",
  "a lone surrogate": "a\uD800b",
};

/** Names refused because nothing in them shows. */
export const INVISIBLE_NAMES: Record<string, string> = {
  "only U+200B": "\u200B",
  "only U+200B, three times, between spaces": " \u200B\u200B\u200B ",
  "only a ZWJ": "\u200D",
  "only a word joiner": "\u2060",
  "only a combining mark": "\u0301",
  "only a variation selector": "\uFE0F",
  "only a Hangul filler": "\u3164",
  "only a blank Braille pattern": "\u2800",
  "a no-break space and a zero-width non-joiner": "\u00A0\u200C",
};

/** Every refused name with the message the API, the forms and the CLI give for it. */
export const BAD_NAMES: [string, string, string][] = [
  ...Object.entries(FORBIDDEN_NAMES).map(([label, name]): [string, string, string] => [label, name, NAME_MESSAGES.forbidden]),
  ...Object.entries(INVISIBLE_NAMES).map(([label, name]): [string, string, string] => [label, name, NAME_MESSAGES.invisible]),
];
