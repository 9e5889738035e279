/**
 * The failure rules of each environment, one hand-built episode per rule and the order between
 * rules (harness/failures.ts; envs/<name>/failures.ts), and the table that counts them.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EpisodeRecord, TurnRecord } from "../../../../../src/core/base/runs/run-files";
import { FAILURE_LABELS as HOTPOT } from "../../../../../src/core/envs/hotpotqa/failures";
import { FAILURE_LABELS as GSM8K } from "../../../../../src/core/envs/gsm8k/failures";
import { FAILURE_LABELS as CALCULATOR } from "../../../../../examples/environments/calculator/failures";
import { failureLabels } from "../../../../../src/core/envs/registry";
import { decodedTexts, type FailureLabels } from "../../../../../src/core/harness/failures";
import { failureTable, renderFailureTable } from "../../../../../src/core/views/failures/failure-table";
import { containsAnswer, normalizeAnswer } from "../../../../../src/core/base/data/answer-text";

function record(over: Partial<EpisodeRecord>): EpisodeRecord {
  return {
    format: 2,
    id: "q",
    question: "?",
    answers: ["Pu"],
    prediction: "",
    metrics: {},
    reward: 0,
    end: "answer",
    searches: [],
    prompt: [],
    tokens: [],
    sampled: [],
    logprobs: null,
    prefill: 0,
    generated: 0,
    usd: 0,
    ...over,
  };
}

const searchTurn = (titles: string[]): TurnRecord => ({
  start: 0,
  reply_end: 0,
  end: 0,
  action: "search",
  stop_reason: "stop",
  hits: titles.map((title, id) => ({ id, title, score: 1 })),
});
const answerTurn: TurnRecord = { start: 0, reply_end: 0, end: 0, action: "answer", stop_reason: "stop" };
const results = (paragraphs: [string, string][]) =>
  `<result>\n${paragraphs.map(([t, x]) => `[${t}] ${x}`).join("\n\n")}\n</result>`;

/** A HotpotQA episode that answered `prediction` after the given searches, each returning `paragraphs`. */
function hotpot(
  prediction: string,
  searches: { query: string; paragraphs: [string, string][] }[],
  over: Partial<EpisodeRecord> & { em?: number; f1?: number } = {},
) {
  const { em = 0, f1 = 0, ...rest } = over;
  const r = record({
    prediction,
    searches: searches.map((s) => s.query),
    metrics: { em, f1 },
    turns: [...searches.map((s) => searchTurn(s.paragraphs.map(([t]) => t))), answerTurn],
    ...rest,
  });
  const texts = decodedTexts(
    r.turns!.map(() => "reply"),
    [...searches.map((s) => results(s.paragraphs)), ""],
  );
  return { record: r, texts };
}

const labelOf = <D>(rules: FailureLabels<D>, input: ReturnType<typeof hotpot>, data?: D) => rules.label(input, data);

