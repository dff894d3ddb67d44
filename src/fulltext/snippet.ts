/**
 * Snippets: a window of about SNIPPET_CHARS of a link's text around the best match of a query,
 * with the matched words as [start, end) ranges of JavaScript string indices (UTF-16 code units)
 * into the snippet's text. Ranges, not markup, so a client renders them without trusting any
 * HTML. The window starts and ends between words (in CJK text, between characters), never cuts
 * a surrogate pair or a character from its combining marks, and says where it cut the text
 * with `…` (ELLIPSIS) at that end.
 *
 * Matching mirrors the index: words are runs of letters, digits and marks; they compare with
 * case and diacritics folded and English words stemmed (src/fulltext/porter.ts); runs of CJK
 * characters are found as substrings.
 */
import { porterStem } from "./porter";
import type { QueryTerm } from "./query";
import { CJK_RUN } from "./index-text";

/** Characters of text in a snippet (a little more when the window is widened to keep a character whole). */
export const SNIPPET_CHARS = 200;
/** Characters of context kept before the first match of the window. */
const LEAD = 60;
/** What stands where a snippet cuts the text, at either end. */
const ELLIPSIS = "…";
/** At most this many matches are weighed when choosing the window. */
const MAX_MATCHES = 500;

export interface Snippet {
  text: string;
  matches: [number, number][];
}

const WORD = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
const MARK = /\p{M}/u;
const CJK_ONLY = new RegExp(`^${CJK_RUN.source}$`, "u");
const HAS_CJK = new RegExp(CJK_RUN.source, "u");

/** fold is a word as the index compares it: marks removed, lower case. */
const fold = (word: string) => word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
const stem = (word: string) => porterStem(fold(word));

/** One piece of a term to find: a word by its stem (or a prefix of stems), or CJK characters as they are. */
type Piece = { kind: "word"; stem: string; prefix: boolean } | { kind: "cjk"; text: string };

function piecesOf(term: QueryTerm): Piece[] {
  const pieces: Piece[] = [];
  const words = [...term.text.matchAll(WORD)].flatMap((match) => splitCjk(match[0]));
  words.forEach((word, i) => {
    if (CJK_ONLY.test(word)) pieces.push({ kind: "cjk", text: word });
    else pieces.push({ kind: "word", stem: term.prefix && i === words.length - 1 ? fold(word) : stem(word), prefix: term.prefix && i === words.length - 1 });
  });
  return pieces;
}

/** splitCjk separates the CJK runs of a word from the rest ("東京tower" is two pieces). */
function splitCjk(word: string): string[] {
  return word.split(new RegExp(`(${CJK_RUN.source})`, "u")).filter((part) => part !== "");
}

interface Token {
  start: number;
  end: number;
  text: string;
}

/** A match of one term: where, and which term (the window prefers many different terms). */
interface Match {
  start: number;
  end: number;
  term: number;
}

function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(WORD)) {
    let offset = match.index;
    if (!HAS_CJK.test(match[0])) {
      tokens.push({ start: offset, end: offset + match[0].length, text: match[0] });
      continue;
    }
    for (const part of splitCjk(match[0])) {
      tokens.push({ start: offset, end: offset + part.length, text: part });
      offset += part.length;
    }
  }
  return tokens;
}

/** The lower case of an ASCII letter's code; other codes unchanged. */
const asciiLower = (code: number) => (code >= 65 && code <= 90 ? code + 32 : code);

