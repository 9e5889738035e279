/**
 * Compare's run cache: the first Compare of large runs (here: any size, ON_THREAD_MAX_BYTES 0) is
 * made in the worker, which then saves each run's cache; the next is made on the caller's thread
 * from the caches, with the report compareView gives from the runs' files, for either baseline and
 * without resampling again. A changed episodes.jsonl, a damaged cache file and one of another
 * format are read past. A run kept before its first Compare (what the eval does at its end) leaves
 * that Compare only the pair's test to draw. The memo under it gives the bootstrap's and the
 * sign-flip test's own bits, and what it remembers alone without drawing.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAblationInputs } from "../../../../../src/core/steps/ablate/ablate";
import {
  COMPARE_CACHE_FORMAT,
  keepForCompare,
  loadCompareRuns,
} from "../../../../../src/core/steps/ablate/compare-cache";
import { CompareWorker } from "../../../../../src/core/steps/ablate/compare-off-thread";
import { compareView } from "../../../../../src/core/steps/ablate/compare-setup";
import { shownView } from "../../../../../src/core/steps/ablate/compare-shown";
import { appendEpisode, ensureRunDir } from "../../../../../src/core/base/runs/run-files";
import { runFile } from "../../../../../src/core/base/runs/run-folder";
import { writeJsonAtomic } from "../../../../../src/core/base/util/atomic-write";
import { bootstrapMeans } from "../../../../../src/core/base/stats/bootstrap";
import { drawMissed, ResampleMemo } from "../../../../../src/core/base/stats/resample-memo";
import { signFlipTest } from "../../../../../src/core/base/stats/significance";
import { requireSharedData } from "../../../../helpers/shared-data";
import { episode, manifest, readDev, simulatedRun, type DevRecord } from "./fixtures";

type View = ReturnType<typeof compareView>;
const undated = (v: View) => ({ ...v, report: { ...v.report, created: "" } });
const direct = (dirs: string[]) => undated(compareView(loadAblationInputs(dirs), "runs", undefined, []));
/** What CompareWorker gives the panel: the report with the rows it shows. */
const shown = (dirs: string[]) => undated(shownView(compareView(loadAblationInputs(dirs), "runs", undefined, [])));
const fromCache = (dirs: string[]) => {
  const runs = loadCompareRuns(dirs);
  const view = compareView(runs.inputs, "runs", undefined, [], runs.resampling);
  return { view: undated(view), computed: runs.resampling.computed, save: runs.save };
};

async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(ok(), what);
}

