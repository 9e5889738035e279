/**
 * Comparing checkpoints: the Checkpoints sidebar's actions and the trees' Compare Selected.
 *
 *   agentLab.compareSelectedCheckpoints  (Checkpoints tree, two or more selected) → the Compare panel on their
 *                                        fingerprint-matched val evals (the first is the baseline), and the
 *                                        sidebar on their runs with them ticked and the first as its baseline
 *   agentLab.compareSelectedRuns         (Runs tree, several selected) training runs → the sidebar shows those;
 *                                        eval runs → the Compare panel on them (as Compare With… does)
 *   agentLab.chooseCheckpointRuns        pick the training runs the sidebar shows
 *   agentLab.evaluateMissingCheckpoints  every shown checkpoint without a matched val eval: one estimate and one
 *                                        confirmation for all, then Evaluate on Val's job for each, one after
 *                                        another (the rows fill as each finishes)
 *   agentLab.openCheckpointsCompare      "Open full Compare": the baseline and every scored row in the Compare panel
 *                                        (the view's "Compare selected": the ticked checkpoints)
 */
import { basename, join } from "node:path";
import * as vscode from "vscode";
import type { EVAL_STEP } from "../../core/steps/catalog/catalog";
import { formatUsd } from "../../core/steps/specs/estimate";
import type { CheckpointNode } from "../checkpoints/checkpoints-provider";
import { CheckpointsSidebar } from "../checkpoints/checkpoints-sidebar";
import { openCompare } from "../panels";
import type { RunsNode } from "../runs/runs-provider";
import { uniqueRunName } from "./cli-args";
import { environmentRunName } from "./environment-choices";
import { checkpointEvalEnvironment, checkpointEvalJob } from "./eval-commands";
import { runFromArg, startStep, takenRunNames, type CommandTable, type Lab, type StepJob } from "./lab";
import { ensureEnvironmentData } from "./prepare-flow";
import { planStep } from "./step-plan";

/** The sidebar's view model, loaded when first asked (it reads eval runs; activation must not load it). */
const sidebarView = () => import("../../core/views/checkpoints/sidebar-view");

/** Brings the sidebar view into sight (VS Code's own focus command for a contributed view). */
async function focusSidebar(): Promise<void> {
  await vscode.commands.executeCommand(`${CheckpointsSidebar.viewId}.focus`);
}

/** The tree's clicked node and its selection (VS Code passes both to a multi-select command). */
function selectedNodes<T>(arg: unknown, selected: unknown): T[] {
  if (Array.isArray(selected) && selected.length > 0) return selected as T[];
  return arg === undefined ? [] : [arg as T];
}

async function compareCheckpoints(lab: Lab, sidebar: CheckpointsSidebar, names: string[]): Promise<void> {
  if (names.length < 2) {
    void vscode.window.showWarningMessage(
      "Agent Lab: select two or more checkpoints to compare (Ctrl/Cmd-click in the Checkpoints view).",
    );
    return;
  }
  const { matchedEvals, checkpointBaseline } = await sidebarView();
  const { dirs, missing } = matchedEvals(lab.workspace.runsDir(), names);
  const runs = [
    ...new Set(
      names.flatMap((n) => {
        const run = lab.checkpoints.rows().rows.find((r) => r.entry.name === n)?.entry.run;
        return run ? [basename(run)] : [];
      }),
    ),
  ];
  sidebar.show(runs, names, missing.includes(names[0]) ? undefined : checkpointBaseline(names[0]));
  await focusSidebar();
  if (missing.length > 0) {
    void vscode.window.showWarningMessage(
      `Agent Lab: ${missing.join(", ")} ${missing.length === 1 ? "has" : "have"} no val eval with the training run's settings: Evaluate missing in the Checkpoints sidebar first.`,
    );
    return;
  }
  await openCompare(lab.context, dirs, "checkpoint");
}

async function compareSelectedRuns(
  lab: Lab,
  sidebar: CheckpointsSidebar,
  arg: unknown,
  selected: unknown,
): Promise<void> {
  const picked = selectedNodes<RunsNode | string>(arg, selected).flatMap((node) => {
    const row = runFromArg(lab, node);
    return row ? [{ node, row }] : [];
  });
  const training = picked.filter((p) => p.row.kind === "training").map((p) => p.row);
  const evals = picked.filter((p) => p.row.kind === "eval").map((p) => p.node);
  if (training.length > 0) {
    sidebar.show(training.map((r) => r.name));
    await focusSidebar();
  }
  // Compare With… takes the nodes (or names) as the tree gives them.
  if (evals.length >= 2) await vscode.commands.executeCommand("agentLab.compareWith", evals[0], evals);
  if (training.length === 0 && evals.length < 2)
    void vscode.window.showWarningMessage(
      "Agent Lab: select training runs (their checkpoints go to the Checkpoints sidebar) or two or more eval runs.",
    );
}

async function chooseRuns(lab: Lab, sidebar: CheckpointsSidebar): Promise<void> {
  const all = (await sidebarView()).trainingRuns(lab.workspace.runsDir());
  if (all.length === 0) {
    void vscode.window.showInformationMessage("Agent Lab: no training run has saved a checkpoint yet.");
    return;
  }
  const chosen = new Set(sidebar.chosenRuns.length ? sidebar.chosenRuns : all.map((r) => r.name));
  const picks = await vscode.window.showQuickPick(
    all.map((r) => ({ label: r.name, description: r.kind, picked: chosen.has(r.name) })),
    { title: "Agent Lab: Checkpoints of which training runs?", canPickMany: true },
  );
  if (!picks) return;
  sidebar.show(picks.map((p) => p.label));
}

