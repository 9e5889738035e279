/**
 * A workspace made by the real steps, for the dashboard's checkpoint scores: a data dir of real
 * HotpotQA records with its BM25 index, GRPO run "grpo-a" (1 step) and "grpo-b" started from
 * grpo-a-s1 (2 steps) trained by trainGrpo on the local backend, and val evals by evalSplit:
 * the base model, grpo-a-s1, grpo-b-s1 with the training prompt, and — run later — grpo-b-s1 with
 * another prompt (the "prompt rerun" that must not replace the score). grpo-b-s2 is not evaluated.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { loadConfig } from "../../../../../src/core/envs/config";
import { readRegistry, registryPath } from "../../../../../src/core/base/checkpoints/registry";
import { evalSplit } from "../../../../../src/core/steps/eval/eval-split";
import { LOCAL_BACKEND_MODEL } from "../../../../../src/core/steps/eval/backends";
import { trainGrpo } from "../../../../../src/core/steps/train";
import { PlanPolicy, readRows, writeRealDataDir, type HotpotRow } from "../../steps/sft/real-hotpot";
import { FAST_RETRY, localWorld, qwenTokenizer, SHORT_PROMPT, type LocalWorld } from "../../steps/train/helpers";

export interface EvalWorld {
  world: LocalWorld;
  runsDir: string;
  grpoB: string;
  tok: ChatTokenizer;
  /** Runs one more real val eval of a checkpoint (by registry name; undefined: the base model), seeded plan policy. */
  evaluate(name: string, checkpoint: string | undefined, promptFile: string, seed?: number): Promise<unknown>;
}

export async function buildEvalWorld(devFile: string, trainFile: string): Promise<EvalWorld> {
  const dev = readRows(devFile).slice(0, 30);
  const train = readRows(trainFile).slice(0, 10);
  const rows: HotpotRow[] = [...train, ...dev];
  const world = await localWorld("dash-evals");
  const root = world.root;
  await writeRealDataDir(join(root, "data"), train, dev);
  writeFileSync(join(root, "prompt.txt"), SHORT_PROMPT);
  writeFileSync(join(root, "prompt2.txt"), `${SHORT_PROMPT} Keep every answer short.`);
  const tok = await qwenTokenizer();
  const config = loadConfig(root, { loraRank: 4, maxTokens: 64, concurrency: 2 });
  const grpo = (name: string, steps: number, initState?: string) =>
    trainGrpo({
      workspaceDir: root,
      config,
      name,
      steps,
      questions: 2,
      group: 2,
      lr: 0.01,
      temperature: 1,
      offset: 0,
      saveEvery: 1,
      backend: "local",
      baseUrl: world.backend.url,
      retry: FAST_RETRY,
      command: ["test"],
      tokenizer: tok,
      promptFile: "prompt.txt",
      ...(initState ? { initState } : {}),
      policyFor: (_sampler, t) => new PlanPolicy(t, rows, 11),
      log: () => undefined,
    });
  await grpo("grpo-a", 1);
  const b = await grpo("grpo-b", 2, "grpo-a-s1");
  const runsDir = join(root, "runs");
  const sampler = (name: string) => readRegistry(registryPath(runsDir)).find((e) => e.name === name)!.sampler_path;
  const evaluate = (name: string, checkpoint: string | undefined, promptFile: string, seed = 3) =>
    evalSplit({
      workspaceDir: root,
      config,
      name,
      split: "val",
      closedBook: false,
      limit: 8,
      resume: false,
      temperature: 0,
      backend: "scripted",
      policy: new PlanPolicy(tok, rows, seed, {
        kind: "scripted",
        model: LOCAL_BACKEND_MODEL,
        logprobs: true,
        ...(checkpoint ? { checkpoint } : {}),
      }),
      promptFile,
      command: ["agent-lab", "eval", "(test)"],
    });
  await evaluate("val-base", undefined, "prompt.txt");
  await evaluate("val-a-s1", sampler("grpo-a-s1"), "prompt.txt");
  await evaluate("val-b-s1", sampler("grpo-b-s1"), "prompt.txt");
  await evaluate("val-b-s1-prompt2", sampler("grpo-b-s1"), "prompt2.txt");
  return {
    world,
    runsDir,
    grpoB: b.runDir,
    tok,
    evaluate: (name, checkpoint, promptFile, seed) =>
      evaluate(name, checkpoint && sampler(checkpoint), promptFile, seed),
  };
}
