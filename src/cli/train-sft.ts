/**
 * `agent-lab train-sft --data runs/<sft-data>/sft.jsonl [--name sft] [--epochs 3] [--batch 32]
 *  [--lr 2e-4] [--backend tinker|local] [--resume]` — recipe Step 3.3: LoRA SFT, loss only on the
 * tokens the model wrote; per-epoch checkpoints registered as <name>-e<epoch>.
 */
import { UserError } from "../core/base/errors";
import { TRAIN_SFT_STEP } from "../core/steps/catalog/catalog";
import { trainSft } from "../core/steps/train/sft";
import { printDryRun } from "./dry-run";
import { localBackendFor } from "./local-backend";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(TRAIN_SFT_STEP, argv);
  if (!args) return;
  const { values, config, workspaceDir } = args;
  if (values["dry-run"]) return printDryRun(TRAIN_SFT_STEP, values, config, workspaceDir);
  const local = values.backend === "local" ? await localBackendFor(workspaceDir, values["local-port"]) : undefined;
  try {
    await interruptible(async (signal) => {
      const result = await trainSft({
        workspaceDir,
        config,
        name: values.name,
        data: values.data,
        epochs: values.epochs,
        batch: values.batch,
        lr: values.lr,
        seed: values.seed,
        initState: values["init-state"],
        tokenizer: values.tokenizer,
        resume: values.resume,
        backend: values.backend,
        baseUrl: local?.url,
        command: ["agent-lab", "train-sft", ...argv],
        signal,
        log: (line) => console.log(line),
      });
      if (result.status === "interrupted") throw new UserError(`interrupted at step ${result.steps}/${result.totalSteps}; continue with the same command plus --resume`);
      console.log(`run folder: ${result.runDir}`);
    });
  } finally {
    await local?.close();
  }
}

/** First Ctrl-C / SIGTERM: finish the step, save, stop. Second: leave at once. */
export async function interruptible(job: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    console.error(`\n${sig}: stopping after the current step (again to quit at once)`);
    controller.abort(new UserError(`stopped by ${sig}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await job(controller.signal);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
