/**
 * `agent-lab train-sft --data runs/<sft-data>/sft.jsonl [--name sft] [--epochs 3] [--batch 32]
 *  [--lr 2e-4] [--backend tinker|local] [--resume]` — recipe Step 3.3: LoRA SFT, loss only on the
 * tokens the model wrote; per-epoch checkpoints registered as <name>-e<epoch>.
 */
import { UserError } from "../core/base/errors";
import { TRAIN_SFT_STEP } from "../core/steps/catalog/catalog";
import { trainSft } from "../core/steps/train/sft";
import { printDryRun } from "./dry-run";
import { interruptible } from "./interruptible";
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
      if (result.status === "interrupted")
        throw new UserError(
          `interrupted at step ${result.steps}/${result.totalSteps}; continue with the same command plus --resume`,
        );
      console.log(`run folder: ${result.runDir}`);
    });
  } finally {
    await local?.close();
  }
}
