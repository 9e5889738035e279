/**
 * Jobs end to end: "Agent Lab: Evaluate…" run as a command with its quick picks and input boxes
 * answered by a script, on the local backend (the workspace default: free, offline). The job is a
 * real `dist/cli.js eval` child process; the Runs view, the job's state and the notification are
 * checked as they change. Then a longer eval is cancelled part-way and must keep its episodes.
 */
import * as assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { Lab } from "../../src/extension/register-commands";
import type { Job } from "../../src/extension/jobs/job-runner";
import { activeExports, answerUi, labelOf, treeRows, waitFor, workspaceDir, type UiScript } from "./helpers";

function episodeLines(run: string): string[] {
  const file = join(workspaceDir(), "runs", run, "episodes.jsonl");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}

/** Answers the Evaluate command's prompts: the workspace's default environment, split val, the base model, run name, question limit. */
function evaluateAnswers(name: string, limit: number, info?: UiScript["info"]) {
  return answerUi({
    info,
    quickPick: (items) =>
      items.find((i) => i.label === "val") ??
      items.find((i) => i.label.includes("Base model")) ??
      items.find((i) => /^default/.test(i.description ?? "")),
    inputBox: (o) =>
      /run folder name/i.test(o.prompt ?? "") ? name : /questions/i.test(o.prompt ?? "") ? String(limit) : undefined,
  });
}

async function jobFor(lab: Lab, run: string): Promise<Job> {
  return waitFor(
    `a job writing runs/${run}`,
    () => lab.jobs.list().find((j) => j.record.run_dir?.endsWith(`/${run}`)),
    10_000,
  );
}

describe("eval jobs launched by command (local backend)", function () {
  this.timeout(120_000);
  let lab: Lab;
  before(async () => {
    lab = await activeExports<Lab>();
  });

  it("Evaluate… runs a short eval to the end: job done, run in the Runs view, notification", async () => {
    const name = "it-eval";
    const ui = evaluateAnswers(name, 3);
    try {
      await vscode.commands.executeCommand("agentLab.evaluate");
      assert.deepEqual(ui.messages("error"), []);
      const job = await jobFor(lab, name);
      assert.deepEqual(job.record.command.slice(0, 1), ["eval"]);
      const status = await Promise.race([
        job.finished,
        new Promise<never>((_, no) => setTimeout(() => no(new Error("eval job did not finish in 90 s")), 90_000)),
      ]);
      assert.equal(status.state, "done", `job ended ${status.state}: ${status.reason ?? ""}`);
      assert.equal(episodeLines(name).length, 3, "3 episodes written");
      const summary = JSON.parse(readFileSync(join(workspaceDir(), "runs", name, "summary.json"), "utf8")) as {
        n: number;
        status: string;
      };
      assert.equal(summary.n, 3);
      assert.equal(summary.status, "done");
      const row = await waitFor(
        "the run in the Runs view",
        async () => (await treeRows(lab.runs)).find((r) => labelOf(r.item) === name),
        10_000,
      );
      assert.match(String(row.item.description), /n=3\b/);
      await waitFor(
        "the job-finished notification",
        () => ui.messages("info").find((m) => m.includes(name) && /finished/.test(m)),
        10_000,
      );
      assert.deepEqual(ui.shownChannels, [], "a job that succeeds does not pop the Output panel up");
    } finally {
      ui.restore();
    }
  });

  it("cancelling an eval mid-way stops it and keeps every episode already written; Resume finishes it", async function () {
    this.timeout(240_000);
    const name = "it-cancel";
    // One episode at a time so the job is surely mid-way when cancelled.
    await vscode.workspace.getConfiguration("agentLab").update("concurrency", 1, vscode.ConfigurationTarget.Workspace);
    // The stopped notification's Resume is pressed once the test has checked what was kept.
    let pressResume: (button: string | undefined) => void = () => {};
    const resumePressed = new Promise<string | undefined>((r) => (pressResume = r));
    const ui = evaluateAnswers(name, 150, (m) => (m.includes(name) && /stopped/.test(m) ? resumePressed : undefined));
    try {
      await vscode.commands.executeCommand("agentLab.evaluate");
      const job = await jobFor(lab, name);
      await waitFor("2 episodes written", () => episodeLines(name).length >= 2, 60_000, 50);
      // The Runs view follows the job live (file watcher): the run shows up as running.
      await waitFor(
        "the run shown as running in the Runs view",
        async () =>
          (await treeRows(lab.runs)).find(
            (r) => labelOf(r.item) === name && /running/.test(String(r.item.description)),
          ),
        15_000,
      );
      await vscode.commands.executeCommand("agentLab.cancelJob", job);
      const status = await Promise.race([
        job.finished,
        new Promise<never>((_, no) => setTimeout(() => no(new Error("cancelled job did not end in 30 s")), 30_000)),
      ]);
      assert.equal(status.state, "cancelled");
      const lines = episodeLines(name);
      assert.ok(lines.length >= 2 && lines.length < 150, `kept ${lines.length} episodes`);
      for (const l of lines) JSON.parse(l); // every kept line is whole
      const summary = JSON.parse(readFileSync(join(workspaceDir(), "runs", name, "summary.json"), "utf8")) as {
        n: number;
        status: string;
      };
      assert.equal(summary.n, lines.length, "the summary counts the kept episodes");
      assert.equal(summary.status, "interrupted");
      await waitFor(
        "the run shown as interrupted in the Runs view",
        async () =>
          (await treeRows(lab.runs)).find(
            (r) => labelOf(r.item) === name && /interrupted/.test(String(r.item.description)),
          ),
        15_000,
      );
      await waitFor(
        "the job-stopped notification",
        () => ui.messages("info").find((m) => m.includes(name) && /stopped/.test(m)),
        10_000,
      );
      const stopped = ui.calls.find((c) => c.kind === "info" && c.text.includes(name) && /stopped/.test(c.text))!;
      assert.deepEqual(stopped.buttons, ["Resume", "Show Log"]);
      // Resume: the same eval with --resume (every other argument kept) runs the rest to the end.
      await vscode.workspace
        .getConfiguration("agentLab")
        .update("concurrency", undefined, vscode.ConfigurationTarget.Workspace);
      pressResume("Resume");
      const resumed = await waitFor(
        "the resumed job",
        () => lab.jobs.list().find((j) => j.record.id !== job.record.id && j.record.run_dir === job.record.run_dir),
        10_000,
      );
      assert.deepEqual(resumed.record.command, [...job.record.command, "--resume"]);
      const again = await Promise.race([
        resumed.finished,
        new Promise<never>((_, no) => setTimeout(() => no(new Error("resumed job did not finish in 180 s")), 180_000)),
      ]);
      assert.equal(again.state, "done", `resumed job ended ${again.state}: ${again.reason ?? ""}`);
      const done = JSON.parse(readFileSync(join(workspaceDir(), "runs", name, "summary.json"), "utf8")) as {
        n: number;
        status: string;
      };
      assert.equal(done.n, 150, "the resumed run has every question");
      assert.equal(done.status, "done");
      assert.deepEqual(ui.shownChannels, [], "neither job popped the Output panel up");
    } finally {
      pressResume(undefined);
      ui.restore();
      await vscode.workspace
        .getConfiguration("agentLab")
        .update("concurrency", undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
