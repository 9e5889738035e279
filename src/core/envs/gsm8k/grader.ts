/**
 * GSM8K grading, the same verdicts as tinker-cookbook's default math grader (`grade_answer` in
 * `recipes/math_rl/math_grading.py`, the sympy path) and its `extract_boxed`, written from their
 * semantics so Agent Lab's accuracy is comparable with cookbook runs. The steps, in the cookbook's
 * order:
 *  1. "mathd" normalisation of both answers (`\text{}` unwrapped, `\!` `\left` `\right` `\$` `\%`
 *     `^\circ` dropped, units after `\text{ ` cut, `tfrac`/`dfrac` → `frac`, `k = ` prefixes, spaces,
 *     `\frac12` → `\frac{1}{2}`, `0.5` → `\frac{1}{2}`, `a/b` → `\frac{a}{b}`); equal strings → correct.
 *  2. The grader's own normalisation (`$` `%` and unit words dropped, `million` → `*10^6`, a float
 *     that is an integer → that integer, LaTeX → text, mixed numbers `7 3/4` → `7+3/4`, spaces and
 *     braces dropped, lower case, `1,000` → `1000`); equal strings → correct.
 *  3. Element by element (tuples and intervals split on commas): two fractions must be written
 *     the same; an integer reference needs an integer answer; otherwise the difference must
 *     simplify to 0 (sympy there; here exact arithmetic, see `differenceIsZero`).
 *
 * Where this differs from the cookbook (no GSM8K answer is affected: the tests replay 5,053 verdicts
 * recorded from the cookbook's own grader, a table of model-style answers, and all 8,792 real ones):
 *  - sympy is replaced by exact rational arithmetic over numbers, + - * / ^ and parentheses
 *    (decimals in float64, where sympy keeps a literal's own precision: "2/3" vs
 *    "0.6666666666666666" is equal here, not there); an expression with any other token (a
 *    variable, `sqrt`, `pi`) is "not equal" here where sympy might prove it equal;
 *  - LaTeX → text is a subset of pylatexenc (see latex-text.ts);
 *  - the cookbook gives up after a 1 s timeout (a wrong verdict); nothing here is slow enough to.
 */
import { LatexTextError, latexToText } from "./latex-text";
import { PY_DIGIT, PY_NON_DIGIT, pyFloat, pyIntString, pyLen, pyRound, pyStrip, toAsciiDigits } from "./python-number";

// ---------------------------------------------------------------------------------------------
// \boxed{} extraction

/**
 * The content of the last `\boxed{…}` to close, or undefined when there is none (the cookbook's
 * ValueError, graded wrong). Like the cookbook, a `}` with no `{` anywhere in the text means no
 * answer; without a braced box, the first `\boxed 42` (a space, then letters/digits) counts.
 */
export function extractBoxed(text: string): string | undefined {
  const opens: number[] = [];
  let last: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "{") opens.push(i);
    else if (ch === "}") {
      const open = opens.pop();
      if (open === undefined) return undefined; // "Unmatched }"
      if (text.slice(0, open).endsWith("\\boxed")) last = text.slice(open + 1, i);
    }
  }
  if (last !== undefined) return last;
  return /\\boxed\s+([a-zA-Z0-9]+)/.exec(text)?.[1];
}

// ---------------------------------------------------------------------------------------------
// step 1: the "mathd" normalisation

/** Python's `$` anchor: the end, or just before a final newline. */
const END = "(?=\\n?$)";
// Python's "." is anything but "\n" (JavaScript's also excludes "\r", U+2028, U+2029)
const TEXT_WRAPPED = new RegExp(`^\\\\text\\{([^\\n]+?)\\}${END}`, "u");

/** A step the cookbook would raise in (an assert, an index error): normalisation keeps the input. */
class Unnormalisable extends Error {}

export function normalizeMathd(answer: string): string {
  let s = pyStrip(answer);
  const m = TEXT_WRAPPED.exec(s);
  if (m) s = pyStrip(m[1]);
  try {
    return stripString(s);
  } catch (e) {
    if (e instanceof Unnormalisable) return s;
    throw e;
  }
}

