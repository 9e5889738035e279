/**
 * A Compare view made before is posted again only while it is the one that would be made: the same
 * runs, origin and expected differences, and every run's manifest.json and episodes.jsonl as they
 * were; its prompt diffs are made again each time (a workspace prompt edited since). Runs made here
 * (no shared data), sent to a worker when made, so "made again" shows as a busy worker.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendEpisode, ensureRunDir } from "../../../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../../../src/core/base/util/atomic-write";
import { sha256Hex } from "../../../../../src/core/base/runs/manifest";
import { loadAblationInputs } from "../../../../../src/core/steps/ablate/ablate";
import { MadeViews } from "../../../../../src/core/steps/ablate/compare-made";
import { CompareWorker, type CompareView } from "../../../../../src/core/steps/ablate/compare-off-thread";
import { compareView } from "../../../../../src/core/steps/ablate/compare-setup";
import { shownView } from "../../../../../src/core/steps/ablate/compare-shown";
import { episode, manifest, simulatedRun, type DevRecord } from "./fixtures";

const DEV: DevRecord[] = Array.from({ length: 80 }, (_, i) => ({
  id: `q${i}`,
  question: `Which town is number ${i}?`,
  answer: `Town ${["Alder", "Birch", "Cedar", "Dogwood", "Elm"][i % 5]} ${i}`,
}));
const OLD_PROMPT = "You are a research agent.\nAnswer with <answer>x</answer>.";
const NEW_PROMPT = "You are a research agent.\nSearch first.\nAnswer with <answer>x</answer>.";

const sameReport = (a: CompareView, b: CompareView) =>
  assert.deepEqual({ ...a, report: { ...a.report, created: "" } }, { ...b, report: { ...b.report, created: "" } });

describe("analysis: Compare views made before are posted again", function () {
  this.timeout(60_000);
  let root: string;
  let dirs: string[];
  let made: MadeViews;
  let worker: CompareWorker;
  const request = (over: { expect?: string[]; runDirs?: string[] } = {}) => ({
    runDirs: over.runDirs ?? dirs,
    origin: "runs" as const,
    expect: over.expect,
    searchDirs: [root],
  });
  const madeHere = (runDirs = dirs) => shownView(compareView(loadAblationInputs(runDirs), "runs", undefined, [root]));

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-compare-made-"));
    dirs = [join(root, "base"), join(root, "rerun")];
    writeFileSync(join(root, "old.prompt.md"), OLD_PROMPT);
    writeFileSync(join(root, "system.prompt.md"), NEW_PROMPT);
    dirs.forEach((dir, k) => {
      ensureRunDir(dir);
      for (const e of simulatedRun(DEV, k === 0 ? [0.4, 0.2, 0.3] : [0.5, 0.2, 0.2], 7 + k)) appendEpisode(dir, e);
      const m = manifest({ prompt: sha256Hex(k === 0 ? OLD_PROMPT : NEW_PROMPT) });
      m.system_prompt.file = "system.prompt.md";
      writeJsonAtomic(join(dir, "manifest.json"), m);
    });
    made = new MadeViews();
    worker = new CompareWorker(0, false, made);
  });
  afterEach(() => {
    worker.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it("the same request on unchanged runs: the view made before, without the worker", async () => {
    const first = worker.view(request());
    assert.equal(worker.busy, true, "made in the worker");
    const view = await first;
    sameReport(view, madeHere());
    const again = worker.view(request());
    assert.equal(worker.busy, false, "posted again, not made");
    const kept = await again;
    assert.equal(kept.report, view.report, "the very report");
    assert.deepEqual(kept.setup, view.setup);
    // Another panel of this process (its own CompareWorker) gets it too.
    const other = new CompareWorker(0, false, made);
    assert.equal((await other.view(request())).report, view.report);
    other.dispose();
  });

  it("made again when episodes.jsonl or manifest.json changed, or the expected differences or the baseline are others", async () => {
    const first = await worker.view(request());
    // Another episode: the report counts it.
    for (const dir of dirs) appendEpisode(dir, episode(DEV, 0, "right", { id: "extra" }));
    const appended = worker.view(request());
    assert.equal(worker.busy, true, "episodes.jsonl grew: made again");
    sameReport(await appended, madeHere());
    assert.equal((await appended).report.runs[1].episodes, first.report.runs[1].episodes + 1);
    // The manifest rewritten (same size, another mtime or content).
    const m = manifest({ prompt: sha256Hex(NEW_PROMPT), topK: 9 });
    m.system_prompt.file = "system.prompt.md";
    writeJsonAtomic(join(dirs[1], "manifest.json"), m);
    const rewritten = worker.view(request());
    assert.equal(worker.busy, true, "manifest.json rewritten: made again");
    sameReport(await rewritten, madeHere());
    for (const other of [request({ expect: [] }), request({ runDirs: [dirs[1], dirs[0]] })]) {
      const p = worker.view(other);
      assert.equal(worker.busy, true, JSON.stringify(other));
      await p;
    }
  });

  it("the prompt diff is made again each time: a workspace prompt edited since is shown as not found", async () => {
    const first = await worker.view(request());
    assert.equal(first.setup.prompts.length, 1);
    assert.equal(first.setup.prompts[0].baseline.text, OLD_PROMPT, "found by its hash in old.prompt.md");
    assert.equal(first.setup.prompts[0].other.text, NEW_PROMPT);
    appendFileSync(join(root, "system.prompt.md"), "Edited.\n");
    const kept = worker.view(request());
    assert.equal(worker.busy, false);
    const [diff] = (await kept).setup.prompts;
    assert.equal(diff.other.text, null, "the file no longer hashes to the run's prompt");
    assert.deepEqual((await kept).setup, madeHere().setup);
  });

  it("a run folder removed since: the one-line error a new Compare gives", async () => {
    await worker.view(request());
    rmSync(dirs[1], { recursive: true, force: true });
    await assert.rejects(
      worker.view(request()),
      (e: Error) => e.message.includes(dirs[1]) && !e.message.includes("\n"),
    );
  });

  it("keeps the last four views", async () => {
    const asked = [undefined, [], ["policy"], ["sampling"], ["policy", "sampling"]];
    for (const expect of asked) await worker.view(request({ expect }));
    // The latest four first (each use keeps it), then the first, which the fifth pushed out.
    for (const i of [4, 3, 2, 1, 0]) {
      const p = worker.view(request({ expect: asked[i] }));
      assert.equal(worker.busy, i === 0, `view ${i}: ${i === 0 ? "made again" : "kept"}`);
      await p;
    }
  });
});
