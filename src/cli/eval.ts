/**
 * `agent-lab eval --name NAME [--split val|test|train] [--closed-book] [--limit N] [--top-k K]
 *  [--max-searches B] [--max-tokens T] [--concurrency C] [--resume] [--temperature T]
 *  [--prompt FILE] [--backend scripted|tinker|local|transformers] [--workspace DIR]`
 * Step 1.4 of the recipe: run the agent on a split into runs/NAME/ (episodes, summary, manifest).
 * Ctrl-C or SIGTERM stops cleanly (no new episodes, status "interrupted"); `--resume` finishes it.
 */
import { UserError } from "../core/base/errors";
import type { Split } from "../core/base/data/question";
import { evalSplit } from "../core/steps/eval/eval-split";
import { finalLine } from "../core/base/runs/summary";
import { EVAL_STEP } from "../core/steps/catalog/catalog";
import { TEST_SPLIT_FLAG, TEST_SPLIT_FLAG_NAME } from "../core/steps/specs/common-flags";
import { localBackendFor } from "./local-backend";
import { parseStepArgs } from "./step-args";
import { printDryRun } from "./dry-run";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(EVAL_STEP, argv);
  if (!args) return;
  const { values, config, workspaceDir } = args;
  if (values["dry-run"]) return printDryRun(EVAL_STEP, values, config, workspaceDir);

  // First Ctrl-C / SIGTERM: start nothing new and close the run as "interrupted". Second: leave now.
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    console.error(`\n${sig}: stopping; no new episodes start (again to quit at once)`);
    controller.abort(new UserError(`stopped by ${sig}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const local = values.backend === "local" ? await localBackendFor(workspaceDir, values["local-port"]) : undefined;
  try {
    const result = await evalSplit({
      workspaceDir,
      config,
      env: values.env,
      name: values.name,
      split: values.split as Split,
      testFlag: values[TEST_SPLIT_FLAG_NAME] ? TEST_SPLIT_FLAG : undefined,
      closedBook: Boolean(values["closed-book"]),
      limit: values.limit,
      resume: Boolean(values.resume),
      temperature: values.temperature,
      promptFile: values.prompt,
      backend: values.backend,
      checkpoint: values["model-path"],
      model: values.model,
      tokenizer: values.tokenizer,
      localBackendUrl: local?.url,
      scriptedDelayMs: values["scripted-delay-ms"],
      indexDir: values.index,
      command: ["agent-lab", "eval", ...argv],
      signal: controller.signal,
      log: (line) => console.log(line),
    });
    if (result.resumed > 0)
      console.log(`(resumed: ${result.resumed} episodes were already done, ${result.ran} run now)`);
    console.log(`\n${finalLine(values.name, result.summary, result.env)}`);
    if (result.summary.status === "interrupted") {
      // A non-zero exit, so scripts and the extension's job runner see the run is not complete.
      if (result.budgetStop)
        throw new UserError(
          `${result.budgetStop.message} Kept ${result.summary.n}/${result.summary.planned} episodes in ${result.runDir}; finish with the same command plus --resume.`,
        );
      throw new UserError(
        `interrupted with ${result.summary.n}/${result.summary.planned} episodes kept in ${result.runDir}; finish it with the same command plus --resume`,
      );
    } else {
      console.log(`run folder: ${result.runDir}`);
    }
  } finally {
    await local?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
