/**
 * The compare panel on GSM8K runs: two real eval runs (the GSM8K environment on its fixture twin,
 * scripted replies graded by the environment, a payload run name) compared by the same core code as
 * the panel's host, shown by the real webview bundle. Every label is GSM8K's accuracy, once: no F1,
 * EM or searches column, heading or plot, and the numbers are the ones ablate computed.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareView, type CompareSetup } from "../../../src/core/steps/ablate/compare-setup";
import { deltaCell, f3 } from "../../../src/core/steps/ablate/format";
import type { AblationReport } from "../../../src/core/steps/ablate/report-types";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import { mergeConfig } from "../../../src/core/envs/config";
import { ScriptedPolicy } from "../../../src/core/harness/policies/scripted";
import { readRun } from "../../../src/core/base/runs/run-files";
import { prepareFixtureTwin } from "../core/envs/gsm8k/fixture";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";
import { scriptedEval } from "../../helpers/scripted-eval";
import { environmentMetrics } from "../../../src/core/envs/catalog";

/** The fixture twin's answer, from its question ("Rosa has A marbles and wins B more"). */
function sumOf(text: string): number {
  const m = /Rosa has (\d+) marbles and wins (\d+) more/.exec(text)!;
  return Number(m[1]) + Number(m[2]);
}

// By the answer's tens digit (the fixture's answers are all odd): the baseline is right on even digits,
// the candidate on digits not divisible by 3, so some questions flip each way.
const tens = (sum: number) => Math.floor(sum / 10) % 10;
const rightBase = (sum: number) => tens(sum) % 2 === 0;
const rightCand = (sum: number) => tens(sum) % 3 !== 0;

