import assert from "node:assert/strict";
import {
  generateSyntheticHotpot,
  QUESTION_KINDS,
  questionKind,
  type HotpotRecord,
} from "../../../../../src/core/envs/hotpotqa/synthetic-world";

const kindOf = (r: HotpotRecord) =>
  r.question.startsWith("Were ") ? "Were" : r.question.split(" ").slice(0, 2).join(" ");

describe("demo: generateSyntheticHotpot", function () {
  this.timeout(20_000);

  it("a compact world far larger than its 504 company names fills every split quickly, with unique questions", () => {
    const started = Date.now();
    // Before the fix this drew company names forever (1,295 companies wanted from 504 names).
    const d = generateSyntheticHotpot({ style: "compact", train: 3000, dev: 700 });
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.equal(d.train.length, 3000);
    assert.equal(d.dev.length, 700);
    const questions = [...d.train, ...d.dev].map((r) => r.question);
    assert.equal(new Set(questions).size, questions.length, "no question twice, within or across splits");
    // The bridge kind capped by the company count runs out; the others keep taking turns.
    const kinds = new Map<string, number>();
    for (const r of d.train) kinds.set(kindOf(r), (kinds.get(kindOf(r)) ?? 0) + 1);
    assert.ok((kinds.get("Where was") ?? 0) <= 480, JSON.stringify([...kinds]));
    for (const k of ["In which", "Which company", "Who was", "Were"])
      assert.ok((kinds.get(k) ?? 0) > 400, `${k}: ${JSON.stringify([...kinds])}`);
  });

  it("every question's answer comes from its supporting paragraphs (or is yes/no), with ten paragraphs of context", () => {
    const d = generateSyntheticHotpot({ style: "compact", train: 2000, dev: 100, seed: 5 });
    for (const r of [...d.train.slice(-300), ...d.dev]) {
      assert.equal(r.context.length, 10);
      const gold = r.supporting_facts.map(([t]) => r.context.find(([title]) => title === t));
      assert.ok(gold.every(Boolean), `${r._id}: supporting paragraphs in the context`);
      const text = gold.map((g) => `${g![0]} ${g![1].join("")}`).join(" ");
      if (r.answer !== "yes" && r.answer !== "no")
        assert.ok(text.includes(r.answer), `${r._id}: "${r.answer}" in its paragraphs`);
    }
  });

  it("questionKind names every generated question's kind, in both styles, and nothing else", () => {
    const seen = new Set<string>();
    for (const style of ["compact", "syllables"] as const) {
      const d = generateSyntheticHotpot({ style, train: 300, dev: 50, seed: 3 });
      for (const r of [...d.train, ...d.dev]) {
        const kind = questionKind(r.question);
        assert.notEqual(kind, "other", r.question);
        seen.add(kind);
      }
    }
    assert.deepEqual([...seen].sort(), QUESTION_KINDS.map(([k]) => k).sort());
    assert.equal(questionKind("Who directed Alien?"), "other");
    assert.equal(questionKind(" Were Kel Mor and Dar Holt born in the same town?\n"), "same-town");
  });

  it("same seed, same bytes; the default style and sizes are untouched by the compact caps", () => {
    const a = generateSyntheticHotpot({ style: "compact", train: 1500, dev: 300, seed: 9 });
    assert.deepEqual(generateSyntheticHotpot({ style: "compact", train: 1500, dev: 300, seed: 9 }), a);
    const s = generateSyntheticHotpot();
    assert.equal(s.train.length, 300);
    assert.equal(s.dev.length, 300);
    assert.deepEqual(generateSyntheticHotpot(), s);
  });
});
