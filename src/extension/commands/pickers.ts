/** Quick picks and input boxes shared by the commands (split, model/checkpoint, runs, episodes, numbers). */
import * as vscode from "vscode";
import type { Split } from "../../core/base/data/question";
import type { CheckpointRow } from "../checkpoints/checkpoints-model";
import type { RunRow } from "../runs/runs-model";
import { groupEpisodes } from "../runs/runs-model";
import { readEpisodes } from "../../core/base/runs/run-files";
import { checkRunName } from "../../core/base/runs/run-folder";
import { EVAL_STEP } from "../../core/steps/catalog/catalog";
import { checkFlagValue, describeRange, type FlagSpec } from "../../core/steps/specs/flags";
import { environmentItems, sourceRunItems } from "./environment-choices";
import { environmentMetrics } from "../../core/envs/catalog";

/**
 * The environment a step runs on: every registered one, the workspace's default first (config
 * `env`). `only` narrows the list (closed-book needs tools). Undefined = cancelled.
 */
export async function pickEnvironment(
  title: string,
  defaultEnv: string,
  only?: (hasTools: boolean) => boolean,
): Promise<string | undefined> {
  const items = environmentItems(defaultEnv, only);
  return (
    await vscode.window.showQuickPick(items, {
      title,
      placeHolder: "Environment (the task: data, prompt, reward)",
      matchOnDetail: true,
    })
  )?.env;
}

/** Eval runs of `env` to build SFT data from (several); undefined = cancelled or none. */
export async function pickSourceRuns(
  title: string,
  rows: readonly RunRow[],
  env: string,
): Promise<RunRow[] | undefined> {
  const items = sourceRunItems(rows, env);
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`Agent Lab: no ${env} eval runs with episodes to build SFT data from.`);
    return undefined;
  }
  const picks = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: "Eval runs whose scored episodes become SFT data (no new sampling)",
    canPickMany: true,
    matchOnDescription: true,
  });
  return picks && picks.length > 0 ? picks.map((p) => p.row) : undefined;
}

/** What each split is for, shown beside its name; the splits themselves are the eval spec's choices. */
const SPLIT_NOTES: Record<string, string> = {
  val: "validation: pick prompts, epochs and checkpoints here",
  train: "training questions",
  test: "held out: open once, at the very end",
};

export async function pickSplit(title: string): Promise<Split | undefined> {
  const choices = EVAL_STEP.flags.split.choices;
  // The spec's default first (val), then the rest in the spec's order.
  const ordered = [EVAL_STEP.flags.split.default, ...choices.filter((c) => c !== EVAL_STEP.flags.split.default)];
  const items = ordered.map((s) => ({ label: s, description: SPLIT_NOTES[s], split: s as Split }));
  const pick = await vscode.window.showQuickPick(items, { title, placeHolder: "Split to evaluate" });
  if (!pick) return undefined;
  if (pick.split === "test") {
    const ok = await vscode.window.showWarningMessage(
      "Open the test split? The recipe opens it once, for the final numbers; the run's manifest records that it was opened.",
      { modal: true },
      "Open Test Split",
    );
    if (ok !== "Open Test Split") return undefined;
  }
  return pick.split;
}

export interface ModelChoice {
  /** Sampler checkpoint path; undefined = a base model. */
  modelPath?: string;
  /** A base model other than the configured one. */
  model?: string;
  /** Checkpoint name, for run names. */
  checkpointName?: string;
}

/** `models`: the configured model first, then the other priced models. */
export async function pickModel(
  title: string,
  models: readonly string[],
  checkpoints: readonly CheckpointRow[],
): Promise<ModelChoice | undefined> {
  const items: (vscode.QuickPickItem & { choice: ModelChoice })[] = [
    ...models.map((m, i) => ({
      label: "$(symbol-namespace) Base model",
      description: m,
      detail: i === 0 ? "the configured model (agentLab.model)" : undefined,
      choice: i === 0 ? {} : { model: m },
    })),
    ...checkpoints
      .filter((c) => c.entry.sampler_path)
      .map((c) => ({
        label: `$(package) ${c.entry.name}`,
        description: c.description,
        detail: c.entry.sampler_path,
        choice: { modelPath: c.entry.sampler_path, checkpointName: c.entry.name },
      })),
    { label: "$(edit) Enter a sampler path…", description: "tinker://…", choice: { modelPath: "" } },
  ];
  const pick = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: "Model or checkpoint",
    matchOnDetail: true,
  });
  if (!pick) return undefined;
  if (pick.choice.modelPath === "") {
    const path = await vscode.window.showInputBox({
      title,
      prompt: "Sampler checkpoint path",
      placeHolder: "tinker://…/sampler_weights/…",
      validateInput: (v) => (v.trim() ? undefined : "Enter a path"),
    });
    return path ? { modelPath: path.trim() } : undefined;
  }
  return pick.choice;
}

