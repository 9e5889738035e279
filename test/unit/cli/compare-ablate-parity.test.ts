/**
 * Compare matches `agent-lab ablate` to the digit: the same run folders (real HotpotQA questions)
 * go through the CLI with its defaults and through the Compare panel's report rendered by the real
 * webview bundle; every interval the CLI prints is printed the same in the panel's table
 * (compare-cache-parity.test.ts: on runs the project's eval writes, through Compare's run cache).
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAblationInputs } from "../../../src/core/steps/ablate/ablate";
import { compareView } from "../../../src/core/steps/ablate/compare-setup";
import type { RunManifest } from "../../../src/core/base/runs/manifest";
import { appendEpisode, ensureRunDir, type EpisodeRecord } from "../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../src/core/base/util/atomic-write";
import { requireSharedData } from "../../helpers/shared-data";
import { episode, manifest, readDev, simulatedRun } from "../core/steps/ablate/fixtures";
import { webviewBundles } from "../webview/webview-dom";
import { assertPanelPrintsCli } from "./ablate-digits";
import { runCli } from "./cli-process";

function writeRun(dir: string, episodes: EpisodeRecord[], m: RunManifest): void {
  ensureRunDir(dir);
  for (const e of episodes) appendEpisode(dir, e);
  writeJsonAtomic(join(dir, "manifest.json"), m);
}

describe("compare panel vs agent-lab ablate: the same printed intervals", function () {
  this.timeout(180_000);
  let ws: string;
  const names = ["val-base", "val-sft", "val-grpo"];

  before(async function () {
    const dev = readDev(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
    ws = mkdtempSync(join(tmpdir(), "agent-lab-compare-parity-"));
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ runsDir: "runs" }));
    const base = simulatedRun(dev, [0.35, 0.2, 0.45], 11);
    const sft = base.map((e, q) =>
      q % 5 === 0 ? episode(dev, q, "right") : q % 7 === 0 ? episode(dev, q, "wrong") : e,
    );
    const grpo = sft.map((e, q) => (q % 6 === 1 ? episode(dev, q, "partial") : e));
    writeRun(join(ws, "runs", names[0]), base, manifest());
    writeRun(join(ws, "runs", names[1]), sft, manifest({ checkpoint: "tinker://r/sft-e2" }));
    writeRun(join(ws, "runs", names[2]), grpo, manifest({ checkpoint: "tinker://r/grpo-s60" }));
    await webviewBundles();
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  it("prints every Δ and CI of the CLI's table identically", async () => {
    const cli = await runCli(["ablate", ...names, "--workspace", ws, "--expect", "policy.checkpoint"]);
    assert.equal(cli.code, 0, cli.stderr);
    const { report, setup } = compareView(
      loadAblationInputs(names.map((n) => join(ws, "runs", n))),
      "checkpoint",
      undefined,
      [],
    );
    assert.deepEqual(setup.expect, ["policy.checkpoint"]);

    assert.equal(await assertPanelPrintsCli(cli.stdout, { report, setup }, names), 10);
  });
});
