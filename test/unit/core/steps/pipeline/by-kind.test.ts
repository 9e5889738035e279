/** The per-kind SFT → GRPO breakdown, from real episodes.jsonl files in two run folders. */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kindBreakdown, renderKindBreakdown } from "../../../../../src/core/steps/pipeline/by-kind";

const SAME = "Were Kel Mor and Dar Holt born in the same town?";
const EARLIER = "Who was born earlier, Kel Mor or Dar Holt?";

describe("core/steps/pipeline by-kind", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-by-kind-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = (name: string, episodes: { question: string; f1: number; end: string }[]) => {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, "episodes.jsonl"), episodes.map((e) => JSON.stringify(e)).join("\n") + "\n");
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
    assert.deepEqual(same.before, { n: 2, f1: 0, answered: 0.5 });
    assert.deepEqual(same.after, { n: 2, f1: 0.5, answered: 1 });
    assert.deepEqual(
      rows[0].before,
      { n: 0, f1: 0, answered: 0 },
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
});
