/**
 * Every Agent Lab command. Each step runs as a CLI job (`agent-lab <command> …`, see cli-args.ts);
 * nothing heavy runs in the extension host.
 *
 * Command ids and what each does (for the integration tests):
 *   agentLab.prepareData          pick "download from the hub" or local train/dev files → job `prepare`
 *   agentLab.buildIndex           job `index` (BM25 of <dataDir>/corpus.jsonl)
 *   agentLab.searchCorpus         input a query → job `search -- QUERY`, output channel shown
 *   agentLab.evaluate             pick split, model/checkpoint, name, limit → estimate+confirm if tinker → job `eval`
 *   agentLab.evaluateClosedBook   same with --closed-book
 *   agentLab.collectSftData       pick source (model or scripted teacher), questions, tries → job `sft-data`
 *   agentLab.trainSft             pick an SFT data run, epochs, name → job `train-sft`
 *   agentLab.trainGrpo            pick a state checkpoint, steps, name → job `train-grpo`
 *   agentLab.compareRuns          pick a baseline and runs → compare panel
 *   agentLab.openTrace            (episode/run node, or pick run + episode) → trace viewer
 *   agentLab.openDashboard        (training run node, or pick) → training dashboard
 *   agentLab.editSystemPrompt     open the workspace prompt (copied from the shipped default on first use)
 *   agentLab.rerunEvalWithPrompt  rerun a val eval with the current prompt, then compare with it
 *   agentLab.setApiKey / agentLab.clearApiKey   Tinker key in SecretStorage
 *   agentLab.startLocalBackend / agentLab.stopLocalBackend   job `serve-local` / cancel it
 *   agentLab.runOfflinePipeline   job `pipeline --dir agent-lab-pipeline --backend local` (no account, no network)
 *   agentLab.showSpend            today's and total spend per run (output channel + message)
 *   agentLab.refresh              re-read runs, checkpoints, jobs
 * Tree context actions: agentLab.openRun (summary.json; a training run's dashboard), agentLab.compareWith, agentLab.compareWithPrevious,
 *   agentLab.rescoreRun (job `score RUN`), agentLab.resumeRun (the run's own command + --resume),
 *   agentLab.revealRun, agentLab.deleteRun (confirmed), agentLab.evaluateCheckpoint,
 *   agentLab.continueGrpo, agentLab.copyCheckpointPath, agentLab.showTrainingRun,
 *   agentLab.cancelJob, agentLab.openJobLog.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, copyFileSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { CONFIG_FILE } from "../../core/config";
import type { Split } from "../../core/data/question";
import type { CheckpointNode } from "../checkpoints/checkpoints-provider";
import type { CheckpointsProvider } from "../checkpoints/checkpoints-provider";
import * as bridge from "../feature-bridge";
import type { Job, JobRunner } from "../jobs/job-runner";
import { isFinal } from "../jobs/job-state";
import type { LabWorkspace } from "../lab-workspace";
import type { RunsNode, RunsProvider } from "../runs/runs-provider";
import { formatUsd, previousComparableRun, type RunRow } from "../runs/runs-model";
import type { ApiKeyStore } from "../secrets/api-key";
import { spendsMoney } from "../settings/settings-overrides";
import { spendReport } from "../spend";
import * as args from "./cli-args";
import * as estimate from "./estimate";
import * as pick from "./pickers";

export interface Lab {
  context: vscode.ExtensionContext;
  workspace: LabWorkspace;
  keys: ApiKeyStore;
  jobs: JobRunner;
  runs: RunsProvider;
  checkpoints: CheckpointsProvider;
}

/** Folder the offline pipeline writes, inside the workspace. */
export const OFFLINE_DIR = "agent-lab-pipeline"; // the CLI's own default folder

/** Non-blank lines of a file (questions in a split, examples in sft.jsonl); 0 when absent. */
export function countLines(file: string): number {
  if (!existsSync(file)) return 0;
  const buf = readFileSync(file);
  let n = 0;
  let lineHasText = false;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i];
    if (b === 0x0a) {
      if (lineHasText) n++;
      lineHasText = false;
    } else if (b !== 0x20 && b !== 0x0d && b !== 0x09) lineHasText = true;
  }
  return lineHasText ? n + 1 : n;
}

