/**
 * `agent-lab sft-data [--questions N] [--offset K] [--tries T] [--temperature X] [--min-f1 F]
 *  [--backend B | --teacher B] [--model-path PATH] [--name NAME] [--resume] [--budget USD]`
 * Step 3a of the recipe: rejection sampling over train questions into runs/NAME/sft.jsonl, with a
 * lineage manifest and the cost in the run's ledger. Ctrl-C or SIGTERM stops cleanly (no new
 * questions start, what is written stays); `--resume` continues.
 */
import { UserError } from "../core/base/errors";
import { collectSftData, sftAdvice } from "../core/steps/sft/collect-sft";
import { SFT_DATA_STEP } from "../core/steps/catalog/catalog";
import { printDryRun } from "./dry-run";
import { localBackendFor } from "./local-backend";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  if (argv.includes("--from-runs")) return (await import("./sft-from-runs")).run(argv);
  const args = parseStepArgs(SFT_DATA_STEP, argv);
  if (!args) return;
  const { values, given, config, workspaceDir } = args;
  if (given.has("backend") && values.teacher)
    throw new UserError(
      "give --backend (the model samples its own data) or --teacher (distil from another source), not both",
    );
  if (values["dry-run"]) return printDryRun(SFT_DATA_STEP, values, config, workspaceDir);
  const backend = values.teacher ?? values.backend;

  // First Ctrl-C / SIGTERM: start no new question and close the run as "interrupted". Second: leave now.
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    console.error(`\n${sig}: stopping; no new questions start (again to quit at once)`);
    controller.abort(new UserError(`stopped by ${sig}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const local = backend === "local" ? await localBackendFor(workspaceDir, values["local-port"]) : undefined;
  try {
    const result = await collectSftData({
      workspaceDir,
      config,
      name: values.name,
      env: values.env,
      questions: values.questions,
      offset: values.offset,
      trainTasksDir: values["train-tasks"],
      tries: values.tries,
      temperature: values.temperature,
      minF1: values["min-f1"],
      role: values.teacher ? "teacher" : "self",
      backend,
      checkpoint: values["model-path"],
      model: values.model,
      tokenizer: values.tokenizer,
      localBackendUrl: local?.url,
      scriptedDelayMs: values["scripted-delay-ms"],
      promptFile: values.prompt,
      indexDir: values.index,
      resume: Boolean(values.resume),
      command: ["agent-lab", "sft-data", ...argv],
      signal: controller.signal,
      log: (line) => console.log(line),
    });
    console.log(`\n${result.finalLine}`);
    const advice = sftAdvice(result.manifest);
    if (advice) console.log(`note: ${advice}`);
    if (result.manifest.status === "interrupted") {
      const why = result.budgetStop ? result.budgetStop.message : "interrupted.";
      throw new UserError(
        `${why} Kept ${result.manifest.counts.kept} traces from ${result.manifest.counts.questions} questions in ${result.runDir}; continue with the same command plus --resume`,
      );
    }
    console.log(`run folder: ${result.runDir} (sft.jsonl sha256 ${result.manifest.output.sha256.slice(0, 16)})`);
  } finally {
    await local?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
