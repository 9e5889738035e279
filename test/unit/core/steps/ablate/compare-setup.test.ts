/**
 * The Compare panel's setup over runs of real HotpotQA questions: the differing fingerprint fields,
 * the preset from how the comparison was opened (so it never warns about the thing compared), the
 * panel's own advice instead of a CLI flag, and the system prompt diff read from files that still
 * hash to what the manifests recorded.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import {
  compareView,
  differingFields,
  presetExpect,
  promptDiffs,
} from "../../../../../src/core/steps/ablate/compare-setup";
import { loadSystemPrompt } from "../../../../../src/core/harness/prompts";
import { sha256Hex } from "../../../../../src/core/base/runs/manifest";
import { lineDiff } from "../../../../../src/core/base/util/line-diff";
import { requireSharedData } from "../../../../helpers/shared-data";
import { episode, input, manifest, readDev, simulatedRun, type DevRecord } from "./fixtures";

describe("core: compare setup (expected differences, prompt diff)", () => {
  let dev: DevRecord[];
  before(function () {
    dev = readDev(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).slice(0, 80);
  });

  it("lists the differing fields and presets the ones the origin compares", () => {
    const base = simulatedRun(dev, [0.4, 0.2, 0.4], 1);
    const sft = base.map((e, q) => (q % 4 === 0 ? episode(dev, q, "right") : e));
    const runs = [
      input("base", base, manifest()),
      input("sft", sft, manifest({ checkpoint: "tinker://r/sft-e2" })),
      input("k1", sft, manifest({ checkpoint: "tinker://r/sft-e2", topK: 1 })),
    ];
    const fields = differingFields(runs);
    assert.deepEqual(fields, [
      { field: "policy.checkpoint", runs: ["sft", "k1"] },
      { field: "search.top_k", runs: ["k1"] },
    ]);
    assert.deepEqual(presetExpect("checkpoint", fields), ["policy.checkpoint"]);
    assert.deepEqual(presetExpect("runs", fields), []);
    assert.deepEqual(presetExpect("search", fields), ["search.top_k"]);

    const opened = compareView(runs, "checkpoint", undefined, []);
    assert.deepEqual(opened.setup.expect, ["policy.checkpoint"]);
    assert.ok(!opened.report.warnings.some((w) => /sft differs/.test(w)), opened.report.warnings.join("\n"));
    const k1 = opened.report.warnings.find((w) => /k1 differs/.test(w));
    assert.ok(k1 && /search\.top_k \(3 → 1\)/.test(k1) && !/policy\.checkpoint/.test(k1), k1);
    assert.match(k1, /tick it under “Expected to differ”/);
    assert.doesNotMatch(k1, /--expect/);

    // Unticking everything brings the checkpoint warning back; the statistics do not change.
    const none = compareView(runs, "checkpoint", [], []);
    assert.ok(
      none.report.warnings.some((w) =>
        /sft differs from base in more than the thing under test: policy\.checkpoint/.test(w),
      ),
    );
    assert.deepEqual(
      none.report.comparisons.map((c) => c.primary.ci),
      opened.report.comparisons.map((c) => c.primary.ci),
    );
    assert.equal(opened.report.settings.resamples, 10_000, "the CLI's default resamples");
  });

  it("runs picked by hand that differ only in their checkpoint (sft-final vs grpo-final) compare checkpoints: no warning about it", () => {
    const base = simulatedRun(dev, [0.4, 0.2, 0.4], 1);
    const grpo = base.map((e, q) => (q % 3 === 0 ? episode(dev, q, "right") : e));
    const lineage = [
      input("sft-final", base, manifest({ checkpoint: "tinker://local/pipeline/runs/sft/weights/final-sampler" })),
      input("grpo-final", grpo, manifest({ checkpoint: "tinker://local/pipeline/runs/grpo/weights/final-sampler" })),
    ];
    const picked = compareView(lineage, "runs", undefined, []);
    assert.equal(picked.setup.origin, "checkpoint");
    assert.deepEqual(picked.setup.expect, ["policy.checkpoint"]);
    assert.deepEqual(picked.report.warnings, []);
    // Two things differ at once (a checkpoint and the search settings): confounded, so nothing is preset.
    const confounded = [lineage[0], input("k1", grpo, manifest({ checkpoint: "tinker://x/other", topK: 1 }))];
    const both = compareView(confounded, "runs", undefined, []);
    assert.equal(both.setup.origin, "runs");
    assert.deepEqual(both.setup.expect, []);
    assert.ok(both.report.warnings.some((w) => /policy\.checkpoint/.test(w) && /search\.top_k/.test(w)));
  });

  it("collapses a searcher that is null on one side to its parent field", () => {
    const base = simulatedRun(dev, [0.4, 0.2, 0.4], 2);
    const closed = manifest();
    closed.search = { closed_book: true, top_k: 3, max_searches: 5, searcher: null };
    const fields = differingFields([input("base", base), input("closed", base, closed)]).map((f) => f.field);
    assert.deepEqual(fields, ["search.closed_book", "search.searcher"]);
    assert.deepEqual(
      presetExpect("pipeline", differingFields([input("base", base), input("closed", base, closed)])),
      fields,
    );
  });

  describe("prompt diff", () => {
    let ws: string;
    before(() => {
      ws = mkdtempSync(join(tmpdir(), "agent-lab-prompt-diff-"));
    });
    after(() => rmSync(ws, { recursive: true, force: true }));

    it("diffs the two prompts when files with their hashes are on disk, and says so when one was edited", () => {
      const old = "You are a research agent.\nSearch with <search>query</search>.\nAnswer with <answer>x</answer>.";
      const now =
        "You are a research agent.\nSearch at most twice with <search>query</search>.\nAnswer with <answer>x</answer>.";
      writeFileSync(join(ws, "system.prompt.md"), now);
      writeFileSync(join(ws, "old.prompt.md"), old);
      const base = simulatedRun(dev, [0.4, 0.2, 0.4], 3);
      const a = manifest({ prompt: sha256Hex(old) });
      a.system_prompt.file = "system.prompt.md";
      const b = manifest({ prompt: sha256Hex(now) });
      b.system_prompt.file = "system.prompt.md";
      const [d] = promptDiffs([input("base", base, a), input("rerun", base, b)], [ws]);
      assert.equal(d.run, "rerun");
      assert.equal(d.baseline.text, old, "found by hash in the copy, not the edited file of that name");
      assert.equal(d.other.text, now);
      assert.deepEqual(
        d.lines!.filter((l) => l.op !== "same"),
        [
          { op: "removed", text: "Search with <search>query</search>." },
          { op: "added", text: "Search at most twice with <search>query</search>." },
        ],
      );
      rmSync(join(ws, "old.prompt.md"));
      const [gone] = promptDiffs([input("base", base, a), input("rerun", base, b)], [ws]);
      assert.equal(gone.baseline.text, null);
      assert.equal(gone.lines, null);
      assert.equal(
        promptDiffs([input("base", base, a), input("same", base, a)], [ws]).length,
        0,
        "no diff when the hashes match",
      );
      const torn = manifest({ prompt: sha256Hex(now) }) as Partial<ReturnType<typeof manifest>>;
      delete torn.system_prompt;
      const none = torn as ReturnType<typeof manifest>;
      assert.deepEqual(
        [
          promptDiffs([input("base", base, a), input("torn", base, none)], [ws]),
          promptDiffs([input("torn", base, none), input("rerun", base, b)], [ws]),
        ],
        [[], []],
        "a manifest that records no prompt: no diff, and no TypeError",
      );
    });

    it("finds a prompt file an editor saved with a final newline, and the shipped prompt, by the hash a run records", () => {
      const file = join(ws, "prompts", "terse.md");
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, "\uFEFFYou are a research agent.\nKeep every query under six words.\n\n");
      const base = simulatedRun(dev, [0.4, 0.2, 0.4], 3);
      const shipped = loadSystemPrompt();
      const edited = loadSystemPrompt(file);
      const a = manifest({ prompt: shipped.sha256 });
      a.system_prompt.file = basename(shipped.file);
      const b = manifest({ prompt: edited.sha256 });
      b.system_prompt.file = "terse.md";
      const [d] = promptDiffs([input("base", base, a), input("terse", base, b)], [ws]);
      assert.equal(
        d.other.text,
        "You are a research agent.\nKeep every query under six words.",
        "the text a run sends, found despite the newline and BOM",
      );
      assert.equal(d.baseline.text, shipped.text, "the shipped prompt, from the extension's own data/prompts");
      assert.ok(d.lines!.some((l) => l.op === "added" && l.text === "Keep every query under six words."));
    });
  });

  it("line diff keeps order and marks every change", () => {
    assert.deepEqual(lineDiff("a\nb\nc", "a\nc\nd"), [
      { op: "same", text: "a" },
      { op: "removed", text: "b" },
      { op: "same", text: "c" },
      { op: "added", text: "d" },
    ]);
  });
});
