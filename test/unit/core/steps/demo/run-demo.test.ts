/**
 * The demo on the recipe engine, at a small size (20 val questions): its printed lines, progress.json
 * with its five stages, a rerun in the finished folder that skips every stage and leaves every file
 * as it was, and an interrupted demo that continues from the eval it was in.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import { readProgress, type Progress } from "../../../../../src/core/base/runs/progress";
import { readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { DEMO_RECORD, runDemo, type DemoOptions } from "../../../../../src/core/steps/demo/run-demo";
import type { StageRecord } from "../../../../../src/core/steps/recipe/engine";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

const STAGES = ["world", "prepare", "index", "eval-heuristic", "eval-closed-book"];

/** The demo's record of what ran: stage name → its record. */
const recorded = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, DEMO_RECORD), "utf8")) as { stages: Record<string, StageRecord> }).stages;

/** 520 dev questions: the recipe's 500 test, then 20 val. */
const small = (dir: string, log: (l: string) => void, signal?: AbortSignal): DemoOptions => ({
  dir,
  log,
  signal,
  devQuestions: 520,
  trainQuestions: 30,
});

/** Every file under `dir` with its bytes, but the demo's own progress.json (each run rewrites it). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, "base64"));
    }
  };
  walk(dir);
  out.delete("progress.json");
  return out;
}

describe("core/steps/demo: the demo's stages on the recipe engine", function () {
  this.timeout(120_000);
  let root: string;
  before(() => (root = mkdtempSync(join(tmpdir(), "agent-lab-demo-"))));
  after(() => rmSync(root, { recursive: true, force: true }));

  it("prints its own lines, writes progress.json stage by stage, and a rerun skips every stage and changes no file", async () => {
    const dir = join(root, "finished");
    const lines: string[] = [];
    const stagesSeen: Progress["stage"][] = [];
    const r = await runDemo(
      small(dir, (l) => {
        lines.push(l);
        // The engine writes progress.json before it says a stage's line.
        if (/^\[\d+\.\ds\] (writing|prepare|index|eval)/.test(l)) stagesSeen.push(readProgress(dir)?.stage);
      }),
    );
    const said = lines.filter((l) => /^\[\d+\.\ds\] /.test(l)).map((l) => l.replace(/^\[\d+\.\ds\] /, ""));
    assert.deepEqual(said, [
      "writing a synthetic multi-hop dataset (invented people, companies, towns) in HotpotQA's JSON shape",
      "prepare: splits (test 500, val 200, train) and the paragraph corpus, as for HotpotQA",
      "index: BM25 over the corpus",
      "eval on val: the scripted heuristic reader, with search (runs/heuristic)",
      "eval on val: the same reader closed-book, the floor (runs/closed-book)",
    ]);
    assert.ok(
      lines.some((l) => /^ {2}corpus \d+ paragraphs \| train 30 \| val 20 \| test 500$/.test(l)),
      lines.join("\n"),
    );
    assert.ok(lines.some((l) => /^ {2}\d+ paragraphs, \d+ terms$/.test(l)));
    assert.deepEqual(
      stagesSeen.map((s) => s && `${s.index}/${s.count} ${s.name}`),
      ["1/5 world", "2/5 prepare", "3/5 index", "4/5 eval-heuristic", "5/5 eval-closed-book"],
    );
    const progress = readProgress(dir)!;
    assert.equal(progress.status, "done");
    assert.equal(progress.done, 5);
    assert.equal(progress.eta_s, 0);
    assert.equal(r.withSearch.summary.n, 20);
    assert.equal(r.closedBook.summary.searches_per_q, 0);
    assert.ok(r.withSearch.summary.metrics.f1 > r.closedBook.summary.metrics.f1);

    const record = recorded(dir);
    assert.deepEqual(Object.keys(record), STAGES, "every stage that ran is recorded, in order");
    for (const st of STAGES) assert.ok(record[st].seconds >= 0 && Date.parse(record[st].finished) > 0, st);
    const before = snapshot(dir);
    const again: string[] = [];
    const r2 = await runDemo(small(dir, (l) => again.push(l)));
    assert.deepEqual(
      again.map((l) => l.replace(/^\[\d+\.\ds\] /, "")),
      ["world", "prepare", "index", "eval-heuristic", "eval-closed-book"].map(
        (name, i) => `${i + 1}/5 ${name}: done earlier, skipped`,
      ),
    );
    assert.deepEqual(snapshot(dir), before, "a rerun writes nothing but progress.json");
    assert.deepEqual(r2.withSearch.summary, r.withSearch.summary);
    assert.equal(readProgress(dir)?.status, "done");
  });

  it("an interrupted demo continues from the eval it was in: earlier stages skipped, the eval resumed", async () => {
    const dir = join(root, "interrupted");
    const ac = new AbortController();
    const lines: string[] = [];
    await assert.rejects(
      runDemo(
        small(
          dir,
          (l) => {
            lines.push(l);
            // Stopped as the first eval starts (a 20-question eval is over in a blink otherwise).
            if (/with search \(runs\/heuristic\)/.test(l)) ac.abort(new UserError("interrupted"));
          },
          ac.signal,
        ),
      ),
      (e: Error) => e instanceof UserError && /demo interrupted; rerun the same command to continue/.test(e.message),
    );
    assert.equal(readProgress(dir)?.status, "interrupted");
    assert.equal(readProgress(dir)?.stage?.name, "eval-heuristic");
    const kept = readEpisodes(join(dir, "runs", "heuristic"), environmentMetrics).length;
    assert.ok(kept < 20, `${kept} episodes before the stop`);
    const earlier = recorded(dir);
    assert.deepEqual(Object.keys(earlier), STAGES.slice(0, 3), "the stages finished before the stop are recorded");

    const again: string[] = [];
    const r = await runDemo(small(dir, (l) => again.push(l)));
    const said = again.filter((l) => /^\[\d+\.\ds\] /.test(l)).map((l) => l.replace(/^\[\d+\.\ds\] /, ""));
    assert.deepEqual(said, [
      "1/5 world: done earlier, skipped",
      "2/5 prepare: done earlier, skipped",
      "3/5 index: done earlier, skipped",
      "eval on val: the scripted heuristic reader, with search (runs/heuristic) (resuming)",
      "eval on val: the same reader closed-book, the floor (runs/closed-book)",
    ]);
    assert.equal(r.withSearch.summary.n, 20);
    const record = recorded(dir);
    assert.deepEqual(Object.keys(record), STAGES);
    for (const st of STAGES.slice(0, 3)) assert.deepEqual(record[st], earlier[st], `${st}'s record is kept as it was`);
    assert.equal(new Set(readEpisodes(join(dir, "runs", "heuristic"), environmentMetrics).map((e) => e.id)).size, 20);
    assert.equal(readProgress(dir)?.status, "done");
  });

  it("refuses a folder it did not make, writing nothing there", async () => {
    const dir = mkdtempSync(join(root, "foreign-"));
    writeFileSync(join(dir, "keep.txt"), "x");
    await assert.rejects(runDemo(small(dir, () => undefined)), /was not made by "agent-lab demo"/);
    assert.deepEqual(readdirSync(dir), ["keep.txt"]);
  });
});