/** A run folder from whatever a command was given: a tree node, a path, or nothing. */
function runFromArg(lab: Lab, arg: unknown): RunRow | undefined {
  const rows = lab.runs.currentRows();
  if (typeof arg === "string") return rows.find((r) => r.dir === path.resolve(arg) || r.name === arg);
  const node = arg as RunsNode | undefined;
  if (node && (node.type === "run")) return node.row;
  if (node && (node.type === "group" || node.type === "episode")) return node.run;
  return undefined;
}

async function confirmSpend(lab: Lab, what: string, est: estimate.Estimate): Promise<boolean> {
  const text = estimate.confirmationText(what, est, lab.workspace.config().budgetUsd);
  const ok = await vscode.window.showWarningMessage(text, { modal: true }, "Start");
  return ok === "Start";
}

function takenRunNames(lab: Lab): Set<string> {
  return new Set(lab.runs.currentRows().map((r) => r.name));
}

async function startEval(lab: Lab, choice: Omit<args.EvalChoice, "backend">, title: string): Promise<Job | undefined> {
  const config = lab.workspace.config();
  const backend = lab.workspace.backend();
  const paid = spendsMoney(backend);
  let est: estimate.Estimate | undefined;
  if (paid) {
    const questions = choice.limit ?? countLines(path.join(lab.workspace.dataDir(config), `${choice.split}.jsonl`));
    est = estimate.estimateEval(config, choice.model ?? config.model, questions, lab.runs.currentRows());
    if (!(await confirmSpend(lab, title, est))) return undefined;
  }
  return lab.jobs.start({
    title,
    command: args.evalArgs({ ...choice, backend }),
    runDir: path.join(lab.workspace.runsDir(config), choice.name),
    spendsMoney: paid,
    estimateUsd: est?.usd,
  });
}

async function evaluate(lab: Lab, closedBook: boolean, preset?: pick.ModelChoice): Promise<void> {
  const title = closedBook ? "Agent Lab: Evaluate Closed-Book" : "Agent Lab: Evaluate";
  const split = await pick.pickSplit(title);
  if (!split) return;
  const config = lab.workspace.config();
  const models = [config.model, ...Object.keys(config.prices).filter((m) => m !== config.model)];
  const model = preset ?? (closedBook ? {} : await pick.pickModel(title, models, lab.checkpoints.rows().rows));
  if (!model) return;
  const taken = takenRunNames(lab);
  const name = await pick.inputRunName(title, args.uniqueRunName(args.defaultEvalName(split, closedBook, model.checkpointName), taken), taken);
  if (!name) return;
  const limit = await pick.inputInt(title, "Questions to run (blank = the whole split)", undefined, true);
  if (limit === null) return;
  await startEval(lab, { name, split, closedBook, limit, modelPath: model.modelPath, model: model.model }, `Evaluate ${split}${closedBook ? " closed-book" : ""}: ${name}`);
}

async function prepareData(lab: Lab): Promise<void> {
  const title = "Agent Lab: Prepare Data";
  const source = await vscode.window.showQuickPick(
    [
      { label: "Download HotpotQA", description: "distractor setting, from the Hugging Face hub", local: false },
      { label: "Use local files…", description: "official JSON lists, JSONL or parquet", local: true },
    ],
    { title },
  );
  if (!source) return;
  let choice: args.PrepareChoice = {};
  if (source.local) {
    const open = (label: string) => vscode.window.showOpenDialog({ title: `${title}: ${label}`, canSelectMany: true, openLabel: label, filters: { HotpotQA: ["json", "jsonl", "parquet"] } });
    const train = await open("Train files");
    if (!train) return;
    const dev = await open("Dev (validation) files");
    if (!dev) return;
    choice = { trainFiles: train.map((u) => u.fsPath), devFiles: dev.map((u) => u.fsPath) };
  }
  await lab.jobs.start({ title: "Prepare data", command: args.prepareArgs(choice) });
}

