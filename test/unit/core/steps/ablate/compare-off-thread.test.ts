/**
 * The Compare panel's report from its worker thread: the same report and setup as compareView
 * computes in this thread, on run folders of simulated runs over real HotpotQA dev records; a
 * change of the expected differences is answered from the runs the worker already read; bad runs
 * come back as the one-line error compareView gives; a stopped worker is replaced on the next
 * request; runs under ON_THREAD_MAX_BYTES are compared in this thread, with no worker.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAblationInputs } from "../../../../../src/core/steps/ablate/ablate";
import { CompareWorker, ON_THREAD_MAX_BYTES } from "../../../../../src/core/steps/ablate/compare-off-thread";
import { compareView } from "../../../../../src/core/steps/ablate/compare-setup";
import { shownView } from "../../../../../src/core/steps/ablate/compare-shown";
import { appendEpisode, ensureRunDir } from "../../../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../../../src/core/base/util/atomic-write";
import { requireSharedData } from "../../../../helpers/shared-data";
import { manifest, readDev, simulatedRun } from "./fixtures";

describe("analysis: the Compare report in a worker thread", function () {
  this.timeout(60_000);
  let root: string;
  let dirs: string[];
  let worker: CompareWorker;

  before(function () {
    const dev = readDev(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).slice(0, 300);
    root = mkdtempSync(join(tmpdir(), "agent-lab-compare-worker-"));
    dirs = [join(root, "base"), join(root, "topk")];
    dirs.forEach((dir, k) => {
      ensureRunDir(dir);
      for (const e of simulatedRun(dev, k === 0 ? [0.4, 0.2, 0.3] : [0.5, 0.2, 0.2], 7 + k)) appendEpisode(dir, e);
      writeJsonAtomic(join(dir, "manifest.json"), manifest({ topK: k === 0 ? 5 : 10 }));
    });
    // These runs are small, cached after the first and made before: sent to the worker all the same.
    worker = new CompareWorker(0, false, null);
  });
  after(() => {
    worker?.dispose();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("gives the report and setup compareView gives in this thread (the rows the panel shows), for each choice of expected differences", async () => {
    for (const expect of [undefined, [] as string[]]) {
      const off = await worker.view({ runDirs: dirs, origin: "runs", expect, searchDirs: [root] });
      const here = shownView(compareView(loadAblationInputs(dirs), "runs", expect, [root]));
      // The report's creation time is the only field that may differ.
      assert.deepEqual(
        { ...off, report: { ...off.report, created: "" } },
        { ...here, report: { ...here.report, created: "" } },
      );
    }
  });

  it("answers bad runs with compareView's one-line error, and a stopped worker is replaced", async () => {
    await assert.rejects(
      worker.view({ runDirs: [dirs[0], join(root, "missing")], origin: "runs", expect: undefined, searchDirs: [] }),
      (e: Error) => e.message.includes(join(root, "missing")) && !e.message.includes("\n"),
    );
    const dropped = worker.view({ runDirs: dirs, origin: "runs", expect: undefined, searchDirs: [root] });
    assert.equal(worker.busy, true);
    worker.dispose();
    assert.equal(worker.busy, false);
    let answered = false;
    void dropped.then(() => (answered = true));
    const again = await worker.view({ runDirs: dirs, origin: "runs", expect: undefined, searchDirs: [root] });
    assert.equal(again.report.runs.length, 2);
    assert.equal(answered, false, "the stopped worker's request is never answered");
  });

  it("compares runs under ON_THREAD_MAX_BYTES in this thread: the same report, no worker, the same error", async () => {
    const bytes = dirs.reduce((n, d) => n + statSync(join(d, "episodes.jsonl")).size, 0);
    assert.ok(bytes <= ON_THREAD_MAX_BYTES, `the fixture's runs are small (${bytes} bytes)`);
    const here = new CompareWorker(ON_THREAD_MAX_BYTES, true, null);
    try {
      const pending = here.view({ runDirs: dirs, origin: "runs", expect: undefined, searchDirs: [root] });
      assert.equal(here.busy, false, "no worker holds the request");
      const off = await worker.view({ runDirs: dirs, origin: "runs", expect: undefined, searchDirs: [root] });
      const mine = await pending;
      assert.deepEqual(
        { ...mine, report: { ...mine.report, created: "" } },
        { ...off, report: { ...off.report, created: "" } },
      );
      const bad = {
        runDirs: [dirs[0], join(root, "missing")],
        origin: "runs" as const,
        expect: undefined,
        searchDirs: [],
      };
      const messages = await Promise.all(
        [here, worker].map((w) =>
          w.view(bad).then(
            () => "answered",
            (e: Error) => e.message,
          ),
        ),
      );
      assert.equal(messages[0], messages[1]);
      assert.ok(messages[0].includes(join(root, "missing")) && !messages[0].includes("\n"), messages[0]);
    } finally {
      here.dispose();
    }
  });
});