function stripString(input: string): string {
  let s = input.replace(/\n/g, "").replace(/\\!/g, "").replace(/\\\\/g, "\\");
  s = s
    .replace(/tfrac/g, "frac")
    .replace(/dfrac/g, "frac")
    .replace(/\\left/g, "")
    .replace(/\\right/g, "");
  s = s
    .replace(/\^\{\\circ\}/g, "")
    .replace(/\^\\circ/g, "")
    .replace(/\\\$/g, "");
  s = removeRightUnits(s).replace(/\\%/g, "");
  s = s.replace(/ \./g, " 0.").replace(/\{\./g, "{0.");
  if (s.length === 0) return s;
  if (s[0] === ".") s = "0" + s;
  const eq = s.split("=");
  if (eq.length === 2 && pyLen(eq[0]) <= 2) s = eq[1];
  s = fixSqrt(s).replace(/ /g, "");
  s = fixFracs(s);
  if (s === "0.5") s = "\\frac{1}{2}";
  return fixSlash(s);
}

function removeRightUnits(s: string): string {
  if (!s.includes("\\text{ ")) return s;
  const parts = s.split("\\text{ ");
  if (parts.length !== 2) throw new Unnormalisable();
  return parts[0];
}

function fixSqrt(s: string): string {
  if (!s.includes("\\sqrt")) return s;
  const [head, ...rest] = s.split("\\sqrt");
  return (
    head +
    rest
      .map((part) =>
        part.startsWith("{")
          ? `\\sqrt${part}`
          : `\\sqrt{${Array.from(part)[0] ?? ""}}${Array.from(part).slice(1).join("")}`,
      )
      .join("")
  );
}

function fixFracs(s: string): string {
  const [head, ...rest] = s.split("\\frac");
  let out = head;
  for (const sub of rest) {
    out += "\\frac";
    const chars = Array.from(sub);
    if (chars.length === 0) throw new Unnormalisable(); // substr[0] on an empty string
    if (chars[0] === "{") {
      out += sub;
      continue;
    }
    if (chars.length < 2) return s;
    const [a, b] = chars;
    const post = chars.slice(2).join("");
    out += b !== "{" ? `{${a}}{${b}}${post}` : `{${a}}${b}${post}`;
  }
  return out;
}

/** Python `int(text)` for the "a/b" rewrite: optional sign, digits (any script), `_` between digits. */
function pyInt(text: string): bigint | undefined {
  const stripped = pyStrip(text);
  if (!INT_SYNTAX.test(stripped)) return undefined;
  return BigInt(toAsciiDigits(stripped.replace(/_/g, "")));
}

const INT_SYNTAX = new RegExp(`^[+-]?${PY_DIGIT}(?:_?${PY_DIGIT})*$`, "u");

function fixSlash(s: string): string {
  const parts = s.split("/");
  if (parts.length !== 2) return s;
  const a = pyInt(parts[0]);
  const b = pyInt(parts[1]);
  if (a === undefined || b === undefined) return s; // ValueError: left as it is
  if (s !== `${a}/${b}`) throw new Unnormalisable(); // the cookbook's assert (e.g. "03/4")
  return `\\frac{${a}}{${b}}`;
}

// ---------------------------------------------------------------------------------------------
// step 2: the grader's own normalisation

const UNITS = [
  "degree",
  "cm",
  "centimeter",
  "meter",
  "mile",
  "second",
  "minute",
  "hour",
  "day",
  "week",
  "month",
  "year",
  "foot",
  "feet",
  "inch",
  "yard",
];
const UNIT_RES = UNITS.map((unit) => new RegExp(`${unit}(es)?(s)? *(\\^[0-9]+)?`, "gu"));

function isNearInt(x: number): boolean {
  return Number.isFinite(x) && Math.abs(x - pyRound(x)) <= 1e-7;
}

const PROPER_COMMA = new RegExp(`(${PY_DIGIT})(,)(${PY_DIGIT}${PY_DIGIT}${PY_DIGIT})($|${PY_NON_DIGIT})`, "gu");

/** Drops thousands separators ("1,000,000") but not tuple commas ("1,2"). */
function stripProperCommas(expr: string): string {
  for (;;) {
    const next = expr.replace(PROPER_COMMA, "$1$3$4");
    if (next === expr) return next;
    expr = next;
  }
}

function strIsInt(s: string): boolean {
  const x = pyFloat(stripProperCommas(s));
  return x !== undefined && isNearInt(x);
}

function strToInt(s: string): string {
  return pyIntString(pyFloat(s.replace(/,/g, ""))!);
}

function parseLatex(expr: string): string {
  let s = expr
    .replace(/\\tfrac/g, "\\frac")
    .replace(/\\dfrac/g, "\\frac")
    .replace(/\\frac/g, " \\frac");
  try {
    s = latexToText(s);
  } catch (e) {
    if (e instanceof LatexTextError) return expr; // the cookbook suppresses the parser's exception
    throw e;
  }
  s = s
    .replace(/√/g, "sqrt")
    .replace(/π/g, "pi")
    .replace(/∞/g, "inf")
    .replace(/∪/g, "U")
    .replace(/·/g, "*")
    .replace(/×/g, "*");
  return pyStrip(s);
}

export function normalizeExpr(input: string): string {
  let expr = input;
  const m = TEXT_WRAPPED.exec(expr);
  if (m) expr = m[1];
  expr = expr.replace(/\\%/g, "%").replace(/\\\$/g, "$").replace(/\$/g, "").replace(/%/g, "");
  expr = expr.replace(/ or /g, " , ").replace(/ and /g, " , ");
  expr = expr
    .replace(/million/g, "*10^6")
    .replace(/billion/g, "*10^9")
    .replace(/trillion/g, "*10^12");
  for (const unit of UNIT_RES) expr = expr.replace(unit, "");
  expr = expr.replace(/\^ *\\circ/g, "");
  if (expr.length > 0 && expr[0] === "{" && expr[expr.length - 1] === "}") expr = expr.slice(1, -1);
  expr = expr.replace(/,\\! */g, "");
  const asFloat = pyFloat(expr);
  if (asFloat !== undefined && isNearInt(asFloat)) expr = pyIntString(pyRound(asFloat));
  if (expr.includes("\\")) expr = parseLatex(expr);
  expr = expr.replace(/- */g, "-");
  expr = expr.replace(/([0-9]) +([0-9])/g, "$1+$2"); // mixed numbers: "7 3/4" → "7+3/4"
  expr = expr.replace(/ /g, "").replace(/\{/g, "").replace(/\}/g, "").toLowerCase();
  if (strIsInt(expr)) expr = strToInt(expr);
  return expr;
}

// ---------------------------------------------------------------------------------------------
// step 3: element-wise comparison

const TUPLE_CHARS = "()[]";

function splitTuple(input: string): string[] {
  const expr = stripProperCommas(input);
  if (expr.length === 0) return [];
  const inner = expr.slice(1, -1);
  if (
    expr.length > 2 &&
    TUPLE_CHARS.includes(expr[0]) &&
    TUPLE_CHARS.includes(expr[expr.length - 1]) &&
    ![...TUPLE_CHARS].some((c) => inner.includes(c))
  ) {
    return inner.split(",").map((e) => pyStrip(e));
  }
  return [expr];
}

const FRACTION = new RegExp(`^-?[0-9]+[^\\n]?/0*[1-9][0-9]*[^\\n]?${END}`, "u");

function isFraction(expr: string): boolean {
  return FRACTION.test(expr);
}

function allowsEval(expr: string): boolean {
  const letters = new Set(Array.from(expr.replace(/sqrt/g, "").replace(/frac/g, "")).filter((c) => /\p{L}/u.test(c)));
  if (letters.size > 2) return false;
  if (expr.includes("^{") || expr.includes("^(")) return false;
  return !/\^[0-9]+\^/.test(expr) && !/\^[0-9][0-9]+/.test(expr);
}

/** An exact rational p/q (q > 0), or a float once a decimal literal is involved (sympy's Float). */
type Value = { kind: "exact"; p: bigint; q: bigint } | { kind: "float"; x: number };

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

function exact(p: bigint, q: bigint): Value {
  if (q === 0n) throw new RangeError("division by zero");
  if (q < 0n) [p, q] = [-p, -q];
  const g = gcd(p, q) || 1n;
  return { kind: "exact", p: p / g, q: q / g };
}

const toFloat = (v: Value): number => (v.kind === "float" ? v.x : Number(v.p) / Number(v.q));

function arith(op: string, a: Value, b: Value): Value {
  if (a.kind === "exact" && b.kind === "exact") {
    if (op === "+") return exact(a.p * b.q + b.p * a.q, a.q * b.q);
    if (op === "-") return exact(a.p * b.q - b.p * a.q, a.q * b.q);
    if (op === "*") return exact(a.p * b.p, a.q * b.q);
    if (op === "/") return exact(a.p * b.q, a.q * b.p);
    if (b.q === 1n && b.p >= 0n && b.p <= 64n) return exact(a.p ** b.p, a.q ** b.p);
    if (b.q === 1n && b.p < 0n && b.p >= -64n) return exact(a.q ** -b.p, a.p ** -b.p);
  }
  const x = toFloat(a);
  const y = toFloat(b);
  const r = op === "+" ? x + y : op === "-" ? x - y : op === "*" ? x * y : op === "/" ? x / y : x ** y;
  return { kind: "float", x: r };
}

// Python's tokenizer: a float, or an integer with no leading zero ("018" is "0" then "18", which
// sympy multiplies: 0), then operators.
const DIGITS = "\\d(?:_?\\d)*";
const EXPONENT = `(?:[eE][+-]?${DIGITS})`;
const TOKEN = new RegExp(
  `${DIGITS}\\.(?:${DIGITS})?${EXPONENT}?|\\.${DIGITS}${EXPONENT}?|${DIGITS}${EXPONENT}|0(?:_?0)*|[1-9](?:_?\\d)*|[-+*/^()]|\\s+|.`,
  "g",
);

/**
 * Evaluates what sympy's parser reads as arithmetic: numbers, + - * / ^ (and **), parentheses,
 * implicit multiplication ("2(3)"); undefined for anything else.
 */
function evaluate(expr: string): Value | undefined {
  const ts = (expr.replace(/\*\*/g, "^").match(TOKEN) ?? []).filter((t) => !/^\s+$/.test(t));
  let i = 0;
  const peek = () => ts[i];
  const number = (t: string): Value => {
    const clean = t.replace(/_/g, "");
    if (!/[.eE]/.test(clean)) return exact(BigInt(clean), 1n);
    return { kind: "float", x: Number(clean) };
  };
  const primary = (): Value => {
    const t = ts[i++];
    if (t === undefined) throw new SyntaxError("end");
    if (t === "(") {
      const v = sum();
      if (ts[i++] !== ")") throw new SyntaxError(")");
      return v;
    }
    if (/^[\d.]/.test(t)) return number(t);
    throw new SyntaxError(t);
  };
  const power = (): Value => {
    const base = primary();
    if (peek() === "^") {
      i++;
      return arith("^", base, unary());
    }
    return base;
  };
  const unary = (): Value => {
    if (peek() === "-") {
      i++;
      return arith("*", exact(-1n, 1n), unary());
    }
    if (peek() === "+") {
      i++;
      return unary();
    }
    return power();
  };
  const product = (): Value => {
    let v = unary();
    for (;;) {
      const t = peek();
      if (t === "*" || t === "/") {
        i++;
        v = arith(t, v, unary());
      } else if (t === "(" || (t !== undefined && /^[\d.]/.test(t))) {
        v = arith("*", v, unary()); // implicit multiplication
      } else return v;
    }
  };
  const sum = (): Value => {
    let v = product();
    for (;;) {
      const t = peek();
      if (t !== "+" && t !== "-") return v;
      i++;
      v = arith(t, v, product());
    }
  };
  try {
    const v = sum();
    return i === ts.length ? v : undefined;
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof RangeError) return undefined; // sympy raises too: not equal
    throw e;
  }
}

