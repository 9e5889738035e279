/** The per-kind SFT → GRPO breakdown, from real episodes.jsonl files in two run folders. */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { questionKind } from "../../../../../src/core/envs/hotpotqa/synthetic-world";
import {
  kindBreakdown as breakdown,
  renderKindBreakdown as render,
  type KindRow,
} from "../../../../../src/core/steps/pipeline/by-kind";

/** The multi-hop world's kinds and its primary metric, token F1 (what its offline.ts declares). */
const MULTI_HOP = { kindOf: questionKind, metric: "f1", label: "F1" };
const kindBreakdown = (before: string, after: string) => breakdown(before, after, MULTI_HOP);
const renderKindBreakdown = (rows: readonly KindRow[]) => render(rows, MULTI_HOP.label);

const SAME = "Were Kel Mor and Dar Holt born in the same town?";
const EARLIER = "Who was born earlier, Kel Mor or Dar Holt?";

describe("core/steps/pipeline by-kind", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-by-kind-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Records as eval writes them (format 2: metrics by name), or in format 1 (em/f1 fields) with `v1`.
  const run = (name: string, episodes: { question: string; f1: number; end: string }[], v1 = false) => {
    mkdirSync(join(dir, name));
    const line = (e: { question: string; f1: number; end: string }, i: number) => {
      const em = e.f1 === 1 ? 1 : 0;
      return v1
        ? { id: `q${i}`, question: e.question, em, f1: e.f1, end: e.end }
        : { format: 2, id: `q${i}`, question: e.question, metrics: { em, f1: e.f1 }, end: e.end };
    };
    writeFileSync(
      join(dir, name, "episodes.jsonl"),
      episodes.map((e, i) => JSON.stringify(line(e, i))).join("\n") + "\n",
    );
    return join(dir, name);
  };

  it("gives each kind's F1 and answered share before and after, the largest gain first", () => {
    const before = run("sft", [
      { question: SAME, f1: 0, end: "budget" },
      { question: SAME, f1: 0, end: "answer" },
      { question: EARLIER, f1: 1, end: "answer" },
      { question: EARLIER, f1: 0, end: "answer" },
    ]);
    const after = run("grpo", [
      { question: SAME, f1: 1, end: "answer" },
      { question: SAME, f1: 0, end: "answer" },
      { question: EARLIER, f1: 0, end: "answer" },
      { question: EARLIER, f1: 0, end: "budget" },
      { question: "Who directed Alien?", f1: 1, end: "answer" },
    ]);
    const rows = kindBreakdown(before, after);
    assert.deepEqual(
      rows.map((r) => r.kind),
      ["other", "same-town", "born-earlier"],
    );
    const same = rows[1];
    assert.deepEqual(same.before, { n: 2, score: 0, answered: 0.5 });
    assert.deepEqual(same.after, { n: 2, score: 0.5, answered: 1 });
    assert.deepEqual(
      rows[0].before,
      { n: 0, score: 0, answered: 0 },
      "a kind only one run holds counts as empty in the other",
    );
    const text = renderKindBreakdown(rows);
    assert.match(text, /^GRPO learned most on other questions: F1 0\.000 → 1\.000/);
    assert.match(text, /same-town \(n 2\) F1 0\.000 → 0\.500, answered 50% → 100%/);
    assert.match(text, /born-earlier \(n 2\) F1 0\.500 → 0\.000, answered 100% → 50%/);
  });

  it("says so when GRPO gained on no kind", () => {
    const before = run("sft", [{ question: SAME, f1: 1, end: "answer" }]);
    const after = run("grpo", [{ question: SAME, f1: 0, end: "answer" }]);
    assert.match(renderKindBreakdown(kindBreakdown(before, after)), /^GRPO gained on no question kind/);
  });

  it("reads runs written in format 1 to the same numbers", () => {
    const episodes = [
      { question: SAME, f1: 0, end: "budget" },
      { question: EARLIER, f1: 0.5, end: "answer" },
    ];
    const v2 = kindBreakdown(run("sft", episodes), run("grpo", episodes));
    const v1 = kindBreakdown(run("sft1", episodes, true), run("grpo1", episodes, true));
    assert.deepEqual(v1, v2);
    assert.equal(v2.find((r) => r.kind === "born-earlier")?.after.score, 0.5);
  });
});
