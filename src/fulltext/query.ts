/**
 * The search language of `GET /api/v1/search`, parsed here and written as an FTS5 expression in
 * which every user term is a quoted string, so nothing a user types is ever read as FTS5 syntax:
 *
 *   words         every word must match (in any field), case and diacritics ignored, English
 *                 words by their stem ("connecting" finds "connection")
 *   "a phrase"    these words, in this order, next to each other
 *   -word         links holding this word (or -"phrase") are left out
 *   prefix*       words starting with this (as stemmed: "connect*" finds "connections")
 *   is:unread     only links on the reading list (-is:unread: only links off it)
 *   is:archived   only archived links (-is:archived: only links not archived)
 *
 * A word is split where the index splits it ("rust-lang" is the phrase "rust lang", the way
 * it is indexed in a URL). Words without a letter or digit ("&", "—") are ignored. What cannot be
 * expressed (an unclosed quote, a stray `*`, parentheses, only exclusions, nothing to search)
 * is a 422 at `/q` with a sentence saying why.
 */
import { QueryTooBroad, ValidationFailed } from "../common/errors";
import { Rules, codePoints } from "../common/rules";
import { CJK_RUN, cjkPairs } from "./index-text";

/** The longest query, in code points, and the most terms in one. */
export const QUERY_LIMITS = { length: 200, terms: 32 } as const;

/**
 * What makes a search explode, bounded before it runs (422 QUERY_TOO_BROAD): a prefix* matches
 * every word it starts, so its last word needs `prefixChars` letters or digits at least (a run
 * of CJK characters excepted: one character is a prefix of the pairs it starts), and a query
 * holds at most `prefixTerms` prefixes (a lone CJK character counts as one).
 */
export const BREADTH_LIMITS = { prefixChars: 2, prefixTerms: 4 } as const;

/** One term of a query, as the user wrote it (without its quotes, `-` and `*`). */
export interface QueryTerm {
  text: string;
  phrase: boolean;
  prefix: boolean;
  exclude: boolean;
}

/** The filters `is:` names, as the flags of a link they ask for. */
export interface QueryFlags {
  toRead?: boolean;
  archived?: boolean;
}

/** What each `is:` word filters on. */
const IS_FILTERS: Record<string, keyof QueryFlags> = { unread: "toRead", archived: "archived" };

export interface ParsedQuery {
  terms: QueryTerm[];
  /** The `is:` filters of the query. */
  flags: QueryFlags;
  /** The FTS5 MATCH expression: quoted terms joined with AND and NOT. */
  match: string;
}

/** A letter or digit: what the index's tokenizer keeps (everything else separates words). */
const SEARCHABLE = /[\p{L}\p{N}\p{Co}]/u;

/** scan splits a query into terms, and its `is:` filters into `flags`; a string is the sentence for `/q` saying why it cannot. */
function scan(q: string, flags: QueryFlags): QueryTerm[] | string {
  const terms: QueryTerm[] = [];
  let i = 0;
  while (i < q.length) {
    if (/\s/.test(q[i]!)) {
      i++;
      continue;
    }
    let exclude = false;
    if (q[i] === "-") {
      exclude = true;
      i++;
      if (i >= q.length || /\s/.test(q[i]!)) return "A - must be followed by the word to leave out, as in -draft.";
    }
    if (q[i] === "\"") {
      const close = q.indexOf("\"", i + 1);
      if (close === -1) return "A quoted phrase is missing its closing quotation mark.";
      const text = q.slice(i + 1, close);
      i = close + 1;
      let prefix = false;
      if (q[i] === "*") {
        prefix = true;
        i++;
      }
      if (i < q.length && !/\s/.test(q[i]!)) return "Put a space after a quoted phrase.";
      terms.push({ text, phrase: true, prefix, exclude });
      continue;
    }
    let end = i;
    while (end < q.length && !/\s/.test(q[end]!)) end++;
    const word = q.slice(i, end);
    i = end;
    const is = /^is:(.*)$/i.exec(word);
    if (is) {
      const flag = IS_FILTERS[is[1]!.toLowerCase()];
      if (!flag) return `is: takes ${Object.keys(IS_FILTERS).join(" or ")}, as in is:unread.`;
      const wanted = !exclude;
      if (flags[flag] !== undefined && flags[flag] !== wanted) return `${is[0]} is asked for both ways.`;
      flags[flag] = wanted;
      continue;
    }
    if (word.includes("\"")) return "Quotation marks go around a whole phrase, as in \"open source\".";
    if (/[()]/.test(word)) return "Parentheses mean nothing in a search; to find them with their words, put the words in quotation marks.";
    const star = word.indexOf("*");
    if (star !== -1 && star !== word.length - 1) return "A * goes at the end of a word, as in connect*.";
    const prefix = star !== -1;
    const text = prefix ? word.slice(0, -1) : word;
    if (prefix && !SEARCHABLE.test(text)) return "A * needs letters or digits before it, as in connect*.";
    terms.push({ text, phrase: false, prefix, exclude });
  }
  return terms.filter((term) => SEARCHABLE.test(term.text));
}