async function searchCorpus(lab: Lab): Promise<void> {
  const query = await vscode.window.showInputBox({ title: "Agent Lab: Search Corpus", prompt: "BM25 query over the corpus (the agent's search tool)", placeHolder: "Ed Wood director" });
  if (!query?.trim()) return;
  await lab.jobs.start({ title: `Search: ${query.trim().slice(0, 40)}`, command: args.searchArgs(query.trim()), showProgress: false, revealOutput: true });
}

async function collectSftData(lab: Lab): Promise<void> {
  const title = "Agent Lab: Collect SFT Data";
  const config = lab.workspace.config();
  const backend = lab.workspace.backend();
  const source = await vscode.window.showQuickPick(
    [
      { label: "Rejection sampling from the model", description: `backend ${backend}: best of N tries per question`, teacher: false },
      { label: "Scripted teacher", description: "the offline heuristic reader (free)", teacher: true },
    ],
    { title },
  );
  if (!source) return;
  const questions = await pick.inputInt(title, "Train questions to attempt", 1500);
  if (!questions) return;
  const tries = await pick.inputInt(title, "Tries per question", source.teacher ? 1 : 4);
  if (!tries) return;
  const taken = takenRunNames(lab);
  const name = await pick.inputRunName(title, args.uniqueRunName("sft-data", taken), taken);
  if (!name) return;
  const paid = !source.teacher && spendsMoney(backend);
  let est: estimate.Estimate | undefined;
  if (paid) {
    est = estimate.estimateSftData(config, config.model, questions, tries, lab.runs.currentRows());
    if (!(await confirmSpend(lab, `Collecting SFT data (${name})`, est))) return;
  }
  await lab.jobs.start({
    title: `Collect SFT data: ${name}`,
    command: args.sftDataArgs({ name, backend, questions, tries, teacher: source.teacher ? "scripted" : undefined }),
    runDir: path.join(lab.workspace.runsDir(config), name),
    spendsMoney: paid,
    estimateUsd: est?.usd,
  });
}

async function trainSft(lab: Lab): Promise<void> {
  const title = "Agent Lab: Train SFT";
  const config = lab.workspace.config();
  const run = await pick.pickRun(title, lab.runs.currentRows(), (r) => existsSync(path.join(r.dir, "sft.jsonl")));
  if (!run) return;
  const data = path.join(run.dir, "sft.jsonl");
  const epochs = await pick.inputInt(title, "Epochs", 3);
  if (!epochs) return;
  const taken = takenRunNames(lab);
  const name = await pick.inputRunName(title, args.uniqueRunName("sft", taken), taken);
  if (!name) return;
  const backend = lab.workspace.backend();
  const paid = spendsMoney(backend);
  let est: estimate.Estimate | undefined;
  if (paid) {
    est = estimate.estimateTrainSft(config, config.model, countLines(data), epochs);
    if (!(await confirmSpend(lab, `SFT training (${name})`, est))) return;
  }
  await lab.jobs.start({
    title: `Train SFT: ${name}`,
    command: args.trainSftArgs({ name, backend, data, epochs }),
    runDir: path.join(lab.workspace.runsDir(config), name),
    spendsMoney: paid,
    estimateUsd: est?.usd,
  });
}

async function trainGrpo(lab: Lab, preset?: { initState: string; name?: string }): Promise<void> {
  const title = "Agent Lab: Train GRPO";
  const config = lab.workspace.config();
  const from = preset ?? (await pick.pickStateCheckpoint(title, lab.checkpoints.rows().rows));
  if (!from) return;
  const steps = await pick.inputInt(title, "GRPO steps", 30);
  if (!steps) return;
  const taken = takenRunNames(lab);
  const name = await pick.inputRunName(title, args.uniqueRunName(from.name ? `grpo-from-${from.name}` : "grpo", taken), taken);
  if (!name) return;
  const backend = lab.workspace.backend();
  const paid = spendsMoney(backend);
  let est: estimate.Estimate | undefined;
  if (paid) {
    est = estimate.estimateTrainGrpo(config, config.model, steps, lab.runs.currentRows());
    if (!(await confirmSpend(lab, `GRPO training (${name})`, est))) return;
  }
  await lab.jobs.start({
    title: `Train GRPO: ${name}`,
    command: args.trainGrpoArgs({ name, backend, initState: from.initState, steps }),
    runDir: path.join(lab.workspace.runsDir(config), name),
    spendsMoney: paid,
    estimateUsd: est?.usd,
  });
}

