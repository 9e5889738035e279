/**
 * A real 60-step GRPO run at tiny sizes (trainGrpo on the local backend: 1 question × 2 samples a
 * step, checkpoints at 30 and 60) whose step-30 checkpoint alone is scored by a real val eval.
 * Shared by the Chromium test and the real-VS-Code one of the val chart's x axis.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/core/envs/config";
import { readRegistry, registryPath } from "../../../src/core/base/checkpoints/registry";
import { evalSplit } from "../../../src/core/steps/eval/eval-split";
import { LOCAL_BACKEND_MODEL } from "../../../src/core/steps/eval/backends";
import { trainGrpo } from "../../../src/core/steps/train";
import { PlanPolicy, readRows, writeRealDataDir, type HotpotRow } from "../core/steps/sft/real-hotpot";
import { FAST_RETRY, localWorld, qwenTokenizer, SHORT_PROMPT, type LocalWorld } from "../core/steps/train/helpers";

export const SIXTY_STEPS = 60;

export async function buildSixtyStepRun(
  devFile: string,
  trainFile: string,
): Promise<{ world: LocalWorld; runDir: string }> {
  const STEPS = SIXTY_STEPS;
  const dev = readRows(devFile).slice(0, 8);
  const train = readRows(trainFile).slice(0, STEPS);
  const rows: HotpotRow[] = [...train, ...dev];
  const world = await localWorld("chart-axes");
  const root = world.root;
  await writeRealDataDir(join(root, "data"), train, dev);
  writeFileSync(join(root, "prompt.txt"), SHORT_PROMPT);
  const tok = await qwenTokenizer();
  const config = loadConfig(root, { loraRank: 4, maxTokens: 16, concurrency: 2 });
  const run = await trainGrpo({
    workspaceDir: root,
    config,
    name: "grpo-60",
    steps: STEPS,
    questions: 1,
    group: 2,
    lr: 0.01,
    temperature: 1,
    offset: 0,
    saveEvery: 30,
    backend: "local",
    baseUrl: world.backend.url,
    retry: FAST_RETRY,
    command: ["test"],
    tokenizer: tok,
    promptFile: "prompt.txt",
    policyFor: (_sampler, t) => new PlanPolicy(t, rows, 11),
    log: () => undefined,
  });
  if (run.status !== "done") throw new Error(`the 60-step run ended ${run.status}: ${run.message ?? ""}`);
  const registry = readRegistry(registryPath(join(root, "runs")));
  const entry = registry.find((e) => e.name === "grpo-60-s30");
  if (!entry) throw new Error(`grpo-60-s30 not registered: ${registry.map((e) => e.name).join(", ")}`);
  const sampler = entry.sampler_path;
  await evalSplit({
    workspaceDir: root,
    config,
    name: "val-s30",
    split: "val",
    closedBook: false,
    limit: 4,
    resume: false,
    temperature: 0,
    backend: "scripted",
    policy: new PlanPolicy(tok, rows, 3, {
      kind: "scripted",
      model: LOCAL_BACKEND_MODEL,
      logprobs: true,
      checkpoint: sampler,
    }),
    promptFile: "prompt.txt",
    command: ["agent-lab", "eval", "(test)"],
  });
  return { world, runDir: run.runDir };
}
