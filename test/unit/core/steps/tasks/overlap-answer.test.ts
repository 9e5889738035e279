/**
 * Text normalisation, eval-set overlap (exact text and 13-word runs, checked on real GSM8K test
 * questions when ../shared/data has them) and the numeric answer of a solution's return value.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { numericAnswer } from "../../../../../src/core/steps/tasks/answer";
import { EvalOverlapIndex } from "../../../../../src/core/base/task-sets/eval-overlap";
import { normalizeText } from "../../../../../src/core/base/task-sets/text";
import { requireSharedData } from "../../../../helpers/shared-data";

describe("tasks: text, overlap and answers", () => {
  it("normalises case, punctuation, curly quotes and full-width digits", () => {
    assert.equal(normalizeText("Janet’s ducks lay １６ eggs,  per DAY!"), "janet s ducks lay 16 eggs per day");
    assert.equal(normalizeText("  "), "");
  });

  it("finds exact copies and shared 13-word runs, not 12-word ones", () => {
    const words = "one two three four five six seven eight nine ten eleven twelve thirteen".split(" ");
    const index = new EvalOverlapIndex([{ line: 4, question: `Start ${words.join(" ")} end.` }]);
    assert.deepEqual(index.find(`START ${words.join(" ")} END`), { kind: "exact", evalLine: 4 });
    assert.deepEqual(index.find(`Other words then ${words.join(" ")} and more`), { kind: "ngram", evalLine: 4 });
    assert.equal(index.find(`Other words then ${words.slice(0, 12).join(" ")} and more`), undefined);
  });

  it("flags real GSM8K test questions, copied or with the numbers changed at the end", function () {
    const file = requireSharedData(this, "gsm8k", "test.jsonl");
    const items = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l, i) => ({ line: i + 1, question: (JSON.parse(l) as { question: string }).question }));
    const index = new EvalOverlapIndex(items);
    assert.equal(items.filter((it) => index.find(it.question) === undefined).length, 0);
    // The first question with its last sentence's number changed still shares a long run.
    const edited = items[0].question.replace(/\$2\b/, "$3");
    assert.notEqual(edited, items[0].question);
    assert.deepEqual(index.find(edited), { kind: "ngram", evalLine: 1 });
    assert.equal(
      index.find(
        "A baker bakes 24 muffins in the morning and 18 in the afternoon. She sells 35 of them. How many muffins are left?",
      ),
      undefined,
    );
  });

  it("turns ints, floats, Fractions and Decimals into canonical numbers and refuses the rest", () => {
    assert.equal(numericAnswer({ type: "int", repr: "18" }), "18");
    assert.equal(numericAnswer({ type: "int", repr: "-3" }), "-3");
    assert.equal(numericAnswer({ type: "float", repr: "18.0" }), "18");
    assert.equal(numericAnswer({ type: "float", repr: "0.1" }), "0.1");
    assert.equal(numericAnswer({ type: "float", repr: "0.30000000000000004" }), "0.3");
    assert.equal(numericAnswer({ type: "Fraction", repr: "9/2" }), "4.5");
    assert.equal(numericAnswer({ type: "Fraction", repr: "4" }), "4");
    assert.equal(numericAnswer({ type: "Decimal", repr: "12.50" }), "12.5");
    for (const v of [
      { type: "float", repr: "nan" },
      { type: "float", repr: "inf" },
      { type: "str", repr: "" },
      { type: "bool", repr: "" },
      { type: "NoneType", repr: "" },
      { type: "int", repr: "(too many digits)" },
    ]) {
      assert.equal(numericAnswer(v), undefined, JSON.stringify(v));
    }
  });
});