async function compareRuns(lab: Lab, first?: RunRow): Promise<void> {
  const rows = lab.runs.currentRows().filter((r) => r.kind === "eval");
  const baseline = first ?? (await pick.pickRun("Agent Lab: Compare Runs — baseline", rows));
  if (!baseline) return;
  const others = await pick.pickRuns("Agent Lab: Compare Runs", rows.filter((r) => r.dir !== baseline.dir), `Compare with ${baseline.name}`);
  if (!others) return;
  await bridge.openComparePanel(lab.context, [baseline.dir, ...others.map((r) => r.dir)]);
}

async function openTrace(lab: Lab, arg: unknown): Promise<void> {
  const node = arg as RunsNode | undefined;
  if (node?.type === "episode") return bridge.openTracePanel(lab.context, node.run.dir, node.episode.id);
  const run = runFromArg(lab, arg) ?? (await pick.pickRun("Agent Lab: Open Trace", lab.runs.currentRows(), (r) => r.kind === "eval"));
  if (!run) return;
  const id = arg === undefined ? await pick.pickEpisode(run) : undefined;
  if (arg === undefined && !id) return;
  await bridge.openTracePanel(lab.context, run.dir, id);
}

async function openDashboard(lab: Lab, arg: unknown): Promise<void> {
  const run = runFromArg(lab, arg) ?? (await pick.pickRun("Agent Lab: Open Training Dashboard", lab.runs.currentRows(), (r) => r.kind === "training"));
  if (run) await bridge.openDashboardPanel(lab.context, run.dir);
}

/** Fallback until the prompt loop lands: copy the shipped prompt into the workspace, record it in agent-lab.json, open it. */
async function editSystemPrompt(lab: Lab): Promise<void> {
  if (await bridge.editSystemPromptFeature(lab)) return;
  const folder = lab.workspace.requireFolder();
  const config = lab.workspace.config();
  let rel = config.systemPromptFile;
  if (!rel) {
    rel = "prompts/system.md";
    const target = path.join(folder, rel);
    if (!existsSync(target)) {
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(lab.context.asAbsolutePath(path.join("data", "prompts", "system.md")), target);
    }
    const file = path.join(folder, CONFIG_FILE);
    const current = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
    writeFileSync(file, JSON.stringify({ ...current, systemPromptFile: rel }, null, 2) + "\n");
  }
  await vscode.window.showTextDocument(vscode.Uri.file(path.resolve(folder, rel)));
}

/** Fallback until the prompt loop lands: rerun a val eval's settings with the current prompt, then compare. */
async function rerunEvalWithPrompt(lab: Lab, arg: unknown): Promise<void> {
  if (await bridge.rerunEvalWithPromptFeature(lab, typeof arg === "string" ? arg : undefined)) return;
  const config = lab.workspace.config();
  const rows = lab.runs.currentRows().filter((r) => r.kind === "eval" && r.manifest && r.summary?.split !== "test");
  const base = runFromArg(lab, arg) ?? (await pick.pickRun("Agent Lab: Rerun Eval With Current Prompt — which eval?", rows));
  if (!base?.manifest) return;
  const m = base.manifest;
  const stamp = new Date().toISOString().replace(/[-:]/g, "").slice(4, 13);
  const name = args.uniqueRunName(`${base.name}-prompt-${stamp}`, takenRunNames(lab));
  const job = await startEval(
    lab,
    {
      name,
      split: m.split.name as Split,
      closedBook: m.search?.closed_book ?? false,
      limit: m.job.limit,
      modelPath: m.policy.checkpoint,
      promptFile: config.systemPromptFile || undefined,
    },
    `Rerun ${base.name} with the current prompt: ${name}`,
  );
  if (!job) return;
  void job.finished.then((s) => (s.state === "done" ? bridge.openComparePanel(lab.context, [base.dir, path.join(lab.workspace.runsDir(), name)]) : undefined));
}

