/**
 * Compare prints `agent-lab ablate`'s digits on runs the project's own eval writes (`agent-lab
 * demo`: the scripted reader with search and closed-book), however its report was made: the
 * first Compare from the Compare caches the eval wrote (its table on the caller's thread with the
 * runs' remembered intervals, the pair's sign-flip test drawn in a worker, then the report made
 * there again and saved in the caches), a new panel's from those caches, the other baseline without
 * resampling, and runs without caches (an older build's) wholly in the worker, each against the
 * CLI's own table for that order. Runs without caches are given them off the thread as the
 * extension does a while after the window opens (keepMissingCachesOffThread): the first Compare
 * then makes its table from them, and finished eval runs only are given one, once.
 */
import { strict as assert } from "node:assert";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDemo } from "../../../src/core/steps/demo/run-demo";
import {
  CompareWorker,
  keepMissingCachesOffThread,
  type CompareView,
} from "../../../src/core/steps/ablate/compare-off-thread";
import { runFile } from "../../../src/core/base/runs/run-folder";
import { cachedForCompare } from "../../../src/core/steps/ablate/compare-cache";
import { webviewBundles } from "../webview/webview-dom";
import { assertPanelPrintsCli } from "./ablate-digits";
import { runCli } from "./cli-process";

describe("compare panel vs agent-lab ablate on the demo's eval runs, through Compare's run cache", function () {
  this.timeout(300_000);
  let ws: string;
  const names = ["heuristic", "closed-book"];
  let dirs: string[];
  let cli: { code: number | null; stdout: string; stderr: string };
  const request = () => ({ runDirs: dirs, origin: "runs" as const, expect: undefined, searchDirs: [] });
  const saved = async (what: (cache: string) => boolean) => {
    const all = () =>
      dirs.every(
        (d) => existsSync(runFile(d, "compareCache")) && what(readFileSync(runFile(d, "compareCache"), "utf8")),
      );
    for (let i = 0; i < 300 && !all(); i++) await new Promise((r) => setTimeout(r, 20));
    return all();
  };

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-compare-cache-parity-"));
    await runDemo({ dir: ws, log: () => {}, concurrency: 4 });
    await webviewBundles();
    dirs = names.map((n) => join(ws, "runs", n));
    cli = await runCli(["ablate", ...names, "--workspace", ws]);
    assert.equal(cli.code, 0, cli.stderr);
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  it("prints the CLI's every interval from the eval's caches, then from the caches, and for the other baseline", async () => {
    assert.ok(
      dirs.every((d) => existsSync(runFile(d, "compareCache"))),
      "the eval kept each run's Compare cache",
    );
    const cliSwapped = await runCli(["ablate", names[1], names[0], "--workspace", ws]);
    assert.equal(cliSwapped.code, 0, cliSwapped.stderr);

    const worker = new CompareWorker(0); // the demo's runs are small: 0 treats them as large ones
    try {
      const tables: CompareView[] = [];
      const first = worker.view(request(), (table) => tables.push(table));
      assert.equal(tables.length, 1, "the table, made on this thread from the eval's caches");
      assert.equal(worker.busy, true, "the pair's sign-flip test is drawn in a worker");
      const [table] = tables;
      assert.ok(!Number.isNaN(table.report.runs[1].primary.ci.lo), "the runs' intervals, remembered");
      assert.ok(!Number.isNaN(table.report.comparisons[0].primary.ci.lo), "Δ's interval: the runs' draws, paired");
      assert.ok(Number.isNaN(table.report.comparisons[0].primary.p), "the pair's sign-flip test is not remembered");
      const answer = await first;
      assert.equal(tables.length, 1, "the table came first, once");
      assert.equal(await assertPanelPrintsCli(cli.stdout, answer, names, table), 6);
      assert.ok(
        await saved((cache) => cache.includes('"sign-flip-')),
        "the worker saved the pair's test in the caches",
      );

      const again = new CompareWorker(0).view(request(), (table) => tables.push(table));
      assert.equal(worker.busy, false, "a new panel's: made on this thread from the caches");
      assert.equal(await assertPanelPrintsCli(cli.stdout, await again, names), 6);
      assert.equal(tables.length, 1, "everything remembered: no table before the report");
      // The other baseline: the same columns and the negated differences, all remembered.
      const swapped = await worker.view({ ...request(), runDirs: [dirs[1], dirs[0]] }, (table) => tables.push(table));
      assert.equal(tables.length, 1, "runs compared before: no table without intervals");
      assert.equal(await assertPanelPrintsCli(cliSwapped.stdout, swapped, [names[1], names[0]]), 6);
    } finally {
      worker.dispose();
    }
  });

  it("prints the CLI's every interval for runs without caches, all drawn in the worker", async () => {
    for (const d of dirs) rmSync(runFile(d, "compareCache"));
    const worker = new CompareWorker(0, true, null); // null: not the view the test above made
    try {
      const tables: CompareView[] = [];
      const first = worker.view(request(), (table) => tables.push(table));
      assert.equal(worker.busy, true, "the first Compare is made in the worker");
      const answer = await first;
      assert.equal(tables.length, 1, "the table before its intervals came first, once");
      assert.ok(Number.isNaN(tables[0].report.runs[0].primary.ci.lo), "made without resampling");
      assert.equal(await assertPanelPrintsCli(cli.stdout, answer, names, tables[0]), 6);
      assert.ok(await saved(() => true), "the worker saved the runs' caches");
    } finally {
      worker.dispose();
    }
  });

  it("runs without caches are given them off the thread; the first Compare then makes its table from them", async () => {
    for (const d of dirs) rmSync(runFile(d, "compareCache"));
    const runsDir = join(ws, "runs");
    const largest = Math.max(...dirs.map((d) => statSync(runFile(d, "episodes")).size));
    assert.deepEqual(
      await keepMissingCachesOffThread(runsDir, largest),
      [],
      "runs at most minBytes are left as they are",
    );
    assert.ok(!dirs.some((d) => existsSync(runFile(d, "compareCache"))));
    // What is not a finished eval run is left alone: a running eval's copy, one whose episodes are torn.
    const running = join(runsDir, "heuristic-running");
    const torn = join(runsDir, "heuristic-torn");
    const copied = join(runsDir, "heuristic-copied");
    for (const copy of [running, torn]) cpSync(dirs[0], copy, { recursive: true });
    const summary = JSON.parse(readFileSync(runFile(running, "summary"), "utf8")) as { status: string };
    writeFileSync(runFile(running, "summary"), JSON.stringify({ ...summary, status: "running" }));
    appendFileSync(runFile(torn, "episodes"), '{"id": "torn", "metr\n');
    try {
      assert.deepEqual((await keepMissingCachesOffThread(runsDir, 0)).sort(), [...names].sort());
      assert.ok(!existsSync(runFile(running, "compareCache")) && !existsSync(runFile(torn, "compareCache")));
      const stamps = dirs.map((d) => statSync(runFile(d, "compareCache")).mtimeMs);
      assert.deepEqual(await keepMissingCachesOffThread(runsDir, 0), [], "runs with fresh caches are not kept again");
      assert.deepEqual(
        dirs.map((d) => statSync(runFile(d, "compareCache")).mtimeMs),
        stamps,
      );
      // A run copied with its cache: the cache names the original's episodes.jsonl (size and mtime).
      cpSync(dirs[0], copied, { recursive: true });
      assert.deepEqual(
        await keepMissingCachesOffThread(runsDir, 0),
        ["heuristic-copied"],
        "the copy's cache is not its",
      );
      assert.ok(cachedForCompare([copied]), "it is now");
      assert.deepEqual(await keepMissingCachesOffThread(join(ws, "no-such-runs"), 0), [], "no runs folder: nothing");
    } finally {
      for (const copy of [running, torn, copied]) rmSync(copy, { recursive: true, force: true });
    }

    const worker = new CompareWorker(0, true, null);
    try {
      const tables: CompareView[] = [];
      const answer = await worker.view(request(), (table) => tables.push(table));
      assert.equal(tables.length, 1, "the table, made on this thread from the kept caches");
      assert.ok(!Number.isNaN(tables[0].report.runs[1].primary.ci.lo), "with the runs' intervals, remembered");
      assert.equal(await assertPanelPrintsCli(cli.stdout, answer, names, tables[0]), 6);
    } finally {
      worker.dispose();
    }
  });
});
