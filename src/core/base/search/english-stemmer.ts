/**
 * Snowball English ("Porter2") stemmer, written to give the same stems as PyStemmer 3.1 (libstemmer
 * from Snowball 3.1, with the "inter" R1 prefix), which is what the recipe's bm25s index uses. The npm ports we checked
 * implement an older Snowball revision (e.g. "added" → "ad", "biologist" → "biologist"), so a
 * mismatch with the Python index would silently change search results; this one is checked against
 * PyStemmer on tens of thousands of real words (test/unit/core/base/search/fixtures/pystemmer-english.tsv).
 *
 * The word is expected lower-cased. Only ASCII a/e/i/o/u/y count as vowels, as in Snowball.
 */

const isVowel = (c: string | undefined): boolean =>
  c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || c === "y";
/** Non-vowels that also block a "short syllable" ending (w, x and the marked consonant-y). */
const isWXY = (c: string): boolean => c === "w" || c === "x" || c === "Y";
const VALID_LI = "cdeghkmnrt";

/**
 * Whole words with a fixed stem (Snowball's exception1). A Map: looking a query's fresh string up
 * as an object key first interns it, which was a fifth of the stemmer's time.
 */
const EXCEPTIONS = new Map<string, string>(
  Object.entries({
    skis: "ski",
    skies: "sky",
    idly: "idl",
    gently: "gentl",
    ugly: "ugli",
    early: "earli",
    only: "onli",
    singly: "singl",
    sky: "sky",
    news: "news",
    howe: "howe",
    atlas: "atlas",
    cosmos: "cosmos",
    bias: "bias",
    andes: "andes",
  }),
);

/** Prefixes whose end is taken as R1's start, so e.g. "general" and "generous" stay apart. */
const R1_PREFIXES = ["univers", "commun", "gener", "arsen", "later", "emerg", "organ", "inter", "past"];

/**
 * A suffix table, tried longest-first like Snowball's `among`. Its suffixes are kept by their last
 * letter, so a word is compared only with those ending in its own last letter (a few, not the whole
 * table: comparing every suffix was half of the stemmer's time, on every new query word).
 */
class SuffixTable {
  private readonly byLast = new Map<string, string[]>();

  constructor(suffixes: readonly string[]) {
    for (const s of [...suffixes].sort((a, b) => b.length - a.length)) {
      const list = this.byLast.get(s[s.length - 1]);
      if (list) list.push(s);
      else this.byLast.set(s[s.length - 1], [s]);
    }
  }

  /** The longest suffix in the table that `word` ends with. */
  longest(word: string): string | undefined {
    const list = this.byLast.get(word[word.length - 1]);
    if (list === undefined) return undefined;
    for (const s of list) if (s.length <= word.length && word.endsWith(s)) return s;
    return undefined;
  }
}

const STEP1A = new SuffixTable(["sses", "ied", "ies", "s", "us", "ss"]);
const STEP1B = new SuffixTable(["eed", "eedly", "ed", "edly", "ing", "ingly"]);
const STEP2: Record<string, string> = {
  tional: "tion",
  enci: "ence",
  anci: "ance",
  abli: "able",
  entli: "ent",
  izer: "ize",
  ization: "ize",
  ational: "ate",
  ation: "ate",
  ator: "ate",
  alism: "al",
  aliti: "al",
  alli: "al",
  fulness: "ful",
  ousli: "ous",
  ousness: "ous",
  iveness: "ive",
  iviti: "ive",
  biliti: "ble",
  bli: "ble",
  ogist: "og",
  ogi: "og", // only after "l"
  fulli: "ful",
  lessli: "less",
  li: "", // only after a valid li-ending
};
const STEP2_KEYS = new SuffixTable(Object.keys(STEP2));
const STEP3: Record<string, string> = {
  tional: "tion",
  ational: "ate",
  alize: "al",
  icate: "ic",
  iciti: "ic",
  ical: "ic",
  ful: "",
  ness: "",
  ative: "", // only in R2
};
const STEP3_KEYS = new SuffixTable(Object.keys(STEP3));
const STEP4 = new SuffixTable([
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
  "ion",
]);
const DOUBLES = ["bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"];

/** Stems one lower-cased word. */
export function stemEnglish(input: string): string {
  const fixed = EXCEPTIONS.get(input);
  if (fixed !== undefined) return fixed;
  if (codePointLength(input) < 3) return input;

  let w = input.startsWith("'") ? input.slice(1) : input;
  // Prelude: a y that acts as a consonant (initial, or after a vowel) becomes Y.
  let yFound = false;
  if (w.includes("y")) {
    const chars = w.split("");
    if (chars[0] === "y") {
      chars[0] = "Y";
      yFound = true;
    }
    for (let i = 1; i < chars.length; i++) {
      if (chars[i] === "y" && isVowel(chars[i - 1])) {
        chars[i] = "Y";
        yFound = true;
      }
    }
    w = chars.join("");
  }

  const [p1, p2] = markRegions(w);
  w = step1a(w);
  w = step1b(w, p1);
  w = step1c(w);
  w = step2(w, p1);
  w = step3(w, p1, p2);
  w = step4(w, p2);
  w = step5(w, p1, p2);
  return yFound ? w.replace(/Y/g, "y") : w;
}

