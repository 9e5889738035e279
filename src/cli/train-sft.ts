/**
 * `agent-lab train-sft --data runs/<sft-data>/sft.jsonl [--name sft] [--epochs 3] [--batch 32]
 *  [--lr 2e-4] [--backend tinker|local] [--resume]` — recipe Step 3.3: LoRA SFT, loss only on the
 * tokens the model wrote; per-epoch checkpoints registered as <name>-e<epoch>.
 */
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import { trainSft } from "../core/train/sft";
import { TRAIN_BACKENDS } from "../core/train/backend";
import { intFlag, numberFlag, parse } from "./args";
import { localBackendFor } from "./local-backend";

const HELP = `usage: agent-lab train-sft --data FILE [options]

  --data FILE        sft.jsonl from agent-lab sft-data (or its run folder)
  --name NAME        run folder runs/NAME and checkpoint prefix (default sft → sft-e1, sft-e2, …)
  --epochs N         passes over the data (default 3)
  --batch B          examples per step (default 32)
  --lr LR            peak learning rate, decays linearly to 0 (default 2e-4)
  --seed S           shuffle seed (default 0)
  --rank R           LoRA rank (config loraRank)
  --init-state S     start from a state (registry name or tinker://…/weights/…) instead of the base model
  --backend B        ${TRAIN_BACKENDS.join(" | ")} (default tinker; local = the free stand-in backend)
  --local-port P     local: reuse the local backend on this port, else start one (default 8765)
  --budget USD       stop before spending more than this in this run (config budgetUsd; 0 = no cap)
  --resume           continue a killed run from its last saved epoch (that epoch's steps are redone)
  --workspace DIR    folder holding agent-lab.json, data/ and runs/ (default .)`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parse("train-sft", argv, {
    data: { type: "string" },
    name: { type: "string", default: "sft" },
    epochs: { type: "string" },
    batch: { type: "string" },
    lr: { type: "string" },
    seed: { type: "string" },
    rank: { type: "string" },
    "init-state": { type: "string" },
    backend: { type: "string", default: "tinker" },
    "local-port": { type: "string" },
    budget: { type: "string" },
    resume: { type: "boolean" },
    workspace: { type: "string", default: "." },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (!values.data) throw new UserError("--data is required (the sft.jsonl that agent-lab sft-data wrote)");
  const workspaceDir = values.workspace!;
  const config = loadConfig(workspaceDir, {
    ...(values.rank !== undefined ? { loraRank: intFlag("rank", values.rank, 1) } : {}),
    ...(values.budget !== undefined ? { budgetUsd: Math.max(0, numberFlag("budget", values.budget)!) } : {}),
  });
  const local = values.backend === "local" ? await localBackendFor(workspaceDir, intFlag("local-port", values["local-port"], 0)) : undefined;
  try {
    await interruptible(async (signal) => {
      const result = await trainSft({
        workspaceDir,
        config,
        name: values.name!,
        data: values.data!,
        epochs: intFlag("epochs", values.epochs, 1) ?? 3,
        batch: intFlag("batch", values.batch, 1) ?? 32,
        lr: numberFlag("lr", values.lr) ?? 2e-4,
        seed: intFlag("seed", values.seed) ?? 0,
        initState: values["init-state"],
        resume: Boolean(values.resume),
        backend: values.backend!,
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
    controller.abort(new Error(`stopped by ${sig}`));
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
