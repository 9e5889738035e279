/**
 * ablate over runs built from real HotpotQA dev records (scored by the project's EM/F1): shared
 * questions, dropped counts, paired Δ, tests, Holm, verdicts, flips, fingerprint warnings, and
 * the markdown report.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ablate,
  holmAdjust,
  questionsForDelta,
  loadAblationInputs,
  mcnemarExact,
  renderAblationTable,
  renderMarkdownReport,
  type AblationReport,
} from "../../../../../src/core/steps/ablate";
import { FileFormatError, UserError } from "../../../../../src/core/base/errors";
import { appendEpisode, ensureRunDir } from "../../../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../../../src/core/base/util/atomic-write";
import { requireSharedData } from "../../../../helpers/shared-data";
import { episode, input, manifest, readDev, simulatedRun, type DevRecord } from "./fixtures";

describe("analysis: ablate on runs of real HotpotQA questions", function () {
  let dev: DevRecord[];
  before(function () {
    dev = readDev(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
  });

  it("compares on the questions every run shares and reports how many each dropped", () => {
    const base = dev.map((_, q) => episode(dev, q, "right"));
    const partial = dev.slice(0, 150).map((_, q) => episode(dev, q, q % 2 ? "partial" : "right"));
    const late = dev.slice(20).map((_, q) => episode(dev, q + 20, "wrong"));
    const r = ablate([input("base", base), input("partial", partial), input("late", late)], { resamples: 500 });
    assert.equal(r.shared, 130); // questions 20..149
    assert.deepEqual(
      r.runs.map((x) => x.dropped),
      [70, 20, 50],
    );
    assert.deepEqual(
      r.runs.map((x) => x.episodes),
      [200, 150, 180],
    );
    assert.deepEqual(
      r.questions.map((q) => q.id),
      dev
        .slice(20, 150)
        .map((d) => d.id)
        .sort(),
    );
    assert.ok(
      r.warnings.some((w) => /^partial: 20 of its 150 questions/.test(w)),
      r.warnings.join("\n"),
    );
    assert.equal(r.runs[0].primary.mean, 1);
    assert.equal(r.runs[2].primary.mean, 0, "wrong answers share no word with the gold");
    assert.ok(Math.abs(r.runs[0].usd_total - 200 * 0.0007) < 1e-12, "total cost counts every episode of the run");
  });

  it("describes a single run without comparisons", () => {
    const r = ablate(
      [
        input(
          "only",
          dev.map((_, q) => episode(dev, q, q % 2 ? "right" : "no_answer")),
        ),
      ],
      { resamples: 300 },
    );
    assert.equal(r.comparisons.length, 0);
    assert.equal(r.runs[0].answered, 0.5);
    assert.equal(r.runs[0].searches_per_q, 0.5);
    assert.ok(r.runs[0].primary.ci.lo < 0.5 && 0.5 < r.runs[0].primary.ci.hi);
    assert.doesNotMatch(renderAblationTable(r), /paired\):/);
  });

  it("refuses runs with no question in common", () => {
    const a = dev.slice(0, 50).map((_, q) => episode(dev, q, "right"));
    const b = dev.slice(50, 100).map((_, q) => episode(dev, q + 50, "right"));
    assert.throws(
      () => ablate([input("a", a), input("b", b)]),
      (e: Error) => e instanceof UserError && /share no question ids/.test(e.message),
    );
  });

  it("pairs the Δ, tests it, Holm-adjusts across the table and gives verdicts", () => {
    const base = simulatedRun(dev, [0.35, 0.2, 0.45], 1);
    // Better: fixes a third of base's wrong answers. Same: identical outcomes. Worse: breaks right answers.
    const better = base.map((e, q) => (e.metrics.f1 === 0 && q % 3 === 0 ? episode(dev, q, "right") : e));
    const same = base.map((e) => ({ ...e }));
    const worse = base.map((e, q) => (e.metrics.em === 1 && q % 2 === 0 ? episode(dev, q, "wrong") : e));
    const r = ablate([input("base", base), input("better", better), input("same", same), input("worse", worse)], {
      resamples: 4000,
      seed: 7,
    });
    const [cb, cs, cw] = r.comparisons;

    assert.equal(cb.primary.verdict, "better");
    assert.equal(cb.binary.verdict, "better");
    assert.ok(cb.primary.ci.lo > 0 && cb.primary.delta > 0);
    assert.equal(cs.primary.verdict, "not distinguishable");
    assert.equal(cs.primary.p, 1);
    assert.equal(cs.binary.p, 1);
    assert.deepEqual(cs.primary.ci, { lo: 0, hi: 0 });
    assert.equal(cw.primary.verdict, "worse");
    assert.equal(cw.binary.verdict, "worse");

    // McNemar's b/c are the discordant EM pairs; p is the exact test on them.
    const b = base.filter((e, q) => e.metrics.em === 1 && better[q].metrics.em === 0).length;
    const c = base.filter((e, q) => e.metrics.em === 0 && better[q].metrics.em === 1).length;
    assert.deepEqual([cb.binary.baseline_only, cb.binary.run_only], [b, c]);
    assert.equal(cb.binary.p, mcnemarExact(b, c));
    // Holm over all six tests, in table order (F1, EM per comparison).
    const adjusted = holmAdjust(r.comparisons.flatMap((x) => [x.primary.p, x.binary.p]));
    assert.deepEqual(
      r.comparisons.flatMap((x) => [x.primary.p_holm, x.binary.p_holm]),
      adjusted,
    );

    // Δ = difference of the runs' means; the MDE uses the SD of the per-question differences.
    assert.ok(Math.abs(cb.primary.delta - (r.runs[1].primary.mean - r.runs[0].primary.mean)) < 1e-12);
    assert.ok(cb.primary.mde > 0 && cb.primary.mde < 0.2);
    assert.equal(cs.primary.mde, 0, "identical runs: no variance in the differences");
  });

  it("a small real gain on a small sample is 'not distinguishable', and the MDE says why", () => {
    const base = simulatedRun(dev.slice(0, 60), [0.35, 0.2, 0.45], 3);
    const run = base.map((e, q) => (q === 5 || q === 17 ? episode(dev, q, "right") : e));
    const r = ablate([input("base", base), input("run", run)], { resamples: 2000 });
    const c = r.comparisons[0];
    assert.ok(c.primary.delta > 0);
    assert.equal(c.primary.verdict, "not distinguishable");
    assert.ok(c.primary.mde > c.primary.delta, `MDE ${c.primary.mde} vs Δ ${c.primary.delta}`);
  });

  it("counts per-question flips by F1 and by EM, consistent with the question rows", () => {
    const base = dev.slice(0, 40).map((_, q) => episode(dev, q, q < 10 ? "right" : q < 20 ? "partial" : "wrong"));
    // q 0-4 right→wrong (regressed), q 10-14 partial→right (improved by F1 and EM), q 20-24 wrong→partial (F1 up, EM same).
    const run = base.map((e, q) =>
      q < 5
        ? episode(dev, q, "wrong")
        : q >= 10 && q < 15
          ? episode(dev, q, "right")
          : q >= 20 && q < 25
            ? episode(dev, q, "partial")
            : e,
    );
    const r = ablate([input("base", base), input("run", run)], { resamples: 200 });
    const flips = r.comparisons[0].flips;
    assert.deepEqual(flips.primary, { improved: 10, regressed: 5, unchanged: 25 });
    // A padded answer is never an exact match, so wrong→partial leaves EM unchanged.
    assert.deepEqual(flips.binary, { improved: 5, regressed: 5, unchanged: 30 });
    const fromRows = { improved: 0, regressed: 0, unchanged: 0 };
    for (const q of r.questions) fromRows[q.flips[0].primary]++;
    assert.deepEqual(fromRows, flips.primary);
    const q0 = r.questions.find((q) => q.id === dev[0].id)!;
    assert.deepEqual(q0.flips[0], { primary: "regressed", binary: "regressed" });
    assert.equal(q0.prediction[0], dev[0].answer);
  });

  it("warns about fingerprint fields other than the ones under test (--expect)", () => {
    const eps = dev.slice(0, 30).map((_, q) => episode(dev, q, "right"));
    const runs = [
      input("sft", eps, manifest({ checkpoint: "tinker://a/sft-e2" })),
      input("grpo", eps, manifest({ checkpoint: "tinker://a/grpo-s30" })),
      input("grpo-k1", eps, manifest({ checkpoint: "tinker://a/grpo-s30", topK: 1 })),
    ];
    const none = ablate(runs, { resamples: 100 });
    assert.ok(
      none.warnings.some((w) => w.startsWith("grpo differs from sft") && w.includes("policy.checkpoint")),
      none.warnings.join("\n"),
    );
    const some = ablate(runs, { resamples: 100, expect: ["policy.checkpoint"] });
    assert.ok(!some.warnings.some((w) => w.startsWith("grpo differs")), some.warnings.join("\n"));
    const k1 = some.warnings.find((w) => w.startsWith("grpo-k1 differs"));
    assert.ok(k1 && k1.includes("search.top_k (3 → 1)") && !k1.includes("policy.checkpoint"), k1);
    assert.deepEqual(
      some.comparisons[1].expected_differences.map((d) => d.field),
      ["policy.checkpoint"],
    );
    // A prefix names a whole group of fields.
    const all = ablate(runs, { resamples: 100, expect: ["policy", "search"] });
    assert.deepEqual(all.warnings, []);
    // A different test file is the worst kind of difference: it is never hidden unless asked for.
    const other = ablate(
      [runs[0], input("other", eps, manifest({ checkpoint: "tinker://a/sft-e2", splitSha: "ff" }))],
      { resamples: 100 },
    );
    assert.ok(other.warnings.some((w) => w.includes("split.sha256")));
    // An --expect field that nothing differs in is probably a typo.
    const typo = ablate(runs, { resamples: 100, expect: ["policy.checkpoint", "policy.chekpoint"] });
    assert.ok(typo.warnings.some((w) => w.startsWith("--expect policy.chekpoint")));
    // No manifest: cannot vouch for comparability.
    const bare = ablate([runs[0], input("bare", eps, null)], { resamples: 100 });
    assert.ok(bare.warnings.some((w) => w.startsWith("bare: no manifest.json")));
  });

  it("renders the terminal table and the recipe's markdown report", () => {
    const base = simulatedRun(dev, [0.35, 0.2, 0.45], 1);
    const better = base.map((e, q) =>
      e.metrics.f1 === 0 && q % 3 === 0 ? episode(dev, q, "right", { usd: 0.001 }) : e,
    );
    const r: AblationReport = ablate(
      [input("test-base", base), input("test-grpo", better, manifest({ checkpoint: "tinker://x/grpo" }))],
      {
        resamples: 1000,
        expect: ["policy.checkpoint"],
      },
    );
    const text = renderAblationTable(r);
    assert.match(text, /^200 shared questions\n/);
    assert.match(text, /test-base\s+0\.\d{3}\s+\[0\.\d{3}, 0\.\d{3}\]/);
    assert.match(text, /test-grpo\s+\+0\.\d{3} \[\+0\.\d{3}, \+0\.\d{3}\]\s+\S+\s+\S+\s+better/);
    assert.match(text, /Holm-adjusted over all 2 tests/);
    const needed = questionsForDelta({ sd: r.comparisons[0].primary.sd, delta: 0.02 }).toLocaleString("en-US");
    assert.ok(text.includes(`Paired questions needed to detect Δ F1 = 0.02 at that SD: test-grpo ${needed} `), text);
    const md = renderMarkdownReport(r, { labels: ["Base + harness", "+ GRPO (step 30)"] });
    assert.match(
      md,
      /^## Results on HotpotQA test \(200 questions, 507k-paragraph corpus, BM25 top-3, budget of 5 searches\)/,
    );
    assert.match(
      md,
      /\| Base \+ harness \| 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] \| 0\.\d{3} \| 1\.00 \| \$0\.0007 \| \(baseline\) \|/,
    );
    assert.match(md, /\| \+ GRPO \(step 30\) \| .* \| \+0\.\d{3} \[\+0\.\d{3}, \+0\.\d{3}\] \| \S+ \| better \|/);
    const total = r.runs[0].usd_total + r.runs[1].usd_total;
    assert.ok(md.includes(`Total Tinker cost: $${total.toFixed(2)} · test.jsonl sha256: cb4ad042f2c0ef38\n\n`), md);
    assert.match(
      md,
      /\n\nLimitation: the corpus only contains paragraphs that appear in HotpotQA/,
      "a paragraph of its own in the preview",
    );
  });
});

describe("analysis: loading run folders for ablate", function () {
  let root: string;
  let dev: DevRecord[];
  before(function () {
    dev = readDev(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
    root = mkdtempSync(join(tmpdir(), "agent-lab-ablate-"));
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("reads episodes and manifests, labels same-named folders apart", () => {
    for (const dir of [join(root, "a", "run"), join(root, "b", "run")]) {
      ensureRunDir(dir);
      dev.slice(0, 5).forEach((_, q) => appendEpisode(dir, episode(dev, q, "right")));
      writeJsonAtomic(join(dir, "manifest.json"), manifest());
    }
    const inputs = loadAblationInputs([join(root, "a", "run"), join(root, "b", "run") + "/"]);
    assert.deepEqual(
      inputs.map((i) => i.name),
      ["run", "run#2"],
    );
    assert.equal(inputs[1].episodes.length, 5);
    assert.equal(inputs[0].manifest?.split.name, "test");
  });

  it("names the file when an episode lacks the numbers ablate needs", () => {
    const dir = join(root, "bad");
    mkdirSync(dir);
    appendEpisode(dir, episode(dev, 0, "right"));
    appendEpisode(dir, { ...episode(dev, 1, "right"), metrics: { em: 7, f1: 1 } });
    assert.throws(
      () => loadAblationInputs([dir]),
      (e: Error) =>
        e instanceof FileFormatError &&
        e.message.includes(join(dir, "episodes.jsonl")) &&
        /episodes\.jsonl:2: episode record.s "metrics\.em" must be a number in \[0, 1\], got 7/.test(e.message),
    );
    const empty = join(root, "empty");
    mkdirSync(empty);
    writeFileSync(join(empty, "episodes.jsonl"), "");
    assert.throws(() => loadAblationInputs([empty]), /no finished episodes/);
  });
});
