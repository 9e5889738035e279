/**
 * The GSM8K grader against verdicts derived from the cookbook's `grade_answer` / `extract_boxed`
 * (each case says which step of the cookbook decides it), then over every real GSM8K answer.
 * The references are integers, as all 8,792 GSM8K answers are.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  extractBoxed,
  gradeAnswer,
  gradeReply,
  normalizeExpr,
  normalizeMathd,
  referenceAnswer,
} from "../../../../../src/core/envs/gsm8k";
import { readsAsNumber } from "../../../../../src/core/envs/gsm8k/grader";
import { requireSharedData } from "../../../../helpers/shared-data";

// [model's boxed answer, reference, verdict, why]
const ANSWERS: [string, string, boolean, string][] = [
  ["18", "18", true, "same string after both normalisations"],
  ["18.0", "18", true, "a float that is an integer becomes that integer"],
  ["18.00", "18", true, "same"],
  ["18.", "18", true, 'Python float("18.") is 18.0'],
  ["+18", "18", true, 'float("+18") is 18.0'],
  ["018", "18", true, 'float("018") is 18.0'],
  ["18.00000001", "18", true, "within the 1e-7 integer tolerance, so rounded to 18"],
  ["18.000001", "18", false, "1e-6 off is not an integer: a non-integer answer to an integer reference is wrong"],
  ["18.5", "18", false, "not an integer"],
  ["17", "18", false, "a different integer"],
  ["180", "18", false, "a different integer"],
  ["1,000", "1000", true, "thousands commas are stripped before the integer check"],
  ["1,000,000", "1000000", true, "every thousands comma"],
  ["1,00", "100", false, "a comma not followed by three digits is not a thousands separator"],
  ["1{,}000", "1000", true, "LaTeX braces around the comma drop, leaving 1,000"],
  ["1,\\!000", "1000", true, "the grader drops ',\\!' explicitly"],
  ["1\\,000", "1000", false, "\\, becomes a space and '1 000' reads as the mixed number 1+000"],
  ["1\\ 000", "1000", false, "same: a space between digits is a mixed number"],
  ["\\$18", "18", true, "\\$ is dropped (mathd normalisation)"],
  ["$18", "18", true, "$ is dropped by the grader's normalisation"],
  ["\\$1,000.00", "1000", true, "dollar, commas and .00 all normalise away"],
  ["\\$ 18", "18", true, "spaces are dropped"],
  ["-\\$18", "18", false, "the sign stays: -18"],
  ["-5", "-5", true, "negative integers compare as strings"],
  ["- 5", "-5", true, "'- ' collapses to '-'"],
  ["\\$-5", "-5", true, "dollar dropped, sign kept"],
  ["5", "-5", false, "the sign matters"],
  ["−5", "-5", false, "a Unicode minus sign is not '-': not a number to the grader"],
  ["18\\%", "18", true, "\\% is dropped"],
  ["18%", "18", true, "% is dropped"],
  ["18 dollars", "18", false, "'dollars' is not in the grader's unit list: '18dollars' is not a number"],
  ["18 \\text{ dollars}", "18", true, "mathd cuts everything from '\\text{ ' (with a space) on"],
  ["18\\text{ dollars}", "18", true, "same"],
  ["18 \\text{dollars}", "18", false, "no space after '\\text{': LaTeX→text gives '18 dollars' → '18dollars'"],
  ["\\text{18}", "18", true, "an enclosing \\text{} is unwrapped"],
  ["\\text{18 apples}", "18", false, "unwrapped to '18 apples': not a number"],
  ["\\textbf{18}", "18", true, "LaTeX→text keeps \\textbf's argument"],
  ["\\mathbf{18}", "18", true, "same for \\mathbf"],
  ["\\mathrm{18}", "18", true, "same for \\mathrm"],
  ["\\mbox{18}", "18", false, "pylatexenc parses \\mbox's argument but prints nothing for it: empty answer"],
  ["\\texttt{18}", "18", false, "same for \\texttt"],
  ["18 hours", "18", true, "'hour(s)' is in the grader's unit list and is dropped"],
  ["18 minutes", "18", true, "'minute(s)'"],
  ["18 feet", "18", true, "'feet'"],
  ["18 cm", "18", true, "'cm'"],
  ["18 \\, \\mathrm{cm}", "18", true, "'cm' dropped first, then \\, and an empty \\mathrm{} vanish"],
  ["18 km", "18", false, "'km' is not in the unit list"],
  ["18 pounds", "18", false, "'pounds' is not in the unit list"],
  ["18^\\circ", "18", true, "^\\circ (degrees) is dropped"],
  ["18^{\\circ}", "18", true, "same with braces"],
  ["\\frac{36}{2}", "18", false, "an integer reference needs an integer answer; 36/2 is a fraction (no sympy)"],
  ["\\dfrac{18}{1}", "18", false, "18/1 is not written as an integer"],
  ["18/1", "18", false, "same"],
  ["x = 18", "18", true, "mathd drops a short 'x = ' prefix"],
  ["k=18", "18", true, "same"],
  ["total = 18", "18", false, "the prefix is longer than 2 characters, so it stays"],
  ["(18)", "18", true, "a one-element tuple: its element 18 equals 18"],
  ["[18]", "18", true, "same with brackets"],
  ["\\left(18\\right)", "18", true, "\\left/\\right dropped, then the one-element tuple (18)"],
  ["{18}", "18", true, "enclosing braces are dropped"],
  ["\\{18\\}", "18", true, "\\{ \\} print as braces, which are then dropped"],
  ["\\(18\\)", "18", true, "inline math prints its content"],
  ["\\[18\\]", "18", true, "display math: content on its own line, whitespace ignored"],
  ["18 or 19", "18", false, "'or' makes a two-element list against a one-element reference"],
  ["18, 19", "18", false, "two elements against one"],
  ["18 million", "18000000", false, "'million' becomes *10^6, and 18*10^6 is not written as an integer"],
  ["1e3", "1000", true, 'Python float("1e3") is 1000.0'],
  ["1_000", "1000", true, 'Python float() accepts "_" between digits'],
  ["7 3/4", "31/4", true, "a mixed number reads as 7+3/4 (not a plain fraction), and 31/4 - (7+3/4) = 0"],
  ["7 3/4", "7.75", true, "same, against a decimal"],
  ["\\frac{62}{8}", "31/4", false, "both plain fractions: they must be written the same (62/8 is not reduced)"],
  ["0.5", "1/2", true, "mathd turns both 0.5 and 1/2 into \\frac{1}{2}"],
  ["3/4", "\\frac{3}{4}", true, "mathd turns a/b into \\frac{a}{b}"],
  ["6/8", "3/4", false, "unreduced fractions are not accepted"],
  ["0.75", "3/4", true, "sympy: 3/4 - 0.75 = 0 (exact arithmetic here)"],
  ["\\approx 18", "18", false, "≈ stays in the text"],
  ["18 \\cdot 1", "18", false, "'18*1' is not written as an integer"],
  ["", "18", false, "an empty answer is wrong"],
  ["\\text{}", "18", false, "empty after unwrapping"],
  ["\\boxed{18}", "18", true, "a box inside the box: LaTeX→text drops the unknown macro, leaving 18"],
  ["١٨", "18", true, "Python float() reads Arabic-Indic digits: 18.0"],
];

describe("gsm8k grader: the cookbook's grade_answer on GSM8K-shaped answers", () => {
  for (const [given, truth, verdict, why] of ANSWERS) {
    it(`${JSON.stringify(given)} vs ${truth} → ${verdict} (${why})`, () => {
      assert.equal(gradeAnswer(given, truth), verdict);
    });
  }
  it("no answer (no box) is wrong", () => assert.equal(gradeAnswer(undefined, "18"), false));
});

// [model reply, extracted answer (undefined: none), why]
const REPLIES: [string, string | undefined, string][] = [
  ["So she makes $18 a day.\n\\boxed{18}", "18", "the boxed content"],
  ["First \\boxed{5}, but no: \\boxed{18}.", "18", "the last box"],
  ["\\boxed{18} is wrong, it is \\boxed{5}", "5", "the last box, even when an earlier one is right"],
  ["\\boxed{\\frac{1}{2}}", "\\frac{1}{2}", "braces inside the box balance"],
  ["\\boxed{\\boxed{18}}", "\\boxed{18}", "nested: the outer box closes last"],
  ["\\boxed{}", "", "an empty box is an (empty, wrong) answer"],
  ["\\boxed 18", "18", "the cookbook accepts \\boxed, a space, then letters/digits"],
  ["\\boxed 5 then \\boxed 18", "5", "…and takes the first such match (re.search), not the last"],
  ["\\boxed {18}", undefined, "a space before the brace: neither form matches"],
  ["The answer is 18.", undefined, "no box"],
  ["\\boxed{18", undefined, "a box that never closes"],
  ["oops } then \\boxed{18}", undefined, "an unmatched } anywhere makes the cookbook give up"],
  ["\\fbox{18}", undefined, "only \\boxed counts"],
  ["$\\boxed{18}$", "18", "math delimiters around the box do not matter"],
  ["<think>maybe \\boxed{5}</think>\n\n\\boxed{18}", "18", "think blocks are not graded"],
  [
    "let me think \\boxed{5}</think>\n\nSo \\boxed{18}",
    "18",
    "Qwen3.5 prefills <think>: a lone </think> closes a think block",
  ],
  [
    "<think>I think \\boxed{18}</think>\n\nThe answer is 18.",
    undefined,
    "a box only inside the think block is no answer",
  ],
];

describe("gsm8k grader: \\boxed{} extraction from whole replies", () => {
  for (const [reply, extracted, why] of REPLIES) {
    it(`${JSON.stringify(reply)} → ${JSON.stringify(extracted)} (${why})`, () => {
      assert.equal(gradeReply(reply, "work\n#### 18").extracted, extracted);
    });
  }
  it("extractBoxed on raw text keeps think blocks (the reply text is chosen by gradeReply)", () => {
    assert.equal(extractBoxed("<think>\\boxed{5}</think>"), "5");
  });
  it("a reply cut off by the token limit is graded as raw text, as the cookbook does", () => {
    const reply = "<think>so \\boxed{18}</think> and then";
    assert.equal(gradeReply(reply, "#### 18").correct, false);
    assert.equal(gradeReply(reply, "#### 18", { stopped: false }).correct, true);
  });
});

describe("gsm8k reference answer: the text after the last #### line", () => {
  const cases: [string, string | undefined][] = [
    ["Natalia sold 48+24 = 72 clips.\n#### 72", "72"],
    ["Total 1,234.\n#### 1,234", "1234"],
    ["#### 10\nMore.\n#### 20", "20"],
    ["####: 55", "55"],
    ["#### -3", "-3"],
    ["x #### 9 apples", "9 apples"],
    ["no final line", undefined],
  ];
  for (const [solution, expected] of cases) {
    it(`${JSON.stringify(solution)} → ${JSON.stringify(expected)}`, () =>
      assert.equal(referenceAnswer(solution), expected));
  }
});

describe("gsm8k grader over the real records (../shared/data/gsm8k)", function () {
  for (const [split, count] of [
    ["train", 7473],
    ["test", 1319],
  ] as const) {
    it(`${split}: every reference answer, boxed, grades correct; off by one or times ten grades wrong (${count})`, function () {
      const file = requireSharedData(this, "gsm8k", `${split}.jsonl`);
      const rows = readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { answer: string });
      assert.equal(rows.length, count);
      const failures: string[] = [];
      for (const { answer } of rows) {
        const ref = referenceAnswer(answer)!;
        const n = BigInt(ref);
        const withCommas = ref.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
        if (!gradeReply(`Reasoning...\n\\boxed{${ref}}`, answer).correct) failures.push(`${ref} plain`);
        if (!gradeReply(`so \\boxed{\\$${withCommas}}`, answer).correct) failures.push(`${ref} as \\$${withCommas}`);
        if (!gradeReply(`\\boxed{${ref}.00}`, answer).correct) failures.push(`${ref}.00`);
        if (gradeReply(`\\boxed{${n + 1n}}`, answer).correct) failures.push(`${n + 1n} accepted for ${ref}`);
        if (gradeReply(`\\boxed{${n * 10n}}`, answer).correct && n !== 0n)
          failures.push(`${n * 10n} accepted for ${ref}`);
        if (gradeReply(`The answer is ${ref}.`, answer).correct) failures.push(`unboxed ${ref} accepted`);
      }
      assert.deepEqual(failures.slice(0, 10), []);
    });
  }
});

// Mutation-testing gap (issue 31): the failure labels' "unparsable answer" asks the grader this.
describe("gsm8k grader: readsAsNumber (a boxed answer the grader reads as numbers)", () => {
  const CASES: [string, boolean, string][] = [
    ["42", true, "an integer"],
    ["3.5", true, "a decimal"],
    ["1,000", true, "thousands separators"],
    ["$18", true, "a dollar sign is dropped"],
    ["\\frac{1}{2}", true, "LaTeX arithmetic"],
    ["2(3)", true, "implicit multiplication"],
    ["7 3/4", true, "a mixed number"],
    ["(1, 2)", true, "a tuple of numbers"],
    ["[1,2]", true, "an interval"],
    ["", false, "nothing"],
    ["x+1", false, "a variable"],
    ["18 dollars", false, "a word the grader does not drop"],
    ["sqrt(4)", false, "a function the grader does not evaluate"],
    ["1/0", false, "a division by zero"],
    ["()", false, "empty parentheses"],
    ["(1,)", false, "a tuple with an empty element"],
  ];
  for (const [given, reads, why] of CASES) {
    it(`${JSON.stringify(given)} → ${reads} (${why})`, () => assert.equal(readsAsNumber(given), reads));
  }
});

// Mutation-testing gaps (issue 31): the element-wise step's edges, each against the cookbook's rule.
describe("gsm8k grader: element by element", () => {
  const CASES: [string, string, boolean, string][] = [
    ["(1, 2.0)", "(1,2)", true, "a tuple whose elements are equal numbers"],
    ["(1,3)", "(1,2)", false, "every element must match, not one"],
    ["(3,2)", "(1,2)", false, "…the first one too"],
    ["[1,2.0]", "(1,2)", false, "a tuple's opening bracket must be the same"],
    ["(1,2.0]", "(1,2)", false, "…and its closing one"],
    ["$x$", "x", true, "equal once normalised, though nothing evaluates it"],
    ["1024/3", "2^10/3", false, "a two-digit exponent is never evaluated (the cookbook's should_allow_eval)"],
  ];
  for (const [given, truth, verdict, why] of CASES) {
    it(`${JSON.stringify(given)} vs ${truth} → ${verdict} (${why})`, () =>
      assert.equal(gradeAnswer(given, truth), verdict));
  }
});

// Mutation-testing gaps (issue 31): each step of the cookbook's normalize_answer ("mathd"), one case per rule.
describe("gsm8k grader: the mathd normalisation, rule by rule", () => {
  const CASES: [string, string, string][] = [
    ["\\text{ 18 }", "18", "an enclosing \\text{} is unwrapped and its content stripped"],
    ["1\n8", "18", "line breaks dropped"],
    ["1\\!000", "1000", "\\! dropped"],
    ["\\\\frac{1}{2}", "\\frac{1}{2}", "a doubled backslash is one"],
    ["\\tfrac{1}{2}", "\\frac{1}{2}", "tfrac → frac"],
    ["\\dfrac{1}{2}", "\\frac{1}{2}", "dfrac → frac"],
    ["\\left(1\\right)", "(1)", "\\left and \\right dropped"],
    ["90^{\\circ}", "90", "^{\\circ} dropped"],
    ["90^\\circ", "90", "^\\circ dropped"],
    ["\\$5", "5", "\\$ dropped"],
    ["5\\text{ cm}", "5", "units after '\\text{ ' cut"],
    ["5\\text{ cm}\\text{ m}", "5\\text{ cm}\\text{ m}", "two '\\text{ ' fail the cookbook's assert: left as it was"],
    ["50\\%", "50", "\\% dropped"],
    ["x = .5", "\\frac{1}{2}", "' .' → ' 0.', then the short prefix, then 0.5 → 1/2"],
    ["{.5}", "{0.5}", "'{.' → '{0.'"],
    [".25", "0.25", "a leading '.' gets a 0"],
    ["x=5", "5", "a prefix of at most two characters before '=' dropped"],
    ["abc=5", "abc=5", "a longer one kept"],
    ["a=b=c", "a=b=c", "two '=' kept"],
    ["\\sqrt2", "\\sqrt{2}", "\\sqrt's one-character argument braced"],
    ["2\\sqrt3x", "2\\sqrt{3}x", "…only the first character"],
    ["\\sqrt{2}", "\\sqrt{2}", "a braced argument kept"],
    ["\\frac12", "\\frac{1}{2}", "\\frac12 braced"],
    ["\\frac1{2}", "\\frac{1}{2}", "\\frac1{2}: the first argument braced"],
    ["\\frac12\\frac34", "\\frac{1}{2}\\frac{3}{4}", "every \\frac"],
    ["\\frac1", "\\frac1", "one character after \\frac: left as it is"],
    ["\\frac", "\\frac", "nothing after \\frac: the cookbook's index error, left as it was"],
    ["0.5", "\\frac{1}{2}", "0.5 → \\frac{1}{2}"],
    ["3/4", "\\frac{3}{4}", "a/b → \\frac{a}{b}"],
    ["-3/4", "\\frac{-3}{4}", "with a sign"],
    ["x= 3/4", "\\frac{3}{4}", "after the prefix and spaces go"],
    ["a/4", "a/4", "not two integers: kept"],
    ["x= a/4", "a/4", "int('a') fails: the text as normalised so far (a failed assert keeps the input)"],
    ["x= 3/b", "3/b", "…either side"],
    ["1/2/3", "1/2/3", "two slashes: kept"],
    ["03/4", "03/4", "int('03') is 3, '3/4' is not what was written: the cookbook's assert, left as it was"],
    ["+3/4", "+3/4", "same for a '+' sign"],
    ["3_0/4", "3_0/4", "same for a digit separator"],
    ["", "", "empty stays empty"],
  ];
  for (const [input, normalised, why] of CASES) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(normalised)} (${why})`, () =>
      assert.equal(normalizeMathd(input), normalised));
  }
});

// Mutation-testing gaps (issue 31): each step of the cookbook's _normalize, one case per rule.
describe("gsm8k grader: the grader's own normalisation, rule by rule", () => {
  const CASES: [string, string, string][] = [
    ["\\text{18}", "18", "an enclosing \\text{} is unwrapped"],
    ["18\\%", "18", "\\% dropped"],
    ["\\$18", "18", "\\$ dropped"],
    ["1 or 2", "1,2", "'or' separates elements"],
    ["1 and 2", "1,2", "'and' too"],
    ["2 million", "2*10^6", "million"],
    ["2 billion", "2*10^9", "billion"],
    ["3 trillion", "3*10^12", "trillion"],
    ["5 cm^2", "5", "a unit with its power"],
    ["5 cm ^23", "5", "…of several digits, after spaces"],
    ["5 inches", "5", "plural in -es"],
    ["90^ \\circ", "90", "'^ \\circ' dropped"],
    ["{18}", "18", "enclosing braces dropped"],
    ["{18", "18", "a lone brace dropped at the end"],
    ["1,\\! 000", "1000", "',\\!' and the spaces after it dropped"],
    ["18.0000000001", "18", "a float within 1e-7 of an integer is that integer"],
    ["0.0000001", "0", "…1e-7 itself included"],
    ["17.99999999", "18", "…rounded to it, not truncated"],
    ["{17.99999999}", "18", "…also inside braces, which go first"],
    ["\\frac{1}{2}", "1/2", "LaTeX → text"],
    ["\\sqrt{2}", "sqrt(2)", "√ → sqrt"],
    ["\\pi", "pi", "π → pi"],
    ["\\infty", "inf", "∞ → inf"],
    ["A \\cup B", "aub", "∪ → U (then lower case)"],
    ["2\\cdot 3", "2*3", "· → *"],
    ["2\\times 3", "2*3", "× → *"],
    ["- 5", "-5", "'- ' → '-'"],
    ["7 3/4", "7+3/4", "a mixed number"],
    ["ABC", "abc", "lower case"],
    ["1,000", "1000", "an integer with thousands separators"],
    ["1,000.5", "1,000.5", "not an integer: commas stay (split_tuple strips them later)"],
    ["{1,2}", "1,2", "braces dropped around a list"],
  ];
  for (const [input, normalised, why] of CASES) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(normalised)} (${why})`, () =>
      assert.equal(normalizeExpr(input), normalised));
  }
  it("drops every unit word of the grader's list, singular and plural", () => {
    const units = ["degree", "cm", "centimeter", "meter", "mile", "second", "minute", "hour", "day", "week"];
    for (const unit of [...units, "month", "year", "foot", "feet", "inch", "yard"]) {
      assert.equal(normalizeExpr(`5 ${unit}`), "5", unit);
      if (unit !== "feet" && unit !== "cm") assert.equal(normalizeExpr(`5 ${unit}s`), "5", `${unit}s`);
    }
  });
});

// Mutation-testing gaps (issue 31): the exact arithmetic that stands in for sympy, through verdicts on
// non-integer references (an integer reference never gets this far with a non-integer answer).
describe("gsm8k grader: arithmetic in place of sympy", () => {
  const CASES: [string, string, boolean, string][] = [
    ["2^-3", "1/8", true, "a negative power is 1 over the power"],
    ["2^-3", "1/6", false, "…of the right size"],
    ["2**-1", "0.5", true, "** is ^"],
    ["-(1/2)", "-0.5", true, "unary minus on a parenthesised quotient"],
    ["+0.5", "0.5", true, "unary plus"],
    ["(1)/(2)", "0.5", true, "parentheses"],
    ["1 / 2", "0.5", true, "spaces between tokens"],
    ["1/2)", "0.5", false, "an unmatched ')' is not arithmetic"],
    ["(1/2", "0.5", false, "an unclosed '(' neither"],
    ["1/0", "0.5", false, "a division by zero is no value"],
    ["1 2/4", "1.5", true, "a mixed number: 1+2/4"],
    ["1.5", "3/2", true, "a decimal against a fraction"],
    ["3/2", "1.5", true, "…either way round"],
    ["1.5", "1 1/2", true, "against a mixed number"],
    ["1e-1", "0.1", true, "an exponent literal"],
    ["0.1", "1/10", true, "0.1 is the double nearest 1/10"],
    ["1_0.5", "10.5", true, "a digit separator in a decimal"],
    ["3/6", "1/2", false, "two fractions must be written the same"],
    ["1/10+2/10", "3/10", true, "exact sums (0.1 + 0.2 is not 0.3 in floating point)"],
    ["3/10-2/10", "1/10", true, "exact differences"],
    ["(1/2)*(1/3)", "1/6", true, "exact products"],
    ["(1/2)/(3/4)", "2/3", true, "exact quotients"],
    ["(123456789^2+1-123456789^2)/2", "1/2", true, "exact powers (the square is past 2^53)"],
    ["3^-1+1/2-1/3", "1/2", true, "exact negative powers (0.49999999999999994 in floating point)"],
    ["0.5^3", "0.125", true, "a power of a decimal"],
    ["(1/2)(3)", "1.5", true, "implicit multiplication is a product, not a power"],
    ["1\t\t/2", "0.5", true, "tabs between tokens are skipped as Python's tokenizer does"],
    ["[1,2.0)", "(1,2)", false, "a tuple's opening bracket must match, though the closing one does"],
    ["((1,2))", "((1,2))", true, "equal strings, though nested brackets are no tuple"],
    ["(1, 2)", "(1,2)", true, "a tuple's elements are stripped"],
  ];
  for (const [given, truth, verdict, why] of CASES) {
    it(`${JSON.stringify(given)} vs ${truth} → ${verdict} (${why})`, () =>
      assert.equal(gradeAnswer(given, truth), verdict));
  }
  const READS: [string, boolean, string][] = [
    ["2^9", true, "a one-digit power"],
    ["2^10", false, "a two-digit power is never evaluated"],
    ["2^(3)", false, "nor a parenthesised one"],
    ["2^3^2", false, "nor a tower"],
    ["2^-65", true, "a negative power beyond 64 falls back to floating point"],
    ["((1))", true, "nested parentheses"],
    ["(1,2,3)", true, "a triple"],
    ["1,2", false, "a bare list is no tuple: '1,2' is not arithmetic"],
    ["0.5e1", true, "a decimal with an exponent"],
    ["5.", true, "a trailing point"],
    ["1__0", false, "two separators in a row"],
    ["1e", false, "an exponent without digits"],
    ["(", false, "an open parenthesis alone"],
    ["12)", false, "a closing bracket alone makes no tuple"],
    ["((1),(2))", false, "nested brackets are not split into a tuple"],
    ["e", false, "a letter is no number, though a float literal may hold one"],
    ["1/(1-1)", false, "a division by a zero expression"],
  ];
  for (const [given, reads, why] of READS) {
    it(`readsAsNumber(${JSON.stringify(given)}) → ${reads} (${why})`, () => assert.equal(readsAsNumber(given), reads));
  }
});
