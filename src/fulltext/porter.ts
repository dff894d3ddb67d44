/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980): the algorithm of
 * SQLite's `porter` tokenizer, which the full-text index applies. Snippets use it to find, in a
 * page's text, the words a query matched ("connections" for "connecting"). Words of lower-case
 * ASCII letters of 3 to 64 characters are stemmed, as SQLite does; others are returned unchanged.
 */

const isVowelAt = (word: string, i: number): boolean => {
  const c = word[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return true;
  return c === "y" && i > 0 && !isVowelAt(word, i - 1);
};

/** measure is m in [C](VC)^m[V] of `stem`. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && !isVowelAt(stem, i)) i++;
  while (i < n) {
    while (i < n && isVowelAt(stem, i)) i++;
    if (i >= n) break;
    while (i < n && !isVowelAt(stem, i)) i++;
    m++;
  }
  return m;
}

const hasVowel = (stem: string): boolean => {
  for (let i = 0; i < stem.length; i++) if (isVowelAt(stem, i)) return true;
  return false;
};

const endsDoubleConsonant = (w: string): boolean =>
  w.length >= 2 && w[w.length - 1] === w[w.length - 2] && !isVowelAt(w, w.length - 1);

/** cvc: the stem ends consonant-vowel-consonant, the last not w, x or y. */
const endsCvc = (w: string): boolean => {
  const n = w.length;
  if (n < 3) return false;
  if (isVowelAt(w, n - 1) || !isVowelAt(w, n - 2) || isVowelAt(w, n - 3)) return false;
  const c = w[n - 1];
  return c !== "w" && c !== "x" && c !== "y";
};

/** replaceSuffix: when `w` ends with one of the suffixes, the first that does decides (replaced when the stem's measure passes). */
function replaceSuffix(w: string, rules: [string, string][], minMeasure: number): string {
  for (const [suffix, replacement] of rules) {
    if (w.endsWith(suffix)) {
      const stem = w.slice(0, w.length - suffix.length);
      return measure(stem) > minMeasure ? stem + replacement : w;
    }
  }
  return w;
}

const STEP2: [string, string][] = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["bli", "ble"],
  ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"], ["ation", "ate"],
  ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"],
  ["iviti", "ive"], ["biliti", "ble"], ["logi", "log"],
];
const STEP3: [string, string][] = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
];
const STEP4 = ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"];

/** porterStem is the stem of one lower-case word. */
export function porterStem(word: string): string {
  if (word.length < 3 || word.length > 64 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  // Step 1a
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("ss")) { /* kept */ }
  else if (w.endsWith("s")) w = w.slice(0, -1);
  // Step 1b
  let extra = false;
  if (w.endsWith("eed")) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && endsCvc(w)) w += "e";
  }
  // Step 1c
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = w.slice(0, -1) + "i";
  // Steps 2 and 3
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  // Step 4
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, w.length - suffix.length);
    if (measure(stem) > 1 && (suffix !== "ion" || /[st]$/.test(stem))) w = stem;
    break;
  }
  // Step 5a
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  // Step 5b
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith("l")) w = w.slice(0, -1);
  return w;
}