describe("failure labels: HotpotQA's rules", () => {
  const bridge = { types: new Map([["q", "bridge"]]) };
  const comparison = { types: new Map([["q", "comparison"]]) };
  const other: [string, string] = ["Other", "Nothing to see here."];
  const golden: [string, string] = ["Vor Ren", "Vor Ren's capital is Pu."];

  it("F1 = 1 is no failure", () => {
    assert.equal(labelOf(HOTPOT, hotpot("Pu", [], { em: 1, f1: 1 })), null);
  });

  it("1. no_answer: not ended with an answer; the sub-label is the end reason (before every other rule)", () => {
    for (const end of ["length", "budget", "no_action"]) {
      // Even with the gold inside its (partial) prediction and no search.
      const v = labelOf(HOTPOT, hotpot("Pu is the capital", [], { end }));
      assert.equal(v?.label, "no_answer");
      assert.equal(v?.subLabel, end);
    }
  });

  it("2. answer_too_long: EM 0 and the gold's tokens contiguous inside the prediction (before no_search)", () => {
    const v = labelOf(HOTPOT, hotpot("The city of Pu.", [], { f1: 0.5 }));
    assert.deepEqual(v, { label: "answer_too_long", evidence: "gold 'Pu' inside the answer 'The city of Pu.'" });
    // Tokens out of order or split are not inside.
    const split = labelOf(HOTPOT, hotpot("New big York", [], { answers: ["New York"], f1: 0.8 }));
    assert.equal(split?.label, "no_search");
  });

  it("3. no_search: answered without searching (before the yes/no rule)", () => {
    const v = labelOf(HOTPOT, hotpot("no", [], { answers: ["yes"] }));
    assert.equal(v?.label, "no_search");
  });

  it("4. yes/no gold: stopped_after_one_hop after exactly one search, else misread (before the shown-paragraph rule)", () => {
    const once = labelOf(HOTPOT, hotpot("no", [{ query: "a", paragraphs: [other] }], { answers: ["yes"] }), comparison);
    assert.equal(once?.label, "stopped_after_one_hop");
    const twice = labelOf(
      HOTPOT,
      hotpot(
        "no",
        [
          { query: "a", paragraphs: [other] },
          { query: "b", paragraphs: [other] },
        ],
        { answers: ["yes"] },
      ),
      comparison,
    );
    assert.equal(twice?.label, "misread");
  });

  it("5a. misread: a shown paragraph holds the gold (before the bridge rule), and the evidence names where", () => {
    const v = labelOf(
      HOTPOT,
      hotpot("Ka", [
        { query: "first", paragraphs: [other] },
        { query: "vor ren", paragraphs: [golden, other] },
      ]),
      bridge,
    );
    assert.deepEqual(v, { label: "misread", evidence: "gold 'Pu' in result 1 of search 2 (title 'Vor Ren')" });
    // One search that showed the gold on a bridge question is still a misreading.
    assert.equal(
      labelOf(HOTPOT, hotpot("Ka", [{ query: "q", paragraphs: [other, golden] }]), bridge)?.label,
      "misread",
    );
  });

  it("5b. stopped_after_one_hop: a bridge question, one search, no gold shown", () => {
    assert.equal(
      labelOf(HOTPOT, hotpot("Ka", [{ query: "q", paragraphs: [other] }]), bridge)?.label,
      "stopped_after_one_hop",
    );
    // The record's own type wins over the data's.
    const typed = hotpot("Ka", [{ query: "q", paragraphs: [other] }]);
    (typed.record as unknown as { type: string }).type = "bridge";
    assert.equal(labelOf(HOTPOT, typed, comparison)?.label, "stopped_after_one_hop");
  });

  it("5c. bad_query: the rest (a comparison question with one search, or two searches)", () => {
    assert.equal(labelOf(HOTPOT, hotpot("Ka", [{ query: "q", paragraphs: [other] }]), comparison)?.label, "bad_query");
    const two = labelOf(
      HOTPOT,
      hotpot("Ka", [
        { query: "a", paragraphs: [other] },
        { query: "b", paragraphs: [other] },
      ]),
      bridge,
    );
    assert.deepEqual(two, { label: "bad_query", evidence: "no gold answer in the 2 paragraphs shown by 2 searches" });
  });

  it("the gold must be whole words of a paragraph ('Pu' is not in 'Pune')", () => {
    const v = labelOf(HOTPOT, hotpot("Ka", [{ query: "q", paragraphs: [["Pune", "Pune is a city."]] }]), comparison);
    assert.equal(v?.label, "bad_query");
  });

  it("loadData reads each question's type from the prepared splits that are there", () => {
    const dir = mkdtempSync(join(tmpdir(), "failures-data-"));
    try {
      writeFileSync(
        join(dir, "val.jsonl"),
        JSON.stringify({ id: "q", question: "?", answers: ["x"], type: "bridge", level: "hard" }) + "\n",
      );
      assert.deepEqual([...HOTPOT.loadData!(dir).types], [["q", "bridge"]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("failure labels: GSM8K's rules", () => {
  const gsm = (reply: string, over: Partial<EpisodeRecord> & Record<string, unknown> = {}) => ({
    record: record({ answers: ["18"], metrics: { correct: 0 }, reference: "18", ...over } as Partial<EpisodeRecord>),
    texts: decodedTexts([reply]),
  });

  it("a correct episode is no failure", () => {
    assert.equal(GSM8K.label(gsm("\\boxed{18}", { metrics: { correct: 1 } }), undefined), null);
  });
  it("1. truncated: ended on length (before the box rules)", () => {
    assert.equal(GSM8K.label(gsm("so 18 and \\boxed{1", { end: "length" }), undefined)?.label, "truncated");
  });
  it("2. no_boxed_answer: no \\boxed{} (the recorded extraction, else the grader's own)", () => {
    assert.equal(
      GSM8K.label(gsm("the answer is 18", { end: "no_action", extracted: null }), undefined)?.label,
      "no_boxed_answer",
    );
    assert.equal(GSM8K.label(gsm("the answer is 18", { end: "no_action" }), undefined)?.label, "no_boxed_answer");
  });
  it("3. unparsable_answer: boxed text the grader cannot read as a number (before reference_in_reasoning)", () => {
    const v = GSM8K.label(gsm("18 eggs, so \\boxed{eighteen eggs}", { extracted: "eighteen eggs" }), undefined);
    assert.equal(v?.label, "unparsable_answer");
  });
  it("4. reference_in_reasoning: the reference in the reply, a different box", () => {
    const v = GSM8K.label(gsm("She sells 18 eggs, makes $1,8. \\boxed{36}", { extracted: "36" }), undefined);
    assert.deepEqual(v, {
      label: "reference_in_reasoning",
      evidence: "the reply says '18' (the reference '18') but boxed '36'",
    });
  });
  it("5. wrong_answer: the rest", () => {
    assert.equal(GSM8K.label(gsm("3 times 12 is \\boxed{36}", { extracted: "36" }), undefined)?.label, "wrong_answer");
  });
});

describe("failure labels: a folder's own (the calculator example)", () => {
  it("two labels: no_final_answer (sub-label: the end reason) and wrong_sum", () => {
    const r = (over: Partial<EpisodeRecord>) => ({
      record: record({ answers: ["5"], ...over }),
      texts: decodedTexts(undefined),
    });
    assert.equal(CALCULATOR.label(r({ metrics: { exact: 1 } }), undefined), null);
    assert.deepEqual(CALCULATOR.label(r({ metrics: { exact: 0 }, end: "budget" }), undefined), {
      label: "no_final_answer",
      subLabel: "budget",
      evidence: "ended on budget",
    });
    assert.equal(CALCULATOR.label(r({ metrics: { exact: 0 }, prediction: "6" }), undefined)?.label, "wrong_sum");
  });
});

describe("failure labels: the registry and the table", () => {
  it("each environment folder's failures.ts is found, for its world's runs too", () => {
    assert.equal(failureLabels("hotpotqa"), HOTPOT);
    assert.equal(failureLabels("gsm8k"), GSM8K);
    assert.equal(failureLabels("no-such-env"), undefined);
  });

  it("counts, shares of all episodes, three examples, sub-labels; counts sum to the failed episodes", () => {
    const ids = ["a", "b", "c", "d", "e", "f"].map((id) => ({ id }));
    const v = (label: string, subLabel?: string) => ({ label, subLabel, evidence: "" });
    const t = failureTable("calculator", CALCULATOR, ids, [
      v("wrong_sum"),
      null,
      v("no_final_answer", "budget"),
      v("no_final_answer", "length"),
      v("no_final_answer", "budget"),
      v("no_final_answer", "budget"),
    ]);
    assert.equal(t.failed, 5);
    assert.equal(
      t.rows.reduce((s, r) => s + r.count, 0),
      t.failed,
    );
    assert.deepEqual(t.rows[0], {
      label: "no_final_answer",
      description: "ended without a <final> answer",
      count: 4,
      share: 4 / 6,
      examples: ["c", "d", "e"],
      sub_labels: [
        { name: "budget", count: 3 },
        { name: "length", count: 1 },
      ],
    });
    assert.deepEqual(t.rows[1].examples, ["a"]);
    assert.match(renderFailureTable(t, "run"), /^no_final_answer\s+4\s+66\.7%\s+c, d, e$/m);
    assert.throws(() => failureTable("calculator", CALCULATOR, ids.slice(0, 1), [v("nope")]), /do not declare/);
  });
});

describe("failure labels: the quick containment pre-check", () => {
  it("never changes containsAnswer's verdict (random texts of letters, articles, punctuation, Unicode)", () => {
    const slow = (t: string, a: string) => {
      const n = normalizeAnswer(a);
      return !!n && ` ${normalizeAnswer(t)} `.includes(` ${n} `);
    };
    const parts = [
      "a",
      "b",
      "the",
      "an",
      " ",
      ".",
      "-",
      "\\",
      "]",
      "^",
      "'",
      "U",
      "S",
      "é",
      "İ",
      "1",
      "_",
      "™",
      "\t",
      "(",
      "*",
      "?",
      "[",
      "$",
    ];
    let x = 12345;
    const rnd = (n: number) => (x = (x * 1103515245 + 12345) % 2147483648) % n;
    const gen = (len: number) => Array.from({ length: len }, () => parts[rnd(parts.length)]).join("");
    let positives = 0;
    for (let i = 0; i < 30_000; i++) {
      const [t, a] = [gen(3 + rnd(30)), gen(1 + rnd(6))];
      const want = slow(t, a);
      if (want) positives++;
      assert.equal(containsAnswer(t, a), want, JSON.stringify([t, a]));
    }
    assert.ok(positives > 500, `${positives} texts contain their answer`);
  });
});
