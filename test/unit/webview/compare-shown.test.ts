/**
 * The Compare panel's report message carries only the question rows its flip lists show
 * (compare-shown.ts): on two runs of 4,000 questions (real HotpotQA dev questions, repeated under
 * new ids) the report CompareWorker gives the panel holds at most FLIP_LIST_ROWS rows per list,
 * a fraction of the whole report's bytes, every other field as compareView makes it; and the
 * page draws from it the same lists, with the comparison's whole flip counts, as from the whole report
 * (each list's first rows in the frame that shows the report, the rest after it, or once its
 * intervals came when they were pending).
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAblationInputs } from "../../../src/core/steps/ablate/ablate";
import { CompareWorker } from "../../../src/core/steps/ablate/compare-off-thread";
import { compareView } from "../../../src/core/steps/ablate/compare-setup";
import { FLIP_LIST_ROWS, flipRole, listedFlips } from "../../../src/core/steps/ablate/compare-shown";
import type { AblationReport } from "../../../src/core/steps/ablate/report-types";
import type { CompareSetup } from "../../../src/core/steps/ablate/compare-setup";
import { appendEpisode, ensureRunDir } from "../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../src/core/base/util/atomic-write";
import { requireSharedData } from "../../helpers/shared-data";
import { manifest, readDev, simulatedRun } from "../core/steps/ablate/fixtures";
import { openWebview, webviewBundles } from "./webview-dom";

const QUESTIONS = 4000;

describe("Compare: the report message holds only the rows the page shows", function () {
  this.timeout(120_000);
  let root: string;
  let whole: { report: AblationReport; setup: CompareSetup };
  let sent: { report: AblationReport; setup: CompareSetup };

  before(async function () {
    const source = readDev(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
    const dev = Array.from({ length: QUESTIONS }, (_, i) => ({
      ...source[i % source.length],
      id: `${source[i % source.length].id}-${i}`,
    }));
    root = mkdtempSync(join(tmpdir(), "agent-lab-compare-shown-"));
    const dirs = [join(root, "base"), join(root, "other")];
    dirs.forEach((dir, k) => {
      ensureRunDir(dir);
      for (const e of simulatedRun(dev, k === 0 ? [0.4, 0.2, 0.3] : [0.5, 0.2, 0.2], 7 + k)) appendEpisode(dir, e);
      writeJsonAtomic(join(dir, "manifest.json"), manifest({ topK: k === 0 ? 5 : 10 }));
    });
    const request = { runDirs: dirs, origin: "runs" as const, expect: undefined, searchDirs: [root] };
    // On this thread at any size (the worker's reply is the same: compare-off-thread.test.ts).
    sent = await new CompareWorker(Infinity, false).view(request);
    whole = compareView(loadAblationInputs(dirs), "runs", undefined, [root]);
    await webviewBundles();
  });
  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("sends at most FLIP_LIST_ROWS rows per list, every other field as compareView makes it", () => {
    const c = whole.report.comparisons[0];
    const role = flipRole(whole.report);
    assert.ok(c.flips[role].improved > FLIP_LIST_ROWS && c.flips[role].regressed > FLIP_LIST_ROWS, "lists run over");
    assert.equal(whole.report.questions.length, QUESTIONS);
    assert.equal(sent.report.questions.length, 2 * FLIP_LIST_ROWS);
    const bytes = (r: AblationReport) => JSON.stringify(r).length;
    assert.ok(
      bytes(sent.report) < bytes(whole.report) / 3,
      `${bytes(sent.report)} bytes sent of ${bytes(whole.report)}`,
    );
    const rest = (v: typeof sent) => ({ ...v, report: { ...v.report, created: "", questions: [] } });
    assert.deepEqual(rest(sent), rest(whole));
    for (const direction of ["improved", "regressed"] as const)
      assert.deepEqual(listedFlips(sent.report, 0, direction), listedFlips(whole.report, 0, direction));
  });

  it("the page draws the same flip lists and the whole counts from it", async () => {
    const lists = async (view: typeof sent) => {
      const t = await openWebview("compare");
      try {
        t.post({ type: "compare/report", report: view.report, setup: view.setup });
        const d = t.document;
        const rows = (id: string) => [...d.querySelectorAll(`#${id} li.flip`)].map((li) => li.getAttribute("data-id"));
        // The frame that shows the report holds each list's first rows; the rest are added after it.
        const first = ["improved", "regressed"].map(rows);
        await t.settle();
        return ["improved", "regressed"].map((id, i) => {
          const all = rows(id);
          assert.ok(first[i].length > 0 && first[i].length < all.length, `${first[i].length} of ${all.length} first`);
          assert.deepEqual(first[i], all.slice(0, first[i].length));
          return { head: d.getElementById(id)!.previousElementSibling!.textContent, rows: all };
        });
      } finally {
        await t.close();
      }
    };
    const fromSent = await lists(sent);
    const c = whole.report.comparisons[0];
    const role = flipRole(whole.report);
    assert.deepEqual(
      fromSent.map((l) => l.head),
      [`Improved (${c.flips[role].improved})`, `Regressed (${c.flips[role].regressed})`],
    );
    assert.deepEqual(
      fromSent.map((l) => l.rows.length),
      [FLIP_LIST_ROWS, FLIP_LIST_ROWS],
    );
    assert.deepEqual(fromSent, await lists({ ...whole, report: { ...whole.report, created: sent.report.created } }));
  });

  it("while the intervals are pending, the lists' rest waits for the report with them (or a second)", async () => {
    const t = await openWebview("compare");
    // Real time, not settle(): settle waits for every timer, the second's too. Polled up to a
    // deadline, not a fixed wait: on a loaded machine a frame took more than 200 ms (CI saw it).
    const until = async (done: () => boolean, deadline: number): Promise<void> => {
      while (!done() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    };
    try {
      const rows = () => t.document.querySelectorAll("#improved li.flip").length;
      const posted = performance.now();
      t.post({ type: "compare/report", report: sent.report, setup: sent.setup, intervalsPending: true });
      await until(() => rows() > 0, posted + 500);
      const first = rows();
      assert.ok(first > 0 && first < FLIP_LIST_ROWS, `${first} rows before the intervals`);
      t.post({ type: "compare/report", report: sent.report, setup: sent.setup });
      // Before the second after which the rest would come anyway (its timer started with the first post).
      await until(() => rows() === FLIP_LIST_ROWS, posted + 950);
      const took = Math.round(performance.now() - posted);
      assert.equal(rows(), FLIP_LIST_ROWS, `all of them a frame after the report with its intervals (${took} ms)`);

      t.post({ type: "compare/report", report: sent.report, setup: sent.setup, intervalsPending: true });
      await until(() => rows() === first, performance.now() + 900);
      assert.equal(rows(), first, "a table again: its first rows");
      await until(() => rows() === FLIP_LIST_ROWS, performance.now() + 3000);
      assert.equal(rows(), FLIP_LIST_ROWS, "the rest after a second when the intervals are slow");
    } finally {
      await t.close();
    }
  });
});