/** pieceMatchesToken: does this token hold what the piece looks for; the [start, end) found, or undefined. */
function pieceMatch(piece: Piece, token: Token, stems: Map<Token, string>): [number, number] | undefined {
  if (piece.kind === "cjk") {
    const at = token.text.indexOf(piece.text);
    return at === -1 ? undefined : [token.start + at, token.start + at + piece.text.length];
  }
  // Most words differ from the piece at their first letter: an ASCII one decides without folding.
  const first = token.text.charCodeAt(0);
  if (first < 128 && asciiLower(first) !== piece.stem.charCodeAt(0)) return undefined;
  if (CJK_ONLY.test(token.text)) return undefined;
  const folded = fold(token.text);
  // A stem is the word's beginning but for its last letter ("happi" of "happy"): cheap test first.
  if (!folded.startsWith(piece.stem.slice(0, Math.max(1, piece.stem.length - 1)))) return undefined;
  let tokenStem = stems.get(token);
  if (tokenStem === undefined) stems.set(token, (tokenStem = porterStem(folded)));
  const hit = piece.prefix ? tokenStem.startsWith(piece.stem) || folded.startsWith(piece.stem) : tokenStem === piece.stem;
  return hit ? [token.start, token.end] : undefined;
}

/** matchAt: does the term (its pieces, on consecutive tokens from `tokens[0]`) match there; the match or undefined. */
function matchAt(pieces: Piece[], tokens: Token[], term: number, stems: Map<Token, string>): Match | undefined {
  if (tokens.length < pieces.length) return undefined;
  let start = -1;
  let end = -1;
  for (let p = 0; p < pieces.length; p++) {
    const found = pieceMatch(pieces[p]!, tokens[p]!, stems);
    if (!found) return undefined;
    if (p === 0) start = found[0];
    end = found[1];
  }
  return { start, end, term };
}

const WORD_CHAR = /[\p{L}\p{N}\p{Co}\p{M}]/u;

/**
 * findMatches lists where the wanted terms occur in `text`, in order. A text whose words fold
 * by lower-casing alone (nothing decomposes, no combining marks) is searched for each term's
 * first letters and read word by word only there; any other text is read whole.
 */
