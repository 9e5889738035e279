/**
 * `agent-lab sft-data --from-runs RUN... [--min-reward R] [--best-of K] [--per-turn] [--env ENV]
 *  [--prompt FILE] [--name NAME]`: SFT data from the episodes existing runs already scored (no
 * sampling, no spend). Prints the runs it skipped and why, then the rows it wrote.
 */
import { UserError } from "../core/base/errors";
import { sftFromRuns } from "../core/steps/sft/from-runs";
import { SFT_DATA_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(SFT_DATA_STEP, argv);
  if (!args) return;
  const { values, positionals, config, workspaceDir } = args;
  if (values.resume)
    throw new UserError(
      "--from-runs builds its data in one pass; there is nothing to --resume (rerun it under another --name)",
    );
  const result = sftFromRuns({
    workspaceDir,
    config,
    env: values.env,
    name: values.name,
    runs: positionals,
    minReward: values["min-reward"] ?? values["min-f1"],
    bestOf: values["best-of"],
    perTurn: values["per-turn"],
    promptFile: values.prompt,
    command: ["agent-lab", "sft-data", ...argv],
    log: (line) => console.error(line),
  });
  const m = result.manifest;
  const sources = (m.fingerprint.from_runs as { name: string; used: number }[])
    .map((r) => `${r.name} (${r.used} used)`)
    .join(", ");
  console.log(
    `kept ${result.rows} examples from ${m.counts.questions} questions  |  from ${sources}  |  ${m.held_out_excluded.length} val/test question(s) left out  |  $0.00`,
  );
  console.log(`run folder: ${result.runDir}`);
}