function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) n--; // low surrogate: second half of one code point
  }
  return n;
}

/** R1 and R2 starts: after the first non-vowel that follows a vowel (once, then again). */
function markRegions(w: string): [number, number] {
  const n = w.length;
  let p1 = n;
  const prefix = R1_PREFIXES.find((p) => w.startsWith(p));
  if (prefix) p1 = prefix.length;
  else p1 = afterVowelThenNonVowel(w, 0);
  if (p1 >= n) return [n, n];
  return [p1, afterVowelThenNonVowel(w, p1)];
}

function afterVowelThenNonVowel(w: string, from: number): number {
  let i = from;
  while (i < w.length && !isVowel(w[i])) i++;
  if (i >= w.length) return w.length;
  while (i < w.length && isVowel(w[i])) i++;
  return i >= w.length ? w.length : i + 1;
}

/** Snowball's shortv at position `end` (the text before `end`). */
function endsShort(w: string, end: number): boolean {
  // Read right to left, as Snowball's backward mode does: the *last* letter may not be w, x or Y.
  if (end >= 3 && !isVowel(w[end - 1]) && !isWXY(w[end - 1]) && isVowel(w[end - 2]) && !isVowel(w[end - 3]))
    return true;
  if (end === 2 && !isVowel(w[1]) && isVowel(w[0])) return true;
  return end >= 4 && w.startsWith("past", end - 4);
}

function hasVowelBefore(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (isVowel(w[i])) return true;
  return false;
}

function step1a(w: string): string {
  // Apostrophe suffixes cannot occur in bm25s tokens (\w excludes '), but keep the rule complete.
  for (const s of ["'s'", "'s", "'"]) {
    if (w.endsWith(s)) {
      w = w.slice(0, -s.length);
      break;
    }
  }
  const s = STEP1A.longest(w);
  if (s === undefined) return w;
  const stem = w.length - s.length;
  switch (s) {
    case "sses":
      return w.slice(0, stem) + "ss";
    case "ied":
    case "ies":
      return w.slice(0, stem) + (stem >= 2 ? "i" : "ie");
    case "s":
      // Delete the s when a vowel occurs before the letter just before it ("gaps" → "gap", "gas" stays).
      return stem >= 1 && hasVowelBefore(w, stem - 1) ? w.slice(0, stem) : w;
    default: // "us", "ss": keep
      return w;
  }
}

function step1b(w: string, p1: number): string {
  const s = STEP1B.longest(w);
  if (s === undefined) return w;
  const stemEnd = w.length - s.length;
  const stem = w.slice(0, stemEnd);
  if (s === "eed" || s === "eedly") {
    if (stem === "proc" || stem === "exc" || stem === "succ") return w;
    return stemEnd >= p1 ? stem + "ee" : w;
  }
  if (s === "ing") {
    // dying → die, lying → lie; inning, outing, … stay whole.
    if (stem.length === 2 && stem[1] === "y" && !isVowel(stem[0])) return stem[0] + "ie";
    if (["inn", "out", "cann", "herr", "earr", "even"].includes(stem)) return w;
  }
  if (!hasVowelBefore(w, stemEnd)) return w;
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return stem + "e";
  if (stem.length >= 2 && DOUBLES.includes(stem.slice(-2))) {
    // "added" → "add" (a short word of a/e/o + double), otherwise drop one letter ("hopping" → "hop").
    if (stem.length === 3 && "aeo".includes(stem[0])) return stem;
    return stem.slice(0, -1);
  }
  if (stemEnd === p1 && endsShort(stem, stem.length)) return stem + "e";
  return stem;
}

function step1c(w: string): string {
  const n = w.length;
  if (n >= 3 && (w[n - 1] === "y" || w[n - 1] === "Y") && !isVowel(w[n - 2])) return w.slice(0, -1) + "i";
  return w;
}

function step2(w: string, p1: number): string {
  const s = STEP2_KEYS.longest(w);
  if (s === undefined) return w;
  const start = w.length - s.length;
  if (start < p1) return w;
  if (s === "ogi" && w[start - 1] !== "l") return w;
  if (s === "li" && !(start >= 1 && VALID_LI.includes(w[start - 1]))) return w;
  return w.slice(0, start) + STEP2[s];
}

function step3(w: string, p1: number, p2: number): string {
  const s = STEP3_KEYS.longest(w);
  if (s === undefined) return w;
  const start = w.length - s.length;
  if (start < p1) return w;
  if (s === "ative" && start < p2) return w;
  return w.slice(0, start) + STEP3[s];
}

function step4(w: string, p2: number): string {
  const s = STEP4.longest(w);
  if (s === undefined) return w;
  const start = w.length - s.length;
  if (start < p2) return w;
  if (s === "ion") return start >= 1 && (w[start - 1] === "s" || w[start - 1] === "t") ? w.slice(0, start) : w;
  return w.slice(0, start);
}

function step5(w: string, p1: number, p2: number): string {
  const n = w.length;
  if (w[n - 1] === "e") {
    const start = n - 1;
    if (start >= p2 || (start >= p1 && !endsShort(w, start))) return w.slice(0, start);
    return w;
  }
  if (w[n - 1] === "l" && n - 1 >= p2 && w[n - 2] === "l") return w.slice(0, -1);
  return w;
}
