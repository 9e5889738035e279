/**
 * GSM8K from nothing, in an empty folder, as a person clicks it through: Evaluate… on GSM8K first
 * says its data is missing (one message offering Prepare Data, no prompt after it); Prepare Data
 * with a torn local file fails with the CLI's one line, shown once; Prepare Data → GSM8K → local
 * files (the open dialogs answered with GSM8K's train and test JSONL: ../shared/data/gsm8k, or the
 * unit tests' fixture twin where that is absent) → the job writes the splits; Evaluate… gsm8k on
 * the local backend twice → two runs in the Runs view; Compare offers only GSM8K runs for the
 * second pick and shows accuracy and McNemar.
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentLabApi } from "../../../src/extension/extension";
import { writeFixtureTwin } from "../../unit/core/envs/gsm8k/fixture";
import {
  activeExports,
  agentLabExtension,
  answerUi,
  labelOf,
  probeUntil,
  settle,
  treeRows,
  waitFor,
  workspaceDir,
} from "../helpers";

type WindowApi = { -readonly [K in keyof typeof vscode.window]: (typeof vscode.window)[K] };

/** Answers the extension's open dialogs with `answers` in order (undefined = cancelled); records their titles. */
function answerOpenDialogs(answers: (string[] | undefined)[]): { titles: string[]; restore(): void } {
  const w = vscode.window as WindowApi;
  const saved = w.showOpenDialog;
  const titles: string[] = [];
  w.showOpenDialog = (async (o?: vscode.OpenDialogOptions) => {
    titles.push(o?.title ?? "");
    return answers.shift()?.map((p) => vscode.Uri.file(p));
  }) as typeof w.showOpenDialog;
  return { titles, restore: () => (w.showOpenDialog = saved) };
}

/** GSM8K's official train and test JSONL from ../shared, or the fixture twin written into the folder. */
function gsm8kFiles(): { train: string; test: string; from: string } {
  const shared = join(agentLabExtension().extensionPath, "..", "shared", "data", "gsm8k");
  const train = join(shared, "train.jsonl");
  const test = join(shared, "test.jsonl");
  if (existsSync(train) && existsSync(test)) return { train, test, from: "../shared/data/gsm8k" };
  console.log("      ../shared/data/gsm8k is absent: the GSM8K fixture twin instead");
  return { ...writeFixtureTwin(join(workspaceDir(), "raw-gsm8k")), from: "the fixture twin" };
}