function localBackendJob(lab: Lab): Job | undefined {
  return lab.jobs.running().find((j) => j.record.command[0] === "serve-local");
}

async function startLocalBackend(lab: Lab): Promise<void> {
  if (localBackendJob(lab)) {
    void vscode.window.showInformationMessage("Agent Lab: the local backend is already running (see the Jobs view).");
    return;
  }
  await lab.jobs.start({ title: "Local backend (stand-in for Tinker)", command: args.serveLocalArgs(lab.workspace.localBackendPort()), showProgress: false });
}

async function stopLocalBackend(lab: Lab): Promise<void> {
  const job = localBackendJob(lab);
  if (!job) {
    void vscode.window.showInformationMessage("Agent Lab: no local backend started from this workspace is running.");
    return;
  }
  lab.jobs.cancel(job);
}

async function showSpend(lab: Lab, channel: vscode.OutputChannel): Promise<void> {
  const report = spendReport(lab.workspace.runsDir());
  channel.clear();
  channel.appendLine("Agent Lab spend (from run ledgers, or summaries where a run has no ledger; upper bounds: no prefix cache)");
  channel.appendLine(`  ${"run".padEnd(32)} ${"total".padStart(10)} ${"today".padStart(10)}  source`);
  for (const r of report.perRun) channel.appendLine(`  ${r.name.padEnd(32)} ${formatUsd(r.usd).padStart(10)} ${formatUsd(r.todayUsd).padStart(10)}  ${r.source}`);
  channel.appendLine(`  ${"all runs".padEnd(32)} ${formatUsd(report.totalUsd).padStart(10)} ${formatUsd(report.todayUsd).padStart(10)}`);
  const pickShow = await vscode.window.showInformationMessage(`Agent Lab: ${formatUsd(report.todayUsd)} today, ${formatUsd(report.totalUsd)} in all runs.`, "Show Details");
  if (pickShow) channel.show(true);
}

async function deleteRun(lab: Lab, arg: unknown): Promise<void> {
  const run = runFromArg(lab, arg);
  if (!run) return;
  if (lab.jobs.liveRunDirs().has(run.dir)) {
    void vscode.window.showWarningMessage(`Agent Lab: a job is writing ${run.name}; cancel it first.`);
    return;
  }
  const ok = await vscode.window.showWarningMessage(`Delete the run "${run.name}" and all its files?`, { modal: true, detail: run.dir }, "Delete");
  if (ok !== "Delete") return;
  const uri = vscode.Uri.file(run.dir);
  try {
    await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: true });
  } catch {
    await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: false }); // no trash on this file system (remote, web)
  }
  lab.runs.refresh();
}

async function resumeRun(lab: Lab, arg: unknown): Promise<void> {
  const run = runFromArg(lab, arg);
  const command = run?.manifest?.job?.command;
  if (!run || !command) {
    void vscode.window.showWarningMessage("Agent Lab: this run has no recorded command to resume.");
    return;
  }
  const cliArgs = command[0] === "agent-lab" ? command.slice(1) : command;
  const resumed = [...cliArgs.filter((a) => a !== "--resume"), "--resume"];
  const paid = resumed.includes("--backend") && resumed[resumed.indexOf("--backend") + 1] === "tinker";
  if (paid) {
    const config = lab.workspace.config();
    const left = Math.max(0, (run.summary?.planned ?? 0) - (run.summary?.n ?? 0));
    if (!(await confirmSpend(lab, `Resuming ${run.name}`, estimate.estimateEval(config, config.model, left, lab.runs.currentRows())))) return;
  }
  await lab.jobs.start({ title: `Resume ${run.name}`, command: resumed, runDir: run.dir, spendsMoney: paid });
}

