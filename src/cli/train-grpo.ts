/**
 * `agent-lab train-grpo [--init-state NAME|tinker://…] [--steps 30] [--questions 32] [--group 8]
 *  [--lr 4e-5] [--temperature 1] [--offset 1500] [--save-every 10] [--name grpo] [--resume]` —
 * recipe Step 4: online GRPO in the agent harness; checkpoints registered as <name>-s<step>.
 */
import { UserError } from "../core/base/errors";
import { TRAIN_GRPO_STEP } from "../core/steps/catalog/catalog";
import { trainGrpo } from "../core/steps/train/grpo";
import { printDryRun } from "./dry-run";
import { localBackendFor } from "./local-backend";
import { parseStepArgs } from "./step-args";
import { interruptible } from "./interruptible";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(TRAIN_GRPO_STEP, argv);
  if (!args) return;
  const { values, config, workspaceDir } = args;
  if (values["dry-run"]) return printDryRun(TRAIN_GRPO_STEP, values, config, workspaceDir);
  const local = values.backend === "local" ? await localBackendFor(workspaceDir, values["local-port"]) : undefined;
  try {
    await interruptible(async (signal) => {
      const result = await trainGrpo({
        workspaceDir,
        config,
        name: values.name,
        env: values.env,
        initState: values["init-state"],
        steps: values.steps,
        questions: values.questions,
        group: values.group,
        lr: values.lr,
        temperature: values.temperature,
        offset: values.offset,
        trainTasksDir: values["train-tasks"],
        saveEvery: values["save-every"],
        seed: values.seed,
        resume: values.resume,
        promptFile: values.prompt,
        indexDir: values.index,
        tokenizerSource: values.tokenizer,
        backend: values.backend,
        baseUrl: local?.url,
        command: ["agent-lab", "train-grpo", ...argv],
        signal,
        log: (line) => console.log(line),
      });
      if (result.status !== "done")
        throw new UserError(
          `${result.message ?? result.status} (stopped after step ${result.step}; saved steps are kept)`,
        );
      console.log(`run folder: ${result.runDir}`);
    });
  } finally {
    await local?.close();
  }
}