/** The letters and digits of a term's last word: what its prefix starts with. */
const lastWord = (text: string) => text.split(/[^\p{L}\p{N}\p{Co}]+/u).filter((word) => word !== "").at(-1) ?? "";

/** A word ending in CJK characters, whose prefix may be one character. */
const ENDS_CJK = new RegExp(`${CJK_RUN.source}$`, "u");

/** tooShort: is the term a prefix whose last word is too short to start with (CJK excepted)? */
function tooShort(term: QueryTerm): boolean {
  if (!term.prefix) return false;
  const word = lastWord(term.text);
  return codePoints(word) < BREADTH_LIMITS.prefixChars && !ENDS_CJK.test(word);
}

/** checkBreadth refuses a query whose prefixes would make it read too much of the index (QueryTooBroad). */
function checkBreadth(terms: QueryTerm[], written: string[]): void {
  const short = terms.find(tooShort);
  if (short) {
    throw new QueryTooBroad(`"${short.text}*" is too short a prefix: it would match too many words. Write at least ${BREADTH_LIMITS.prefixChars} letters or digits before the *.`);
  }
  if (written.filter((match) => match.endsWith("*")).length > BREADTH_LIMITS.prefixTerms) {
    throw new QueryTooBroad(`This search has more than ${BREADTH_LIMITS.prefixTerms} prefixes (words ending in *): each matches many words. Write some of them out in full.`);
  }
}

/** quoted writes one term as an FTS5 string: the tokenizer splits it, `"` is doubled, nothing else is syntax inside. */
function quoted(term: QueryTerm): string {
  const text = cjkPairs(term.text, true).trim();
  // A lone CJK character is the first character of the pairs it starts: a prefix.
  const oneCjk = new RegExp(`^${CJK_RUN.source}$`, "u").test(text) && codePoints(text) === 1;
  return `"${text.replaceAll("\"", "\"\"")}"${term.prefix || oneCjk ? "*" : ""}`;
}

/**
 * parseQuery reads a query of the search language; a query it cannot express is a
 * ValidationFailed at `/q` (422) with a sentence, never an FTS5 error, and one whose prefixes
 * reach too far (BREADTH_LIMITS) a QueryTooBroad (422).
 */
export function parseQuery(q: string | undefined): ParsedQuery {
  const rules = new Rules();
  if (q === undefined || q.trim() === "") {
    rules.fail("/q", "Expected words to search for");
    rules.check();
  }
  const text = rules.text("/q", q!, 1, QUERY_LIMITS.length);
  rules.check();
  // Control characters separate words like spaces (and a NUL would end FTS5's reading of the expression).
  const flags: QueryFlags = {};
  const terms = scan(text.replace(/\p{Cc}/gu, " "), flags);
  if (typeof terms === "string") throw new ValidationFailed([{ path: "/q", message: terms }]);
  const wanted = terms.filter((term) => !term.exclude);
  if (terms.length > QUERY_LIMITS.terms) rules.fail("/q", `Expected at most ${QUERY_LIMITS.terms} words and phrases`);
  else if (wanted.length === 0) {
    rules.fail("/q", Object.keys(flags).length > 0 && terms.length === 0
      ? "Expected a word to search for besides is: (the To read view lists the reading list)"
      : terms.length === 0 ? "Expected a word with letters or digits to search for" : "Expected a word to find besides the ones to leave out");
  }
  rules.check();
  const written = terms.map(quoted);
  checkBreadth(terms, written);
  const writtenOf = (exclude: boolean) => written.filter((_, i) => terms[i]!.exclude === exclude);
  let match = writtenOf(false).join(" AND ");
  if (wanted.length < terms.length) match = `(${match})${writtenOf(true).map((term) => ` NOT ${term}`).join("")}`;
  return { terms, flags, match };
}