type CheckpointEntryNode = Extract<CheckpointNode, { type: "checkpoint" | "detail" }>;

function checkpointFrom(arg: unknown): CheckpointEntryNode | undefined {
  const node = arg as CheckpointNode | undefined;
  return node && (node.type === "checkpoint" || node.type === "detail") ? (node as CheckpointEntryNode) : undefined;
}

async function copyCheckpointPath(arg: unknown): Promise<void> {
  const node = checkpointFrom(arg);
  if (!node) return;
  let value: string | undefined;
  if (node.type === "detail") value = node.value;
  else {
    const choices = [
      ...(node.row.entry.sampler_path ? [{ label: "Sampler path", description: node.row.entry.sampler_path, value: node.row.entry.sampler_path }] : []),
      ...(node.row.entry.state_path ? [{ label: "State path", description: node.row.entry.state_path, value: node.row.entry.state_path }] : []),
    ];
    value = choices.length === 1 ? choices[0].value : (await vscode.window.showQuickPick(choices, { title: `Copy a path of ${node.row.entry.name}` }))?.value;
  }
  if (!value) return;
  await vscode.env.clipboard.writeText(value);
  void vscode.window.setStatusBarMessage(`Agent Lab: copied ${value}`, 3000);
}

async function pickJob(lab: Lab, running: boolean): Promise<Job | undefined> {
  const jobs = running ? lab.jobs.running() : lab.jobs.list();
  if (jobs.length === 0) {
    void vscode.window.showInformationMessage(`Agent Lab: no ${running ? "running " : ""}jobs.`);
    return undefined;
  }
  return (await vscode.window.showQuickPick(jobs.map((j) => ({ label: j.record.title, description: j.status.state, job: j })), { title: "Agent Lab: Jobs" }))?.job;
}

function isJob(arg: unknown): arg is Job {
  return typeof arg === "object" && arg !== null && "record" in arg && "status" in arg;
}

