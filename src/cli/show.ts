/**
 * `agent-lab show RUN [--n N] [--seed S] [--workspace DIR]`
 * Reads a run folder (a path, or a name under runsDir): how episodes ended, searches per episode,
 * the drift check's counts (the trace viewer's numbers: core/views/trace/run-drift.ts), and N random
 * failures with model-written text set apart from harness-inserted text. With `--failures`, the
 * failed episodes by label instead (the environment's failure rules; `--json` for scripts).
 */
import { basename } from "node:path";
import { UserError } from "../core/base/errors";
import { SHOW_FIELDS } from "../core/base/runs/episode-record";
import { readRun, readSummary } from "../core/base/runs/run-files";
import { environmentMetrics } from "../core/envs/catalog";
import { renderShow, type TraceStyle } from "../core/views/trace/trace-text";
import { tokenizerForRun } from "../core/base/runs/run-tokenizer";
import { driftCountsLine } from "../core/views/trace/drift";
import { runDrift } from "../core/views/trace/run-drift";
import { SHOW_STEP } from "../core/steps/catalog/catalog";
import { resolveRunDir } from "./run-dir";
import { parseStepArgs } from "./step-args";
import { workspaceDataDir } from "../core/envs/data-dirs";
import { manifestEnvironment } from "../core/envs/manifest-environment";
import { readRunFailures } from "../core/views/failures/run-failures";
import { renderFailureTable } from "../core/views/failures/failure-table";

/** ANSI when writing to a terminal or asked to by FORCE_COLOR; NO_COLOR (or FORCE_COLOR=0) wins. */
export function traceStyle(env: NodeJS.ProcessEnv, isTTY: boolean): TraceStyle {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return "plain";
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR === "0" || env.FORCE_COLOR === "false" ? "plain" : "ansi";
  return isTTY ? "ansi" : "plain";
}

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(SHOW_STEP, argv);
  if (!args) return;
  const { values, positionals, config, workspaceDir } = args;
  if (positionals.length !== 1) throw new UserError("give exactly one run (a folder, or a name under runs/)");
  const runDir = resolveRunDir(positionals[0], workspaceDir, config);
  if (values.json && !values.failures) throw new UserError("--json goes with --failures (show --failures --json RUN)");
  if (values.failures) {
    const { manifest, episodes } = readRun(runDir, environmentMetrics, SHOW_FIELDS);
    const failures = await readRunFailures({ manifest, episodes, dataDir: workspaceDataDir(workspaceDir, config) });
    if (!failures)
      throw new UserError(
        `${manifestEnvironment(manifest).name} declares no failure labels: add a failures.ts to its folder (README "Add your own environment")`,
      );
    console.log(
      values.json
        ? JSON.stringify({ run: basename(runDir), ...failures.table }, null, 2)
        : renderFailureTable(failures.table, basename(runDir)),
    );
    return;
  }
  const files = {
    ...readRun(runDir, environmentMetrics, SHOW_FIELDS),
    summary: readSummary(runDir, environmentMetrics),
  };
  const { tokenizer, problem } = await tokenizerForRun(files.manifest?.tokenizer);
  const drift = tokenizer
    ? "drift check: " +
      driftCountsLine(
        runDrift(runDir, files.manifest, tokenizer, files.manifest?.tokenizer ?? "").counts,
        files.episodes.length,
      )
    : undefined;
  console.log(
    renderShow(files, {
      name: basename(runDir),
      n: values.n,
      seed: values.seed,
      style: traceStyle(process.env, Boolean(process.stdout.isTTY)),
      tokenizer,
      tokenizerProblem: problem,
      drift,
    }),
  );
}