export function findMatches(text: string, terms: readonly QueryTerm[]): Match[] {
  const wanted = terms.filter((term) => !term.exclude).map(piecesOf).filter((pieces) => pieces.length > 0);
  if (wanted.length === 0) return [];
  const stems = new Map<Token, string>();
  const matches: Match[] = [];
  const lower = text.toLowerCase();
  const simple = wanted.every((pieces) => pieces.every((piece) => piece.kind === "word"))
    && lower.length === text.length && !MARK.test(text) && text.normalize("NFD") === text;
  if (simple) {
    const word = new RegExp(WORD.source, "gu");
    wanted.forEach((pieces, term) => {
      const first = pieces[0] as { stem: string };
      const needle = first.stem.slice(0, Math.max(1, first.stem.length - 1));
      for (let at = lower.indexOf(needle); at !== -1 && matches.length < MAX_MATCHES; at = lower.indexOf(needle, at + 1)) {
        if (at > 0 && WORD_CHAR.test(text[at - 1]!)) continue;
        word.lastIndex = at;
        const tokens: Token[] = [];
        for (let i = 0; i < pieces.length; i++) {
          const next = word.exec(text);
          if (!next) break;
          tokens.push({ start: next.index, end: next.index + next[0].length, text: next[0] });
        }
        const match = matchAt(pieces, tokens, term, stems);
        if (match) matches.push(match);
      }
    });
  } else {
    const tokens = tokensOf(text);
    for (let t = 0; t < tokens.length && matches.length < MAX_MATCHES; t++) {
      wanted.forEach((pieces, term) => {
        const match = matchAt(pieces, tokens.slice(t, t + pieces.length), term, stems);
        if (match) matches.push(match);
      });
    }
  }
  return matches.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** Moves an index back to the start of its character (off a low surrogate, off combining marks). */
function characterStart(text: string, i: number): number {
  while (i > 0 && (isLowSurrogate(text.charCodeAt(i)) || MARK.test(text[i]!))) i--;
  return i;
}

/** Moves an index forward to the end of its character (past a low surrogate and combining marks). */
function characterEnd(text: string, i: number): number {
  while (i < text.length && (isLowSurrogate(text.charCodeAt(i)) || MARK.test(text[i]!))) i++;
  return i;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * makeSnippet cuts the window of `text` that holds the most different terms (then the most
 * matches), starting a little before its first match; the text's beginning when nothing matches.
 */
export function makeSnippet(text: string, matches: readonly Match[]): Snippet {
  let best = { start: 0, terms: 0, count: 0 };
  for (let i = 0; i < matches.length; i++) {
    const windowEnd = matches[i]!.start + SNIPPET_CHARS - LEAD;
    const inside = new Set<number>();
    let count = 0;
    for (let j = i; j < matches.length && matches[j]!.end <= windowEnd; j++) {
      inside.add(matches[j]!.term);
      count++;
    }
    if (inside.size > best.terms || (inside.size === best.terms && count > best.count)) best = { start: matches[i]!.start, terms: inside.size, count };
  }
  // With no match, best.start is 0: the text's beginning.
  const first = best.start;
  let start = Math.max(0, first - LEAD);
  // Start at a word when one begins shortly after the cut.
  if (start > 0) {
    const space = text.slice(start, first).search(/\s/);
    if (space !== -1 && space < LEAD / 2) start += space + 1;
  }
  start = skipSpace(text, wordStart(text, characterStart(text, start), first));
  let end = characterEnd(text, Math.min(text.length, start + SNIPPET_CHARS));
  if (end < text.length) end = Math.max(wordEnd(text, end, start), firstMatchEnd(text, matches, start));
  const ranges: [number, number][] = [];
  const lead = start > 0 ? ELLIPSIS.length : 0;
  for (const match of matches) {
    if (match.start < start || match.end > end) continue;
    const last = ranges.at(-1);
    const [from, to] = [match.start - start + lead, match.end - start + lead];
    // Two terms may match overlapping text ("rust" and "rust-lang"): one range covers both.
    if (last && from < last[1]) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  const cutEnd = end < text.length;
  return { text: `${lead > 0 ? ELLIPSIS : ""}${cutEnd ? text.slice(start, end).trimEnd() : text.slice(start, end)}${cutEnd ? ELLIPSIS : ""}`, matches: ranges };
}

/** The code point ending at `i` and the one starting there, as strings ("" at the text's ends). */
const charBefore = (text: string, i: number) => (i <= 0 ? "" : i >= 2 && isLowSurrogate(text.charCodeAt(i - 1)) ? text.slice(i - 2, i) : text[i - 1]!);
const charAfter = (text: string, i: number) => (i >= text.length ? "" : String.fromCodePoint(text.codePointAt(i)!));

/** Whether a cut at `i` splits a word; CJK text may be cut between any two characters. */
function insideWord(text: string, i: number): boolean {
  const [before, after] = [charBefore(text, i), charAfter(text, i)];
  return before !== "" && after !== "" && WORD_CHAR.test(before) && WORD_CHAR.test(after) && !CJK_ONLY.test(before) && !CJK_ONLY.test(after);
}

/** skipSpace moves `i` past white space. */
function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/** afterWord moves a cut inside a word forward to that word's end (a cut between words stays). */
function afterWord(text: string, i: number): number {
  while (insideWord(text, i)) i += charAfter(text, i).length;
  return i;
}

/** beforeWord moves a cut inside a word back to that word's start, no further back than `floor`. */
function beforeWord(text: string, i: number, floor = 0): number {
  while (i > floor && insideWord(text, i)) i -= charBefore(text, i).length;
  return i;
}

/**
 * wordStart moves a cut inside a word on past that word (skipSpace then reaches the next one), or
 * back to that word's start when going on would pass `limit` (the window's first match).
 */
function wordStart(text: string, i: number, limit: number): number {
  const next = afterWord(text, i);
  return next === i || next <= limit ? next : beforeWord(text, i);
}

/** wordEnd moves a cut inside a word back to that word's start, which ends the text before it (staying after `floor`; else forward, to the word's end). */
function wordEnd(text: string, i: number, floor: number): number {
  const back = beforeWord(text, i, floor);
  return back > floor ? back : afterWord(text, i);
}

/** firstMatchEnd is where the first match from `start` ends, its word included: the window keeps it whole. */
function firstMatchEnd(text: string, matches: readonly Match[], start: number): number {
  return afterWord(text, matches.find((match) => match.start >= start)?.end ?? start);
}
