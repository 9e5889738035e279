/**
 * Registers every Agent Lab command, feature by feature (each `*-commands.ts` lists its ids and
 * what they do). Each step runs as a CLI job through `startStep` (lab.ts): argv from the step's
 * spec, the estimate and confirmation before anything that bills Tinker; nothing heavy runs in
 * the extension host.
 */
import * as vscode from "vscode";
import { dataCommands } from "./commands/data-commands";
import { evalCommands } from "./commands/eval-commands";
import { experimentCommands } from "./commands/experiment-commands";
import { jobCommands } from "./commands/job-commands";
import type { CommandTable, Lab } from "./commands/lab";
import { pipelineCommands } from "./commands/pipeline-commands";
import { trainCommands } from "./commands/train-commands";
import { viewCommands } from "./commands/view-commands";
import { cookbookCommands } from "./commands/cookbook-commands";
import { checkpointCompareCommands } from "./commands/checkpoint-compare-commands";
import { checkpointLifecycleCommands } from "./commands/checkpoint-lifecycle-commands";
import { CheckpointLifecycleSource } from "./checkpoints/checkpoint-lifecycle-source";
import { playgroundCommands } from "./commands/playground-commands";

export type { Lab } from "./commands/lab";

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
  // The Checkpoints rows' expiry and public flag, and the actions that change them.
  const lifecycle = new CheckpointLifecycleSource(lab);
  const lifecycleRows = lab.checkpoints.setLifecycle(lifecycle);
  const table: CommandTable = {
    ...dataCommands(lab),
    ...evalCommands(lab),
    ...trainCommands(lab),
    ...pipelineCommands(lab),
    ...experimentCommands(lab, lab.experiments),
    ...viewCommands(lab, spendChannel),
    ...cookbookCommands(lab),
    ...checkpointCompareCommands(lab),
    ...jobCommands(lab),
    ...checkpointLifecycleCommands(lab, lifecycle),
    ...playgroundCommands(lab),
  };
  return [
    spendChannel,
    lifecycle,
    lifecycleRows,
    ...Object.entries(table).map(([id, fn]) => vscode.commands.registerCommand(id, guard(id, fn))),
  ];
}
