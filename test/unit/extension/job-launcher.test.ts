/**
 * Jobs through the real CLI on real HotpotQA records, the way the extension runs them: detached
 * wrapper + `node cli.js …`, output to a log file, outcome in an exit record. The test follows the
 * jobs only through their files (as a reloaded window does), never through the child handle.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readEpisodes } from "../../../src/core/base/runs/run-files";
import type { RunManifest } from "../../../src/core/base/runs/manifest";
import { EVAL_STEP, INDEX_STEP, PREPARE_STEP } from "../../../src/core/steps/catalog/catalog";
import { DEFAULT_ENVIRONMENT_INFO, environmentMetrics } from "../../../src/core/envs/catalog";
import { evalValues, prepareValues, stepArgs } from "../../../src/extension/commands/cli-args";
import { cancelJob, launchJob, type JobSpec } from "../../../src/extension/jobs/job-launcher";
import { jobProgress } from "../../../src/extension/jobs/job-progress";
import type { JobState } from "../../../src/extension/jobs/job-state";
import {
  exitPath,
  listJobRecords,
  recordPath,
  statusFromDisk,
  type JobRecord,
} from "../../../src/extension/jobs/job-store";
import { groupEpisodes, listRunRows } from "../../../src/extension/runs/runs-model";
import { settingsEnv } from "../../../src/extension/settings/settings-overrides";
import { requireSharedData } from "../../helpers/shared-data";
import { testCli, waitFor } from "../cli/cli-process";

const FAKE_KEY = "tml-unit-test-key-0123456789abcdef";

describe("extension: CLI jobs (real CLI, real HotpotQA records)", function () {
  this.timeout(120_000);
  let ws: string;
  let runsDir: string;
  let cli: string;

  before(async function () {
    requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    cli = await testCli();
    ws = mkdtempSync(join(tmpdir(), "agent-lab-ext-jobs-"));
    runsDir = join(ws, "runs");
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  const start = (spec: Omit<JobSpec, "cwd">) => launchJob({ ...spec, cwd: ws }, { cliPath: cli, root: ws });
  /** Waits like a reloaded window: from the record and the exit file only. */
  async function finalState(record: JobRecord): Promise<JobState> {
    let state: JobState = "running";
    await waitFor(() => (state = statusFromDisk(ws, record).state) !== "running", 90_000, `${record.title} to end`);
    return state;
  }

  it("prepare and index run as jobs: log file, exit record, done", async function () {
    // The partial dev file all goes to test (val stays empty): the eval below runs on train.
    const train = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    const dev = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    const prep = start({
      title: "Prepare",
      command: stepArgs(PREPARE_STEP, prepareValues(DEFAULT_ENVIRONMENT_INFO.name, { train: [train], dev: [dev] })),
    });
    assert.equal(await finalState(prep.record), "done", readFileSync(prep.record.log, "utf8"));
    assert.ok(existsSync(join(ws, "data", "val.jsonl")));
    assert.match(readFileSync(prep.record.log, "utf8"), /corpus [\d,]+ paragraphs \| train/);
    const idx = start({ title: "Index", command: stepArgs(INDEX_STEP, {}) });
    assert.equal(await finalState(idx.record), "done", readFileSync(idx.record.log, "utf8"));
    assert.ok(existsSync(join(ws, "data", "bm25")));
    const exit = JSON.parse(readFileSync(exitPath(ws, idx.record.id), "utf8"));
    assert.equal(exit.code, 0);
  });

  it("a failing step is failed with its error in the log", async () => {
    const bad = start({ title: "Bad eval", command: ["eval", "--split", "val"] }); // no --name
    assert.equal(await finalState(bad.record), "failed");
    assert.match(readFileSync(bad.record.log, "utf8"), /--name is required/);
  });

  it("eval gets the VS Code settings layer and the key by environment only; cancel stops it cleanly and keeps episodes; resume finishes it", async () => {
    const runDir = join(runsDir, "base");
    const command = stepArgs(
      EVAL_STEP,
      evalValues({
        name: "base",
        split: "train",
        backend: "scripted",
        limit: 24,
        concurrency: 2,
        "scripted-delay-ms": 150,
      }),
    );
    const job = start({
      title: "Evaluate val: base",
      command,
      runDir,
      env: { ...settingsEnv({ topK: 2, maxSearches: 3 }), TINKER_API_KEY: FAKE_KEY },
    });
    await waitFor(() => readEpisodes(runDir, environmentMetrics).length >= 4, 30_000, "4 finished episodes");
    // The eval's own progress.json (written by the step, read as the Jobs view reads it).
    const progress = jobProgress(runDir, job.record.started);
    assert.ok(progress, "the eval writes progress.json");
    assert.equal(progress.planned, 24);
    assert.ok(progress.done >= 1 && progress.done < 24, `progress ${JSON.stringify(progress)}`);
    assert.ok(cancelJob(ws, job.record));
    assert.equal(await finalState({ ...job.record, cancel_requested: true }), "cancelled");
    // Re-read from disk as a new window would: the record says a cancel was asked.
    const onDisk = listJobRecords(ws).records.find((r) => r.id === job.record.id)!;
    assert.equal(statusFromDisk(ws, onDisk).state, "cancelled");

    const summary = JSON.parse(readFileSync(join(runDir, "summary.json"), "utf8"));
    assert.equal(summary.status, "interrupted");
    const kept = readEpisodes(runDir, environmentMetrics).length;
    assert.ok(kept >= 4 && kept < 24, `${kept} episodes kept`);
    const manifest = JSON.parse(readFileSync(join(runDir, "manifest.json"), "utf8")) as RunManifest;
    assert.equal(manifest.search!.top_k, 2, "the settings layer reached the job");
    assert.equal(manifest.search!.max_searches, 3);

    // The key never lands in a file the job system writes, nor on a command line.
    for (const file of [recordPath(ws, job.record.id), job.record.log, exitPath(ws, job.record.id)]) {
      assert.ok(!readFileSync(file, "utf8").includes(FAKE_KEY), file);
    }
    assert.ok(!job.record.command.join(" ").includes(FAKE_KEY));

    // The Runs view sees it as interrupted with its episodes grouped by outcome.
    let row = listRunRows(runsDir).find((r) => r.name === "base")!;
    assert.equal(row.status, "interrupted");
    assert.match(
      row.description,
      new RegExp(`^hotpotqa · train · n=${kept}/24 · F1 0\\.\\d{3} · EM 0\\.\\d{3} · \\$0/q · interrupted$`),
    );
    const groups = groupEpisodes(readEpisodes(runDir, environmentMetrics));
    assert.equal(
      groups.reduce((s, g) => s + g.episodes.length, 0),
      kept,
    );

    // Resume with the run's own recorded command, as the "Resume Run" action does.
    const recorded = manifest.job.command.slice(1).filter((a) => a !== "--resume");
    const resumed = start({
      title: "Resume base",
      command: [...recorded, "--resume"],
      runDir,
      env: settingsEnv({ topK: 2, maxSearches: 3 }),
    });
    assert.equal(await finalState(resumed.record), "done", readFileSync(resumed.record.log, "utf8"));
    row = listRunRows(runsDir).find((r) => r.name === "base")!;
    assert.equal(row.status, "done");
    assert.equal(row.summary!.n, 24);
    assert.ok(!existsSync(join(runsDir, ".jobs")), "job records are not kept among the runs");
  });

  it("a job keeps running when nothing in this process waits for it, and its outcome is still recorded", async () => {
    const script = join(ws, "slow.js");
    writeFileSync(script, "setTimeout(() => { console.log('slow done'); }, 300);");
    const job = launchJob({ title: "slow", command: [], cwd: ws }, { cliPath: script, root: ws });
    assert.equal(statusFromDisk(ws, job.record).state, "running");
    assert.equal(await finalState(job.record), "done");
    assert.match(readFileSync(job.record.log, "utf8"), /slow done/);
  });
});
