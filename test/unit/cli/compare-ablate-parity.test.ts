/**
 * Compare matches `agent-lab ablate` to the digit: the same run folders (real HotpotQA questions)
 * go through the CLI with its defaults and through the Compare panel's report rendered by the real
 * webview bundle; every interval the CLI prints is printed the same in the panel's table.
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
import { openWebview, webviewBundles } from "../webview/webview-dom";
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

    const t = await openWebview("compare");
    try {
      t.post({ type: "compare/report", report, setup });
      await t.settle();
      const rows = Array.from(t.document.querySelectorAll("#ablation-table tbody tr"));
      const cells = (i: number) => Array.from(rows[i].querySelectorAll("td")).map((td) => td.textContent!);
      const intervals = /[+−]?\d\.\d{3} \[[+−]?\d\.\d{3}, [+−]?\d\.\d{3}\]/g;
      let checked = 0;
      for (const [i, name] of names.entries()) {
        const line = cli.stdout.split("\n").find((l) => l.startsWith(`${name} `))!;
        const [f1Mean, f1Ci, emMean, emCi] = line
          .trim()
          .split(/\s{2,}/)
          .slice(1, 5);
        assert.equal(cells(i)[1], `${f1Mean} ${f1Ci}`, `${name} F1`);
        assert.equal(cells(i)[2], `${emMean} ${emCi}`, `${name} EM`);
        checked += 2;
        if (i === 0) continue;
        const paired = cli.stdout.split("\n").filter((l) => l.startsWith(`${name} `))[1];
        const [dF1, dEm] = paired.match(intervals)!;
        assert.equal(rows[i].querySelector(".delta-f1")!.textContent, dF1, `${name} Δ F1`);
        assert.equal(rows[i].querySelector(".delta-em")!.textContent, dEm, `${name} Δ EM`);
        assert.match(dF1, /^[+−]/, "signed");
        checked += 2;
      }
      assert.equal(checked, 10);
      assert.match(t.document.getElementById("method")!.textContent!, /10,000 resamples, seed 0/);
      assert.match(cli.stdout, /10,000 resamples, seed 0/);
    } finally {
      await t.close();
    }
  });
});
