/**
 * The job runner's VS Code glue in plain Node (a recorded stand-in for `vscode`): a job started by
 * one runner streams its log into an output channel with the key redacted, reports progress, ends
 * with a notification; a second runner (a reloaded window) re-attaches to a job still running and
 * sees it end; cancel from the progress notification stops the job cleanly.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeVscode, installFakeVscode, recorded } from "./fake-vscode";
import { ProgressWriter } from "../../../src/core/base/runs/progress";
import { waitFor } from "../cli/cli-process";

installFakeVscode();
// Required after the stand-in is installed.
/* eslint-disable @typescript-eslint/no-require-imports */
const { JobRunner } =
  require("../../../src/extension/jobs/job-runner") as typeof import("../../../src/extension/jobs/job-runner");
const { JobsProvider, JobsStatusBar } =
  require("../../../src/extension/jobs/jobs-provider") as typeof import("../../../src/extension/jobs/jobs-provider");
/* eslint-enable @typescript-eslint/no-require-imports */
type Runner = InstanceType<typeof JobRunner>;

const KEY = "tml-runner-test-key-abcdef0123";

/** The stand-in step (fake-step-cli.ts), bundled once: progress from the real ProgressWriter. */
let bundled: Promise<string> | undefined;
function fakeStepCli(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import("esbuild");
    const { NODE_BUNDLE } = await import("../../../scripts/node-bundle.mjs");
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-fake-step-"));
    const out = join(dir, "fake-cli.js");
    await build({
      ...NODE_BUNDLE,
      entryPoints: [join(__dirname, "fake-step-cli.ts")],
      outfile: out,
      logLevel: "error",
    });
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    return out;
  })();
  return bundled;
}