describe("analysis: Compare's run cache", function () {
  this.timeout(60_000);
  let root: string;
  let dirs: string[];
  let dev: DevRecord[];

  before(function () {
    dev = readDev(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).slice(0, 300);
    root = mkdtempSync(join(tmpdir(), "agent-lab-compare-cache-"));
    dirs = [join(root, "base"), join(root, "topk")];
    dirs.forEach((dir, k) => {
      ensureRunDir(dir);
      for (const e of simulatedRun(dev, k === 0 ? [0.4, 0.2, 0.3] : [0.5, 0.2, 0.2], 7 + k)) appendEpisode(dir, e);
      writeJsonAtomic(join(dir, "manifest.json"), manifest({ topK: k === 0 ? 5 : 10 }));
    });
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("is saved by the worker's Compare; the next is made on this thread from it, the same report", async () => {
    const worker = new CompareWorker(0);
    try {
      const request = { runDirs: dirs, origin: "runs" as const, expect: undefined, searchDirs: [] };
      const first = worker.view(request);
      assert.equal(worker.busy, true, "no cache yet: the worker makes it");
      assert.deepEqual(undated(await first), shown(dirs));
      await until(() => dirs.every((d) => existsSync(runFile(d, "compareCache"))), "each run's cache saved");

      // A panel's running worker answers later Compares from the runs it holds; a new panel's (not started) here.
      const later = worker.view({ ...request, runDirs: [dirs[1], dirs[0]] });
      assert.equal(worker.busy, true, "the started worker makes it");
      assert.deepEqual(undated(await later), shown([dirs[1], dirs[0]]));
      const fresh = new CompareWorker(0);
      const second = fresh.view(request);
      assert.equal(fresh.busy, false, "made on this thread from the caches");
      assert.deepEqual(undated(await second), shown(dirs));
      const saved = JSON.parse(readFileSync(runFile(dirs[0], "compareCache"), "utf8")) as { format: string };
      assert.equal(saved.format, COMPARE_CACHE_FORMAT);
    } finally {
      worker.dispose();
    }
  });

  it("gives either baseline its own report without resampling again", () => {
    fromCache(dirs).save();
    const swapped = [dirs[1], dirs[0]];
    const again = fromCache(swapped);
    assert.deepEqual(again.view, direct(swapped));
    assert.equal(again.computed, 0, "the swapped runs' columns and the negated differences are remembered");
  });

  it("kept before the first Compare (as the eval's end does): that Compare draws only the pair's test", async () => {
    const kept = ["kept-base", "kept-topk"].map((name) => join(root, name));
    kept.forEach((dir, k) => {
      ensureRunDir(dir);
      for (const e of simulatedRun(dev, k === 0 ? [0.4, 0.2, 0.3] : [0.5, 0.2, 0.2], 7 + k)) appendEpisode(dir, e);
      writeJsonAtomic(join(dir, "manifest.json"), manifest({ topK: k === 0 ? 5 : 10 }));
      keepForCompare(dir);
    });
    const runs = loadCompareRuns(kept);
    const remembered = runs.resampling.rememberedOnly();
    const table = compareView(runs.inputs, "runs", undefined, [], remembered);
    assert.equal(remembered.missed.length, 1, "each run's columns remembered; the pair's sign-flip test not");
    const whole = compareView(runs.inputs, "runs", undefined, [], runs.resampling);
    assert.deepEqual(undated(whole), direct(kept));
    assert.equal(runs.resampling.computed, 1, "only the pair's test is drawn");
    assert.deepEqual(table.report.runs, whole.report.runs, "the runs' intervals in the table");
    assert.deepEqual(table.report.comparisons[0].primary.ci, whole.report.comparisons[0].primary.ci);
    assert.ok(Number.isNaN(table.report.comparisons[0].primary.p));

    // A new panel: the table from the caches on this thread at once, the test in the worker.
    const worker = new CompareWorker(0, true, null);
    try {
      const tables: View[] = [];
      const view = worker.view({ runDirs: kept, origin: "runs", expect: undefined, searchDirs: [] }, (t) =>
        tables.push(t),
      );
      assert.equal(tables.length, 1);
      assert.deepEqual(tables[0].report.runs, shown(kept).report.runs);
      assert.equal(worker.busy, true);
      assert.deepEqual(undated(await view), shown(kept));
    } finally {
      worker.dispose();
    }
  });

  it("keeps no cache for a run without a finished episode, and says nothing", () => {
    const empty = join(root, "empty");
    ensureRunDir(empty);
    writeJsonAtomic(join(empty, "manifest.json"), manifest({ topK: 5 }));
    keepForCompare(empty);
    assert.equal(existsSync(runFile(empty, "compareCache")), false);
  });

  it("reads episodes.jsonl again once it changed, and past a damaged or foreign cache", () => {
    fromCache(dirs).save();
    appendEpisode(dirs[0], { ...episode(dev, dev.length - 1, "right"), id: "appended" });
    const changed = fromCache(dirs);
    assert.deepEqual(changed.view, direct(dirs));
    assert.equal(changed.view.report.runs[0].episodes, dev.length + 1);
    changed.save();

    // Results altered in the file (a mean short of the resamples or not finite, a p out of (0, 1]) are drawn again.
    const saved = JSON.parse(readFileSync(runFile(dirs[1], "compareCache"), "utf8")) as {
      results: [string, string | number][];
    };
    const altered = saved.results.map(([key, v], i): [string, string | number] => [
      key,
      typeof v === "number"
        ? 7
        : Buffer.from(new Float64Array(i % 2 ? [0.5, 0.5] : Array.from({ length: 10_000 }, () => NaN)).buffer).toString(
            "base64",
          ),
    ]);
    assert.ok(altered.some(([, v]) => v === 7) && altered.some(([, v]) => typeof v === "string"));
    writeFileSync(runFile(dirs[1], "compareCache"), JSON.stringify({ ...saved, results: altered }));
    const redrawn = fromCache(dirs);
    assert.deepEqual(redrawn.view, direct(dirs));
    assert.equal(redrawn.computed, altered.length, "every altered result drawn again");

    for (const text of ["{", JSON.stringify({ format: "agent-lab/compare-cache-0", records: [], results: [] })]) {
      writeFileSync(runFile(dirs[1], "compareCache"), text);
      const read = fromCache(dirs);
      assert.deepEqual(read.view, direct(dirs));
      assert.ok(read.computed > 0, "nothing remembered from the damaged cache");
    }
  });
});

describe("statistics: the resample memo", () => {
  const column = (seed: number, n: number) => Float64Array.from({ length: n }, (_, i) => ((i * seed) % 7) / 6);

  it("gives bootstrapMeans' bits for a column drawn alone or beside others, remembered or not", () => {
    const cols = [column(3, 101), column(5, 101), column(2, 101)];
    const options = { resamples: 500, seed: 0, stream: 0 };
    const joint = bootstrapMeans(cols, options);
    const memo = new ResampleMemo();
    const part = memo.bootstrapMeans([cols[1]], options, [[0]]);
    assert.deepEqual(part[0], joint[1]);
    const all = memo.bootstrapMeans(cols, options, [[0], [1], [2]]);
    all.forEach((dist, i) => assert.deepEqual(dist, joint[i]));
    assert.equal(memo.computed, 3, "the column drawn first is not drawn again");
    assert.notDeepEqual(memo.bootstrapMeans([cols[1]], { ...options, seed: 1 }, [[0]])[0], joint[1]);
  });

  it("gives what it remembers without drawing: the rest NaN, listed as draws that give their bits", () => {
    const cols = [column(3, 101), column(5, 101)];
    const options = { resamples: 500, seed: 0, stream: 0 };
    const d = Float64Array.from(cols[1], (v, i) => v - cols[0][i]);
    const memo = new ResampleMemo();
    const drawn = memo.bootstrapMeans([cols[0]], options, [[0]]);
    const remembered = memo.rememberedOnly();
    const [first, second] = remembered.bootstrapMeans(cols, options, [[0], [1]]);
    assert.deepEqual(first, drawn[0]);
    assert.ok(second.length === 500 && second.every(Number.isNaN));
    assert.ok(Number.isNaN(remembered.signFlipTest(d, options, [0, 1])));
    assert.equal(remembered.missed.length, 2);
    assert.equal(memo.computed, 1, "nothing drawn");
    // Drawn elsewhere (a worker), remembered: the memo's own bits, nothing drawn again.
    memo.remember(drawMissed(remembered.missed));
    assert.deepEqual(memo.bootstrapMeans(cols, options, [[0], [1]]), bootstrapMeans(cols, options));
    assert.equal(memo.signFlipTest(d, options, [0, 1]), signFlipTest(d, options));
    assert.equal(memo.computed, 1);
    const negated = d.map((v) => -v);
    assert.equal(memo.rememberedOnly().signFlipTest(negated, options, [1, 0]), signFlipTest(d, options));
  });

  it("gives signFlipTest's p for d and −d under one key", () => {
    const d = Float64Array.from(column(3, 200), (v, i) => (i % 3 === 0 ? 0 : v - 0.4));
    const options = { resamples: 300, seed: 0, stream: 2 };
    const memo = new ResampleMemo();
    assert.equal(memo.signFlipTest(d, options, [0, 1]), signFlipTest(d, options));
    const negated = d.map((v) => -v);
    assert.equal(signFlipTest(negated, options), signFlipTest(d, options));
    assert.equal(memo.signFlipTest(negated, options, [1, 0]), signFlipTest(d, options));
    assert.equal(memo.computed, 1);
    assert.equal(memo.resultsOf(1).length, 1);
  });
});
