/**
 * Agreement with the cookbook's grader on 5,053 recorded verdicts. cookbook-verdicts.jsonl holds,
 * per case, the verdict of tinker-cookbook's `grade_answer` (and, for whole replies, what its
 * `extract_boxed` returned), run on tinker-cookbook 9dfcc3a2 with sympy 1.14.0 and pylatexenc 2.10:
 * GSM8K-shaped answers in ~150 writing styles (dollars, commas, units, LaTeX, fractions, tuples,
 * signs, leading zeros, underscores, scripts) against integer references, plus fractions, decimals
 * and tuples against non-integer references, plus 40 whole replies for the box extraction.
 * cookbook-normalisations.jsonl holds, for 1,200 random LaTeX-laden strings, what pylatexenc's
 * `latex_to_text` (null: it raised) and the cookbook's `_normalize` and `normalize_answer` return.
 * Only outputs are stored; no cookbook or pylatexenc code is.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { extractBoxed, gradeAnswer, normalizeExpr, normalizeMathd } from "../../../../../src/core/envs/gsm8k";
import { LatexTextError, latexToText } from "../../../../../src/core/envs/gsm8k/latex-text";

interface Case {
  given?: string;
  response?: string;
  truth: string;
  extracted?: string | null;
  cookbook: boolean;
}

/**
 * The documented difference (grader.ts): sympy keeps a decimal literal's own precision, this grader
 * uses float64, where 0.6666666666666666 is the double nearest 2/3.
 */
const KNOWN_DIFFERENCES = new Set([JSON.stringify(["0.6666666666666666", "2/3"])]);

describe("gsm8k grader: agreement with the cookbook's recorded verdicts", () => {
  const cases = readFileSync(join(__dirname, "cookbook-verdicts.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Case);

  it(`agrees on all ${cases.length} cases but the documented one`, () => {
    const disagreements: string[] = [];
    let known = 0;
    for (const c of cases) {
      if (c.response !== undefined) {
        const extracted = extractBoxed(c.response) ?? null;
        if (extracted !== c.extracted)
          disagreements.push(
            `extract ${JSON.stringify(c.response)}: ${JSON.stringify(extracted)}, cookbook ${JSON.stringify(c.extracted)}`,
          );
        else if (gradeAnswer(extracted ?? undefined, c.truth) !== c.cookbook)
          disagreements.push(`reply ${JSON.stringify(c.response)}`);
        continue;
      }
      const ours = gradeAnswer(c.given!, c.truth);
      if (ours === c.cookbook) continue;
      if (KNOWN_DIFFERENCES.has(JSON.stringify([c.given, c.truth]))) known++;
      else
        disagreements.push(`${JSON.stringify(c.given)} vs ${JSON.stringify(c.truth)}: ${ours}, cookbook ${c.cookbook}`);
    }
    assert.deepEqual(disagreements, []);
    assert.equal(known, KNOWN_DIFFERENCES.size, "the documented difference is still one");
    assert.ok(
      cases.length > 5000 && cases.filter((c) => c.cookbook).length > 1000,
      "the fixture has both verdicts in number",
    );
  });
});

describe("gsm8k grader: the same normalisations as the cookbook (and pylatexenc) on random LaTeX", () => {
  const rows = readFileSync(join(__dirname, "cookbook-normalisations.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map(
      (l) =>
        JSON.parse(l) as { input: string; latex_to_text: string | null; normalize: string; normalize_answer: string },
    );

  it(`LaTeX → text, _normalize and normalize_answer agree on all ${rows.length} strings`, () => {
    const diffs: string[] = [];
    for (const r of rows) {
      let text: string | null;
      try {
        text = latexToText(r.input);
      } catch (e) {
        if (!(e instanceof LatexTextError)) throw e;
        text = null;
      }
      if (text !== r.latex_to_text)
        diffs.push(
          `latex ${JSON.stringify(r.input)}: ${JSON.stringify(text)}, pylatexenc ${JSON.stringify(r.latex_to_text)}`,
        );
      if (normalizeExpr(r.input) !== r.normalize) diffs.push(`normalize ${JSON.stringify(r.input)}`);
      if (normalizeMathd(r.input) !== r.normalize_answer) diffs.push(`normalize_answer ${JSON.stringify(r.input)}`);
    }
    assert.deepEqual(diffs.slice(0, 10), []);
    assert.ok(rows.filter((r) => r.latex_to_text === null).length > 0, "some inputs make pylatexenc raise");
  });
});
