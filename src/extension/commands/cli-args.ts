/**
 * The CLI arguments of every job, built from what the user picked. vscode-free and pure, so the
 * mapping from choices to `agent-lab …` is tested in plain Node. No function here takes or returns a
 * key: the Tinker key travels only in the child's environment (TINKER_API_KEY).
 */
import type { Split } from "../../core/data/question";
import type { JobBackend } from "../settings/settings-overrides";

export interface EvalChoice {
  name: string;
  split: Split;
  backend: JobBackend;
  closedBook?: boolean;
  limit?: number;
  /** A sampler checkpoint path (tinker://…) to evaluate instead of the base model. */
  modelPath?: string;
  /** A base model other than the configured one (a priced model id). */
  model?: string;
  promptFile?: string;
  resume?: boolean;
}

/** Opening the test split needs the CLI's explicit flag; the command asks the user first. */
export const TEST_SPLIT_FLAG = "--i-know-this-is-test"; // = core/eval TEST_SPLIT_FLAG (a test keeps them equal; importing it would bundle the eval runner)

export function evalArgs(c: EvalChoice): string[] {
  const args = ["eval", "--name", c.name, "--split", c.split, "--backend", c.backend];
  if (c.split === "test") args.push(TEST_SPLIT_FLAG);
  if (c.closedBook) args.push("--closed-book");
  if (c.limit !== undefined) args.push("--limit", String(c.limit));
  if (c.modelPath) args.push("--model-path", c.modelPath);
  if (c.model) args.push("--model", c.model);
  if (c.promptFile) args.push("--prompt", c.promptFile);
  if (c.resume) args.push("--resume");
  return args;
}

export interface PrepareChoice {
  /** Local HotpotQA files; none = download from the Hugging Face hub. */
  trainFiles?: string[];
  devFiles?: string[];
}

export function prepareArgs(c: PrepareChoice = {}): string[] {
  const train = c.trainFiles ?? [];
  const dev = c.devFiles ?? [];
  if (train.length === 0 && dev.length === 0) return ["prepare", "--hub"];
  return ["prepare", ...train.flatMap((f) => ["--train", f]), ...dev.flatMap((f) => ["--dev", f])];
}

export function indexArgs(): string[] {
  return ["index"];
}

export function searchArgs(query: string, k?: number): string[] {
  // "--" ends the options, so a query that starts with "-" is still a query.
  return ["search", ...(k !== undefined ? ["-k", String(k)] : []), "--", query];
}

export interface SftDataChoice {
  name: string;
  backend: JobBackend;
  questions: number;
  tries: number;
  /** Collect from the scripted teacher instead of the model. */
  teacher?: "scripted";
  modelPath?: string;
}

/** The model samples its own data (--backend), or a teacher is distilled (--teacher): never both. */
export function sftDataArgs(c: SftDataChoice): string[] {
  const source = c.teacher ? ["--teacher", c.teacher] : ["--backend", c.backend];
  const args = ["sft-data", "--name", c.name, ...source, "--questions", String(c.questions), "--tries", String(c.tries)];
  if (c.modelPath && !c.teacher) args.push("--model-path", c.modelPath);
  return args;
}

/** Training runs on Tinker or on the local stand-in; the free sampling-only backends train locally. */
export function trainingBackend(backend: JobBackend): "tinker" | "local" {
  return backend === "tinker" ? "tinker" : "local";
}

export interface TrainSftChoice {
  name: string;
  backend: JobBackend;
  /** sft.jsonl (or a run folder holding one). */
  data: string;
  epochs: number;
}

export function trainSftArgs(c: TrainSftChoice): string[] {
  return ["train-sft", "--name", c.name, "--backend", trainingBackend(c.backend), "--data", c.data, "--epochs", String(c.epochs)];
}

export interface TrainGrpoChoice {
  name: string;
  backend: JobBackend;
  /** State checkpoint (tinker://…) or registry name to start from. */
  initState: string;
  steps: number;
  offset?: number;
}

export function trainGrpoArgs(c: TrainGrpoChoice): string[] {
  const args = ["train-grpo", "--name", c.name, "--backend", trainingBackend(c.backend), "--init-state", c.initState, "--steps", String(c.steps)];
  if (c.offset !== undefined) args.push("--offset", String(c.offset));
  return args;
}

export function rescoreArgs(runDir: string): string[] {
  return ["score", runDir];
}

export function serveLocalArgs(port: number): string[] {
  return ["serve-local", "--port", String(port)];
}

/** The whole recipe offline (local backend, synthetic data) in a folder of its own. */
export function offlinePipelineArgs(dir: string): string[] {
  return ["pipeline", "--dir", dir, "--backend", "local"];
}

export function ablateArgs(runDirs: string[]): string[] {
  return ["ablate", ...runDirs];
}

/** Run names become folder names: keep them to a safe alphabet. */
export function sanitizeRunName(raw: string): string {
  return raw.trim().replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|-+$/g, "").slice(0, 80);
}

/** A name that is not taken yet: `base`, `base-2`, `base-3`, … */
export function uniqueRunName(base: string, taken: ReadonlySet<string>): string {
  const clean = sanitizeRunName(base) || "run";
  if (!taken.has(clean)) return clean;
  for (let i = 2; ; i++) if (!taken.has(`${clean}-${i}`)) return `${clean}-${i}`;
}

/** The default run name for an eval, like the recipe's (`base`, `closed`, `sft-e2`, `test-grpo`). */
export function defaultEvalName(split: Split, closedBook: boolean, checkpointName?: string): string {
  const what = closedBook ? "closed" : checkpointName ?? "base";
  return split === "val" ? what : `${split}-${what}`;
}
