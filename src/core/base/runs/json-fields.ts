/**
 * Some top-level fields of one JSON object's text, as JSON.parse gives them, without building the
 * rest. An episodes.jsonl line is mostly token arrays (prompt, tokens, sampled, logprobs, turns)
 * that `ablate` never reads: JSON.parse of a 10,000-episode run's 37 MB built every one of them and
 * took more CPU than ablate's 10^8 resampling draws. Here the whole text is still checked against
 * JSON's grammar, character by character, so a line JSON.parse refuses is refused here too (the
 * caller then parses it whole, for JSON.parse's own error); only the fields asked for are parsed,
 * each by JSON.parse from its own text, so their values are JSON.parse's.
 */

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/** JSON's whitespace: space, tab, line feed, carriage return (JSON.parse allows no other). */
function skipSpace(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

const isDigit = (c: number) => c >= ZERO && c <= NINE;

/** The index after the number starting at `i`, or -1: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
function skipNumber(s: string, i: number): number {
  if (s.charCodeAt(i) === MINUS) i++;
  let c = s.charCodeAt(i);
  if (c === ZERO) i++;
  else if (isDigit(c)) {
    do i++;
    while (isDigit(s.charCodeAt(i)));
  } else return -1;
  if (s.charCodeAt(i) === DOT) {
    i++;
    if (!isDigit(s.charCodeAt(i))) return -1;
    do i++;
    while (isDigit(s.charCodeAt(i)));
  }
  c = s.charCodeAt(i);
  if (c === LOWER_E || c === UPPER_E) {
    i++;
    c = s.charCodeAt(i);
    if (c === PLUS || c === MINUS) i++;
    if (!isDigit(s.charCodeAt(i))) return -1;
    do i++;
    while (isDigit(s.charCodeAt(i)));
  }
  return i;
}

function skipWord(s: string, i: number, word: string): number {
  return s.startsWith(word, i) ? i + word.length : -1;
}

/** After a key's string at `i`: the index after its colon (and the space around it), or -1. */
function afterKey(s: string, i: number): number {
  if (s.charCodeAt(i) !== QUOTE) return -1;
  i = match(STRING, s, i);
  if (i < 0) return -1;
  i = skipSpace(s, i);
  return s.charCodeAt(i) === COLON ? skipSpace(s, i + 1) : -1;
}

/**
 * What JSON.stringify writes for an array of numbers (no space) is most of an episode line (its
 * token ids, which tokens were sampled, their logprobs). Regular expressions check it in native
 * code, several times quicker than a loop over its characters here; a shape they do not match
 * (space in the array, a value of another kind, an empty array) is checked by the loop.
 */
const NUMBER = "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?";
/**
 * Up to this many numbers of an array and the comma or bracket after them, per match: a pattern for a
 * whole array overflows the regular expression engine's stack at a few million numbers.
 */
const NUMBERS_PER_MATCH = 1024;
const NUMBERS = new RegExp(`(?:${NUMBER},){0,${NUMBERS_PER_MATCH - 1}}${NUMBER}[,\\]]`, "y");
/** A JSON string: no unescaped quote, backslash or control character; escapes as JSON has them. */
// eslint-disable-next-line no-control-regex -- the control characters JSON forbids in a string are the point
const STRING = /"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"/y;

/** The index after what the sticky `pattern` matches at `i`, or -1. */
function match(pattern: RegExp, s: string, i: number): number {
  pattern.lastIndex = i;
  return pattern.test(s) ? pattern.lastIndex : -1;
}

/** The index after the array of numbers (as JSON.stringify writes one) opening at `i`, or -1 when it is not one. */
function skipNumberArray(s: string, i: number): number {
  i++;
  do {
    i = match(NUMBERS, s, i);
    if (i < 0) return -1;
  } while (s.charCodeAt(i - 1) === COMMA);
  return i;
}

/**
 * The index after the JSON value starting at `i` (no space before it), or -1 when there is no
 * valid one. Nested arrays and objects are followed with a stack of their kinds, not by
 * recursion: no depth makes it throw where JSON.parse would not.
 */
function skipValue(s: string, i: number): number {
  const open: boolean[] = []; // per open container: true for an object
  for (;;) {
    // A value starts at i.
    const c = s.charCodeAt(i);
    const numbers = c === OPEN_BRACKET ? skipNumberArray(s, i) : -1;
    if (numbers >= 0) i = numbers;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const object = c === OPEN_BRACE;
      i = skipSpace(s, i + 1);
      if (s.charCodeAt(i) === (object ? CLOSE_BRACE : CLOSE_BRACKET)) i++;
      else {
        open.push(object);
        if (object) {
          i = afterKey(s, i);
          if (i < 0) return -1;
        }
        continue;
      }
    } else if (c === QUOTE) i = match(STRING, s, i);
    else if (c === MINUS || isDigit(c)) i = skipNumber(s, i);
    else if (c === 0x74) i = skipWord(s, i, "true");
    else if (c === 0x66) i = skipWord(s, i, "false");
    else if (c === 0x6e) i = skipWord(s, i, "null");
    else return -1;
    if (i < 0) return -1;
    // After a value: close what it ends, or go on to the next member.
    for (;;) {
      if (open.length === 0) return i;
      i = skipSpace(s, i);
      const d = s.charCodeAt(i);
      const object = open[open.length - 1];
      if (d === COMMA) {
        i = skipSpace(s, i + 1);
        if (object) {
          i = afterKey(s, i);
          if (i < 0) return -1;
        }
        break;
      }
      if (d !== (object ? CLOSE_BRACE : CLOSE_BRACKET)) return -1;
      open.pop();
      i++;
    }
  }
}

/**
 * The fields of `text`'s top-level object named in `keys`, in the order JSON.parse(text) would
 * hold them, with its values (a repeated key: the last one's value); undefined when `text` is
 * not exactly one valid JSON object, surrounding JSON whitespace allowed (a torn line, an array,
 * anything else): parse that one whole to learn why.
 */
export function pickJsonFields(text: string, keys: ReadonlySet<string>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) i++;
  else
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return undefined;
      const keyEnd = match(STRING, text, i);
      if (keyEnd < 0) return undefined;
      let key = text.slice(i + 1, keyEnd - 1);
      if (key.includes("\\")) key = JSON.parse(text.slice(i, keyEnd)) as string; // escapes in a key: its parsed name
      i = skipSpace(text, keyEnd);
      if (text.charCodeAt(i) !== COLON) return undefined;
      const valueStart = skipSpace(text, i + 1);
      const end = skipValue(text, valueStart);
      if (end < 0) return undefined;
      if (keys.has(key)) out[key] = JSON.parse(text.slice(valueStart, end));
      i = skipSpace(text, end);
      const c = text.charCodeAt(i);
      if (c === COMMA) i = skipSpace(text, i + 1);
      else if (c === CLOSE_BRACE) {
        i++;
        break;
      } else return undefined;
    }
  return skipSpace(text, i) === text.length ? out : undefined;
}