describe("extension: job runner glue (stand-in vscode)", function () {
  this.timeout(30_000);
  let ws: string;
  let cli: string;
  const runners: Runner[] = [];

  function makeRunner(): Runner {
    const context = { asAbsolutePath: () => cli } as unknown as import("vscode").ExtensionContext;
    const workspace = {
      folder: ws,
      requireFolder: () => ws,
      runsDir: () => join(ws, "runs"),
      jobEnv: () => ({ AGENT_LAB_SETTINGS: '{"topK":2}' }),
    };
    const keys = { require: async () => KEY, get: async () => KEY };
    const r = new JobRunner(context, workspace as never, keys as never);
    runners.push(r);
    return r;
  }

  beforeEach(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-runner-"));
    cli = await fakeStepCli();
    recorded.channels.clear();
    recorded.messages.length = 0;
    recorded.progress.length = 0;
    recorded.commands.length = 0;
    recorded.answer = undefined;
  });
  afterEach(() => {
    for (const r of runners.splice(0)) r.dispose();
    rmSync(ws, { recursive: true, force: true });
  });

  it("a paid job gets the key in its environment; the output channel shows the log with the key redacted; done → notification with Open", async () => {
    const runner = makeRunner();
    recorded.answer = (_t, actions) => (actions.includes("Open") ? "Open" : undefined);
    const runDir = join(ws, "runs", "base");
    const job = (await runner.start({
      title: "Evaluate val: base",
      command: ["eval", "12", "10", runDir],
      runDir,
      spendsMoney: true,
      estimateUsd: 1.5,
    }))!;
    assert.equal(job.status.state, "running");
    assert.deepEqual(
      runner.running().map((j) => j.record.id),
      [job.record.id],
    );
    const final = await job.finished;
    assert.equal(final.state, "done");
    const channel = recorded.channels.get("Agent Lab: Evaluate val: base")!;
    await waitFor(() => channel.text.includes("finished"), 5_000, "the whole log in the channel");
    assert.match(
      channel.text,
      /agent-lab fake eval key=\[redacted\]/,
      "the job saw the key; the channel did not show it",
    );
    assert.ok(!channel.text.includes(KEY));
    const progress = recorded.progress.find((p) => p.title === "Agent Lab: Evaluate val: base")!;
    await waitFor(() => progress.done, 5_000, "the progress notification to close");
    // The notification showed the step's own progress.json line, and its bar ended full.
    const messages = progress.reports.map((r) => r.message ?? "");
    assert.ok(
      messages.some((m) => /^GRPO · step \d+\/12 · \$0\.00/.test(m)),
      messages.join(" | "),
    );
    assert.ok(!messages.some((m) => /reward 0\.5/.test(m)), "the log line is not shown while there is progress");
    const increments = progress.reports.reduce((sum, r) => sum + (r.increment ?? 0), 0);
    assert.ok(Math.abs(increments - 100) < 1e-9, `increments add up to ${increments}`);
    await waitFor(() => recorded.commands.length > 0, 5_000, "the Open action");
    const done = recorded.messages.find((m) => m.level === "info" && /finished/.test(m.text))!;
    assert.deepEqual(done.actions, ["Open", "Compare with previous"]);
    assert.match(done.text, /finished\. GRPO · step 12\/12 · \$0\.00 · done$/);
    assert.deepEqual(recorded.commands[0], { id: "agentLab.openResult", args: [join(ws, "runs", "base")] });
    assert.equal(channel.shown, false, "a job that succeeds never pops the Output panel up");
  });

  it("an untrusted workspace runs no job and says how to trust it", async () => {
    const runner = makeRunner();
    recorded.untrusted = true;
    try {
      assert.equal(await runner.start({ title: "Build index", command: ["index", "2", "5"] }), undefined);
    } finally {
      recorded.untrusted = false;
    }
    assert.deepEqual(runner.list(), []);
    const warning = recorded.messages.find((m) => m.level === "warning")!;
    assert.match(warning.text, /needs a trusted workspace/);
    assert.deepEqual(warning.actions, ["Manage Workspace Trust"]);
  });

  it("a free job never gets the key", async () => {
    const runner = makeRunner();
    const job = (await runner.start({ title: "Build index", command: ["index", "2", "5"] }))!;
    await job.finished;
    const channel = recorded.channels.get("Agent Lab: Build index")!;
    await waitFor(() => channel.text.includes("key="), 5_000, "the log");
    assert.match(channel.text, /key=none/);
  });

  it("a failing job ends with an error message offering Show Log", async () => {
    const runner = makeRunner();
    const job = (await runner.start({ title: "Broken", command: ["fail", "2", "5"] }))!;
    const final = await job.finished;
    assert.equal(final.state, "failed");
    assert.match(final.reason!, /exit code 3/);
    await waitFor(() => recorded.messages.some((m) => m.level === "error"), 5_000, "the error message");
    const err = recorded.messages.find((m) => m.level === "error")!;
    assert.match(err.text, /Broken failed \(exit code 3\): finished/);
    assert.deepEqual(err.actions, ["Show Log"]);
    assert.equal(recorded.channels.get("Agent Lab: Broken")!.shown, true, "a failure shows its log");
  });

  it("a reloaded window re-attaches to a running job, follows its progress.json and sees it end", async () => {
    const first = makeRunner();
    const runDir = join(ws, "runs", "long");
    const job = (await first.start({
      title: "Long GRPO",
      command: ["train-grpo", "40", "50", runDir],
      runDir,
      showProgress: false,
    }))!;
    first.dispose(); // the window goes away; the job does not
    const second = makeRunner();
    second.reattach();
    const again = second.get(job.record.id)!;
    assert.ok(again, "found from its record");
    assert.equal(again.status.state, "running");
    await waitFor(() => (second.get(job.record.id)!.progress?.done ?? 0) >= 3, 10_000, "progress from progress.json");
    assert.equal(second.get(job.record.id)!.progress!.planned, 40);
    // The Jobs view and the status bar show the same line.
    const provider = new JobsProvider(second);
    const node = second.get(job.record.id)!;
    const item = provider.getTreeItem(node);
    // Two rows: the title with its state, and under it the progress line (one row was cut off in the sidebar).
    assert.equal(item.label, "Long GRPO");
    assert.equal(item.description, "running");
    const [line] = provider.getChildren(node);
    assert.match(String(provider.getTreeItem(line).label), /^GRPO · step \d+\/40 · \$0\.00( · ETA \d+s)?$/);
    assert.match(String(item.tooltip), /^Long GRPO\nGRPO · step \d+\/40/, "the tooltip holds the whole text");
    const bar = new JobsStatusBar(second, () => 0);
    assert.match(bar.text, /Agent Lab: GRPO · step \d+\/40 · \$0\.00/);
    bar.dispose();
    provider.dispose();
    const final = await again.finished;
    assert.equal(final.state, "done");
  });

  it("a progress.json left by an earlier run of the same folder is not this job's", async () => {
    const runDir = join(ws, "runs", "again");
    mkdirSync(runDir, { recursive: true });
    const old = new ProgressWriter(runDir, {
      step: "train-grpo",
      label: "GRPO",
      unit: "step",
      planned: 9,
      now: () => Date.now() - 60_000,
    });
    old.finish("done", { done: 9 });
    const runner = makeRunner();
    const job = (await runner.start({ title: "Quiet", command: ["index", "3", "200"], runDir, showProgress: false }))!;
    assert.equal(job.progress, undefined, "the old file (done 9/9) is not shown for the new job");
    assert.match(runner.describe(job), /^\d+s$/, "a job without progress shows how long it has run");
    await job.finished;
  });

  it("a pipeline's runs: those whose progress.json says running are live, finished stages are not", async () => {
    const root = join(ws, "runs");
    mkdirSync(join(root, "base"), { recursive: true });
    new ProgressWriter(join(root, "base"), { step: "eval", label: "eval", unit: "question", planned: 5 }).finish(
      "done",
      { done: 5 },
    );
    const runner = makeRunner();
    const job = (await runner.start({
      title: "Pipeline",
      command: ["pipeline", "30", "40", join(root, "grpo")],
      runDir: ws,
      runsRoot: root,
      showProgress: false,
    }))!;
    await waitFor(() => runner.liveRunDirs().has(join(root, "grpo")), 5_000, "the running stage to be live");
    assert.ok(!runner.liveRunDirs().has(join(root, "base")), "a finished stage keeps its own status");
    assert.ok(runner.liveRunDirs().has(ws), "the pipeline's own folder");
    runner.cancel(job);
    await job.finished;
    assert.ok(!runner.liveRunDirs().has(join(root, "grpo")), "nothing is live once the pipeline ended");
  });

  it("cancel from the progress notification stops the job cleanly (cancelled, not failed)", async () => {
    const runner = makeRunner();
    const runDir = join(ws, "runs", "cancel");
    const job = (await runner.start({ title: "To cancel", command: ["train-grpo", "200", "20", runDir], runDir }))!;
    await waitFor(() => (runner.get(job.record.id)!.progress?.done ?? 0) >= 2, 10_000, "some progress");
    recorded.progress.find((p) => p.title === "Agent Lab: To cancel")!.cancel();
    const final = await job.finished;
    assert.equal(final.state, "cancelled");
    await waitFor(
      () => recorded.messages.some((m) => /To cancel stopped\. \d+ steps done are kept/.test(m.text)),
      5_000,
      "the stopped message",
    );
    void fakeVscode;
  });

  it("a stopped job's notification offers Resume: the same command with the step's --resume, same run folder, run to the end", async () => {
    const runner = makeRunner();
    const runDir = join(ws, "runs", "resume");
    recorded.answer = (text, actions) => (/stopped/.test(text) && actions.includes("Resume") ? "Resume" : undefined);
    // 100 steps of 40 ms: long enough that a loaded machine cannot finish it before the cancel.
    const command = ["train-grpo", "100", "40", runDir];
    const job = (await runner.start({ title: "To resume", command, runDir, showProgress: false }))!;
    await waitFor(() => (runner.get(job.record.id)!.progress?.done ?? 0) >= 2, 10_000, "some progress");
    runner.cancel(job);
    assert.equal((await job.finished).state, "cancelled");
    await waitFor(() => runner.list().length === 2, 5_000, "the resumed job");
    const stopped = recorded.messages.find((m) => /To resume stopped/.test(m.text))!;
    assert.deepEqual(stopped.actions, ["Resume", "Show Log"]);
    assert.match(stopped.text, /\d+ steps done are kept; Resume finishes the run\.$/);
    const resumed = runner.list().find((j) => j.record.id !== job.record.id)!;
    assert.deepEqual(resumed.record.command, [...command, "--resume"], "train-grpo's spec has --resume");
    assert.equal(resumed.record.run_dir, runDir);
    assert.equal(resumed.record.title, "To resume");
    assert.equal((await resumed.finished).state, "done");
    assert.equal(resumed.progress?.done, 100);
  });

  it("one status bar item: a job with a progress notification is counted, not repeated; a click opens that job", async () => {
    const runner = makeRunner();
    const runDir = join(ws, "runs", "bar");
    const job = (await runner.start({ title: "Bar", command: ["train-grpo", "200", "20", runDir], runDir }))!;
    await waitFor(() => (runner.get(job.record.id)!.progress?.done ?? 0) >= 2, 10_000, "some progress");
    const bar = new JobsStatusBar(runner, () => 0.5);
    try {
      assert.equal(bar.text, "$(sync~spin) Agent Lab: 1 job · $0.50 today", "the notification's line is not repeated");
      assert.deepEqual(bar.command, { command: "agentLab.openJobLog", title: "Open Log", arguments: [job] });
      runner.cancel(job);
      await job.finished;
      bar.update();
      assert.equal(bar.text, "$(beaker) Agent Lab: no jobs · $0.50 today");
      assert.equal(bar.command!.command, "agentLab.jobs.focus");
    } finally {
      bar.dispose();
    }
  });
});