export async function pickStateCheckpoint(
  title: string,
  checkpoints: readonly CheckpointRow[],
): Promise<{ initState: string; name?: string } | undefined> {
  const items = [
    ...checkpoints
      .filter((c) => c.entry.state_path)
      .map((c) => ({
        label: `$(package) ${c.entry.name}`,
        description: c.description,
        detail: c.entry.state_path!,
        value: c.entry.state_path!,
        name: c.entry.name as string | undefined,
      })),
    {
      label: "$(edit) Enter a state path…",
      description: "tinker://…",
      detail: "",
      value: "",
      name: undefined as string | undefined,
    },
  ];
  const pick = await vscode.window.showQuickPick(items, { title, placeHolder: "Start GRPO from this training state" });
  if (!pick) return undefined;
  if (pick.value) return { initState: pick.value, name: pick.name };
  const path = await vscode.window.showInputBox({
    title,
    prompt: "State checkpoint path",
    placeHolder: "tinker://…/weights/…",
    validateInput: (v) => (v.trim() ? undefined : "Enter a path"),
  });
  return path ? { initState: path.trim() } : undefined;
}

function runItem(r: RunRow): vscode.QuickPickItem & { row: RunRow } {
  return { label: r.name, description: r.description, row: r };
}

export async function pickRun(
  title: string,
  rows: readonly RunRow[],
  filter: (r: RunRow) => boolean = () => true,
): Promise<RunRow | undefined> {
  const candidates = rows.filter(filter);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(`Agent Lab: no runs to choose from for "${title}".`);
    return undefined;
  }
  return (await vscode.window.showQuickPick(candidates.map(runItem), { title, matchOnDescription: true }))?.row;
}

/** Several of `rows`; `none`: what the message says when there are none to pick. */
export async function pickRuns(
  title: string,
  rows: readonly RunRow[],
  placeHolder: string,
  none = "no other runs to compare with",
): Promise<RunRow[] | undefined> {
  if (rows.length === 0) {
    void vscode.window.showInformationMessage(`Agent Lab: ${none}.`);
    return undefined;
  }
  const picks = await vscode.window.showQuickPick(rows.map(runItem), {
    title,
    placeHolder,
    canPickMany: true,
    matchOnDescription: true,
  });
  return picks && picks.length > 0 ? picks.map((p) => p.row) : undefined;
}

export async function pickEpisode(run: RunRow): Promise<string | undefined> {
  const groups = groupEpisodes(readEpisodes(run.dir, environmentMetrics), run.environment);
  const items: (vscode.QuickPickItem & { id?: string })[] = [];
  for (const g of groups) {
    items.push({ label: `${g.label} — ${g.description}`, kind: vscode.QuickPickItemKind.Separator });
    for (const e of g.episodes) items.push({ label: e.label, description: e.description, id: e.id });
  }
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`Agent Lab: ${run.name} has no finished episodes yet.`);
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { title: `Open trace — ${run.name}`, matchOnDescription: true }))
    ?.id;
}

/**
 * A number for one of a step's flags, checked as you type by the CLI's own validator (so the box
 * refuses what the job would refuse, with the same words). Starts at the flag's default unless
 * `value` is given; blank returns undefined when `allowBlank`; null = cancelled.
 */
export async function inputFlag(
  title: string,
  prompt: string,
  name: string,
  spec: FlagSpec,
  value?: number,
  allowBlank = false,
): Promise<number | undefined | null> {
  const start = value ?? (typeof spec.default === "number" ? spec.default : undefined);
  const text = await vscode.window.showInputBox({
    title,
    prompt,
    value: start === undefined ? "" : String(start),
    validateInput: (v) => {
      if (!v.trim()) return allowBlank ? undefined : `Enter ${describeRange(spec)}`;
      try {
        checkFlagValue(name, spec, v.trim());
        return undefined;
      } catch (e) {
        return (e as Error).message;
      }
    },
  });
  if (text === undefined) return null; // cancelled
  return text.trim() ? Number(text) : undefined;
}

export async function inputRunName(
  title: string,
  suggested: string,
  taken: ReadonlySet<string>,
): Promise<string | undefined> {
  const name = await vscode.window.showInputBox({
    title,
    prompt: "Run folder name (under the runs folder)",
    value: suggested,
    validateInput: (v) => {
      const t = v.trim();
      if (!t) return "Enter a name";
      try {
        checkRunName(t); // core's run-name rule, the one every step enforces
      } catch (e) {
        return (e as Error).message;
      }
      if (taken.has(t)) return `${t} exists already (pick another name, or resume it from the Runs view)`;
      return undefined;
    },
  });
  return name?.trim() || undefined;
}
