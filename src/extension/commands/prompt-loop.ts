/**
 * The prompt loop: edit the workspace's system prompt, rerun eval on val with it, compare with the
 * last val run that used a different prompt. The eval commands call these
 * (agentLab.editSystemPrompt, agentLab.rerunEvalWithPrompt); the language server's code lens on a
 * prompt file runs the second with the file's path.
 */
import { statSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
// Not the prompt-lint index: that would pull the tokenizer into the extension bundle.
import {
  baselineForPrompt,
  promptRunBaseName,
  seedWorkspacePrompt,
} from "../../core/views/prompt-lint/prompt-loop-plan";
import { lintPrompt } from "../../core/views/prompt-lint/prompt-rules";
import { EVAL_STEP } from "../../core/steps/catalog/catalog";
import { evalValues, uniqueRunName } from "./cli-args";
import { startStep, type Lab } from "./lab";
import type { Job } from "../jobs/job-runner";
import { openCompare } from "../panels";

/** Copies the shipped prompt into the workspace on first use, records it in agent-lab.json, opens it. */
export async function editSystemPrompt(lab: Lab): Promise<void> {
  const folder = lab.workspace.requireFolder();
  const seeded = seedWorkspacePrompt({
    workspaceDir: folder,
    configuredFile: lab.workspace.config().systemPromptFile,
    defaultFile: lab.context.asAbsolutePath(path.join("data", "prompts", "system.md")),
  });
  await vscode.window.showTextDocument(vscode.Uri.file(seeded.file));
  if (seeded.created) {
    void vscode.window.showInformationMessage(
      `Agent Lab: ${seeded.relative} is your system prompt now (a copy of the default${seeded.configUpdated ? ", recorded in agent-lab.json" : ""}). ` +
        `Edit it, then use "Rerun eval on val with this prompt" at the top of the file.`,
    );
  }
}

/** The code lens passes a prompt file; the Runs view passes a run (node, folder or name). */
export function isPromptFileArg(lab: Lab, arg: string): boolean {
  const folder = lab.workspace.folder;
  if (!folder) return false;
  try {
    return statSync(path.resolve(folder, arg)).isFile();
  } catch {
    return false;
  }
}

export interface PromptRerun {
  job: Job;
  runDir: string;
  /** The run it will be compared with when it finishes (undefined: no earlier val run with another prompt). */
  baselineDir?: string;
  /** Settles after the job ends (and the compare panel opened, when there is a baseline). */
  compared: Promise<void>;
}

/**
 * Runs `agent-lab eval --split val --prompt FILE --name prompt-<stem>-<hash>` with the same
 * question limit and checkpoint as the baseline (so the comparison is paired and only the prompt
 * differs), then opens Compare on [baseline, rerun]. Undefined when the user declined or nothing started.
 */
export async function rerunEvalWithPrompt(lab: Lab, promptFile: string): Promise<PromptRerun | undefined> {
  const folder = lab.workspace.requireFolder();
  const file = path.resolve(folder, promptFile);
  // The eval reads the file from disk: what is on screen must be what runs.
  const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === "file" && d.uri.fsPath === file);
  if (open?.isDirty) await open.save();

  // Loaded when used: the shell's activation path stays clear of src/core/harness (a test checks).
  const { loadSystemPrompt } = await import("../../core/harness/prompts");
  const prompt = loadSystemPrompt(file, { workspaceDir: folder });
  const errors = lintPrompt(prompt.text).filter((i) => i.severity === "error");
  if (errors.length > 0) {
    const go = await vscode.window.showWarningMessage(
      `This prompt has a problem: ${errors[0].message}`,
      { modal: true },
      "Run Anyway",
    );
    if (go !== "Run Anyway") return undefined;
  }

  const rows = lab.runs.currentRows();
  const baseline = baselineForPrompt(rows, prompt.sha256);
  const name = uniqueRunName(promptRunBaseName(file, prompt.sha256), new Set(rows.map((r) => r.name)));
  const relative = path.relative(folder, file);
  const values = evalValues({
    name,
    split: "val",
    limit: baseline?.manifest?.job.limit,
    "model-path": baseline?.manifest?.policy.checkpoint,
    // Workspace-relative when inside it: the run's manifest then names the file the same on every machine.
    prompt: relative.startsWith("..") || path.isAbsolute(relative) ? file : relative,
    backend: lab.workspace.backend(),
  });
  const title = `Eval on val with prompt ${path.basename(file)} (${prompt.sha256.slice(0, 8)})`;
  const runDir = path.join(lab.workspace.runsDir(), name);
  const job = await startStep(lab, { spec: EVAL_STEP, values, title, runDir });
  if (!job) return undefined;
  const compared = job.finished.then(async (status) => {
    if (status.state !== "done") return;
    if (baseline) await openCompare(lab.context, [baseline.dir, runDir], "prompt");
    else
      void vscode.window.showInformationMessage(
        `Agent Lab: ${name} finished. No earlier val run with another prompt to compare it with.`,
      );
  });
  return { job, runDir, baselineDir: baseline?.dir, compared };
}