describe("GSM8K from an empty folder: Prepare Data, Evaluate…, Compare (real VS Code)", function () {
  this.timeout(240_000);
  let lab: AgentLabApi;
  /** The job a command started: the first of `command` (naming `name`) not in `known` (ids of jobs from before). */
  const started = (command: string, known: ReadonlySet<string>, name?: string) =>
    waitFor(
      `the ${command} job${name ? ` ${name}` : ""}`,
      () =>
        lab.jobs
          .list()
          .find(
            (j) =>
              !known.has(j.record.id) && j.record.command[0] === command && (!name || j.record.command.includes(name)),
          ),
      10_000,
    );
  const jobIds = () => new Set(lab.jobs.list().map((j) => j.record.id));
  before(async () => {
    lab = await activeExports<AgentLabApi>();
  });
  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("Evaluate… on GSM8K with no data: one message offering Prepare Data, and no prompt after it", async () => {
    const ui = answerUi({ quickPick: (items) => items.find((i) => i.label === "gsm8k") });
    // Earlier tests in this window ran evals of their own (the Checkpoints sidebar's Evaluate missing).
    const evalJobs = () => lab.jobs.list().filter((j) => j.record.command[0] === "eval").length;
    const evalsBefore = evalJobs();
    try {
      await vscode.commands.executeCommand("agentLab.evaluate");
      assert.equal(ui.calls.filter((c) => c.kind === "quickPick").length, 1, "only the environment was asked");
      assert.deepEqual(
        ui.calls.filter((c) => c.kind !== "quickPick").map((c) => [c.kind, c.text, c.buttons]),
        [
          [
            "warning",
            "Agent Lab: gsm8k has no prepared data (nothing in data/gsm8k). Evaluate reads it: prepare it first.",
            ["Prepare Data"],
          ],
        ],
      );
      assert.equal(evalJobs(), evalsBefore, "no eval job started");
    } finally {
      ui.restore();
    }
  });

  it("Prepare Data with a torn train file: the job fails with the CLI's one line, shown once; no data written", async () => {
    const files = gsm8kFiles();
    const torn = join(workspaceDir(), "raw-torn", "train.jsonl");
    mkdirSync(join(workspaceDir(), "raw-torn"), { recursive: true });
    writeFileSync(torn, '{"question": "Rosa has 3 marbles.", "answer": "#### 3"}\n{"question": "Ros');
    const ui = answerUi({
      quickPick: (items) => items.find((i) => i.label === "gsm8k") ?? items.find((i) => i.label === "Use local files…"),
    });
    const dialogs = answerOpenDialogs([[torn], [files.test]]);
    const known = jobIds();
    try {
      await vscode.commands.executeCommand("agentLab.prepareData");
      const job = await started("prepare", known);
      const status = await settle(job, 60_000, "prepare");
      assert.equal(status.state, "failed");
      const errors = await waitFor("the failure message", () => {
        const e = ui.messages("error");
        return e.length ? e : undefined;
      });
      await new Promise((r) => setTimeout(r, 500)); // a second one would have come by now
      assert.equal(ui.messages("error").length, 1, ui.messages("error").join(" | "));
      assert.match(
        errors[0],
        /^Agent Lab: Prepare gsm8k data failed \([^)]*\): agent-lab prepare: .*train\.jsonl:2: not valid JSON/,
      );
      assert.ok(!existsSync(join(workspaceDir(), "data", "gsm8k", "splits.json")), "no data from a torn file");
    } finally {
      ui.restore();
      dialogs.restore();
    }
  });

  it("Prepare Data → gsm8k → local files: the job writes GSM8K's splits", async () => {
    const files = gsm8kFiles();
    const ui = answerUi({
      quickPick: (items) => items.find((i) => i.label === "gsm8k") ?? items.find((i) => i.label === "Use local files…"),
    });
    const dialogs = answerOpenDialogs([[files.train], [files.test]]);
    const known = jobIds();
    try {
      await vscode.commands.executeCommand("agentLab.prepareData");
      assert.deepEqual(dialogs.titles, [
        "Agent Lab: Prepare Data (gsm8k): Train files",
        "Agent Lab: Prepare Data (gsm8k): Test files",
      ]);
      const job = await started("prepare", known);
      assert.deepEqual(job.record.command, ["prepare", "--env", "gsm8k", "--train", files.train, "--test", files.test]);
      const status = await settle(job, 60_000, "prepare");
      assert.equal(status.state, "done", `${status.reason ?? ""} ${job.lastLine ?? ""}`);
      for (const f of ["train.jsonl", "val.jsonl", "test.jsonl", "splits.json"])
        assert.ok(existsSync(join(workspaceDir(), "data", "gsm8k", f)), `data/gsm8k/${f} (from ${files.from})`);
      assert.deepEqual(ui.messages("error"), []);
    } finally {
      ui.restore();
      dialogs.restore();
    }
  });

  it("Evaluate… gsm8k on the local backend, twice: two runs; Compare offers only GSM8K runs and shows accuracy and McNemar", async () => {
    for (const name of ["it-gsm8k-a", "it-gsm8k-b"]) {
      const ui = answerUi({
        quickPick: (items) =>
          items.find((i) => i.label === "gsm8k") ??
          items.find((i) => i.label === "val") ??
          items.find((i) => /Base model/.test(i.label)),
        inputBox: (o) =>
          /run folder name/i.test(o.prompt ?? "") ? name : /questions to run/i.test(o.prompt ?? "") ? "4" : undefined,
      });
      const known = jobIds();
      try {
        await vscode.commands.executeCommand("agentLab.evaluate");
        assert.deepEqual(
          ui.messages("warning"),
          [],
          "the data is there now: no message, and local is free: no confirmation",
        );
        const job = await started("eval", known, name);
        const argv = job.record.command.join(" ");
        assert.ok(
          argv.includes("--env gsm8k") && argv.includes("--backend local") && argv.includes("--split val"),
          argv,
        );
        const status = await settle(job, 120_000, `eval ${name}`);
        assert.equal(status.state, "done", `${status.reason ?? ""} ${job.lastLine ?? ""}`);
      } finally {
        ui.restore();
      }
      await waitFor(
        `${name} in the Runs view`,
        async () => (await treeRows(lab.runs)).find((r) => labelOf(r.item) === name),
        15_000,
      );
    }

    const seconds: string[][] = [];
    const ui = answerUi({
      quickPick: (items, options) => {
        if (!options?.canPickMany) return items.find((i) => i.label === "it-gsm8k-a");
        seconds.push(items.map((i) => i.label));
        return items.filter((i) => i.label === "it-gsm8k-b");
      },
    });
    try {
      await vscode.commands.executeCommand("agentLab.compareRuns");
    } finally {
      ui.restore();
    }
    assert.deepEqual(ui.messages("error"), []);
    const eligible = (await treeRows(lab.runs))
      .filter((r) => String(r.item.description ?? "").startsWith("gsm8k ·") && labelOf(r.item) !== "it-gsm8k-a")
      .map((r) => labelOf(r.item))
      .sort();
    assert.deepEqual([...seconds[0]].sort(), eligible, "the second pick: the other GSM8K evals only");
    assert.ok(seconds[0].includes("it-gsm8k-b"));
    const r = await probeUntil(
      "compare",
      ["#ablation-table thead th", "#ablation-table tbody tr"],
      (x) => x[1].count === 2,
      "the GSM8K comparison",
    );
    const heads = r.results[0].text.split("\n");
    assert.ok(heads.includes("accuracy [95% CI]"), heads.join(" | "));
    assert.ok(heads.includes("McNemar b/c"), heads.join(" | "));
    assert.ok(!heads.some((h) => /\bF1\b|\bEM\b/.test(h)), `no F1/EM: ${heads.join(" | ")}`);
    assert.match(r.results[1].text, /it-gsm8k-b/);
    console.log(`      compare: ${heads.join(" | ")}`);
  });
});
