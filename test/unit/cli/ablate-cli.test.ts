/**
 * `agent-lab ablate` end to end through the real CLI, on run folders written with the run-folder
 * functions (episodes of real HotpotQA questions, manifests, summaries) in a workspace.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AblationReport } from "../../../src/core/steps/ablate";
import type { RunManifest } from "../../../src/core/base/runs/manifest";
import { appendEpisode, ensureRunDir, type EpisodeRecord } from "../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../src/core/base/util/atomic-write";
import { summarize } from "../../../src/core/base/runs/summary";
import { requireSharedData } from "../../helpers/shared-data";
import { episode, manifest, readDev, simulatedRun, type DevRecord } from "../core/steps/ablate/fixtures";
import { runCli } from "./cli-process";

function writeRun(dir: string, episodes: EpisodeRecord[], m: RunManifest): void {
  ensureRunDir(dir);
  for (const e of episodes) appendEpisode(dir, e);
  writeJsonAtomic(join(dir, "manifest.json"), m);
  writeJsonAtomic(
    join(dir, "summary.json"),
    summarize(episodes, { planned: episodes.length, seconds: 1, status: "done", split: "test", model: m.policy.model }),
  );
}

describe("cli: agent-lab ablate", function () {
  this.timeout(120_000);
  let ws: string;
  let dev: DevRecord[];

  before(function () {
    dev = readDev(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
    ws = mkdtempSync(join(tmpdir(), "agent-lab-ablate-cli-"));
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ runsDir: "runs" }));
    const base = simulatedRun(dev, [0.35, 0.2, 0.45], 1);
    const grpo = base.map((e, q) =>
      e.metrics.f1 === 0 && q % 3 === 0 ? episode(dev, q, "right", { usd: 0.0009 }) : e,
    );
    // k1 lost 10 questions to a crash: ablate compares on the 190 all runs share.
    const k1 = base.slice(10).map((e, i) => ((i + 10) % 7 === 0 ? episode(dev, i + 10, "wrong") : e));
    writeRun(join(ws, "runs", "test-base"), base, manifest({ checkpoint: "tinker://r/sft-e2" }));
    writeRun(join(ws, "runs", "test-grpo"), grpo, manifest({ checkpoint: "tinker://r/grpo-s30" }));
    writeRun(join(ws, "runs", "test-grpo-k1"), k1, manifest({ checkpoint: "tinker://r/grpo-s30", topK: 1 }));
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  it("prints the paired table, writes --json and --report, and warns only about unexpected fields", async () => {
    const json = join(ws, "out", "ablation.json");
    const md = join(ws, "out", "results.md");
    const r = await runCli([
      "ablate",
      "test-base",
      join(ws, "runs", "test-grpo"),
      "test-grpo-k1",
      "--workspace",
      ws,
      "--resamples",
      "2000",
      "--seed",
      "3",
      "--expect",
      "policy.checkpoint",
      "--json",
      json,
      "--report",
      md,
      "--label",
      "Base + harness,+ GRPO (step 30),GRPO top-1",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^190 shared questions \(dropped: test-base 10, test-grpo 10, test-grpo-k1 0\)/);
    assert.match(r.stdout, /test-grpo\s+\+0\.\d{3} \[\+0\.\d{3}, \+0\.\d{3}\].*better/);
    assert.match(r.stdout, /test-grpo-k1\s+−0\.\d{3} \[−0\.\d{3}, −0\.\d{3}\].*worse/);
    assert.match(
      r.stdout,
      /warning: test-grpo-k1 differs from test-base in more than the thing under test: search\.top_k \(3 → 1\)/,
    );
    assert.doesNotMatch(r.stdout, /warning: test-grpo differs/);

    const report = JSON.parse(readFileSync(json, "utf8")) as AblationReport;
    assert.equal(report.kind, "agent-lab.ablation");
    assert.equal(report.shared, 190);
    assert.deepEqual(report.settings.expect, ["policy.checkpoint"]);
    assert.equal(report.settings.resamples, 2000);
    assert.equal(report.questions.length, 190);
    assert.equal(
      report.comparisons[0].flips.primary.improved,
      report.questions.filter((q) => q.flips[0].primary === "improved").length,
    );

    const text = readFileSync(md, "utf8");
    assert.match(
      text,
      /^## Results on HotpotQA test \(190 questions, 507k-paragraph corpus, BM25 top-3, budget of 5 searches\)/,
    );
    assert.match(text, /\| Base \+ harness \| .* \| \(baseline\) \|/);
    assert.match(text, /\| GRPO top-1 \| .* \| worse \|/);
    assert.match(text, /test\.jsonl sha256: cb4ad042f2c0ef38/);

    // Same seed, same numbers (the table is reproducible); another seed moves the intervals.
    const again = await runCli([
      "ablate",
      "test-base",
      "test-grpo",
      "--workspace",
      ws,
      "--resamples",
      "2000",
      "--seed",
      "3",
      "--expect",
      "policy.checkpoint",
    ]);
    const other = await runCli([
      "ablate",
      "test-base",
      "test-grpo",
      "--workspace",
      ws,
      "--resamples",
      "2000",
      "--seed",
      "4",
      "--expect",
      "policy.checkpoint",
    ]);
    const row = (out: string) => /^test-grpo .*$/m.exec(out)?.[0];
    assert.ok(row(again.stdout));
    assert.notEqual(row(again.stdout), row(other.stdout));
    const rerun = await runCli([
      "ablate",
      "test-base",
      "test-grpo",
      "--workspace",
      ws,
      "--resamples",
      "2000",
      "--seed",
      "3",
      "--expect",
      "policy.checkpoint",
    ]);
    assert.equal(row(rerun.stdout), row(again.stdout));
  });

  it("turns user mistakes into one-line errors", async () => {
    const none = await runCli(["ablate", "--workspace", ws]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /give the runs to compare/);
    const missing = await runCli(["ablate", "test-base", "nope", "--workspace", ws]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no run folder "nope"/);
    const few = await runCli(["ablate", "test-base", "--resamples", "10", "--workspace", ws]);
    assert.equal(few.code, 1);
    assert.match(few.stderr, /--resamples must be an integer in \[100, 1000000\], got "10"/);
    const labels = await runCli(["ablate", "test-base", "test-grpo", "--label", "a", "--workspace", ws]);
    assert.equal(labels.code, 1);
    assert.match(labels.stderr, /--label has 1 names for 2 runs/);
  });

  it("compares the runs `agent-lab demo` produces (closed-book floor vs searching reader)", async () => {
    const demo = join(ws, "demo");
    const made = await runCli(["demo", "--dir", demo]);
    assert.equal(made.code, 0, made.stderr);
    const plain = await runCli(["ablate", "closed-book", "heuristic", "--workspace", demo, "--resamples", "1000"]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^200 shared questions\n/);
    assert.match(plain.stdout, /heuristic\s+\+0\.\d{3} \[\+0\.\d{3}, \+0\.\d{3}\].*better/);
    // The searcher's settings collapse into one field; the prompt differs too (closed-book has its own).
    assert.match(
      plain.stdout,
      /warning: heuristic differs from closed-book .*search\.closed_book \(true → false\), search\.searcher \(null → \{…\}\), system_prompt\.file/,
    );
    assert.doesNotMatch(plain.stdout, /search\.searcher\.k1/);
    const expected = await runCli([
      "ablate",
      "closed-book",
      "heuristic",
      "--workspace",
      demo,
      "--resamples",
      "1000",
      "--expect",
      "search,system_prompt",
    ]);
    assert.equal(expected.code, 0, expected.stderr);
    assert.doesNotMatch(expected.stdout, /warning:/);
  });
});