/** The cookbook's `are_equal_under_sympy`: does `(truth)-(given)` simplify to 0? */
function differenceIsZero(truth: string, given: string): boolean {
  const expr = `(${truth})-(${given})`;
  if (!allowsEval(expr)) return false;
  const v = evaluate(expr);
  if (!v) return false;
  return v.kind === "exact" ? v.p === 0n : v.x === 0;
}

/** The cookbook's `grade_answer(given, truth)`. */
export function gradeAnswer(given: string | undefined, truth: string): boolean {
  if (given === undefined) return false;
  if (normalizeMathd(truth) === normalizeMathd(given)) return true;
  const truthNorm = normalizeExpr(truth);
  const givenNorm = normalizeExpr(given);
  if (truthNorm === givenNorm) return true;
  if (givenNorm.length === 0) return false;
  const truthElems = splitTuple(truthNorm);
  const givenElems = splitTuple(givenNorm);
  if (
    truthElems.length > 1 &&
    (truthNorm[0] !== givenNorm[0] || truthNorm[truthNorm.length - 1] !== givenNorm[givenNorm.length - 1])
  )
    return false;
  if (truthElems.length !== givenElems.length) return false;
  return truthElems.every((t, k) => {
    const g = givenElems[k];
    if (isFraction(t) && isFraction(g)) return t === g; // unreduced fractions must match as written
    if (strIsInt(t) !== strIsInt(g)) return false; // an integer reference needs an integer answer
    return differenceIsZero(t, g);
  });
}

/**
 * Whether the grader can read `given` (a boxed answer) as a number, or a tuple of numbers: every
 * element of its normalised form is arithmetic it evaluates. The failure labels' "unparsable answer"
 * (failures.ts) asks the grader this instead of parsing numbers a second way.
 */
export function readsAsNumber(given: string): boolean {
  const elems = splitTuple(normalizeExpr(given));
  return elems.length > 0 && elems.every((e) => e.length > 0 && allowsEval(e) && evaluate(e) !== undefined);
}