/** Registers every command; errors become one clear message instead of a silent failure. */
export function registerCommands(lab: Lab): vscode.Disposable[] {
  const spendChannel = vscode.window.createOutputChannel("Agent Lab: Spend");
  const guard =
    (id: string, fn: (...a: unknown[]) => unknown) =>
    async (...a: unknown[]) => {
      try {
        await fn(...a);
      } catch (e) {
        void vscode.window.showErrorMessage(`Agent Lab: ${(e as Error).message}`);
        console.error(`agentLab command ${id} failed`, e);
      }
    };
  const table: Record<string, (...a: unknown[]) => unknown> = {
    "agentLab.prepareData": () => prepareData(lab),
    "agentLab.buildIndex": () => lab.jobs.start({ title: "Build search index", command: args.indexArgs() }),
    "agentLab.searchCorpus": () => searchCorpus(lab),
    "agentLab.evaluate": () => evaluate(lab, false),
    "agentLab.evaluateClosedBook": () => evaluate(lab, true),
    "agentLab.collectSftData": () => collectSftData(lab),
    "agentLab.trainSft": () => trainSft(lab),
    "agentLab.trainGrpo": () => trainGrpo(lab),
    "agentLab.compareRuns": () => compareRuns(lab),
    "agentLab.openTrace": (a) => openTrace(lab, a),
    "agentLab.openDashboard": (a) => openDashboard(lab, a),
    "agentLab.editSystemPrompt": () => editSystemPrompt(lab),
    "agentLab.rerunEvalWithPrompt": (a) => rerunEvalWithPrompt(lab, a),
    "agentLab.setApiKey": () => lab.keys.promptAndStore(),
    "agentLab.clearApiKey": () => lab.keys.clear(),
    "agentLab.startLocalBackend": () => startLocalBackend(lab),
    "agentLab.stopLocalBackend": () => stopLocalBackend(lab),
    "agentLab.runOfflinePipeline": () =>
      lab.jobs.start({ title: "Offline pipeline (local backend, synthetic data)", command: args.offlinePipelineArgs(OFFLINE_DIR), revealOutput: true }),
    "agentLab.showSpend": () => showSpend(lab, spendChannel),
    "agentLab.refresh": () => {
      lab.runs.refresh();
      lab.checkpoints.refresh();
      lab.jobs.reattach();
    },
    // Runs view context actions
    "agentLab.openRun": async (a) => {
      const run = runFromArg(lab, a) ?? (await pick.pickRun("Agent Lab: Open Summary", lab.runs.currentRows()));
      if (!run) return;
      if (run.kind === "training") return bridge.openDashboardPanel(lab.context, run.dir);
      const summary = path.join(run.dir, "summary.json");
      if (existsSync(summary)) await vscode.window.showTextDocument(vscode.Uri.file(summary), { preview: true });
      else await vscode.commands.executeCommand("revealInExplorer", vscode.Uri.file(run.dir));
    },
    "agentLab.compareWith": (a) => compareRuns(lab, runFromArg(lab, a)),
    "agentLab.compareWithPrevious": async (a) => {
      const run = runFromArg(lab, a);
      if (!run) return;
      const prev = previousComparableRun(lab.runs.currentRows(), run.dir);
      if (!prev) {
        void vscode.window.showInformationMessage(`Agent Lab: no earlier eval run on the same split to compare ${run.name} with.`);
        return;
      }
      await bridge.openComparePanel(lab.context, [prev.dir, run.dir]);
    },
    "agentLab.rescoreRun": (a) => {
      const run = runFromArg(lab, a);
      return run && lab.jobs.start({ title: `Rescore ${run.name}`, command: args.rescoreArgs(run.dir), runDir: run.dir });
    },
    "agentLab.resumeRun": (a) => resumeRun(lab, a),
    "agentLab.revealRun": (a) => {
      const run = runFromArg(lab, a);
      return run && vscode.commands.executeCommand("revealInExplorer", vscode.Uri.file(run.dir));
    },
    "agentLab.deleteRun": (a) => deleteRun(lab, a),
    // Checkpoints view context actions
    "agentLab.evaluateCheckpoint": async (a) => {
      const node = checkpointFrom(a);
      const entry = node?.row.entry;
      if (!entry?.sampler_path) {
        void vscode.window.showWarningMessage("Agent Lab: this checkpoint has no sampler path to evaluate.");
        return;
      }
      const taken = takenRunNames(lab);
      const name = await pick.inputRunName("Agent Lab: Evaluate Checkpoint on val", args.uniqueRunName(entry.name, taken), taken);
      if (!name) return;
      await startEval(lab, { name, split: "val", modelPath: entry.sampler_path }, `Evaluate val: ${name}`);
    },
    "agentLab.continueGrpo": (a) => {
      const entry = checkpointFrom(a)?.row.entry;
      if (!entry?.state_path) {
        void vscode.window.showWarningMessage("Agent Lab: this checkpoint has no training state to continue from.");
        return;
      }
      return trainGrpo(lab, { initState: entry.state_path, name: entry.name });
    },
    "agentLab.copyCheckpointPath": (a) => copyCheckpointPath(a),
    "agentLab.showTrainingRun": async (a) => {
      const entry = checkpointFrom(a)?.row.entry;
      if (!entry?.run) {
        void vscode.window.showInformationMessage("Agent Lab: the registry does not name this checkpoint's training run.");
        return;
      }
      const dir = path.isAbsolute(entry.run) ? entry.run : path.join(lab.workspace.runsDir(), path.basename(entry.run));
      await bridge.openDashboardPanel(lab.context, dir);
    },
    // Jobs view
    "agentLab.cancelJob": async (a) => {
      const job = isJob(a) ? a : await pickJob(lab, true);
      if (job && !isFinal(job.status.state)) lab.jobs.cancel(job);
    },
    "agentLab.openJobLog": async (a) => {
      const job = isJob(a) ? a : await pickJob(lab, false);
      if (job) lab.jobs.showLog(job);
    },
  };
  return [spendChannel, ...Object.entries(table).map(([id, fn]) => vscode.commands.registerCommand(id, guard(id, fn)))];
}
