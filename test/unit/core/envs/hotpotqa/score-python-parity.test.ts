/**
 * normalize / EM / F1 agree with Python on thousands of generated strings: python3 runs the official
 * algorithm (written out below, independently of the TypeScript) and both sides are compared
 * exactly, floats included. Skips with a one-line reason when python3 is missing.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { PY_WORD_CLASS, pyLower } from "../../../../../src/core/base/data/python-text";
import { exactMatch, f1Score, normalizeAnswer } from "../../../../../src/core/envs/hotpotqa/score";
import { mulberry32 as seeded } from "../../../../../src/core/base/util/mulberry32";

const PYTHON_SCORE = `
import json, re, string, sys
from collections import Counter
P = set(string.punctuation)
def normalize(t):
    t = t.lower()
    t = "".join(c for c in t if c not in P)
    t = re.sub(r"\\b(a|an|the)\\b", " ", t)
    return " ".join(t.split())
def em(p, answers):
    return float(any(normalize(p) == normalize(a) for a in answers))
def f1(p, answers):
    best = 0.0
    for a in answers:
        pred, gold = normalize(p).split(), normalize(a).split()
        if {" ".join(pred), " ".join(gold)} & {"yes", "no", "noanswer"} and pred != gold:
            continue
        common = sum((Counter(pred) & Counter(gold)).values())
        if common == 0:
            continue
        pr, rc = common / len(pred), common / len(gold)
        best = max(best, 2 * pr * rc / (pr + rc))
    return best
out = []
for c in json.load(sys.stdin):
    out.append([normalize(c["p"])] + [normalize(a) for a in c["a"]] + [em(c["p"], c["a"]), f1(c["p"], c["a"])])
json.dump(out, sys.stdout)
`;

const PIECES = [
  // ASCII words, articles in every position and case, yes/no
  "the",
  "The",
  "THE",
  "a",
  "A",
  "an",
  "An",
  "and",
  "then",
  "theme",
  "yes",
  "Yes",
  "no",
  "NO",
  "noanswer",
  "paris",
  "new",
  "york",
  "city",
  "1844",
  "1,844",
  "3.5",
  "don't",
  "u.s.",
  "arthur's",
  "x_y",
  "_the_",
  // punctuation and spaces
  ".",
  ",",
  "'",
  '"',
  "-",
  "(",
  ")",
  "!",
  "?",
  "_",
  "\\",
  "@",
  "#",
  "~",
  "`",
  " ",
  "  ",
  "\t",
  "\n",
  // Latin-1 and letter-like numbers
  "é",
  "É",
  "café",
  "naïve",
  "ß",
  "ÿ",
  "Ÿ",
  "µ",
  "ª",
  "º",
  "²",
  "½",
  "¿",
  "«",
  "»",
  "×",
  "\xa0",
  "\xad",
  // Greek, final sigma contexts
  "Σ",
  "σ",
  "ς",
  "ΟΔΥΣΣΕΥΣ",
  "ΣΑ",
  "ΑΣ",
  "Α.Σ",
  "ά",
  "Ω",
  "ΐ",
  // Turkish
  "İ",
  "ı",
  "İstanbul",
  "ŞĞÜ",
  "I",
  // combining marks (Mn, Mc) — not word characters in Python
  "\u0301",
  "\u0307",
  "\u0903",
  "e\u0301",
  "the\u0301",
  "\u0301the",
  // CJK, fullwidth, numerals
  "中",
  "中文",
  "一",
  "東京",
  "Ａ",
  "ＴＨＥ",
  "Ⅻ",
  "٣",
  "〇",
  // Unicode spaces and look-alikes
  "\x1c",
  "\x1d",
  "\x1e",
  "\x1f",
  "\x85",
  "\u1680",
  "\u2000",
  "\u2009",
  "\u200a",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
  "\u200b",
  "\u180e",
  "\v",
  "\f",
  "\r",
  // others: emoji (astral), ligatures with special lower-casing
  "😀",
  "𝐀",
  "ﬁ",
  "Ǆ",
  "ǅ",
  "K",
  "Å",
];

function generateCases(count: number): { p: string; a: string[] }[] {
  const rand = seeded(20261129);
  const pick = () => PIECES[Math.floor(rand() * PIECES.length)];
  const phrase = (n: number) => {
    let s = "";
    for (let i = 0; i < n; i++) s += (rand() < 0.6 ? " " : "") + pick();
    return s;
  };
  const cases: { p: string; a: string[] }[] = [];
  for (let i = 0; i < count; i++) {
    const p = phrase(Math.floor(rand() * 8));
    const answers: string[] = [];
    const nAnswers = 1 + Math.floor(rand() * 3);
    for (let k = 0; k < nAnswers; k++) {
      // half the answers share words with the prediction so F1 is often between 0 and 1
      const words = p.split(" ").filter((w) => w && rand() < 0.6);
      answers.push(
        rand() < 0.5 ? words.join(" ") + phrase(Math.floor(rand() * 3)) : phrase(1 + Math.floor(rand() * 4)),
      );
    }
    cases.push({ p, a: answers });
  }
  return cases;
}

describe("score parity with python3", function () {
  it("normalize, EM and F1 are identical to Python's on 4,000 generated cases", function () {
    const cases = generateCases(4000);
    const py = spawnSync("python3", ["-c", PYTHON_SCORE], {
      input: JSON.stringify(cases),
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    if (py.error) {
      console.log(`      skipped: python3 is not available (${py.error.message})`);
      this.skip();
    }
    assert.equal(py.status, 0, py.stderr);
    const expected = JSON.parse(py.stdout) as (string | number)[][];
    let nonTrivialF1 = 0;
    for (let i = 0; i < cases.length; i++) {
      const { p, a } = cases[i];
      const got = [normalizeAnswer(p), ...a.map(normalizeAnswer), exactMatch(p, a), f1Score(p, a)];
      assert.deepEqual(got, expected[i], `case ${i}: ${JSON.stringify(cases[i])}`);
      const f = got[got.length - 1] as number;
      if (f > 0 && f < 1) nonTrivialF1++;
    }
    // the generator must exercise partial credit, not only 0 and 1
    assert.ok(nonTrivialF1 > 200, `only ${nonTrivialF1} cases with 0 < F1 < 1`);
  });

  it("word characters (re's \\w) and lower() match Python for every code point its Unicode version assigns", function () {
    // Code points Python's Unicode database leaves unassigned are skipped: JavaScript's tables are
    // newer, and Python itself changes on them from version to version.
    const py = spawnSync(
      "python3",
      [
        "-c",
        `
import json, re, sys, unicodedata
word = re.compile(r"\\w")
flags, lower = [], {}
for c in range(0x110000):
    ch = chr(c)
    if 0xD800 <= c < 0xE000 or unicodedata.category(ch) == "Cn":
        flags.append("-")
        continue
    flags.append("w" if word.match(ch) else ".")
    if ch.lower() != ch:
        lower[c] = ch.lower()
json.dump({"version": unicodedata.unidata_version, "flags": "".join(flags), "lower": lower}, sys.stdout)
`,
      ],
      { encoding: "utf8", maxBuffer: 64 << 20 },
    );
    if (py.error) {
      console.log(`      skipped: python3 is not available (${py.error.message})`);
      this.skip();
    }
    const { flags, lower } = JSON.parse(py.stdout) as { version: string; flags: string; lower: Record<string, string> };
    const word = new RegExp(`^${PY_WORD_CLASS}$`, "u");
    const wrong: string[] = [];
    let checked = 0;
    for (let c = 0; c < flags.length; c++) {
      if (flags[c] === "-") continue;
      checked++;
      const ch = String.fromCodePoint(c);
      if (word.test(ch) !== (flags[c] === "w")) wrong.push(`U+${c.toString(16)} word`);
      if (pyLower(ch) !== (lower[c] ?? ch)) wrong.push(`U+${c.toString(16)} lower`);
    }
    assert.deepEqual(wrong.slice(0, 20), [], `${wrong.length} differences`);
    assert.ok(checked > 100_000, `only ${checked} assigned code points checked`);
  });
});
