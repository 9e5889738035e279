/**
 * `agent-lab train-grpo [--init-state NAME|tinker://…] [--steps 30] [--questions 32] [--group 8]
 *  [--lr 4e-5] [--temperature 1] [--offset 1500] [--save-every 10] [--name grpo] [--resume]` —
 * recipe Step 4: online GRPO in the agent harness; checkpoints registered as <name>-s<step>.
 */
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import { trainGrpo } from "../core/train/grpo";
import { TRAIN_BACKENDS } from "../core/train/backend";
import { intFlag, numberFlag, parse } from "./args";
import { localBackendFor } from "./local-backend";
import { interruptible } from "./train-sft";

const HELP = `usage: agent-lab train-grpo [options]

  --init-state S     state to start from: registry name (e.g. sft-e2) or tinker://…/weights/…; omit = base model
  --name NAME        run folder runs/NAME and checkpoint prefix (default grpo → grpo-s10, …)
  --env ENV          task environment (config env): hotpotqa, gsm8k
  --steps N          training steps (default 30)
  --questions Q      new train questions per step (default 32)
  --group G          episodes per question (default 8)
  --lr LR            learning rate (default 4e-5)
  --temperature T    sampling temperature (default 1.0)
  --offset K         first train question (default 1500: skip those used for SFT)
  --save-every N     checkpoint every N steps and at the end (default 10)
  --seed S           sampling seed: the same seed redraws the same episodes (default 0)
  --rank R           LoRA rank when starting from the base model (config loraRank)
  --max-tokens T     tokens per model turn (config maxTokens)
  --max-searches B   search budget (config maxSearches)
  --top-k K          paragraphs per search (config topK)
  --concurrency C    episodes in flight (config concurrency)
  --prompt FILE      system prompt file (config systemPromptFile, else the shipped one)
  --index DIR        BM25 index folder (default <dataDir>/bm25)
  --backend B        ${TRAIN_BACKENDS.join(" | ")} (default tinker; local = the free stand-in backend)
  --local-port P     local: reuse the local backend on this port, else start one (default 8765)
  --budget USD       stop cleanly before a step that would take this run over USD (config budgetUsd)
  --resume           continue from the last saved step (later steps are redone on the same questions)
  --workspace DIR    folder holding agent-lab.json, data/ and runs/ (default .)`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parse("train-grpo", argv, {
    "init-state": { type: "string" },
    name: { type: "string", default: "grpo" },
    env: { type: "string" },
    steps: { type: "string" },
    questions: { type: "string" },
    group: { type: "string" },
    lr: { type: "string" },
    temperature: { type: "string" },
    offset: { type: "string" },
    "save-every": { type: "string" },
    seed: { type: "string" },
    rank: { type: "string" },
    "max-tokens": { type: "string" },
    "max-searches": { type: "string" },
    "top-k": { type: "string" },
    concurrency: { type: "string" },
    prompt: { type: "string" },
    index: { type: "string" },
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
  const workspaceDir = values.workspace!;
  const config = loadConfig(workspaceDir, {
    ...(values.rank !== undefined ? { loraRank: intFlag("rank", values.rank, 1) } : {}),
    ...(values["max-tokens"] !== undefined ? { maxTokens: intFlag("max-tokens", values["max-tokens"], 1) } : {}),
    ...(values["max-searches"] !== undefined ? { maxSearches: intFlag("max-searches", values["max-searches"], 1) } : {}),
    ...(values["top-k"] !== undefined ? { topK: intFlag("top-k", values["top-k"], 1) } : {}),
    ...(values.concurrency !== undefined ? { concurrency: intFlag("concurrency", values.concurrency, 1) } : {}),
    ...(values.budget !== undefined ? { budgetUsd: Math.max(0, numberFlag("budget", values.budget)!) } : {}),
  });
  const local = values.backend === "local" ? await localBackendFor(workspaceDir, intFlag("local-port", values["local-port"], 0)) : undefined;
  try {
    await interruptible(async (signal) => {
      const result = await trainGrpo({
        env: values.env,
        workspaceDir,
        config,
        name: values.name!,
        initState: values["init-state"],
        steps: intFlag("steps", values.steps, 1) ?? 30,
        questions: intFlag("questions", values.questions, 1) ?? 32,
        group: intFlag("group", values.group, 1) ?? 8,
        lr: numberFlag("lr", values.lr) ?? 4e-5,
        temperature: numberFlag("temperature", values.temperature) ?? 1.0,
        offset: intFlag("offset", values.offset, 0) ?? 1500,
        saveEvery: intFlag("save-every", values["save-every"], 1) ?? 10,
        seed: intFlag("seed", values.seed, 0) ?? 0,
        resume: Boolean(values.resume),
        promptFile: values.prompt,
        indexDir: values.index,
        backend: values.backend!,
        baseUrl: local?.url,
        command: ["agent-lab", "train-grpo", ...argv],
        signal,
        log: (line) => console.log(line),
      });
      if (result.status !== "done") throw new UserError(`${result.message ?? result.status} (stopped after step ${result.step}; saved steps are kept)`);
      console.log(`run folder: ${result.runDir}`);
    });
  } finally {
    await local?.close();
  }
}