describe("webview: compare on GSM8K runs", function () {
  this.timeout(120_000);
  let root: string;
  let report: AblationReport;
  let setup: CompareSetup;
  let t: WebviewUnderTest;
  let sums: Map<string, number>;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-compare-gsm8k-"));
    const tok = await offlineTokenizer("qwen3");
    await webviewBundles();
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", maxTokens: 64, concurrency: 1 });
    await prepareFixtureTwin(join(root, "data"), join(root, "raw"));
    const evalRun = async (name: string, right: (sum: number) => boolean) => {
      const policy = new ScriptedPolicy(tok, (ctx) => {
        const sum = sumOf(ctx.promptText.split("<|im_start|>user").at(-1)!);
        return `The total is \\boxed{${(right(sum) ? sum : sum + 1).toLocaleString("en-US")}}.`;
      });
      await scriptedEval({
        workspaceDir: root,
        config,
        name,
        split: "val",
        limit: 24,
        policy,
      });
      return readRun(join(root, "runs", name), environmentMetrics);
    };
    const base = await evalRun("gsm8k-base", rightBase);
    const cand = await evalRun("gsm8k-cand", rightCand);
    sums = new Map(base.episodes.map((e) => [e.id, sumOf(e.question)]));
    ({ report, setup } = compareView(
      [
        { name: "gsm8k-base", dir: join(root, "runs", "gsm8k-base"), manifest: base.manifest, episodes: base.episodes },
        {
          name: `gsm8k-cand ${PAYLOADS[4]}`,
          dir: join(root, "runs", "gsm8k-cand"),
          manifest: cand.manifest,
          episodes: cand.episodes,
        },
      ],
      "runs",
      undefined,
      [],
    ));
    assert.equal(report.environment.name, "gsm8k");
    assert.equal(report.shared, 24);
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));
  beforeEach(async () => {
    t = await openWebview("compare");
    t.post({ type: "compare/report", report, setup });
    await t.settle();
  });
  afterEach(async () => t.close());

  it("labels the table by accuracy only, with ablate's numbers, and no F1, EM or searches column", () => {
    assertInert(t);
    const doc = t.document;
    const heads = Array.from(doc.querySelectorAll("#ablation-table thead th")).map((th) => th.textContent!);
    assert.deepEqual(heads, [
      "run",
      "n",
      "accuracy [95% CI]",
      "Δ accuracy [paired CI]",
      "p Holm",
      "verdict",
      "p",
      "McNemar b/c",
      "MDE accuracy",
      "answered",
      "$/q",
    ]);
    // The accuracies are what the grader decided, and the cells are ablate's digits.
    const expected = (right: (s: number) => boolean) => [...sums.values()].filter(right).length / sums.size;
    assert.equal(report.runs[0].binary.mean, expected(rightBase));
    assert.equal(report.runs[1].binary.mean, expected(rightCand));
    const rows = doc.querySelectorAll("#ablation-table tbody tr");
    for (const [i, run] of report.runs.entries())
      assert.ok(rows[i].children[2].textContent!.startsWith(f3(run.binary.mean)), rows[i].textContent!);
    const c = report.comparisons[0];
    assert.equal(rows[1].querySelector(".delta-em")!.textContent, deltaCell(c.binary));
    assert.equal(rows[1].querySelector(".delta-f1"), null);
    assert.ok(rows[1].textContent!.includes(c.binary.verdict));
    assert.ok(
      rows[1].textContent!.includes(`${c.binary.baseline_only}/${c.binary.run_only}`),
      "McNemar's discordant pairs",
    );
    assert.doesNotMatch(doc.getElementById("more-columns")!.textContent!, /searches/);
  });

  it("draws one forest plot, of Δ accuracy, exported under that name", () => {
    const figures = t.document.querySelectorAll("#forest .export[data-format='svg']");
    assert.equal(figures.length, 1);
    assert.equal(t.document.querySelectorAll("#forest line.ci").length, 1);
    assert.match(t.document.getElementById("forest")!.textContent!, /Δ accuracy vs gsm8k-base/);
    (figures[0] as unknown as { click(): void }).click();
    const m = t.sent.at(-1) as { type: string; name: string };
    assert.equal(m.name, "delta-accuracy");
  });

  it("lists flips and pins by accuracy, and nothing in the panel says F1, EM or searches", async () => {
    const doc = t.document;
    const ids = (sel: string) =>
      Array.from(doc.querySelectorAll(`${sel} li`))
        .map((li) => li.getAttribute("data-id")!)
        .sort();
    const flipped = (up: boolean) =>
      [...sums]
        .filter(([, s]) => (up ? !rightBase(s) && rightCand(s) : rightBase(s) && !rightCand(s)))
        .map(([id]) => id)
        .sort();
    assert.ok(flipped(true).length > 0 && flipped(false).length > 0, "the fixture's questions flip both ways");
    assert.deepEqual(ids("#improved"), flipped(true));
    assert.deepEqual(ids("#regressed"), flipped(false));
    assert.match(doc.querySelector("#flips h3")!.textContent!, /^Per-question flips \(accuracy\)/);
    assert.match(doc.querySelector("#improved li")!.textContent!, / · accuracy 0\.00 → 1\.00 \(\+1\.00\) · /);
    (doc.querySelector("#improved li .pin") as unknown as { click(): void }).click();
    await t.settle();
    const pins = Array.from(doc.querySelectorAll("#pins li")).map((li) => li.textContent!);
    assert.match(pins[0], /” accuracy 0$/);
    assert.match(pins[1], /” accuracy 1$/);
    for (const id of ["ablation-table", "forest", "flips", "pins", "more-columns"]) {
      assert.doesNotMatch(doc.getElementById(id)!.textContent!, /\bF1\b|\bEM\b|search/, id);
    }
  });

  it("heads a flip's pair view with accuracy and no searches", async () => {
    const doc = t.document;
    const id = doc.querySelector("#regressed li")!.getAttribute("data-id")!;
    (doc.querySelector("#regressed li") as unknown as { click(): void }).click();
    await t.settle();
    const side = (run: string, correct: number) => ({
      run,
      prediction: "x",
      primary: correct,
      binary: correct,
      end: "answer",
      searches: 0,
      generated: 12,
    });
    const q = report.questions.find((x) => x.id === id)!;
    t.post({
      type: "compare/pair",
      pair: {
        questionId: id,
        question: q.question,
        answers: q.answers,
        sides: [side("gsm8k-base", 1), side("gsm8k-cand", 0)],
        samePrompt: true,
        turns: [],
      },
    });
    await t.settle();
    const heads = Array.from(doc.querySelectorAll("#pair-grid .pair-head .muted")).map((e) => e.textContent);
    assert.deepEqual(heads, ["accuracy 1 · answer · 12 tokens generated", "accuracy 0 · answer · 12 tokens generated"]);
  });
});