/** One confirmation for every eval, in words the user can check against the list. */
function confirmText(names: string[], usd: number | undefined, basis: string | undefined, budgetUsd: number): string {
  const what = `Evaluate ${names.length} checkpoint${names.length === 1 ? "" : "s"} on val (${names.join(", ")})`;
  const order = "They run one after another; each row fills in as its eval finishes.";
  if (usd === undefined) return `${what}: no charge (the workspace's backend is not Tinker). ${order}`;
  const cap =
    budgetUsd > 0
      ? `The budget cap of $${budgetUsd.toFixed(2)} stops a job cleanly before it would go over.`
      : "No budget cap is set (setting agentLab.budgetUsd).";
  return `${what} bills your Tinker account: about ${formatUsd(usd)} in all (upper bound; ${basis}). ${cap} ${order}`;
}

async function evaluateMissing(lab: Lab, sidebar: CheckpointsSidebar): Promise<void> {
  const entries = lab.checkpoints.rows().rows.map((r) => r.entry);
  const missing = (await sidebar.compute()).missing
    .map((m) => entries.find((e) => e.name === m.name))
    .filter((e): e is NonNullable<typeof e> => e?.sampler_path !== undefined);
  if (missing.length === 0) {
    void vscode.window.showInformationMessage("Agent Lab: every checkpoint shown has a val score.");
    return;
  }
  const taken = takenRunNames(lab);
  const jobs: { checkpoint: string; job: StepJob<typeof EVAL_STEP.flags> }[] = [];
  const ready = new Set<string>();
  for (const entry of missing) {
    const env = await checkpointEvalEnvironment(lab, entry);
    if (!env) return;
    if (!ready.has(env)) {
      if (!(await ensureEnvironmentData(lab, env, "Evaluate Missing"))) return;
      ready.add(env);
    }
    const name = uniqueRunName(environmentRunName(env, entry.name), taken);
    taken.add(name);
    jobs.push({ checkpoint: entry.name, job: checkpointEvalJob(lab, env, name, entry.sampler_path!) });
  }
  const ws = { folder: lab.workspace.requireFolder(), overrides: lab.workspace.overrides() };
  const plans = jobs.map(({ job }) => planStep(job.spec, job.values, ws));
  const priced = plans.filter((p) => p.estimate);
  const usd = priced.length ? priced.reduce((s, p) => s + p.estimate!.usd, 0) : undefined;
  const text = confirmText(
    jobs.map((j) => j.checkpoint),
    usd,
    priced[0]?.estimate?.basis,
    plans[0].config.budgetUsd,
  );
  if ((await vscode.window.showWarningMessage(text, { modal: true }, "Start")) !== "Start") return;
  for (const j of jobs) sidebar.setEvaluating(j.checkpoint, true);
  void (async () => {
    for (const { checkpoint, job } of jobs) {
      try {
        const started = await startStep(lab, { ...job, confirmed: true });
        if (!started) break; // declined (no API key, untrusted workspace): the rest would be too
        await started.finished;
      } finally {
        sidebar.setEvaluating(checkpoint, false);
        // The tree's row gains its score now, not at the runs folder's next file event (which can
        // come before the eval's summary is written, or late).
        lab.checkpoints.refresh();
      }
    }
    for (const j of jobs) sidebar.setEvaluating(j.checkpoint, false);
  })();
}

async function openFullCompare(lab: Lab, sidebar: CheckpointsSidebar, which: "selected" | "all"): Promise<void> {
  if (which === "selected") return compareCheckpoints(lab, sidebar, [...sidebar.selectedCheckpoints]);
  const view = await sidebar.compute();
  const runsDir = lab.workspace.runsDir();
  const evals = [
    ...new Set([view.baseline?.evalRun, ...view.rows.map((r) => r.evalRun)].filter((e): e is string => !!e)),
  ];
  if (evals.length < 2) {
    void vscode.window.showWarningMessage(
      "Agent Lab: fewer than two val scores to compare: Evaluate missing in the Checkpoints sidebar first.",
    );
    return;
  }
  await openCompare(
    lab.context,
    evals.map((e) => join(runsDir, e)),
    "checkpoint",
  );
}

export function checkpointCompareCommands(lab: Lab): CommandTable {
  const sidebar = lab.checkpointsSidebar;
  sidebar.actions = {
    chooseRuns: () => chooseRuns(lab, sidebar),
    evaluateMissing: () => evaluateMissing(lab, sidebar),
    openCompare: (which) => openFullCompare(lab, sidebar, which),
  };
  return {
    "agentLab.compareSelectedCheckpoints": (arg, selected) =>
      compareCheckpoints(
        lab,
        sidebar,
        // Tree nodes, or checkpoint names (the palette, tests).
        selectedNodes<CheckpointNode | string>(arg, selected).flatMap((n) =>
          typeof n === "string" ? [n] : n.type === "checkpoint" ? [n.row.entry.name] : [],
        ),
      ),
    "agentLab.compareSelectedRuns": (arg, selected) => compareSelectedRuns(lab, sidebar, arg, selected),
    "agentLab.chooseCheckpointRuns": () => chooseRuns(lab, sidebar),
    "agentLab.evaluateMissingCheckpoints": () => evaluateMissing(lab, sidebar),
    "agentLab.openCheckpointsCompare": () => openFullCompare(lab, sidebar, "all"),
  };
}
