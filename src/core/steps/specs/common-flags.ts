/**
 * Flags several steps share, declared once so their meaning, range and default cannot drift
 * between commands (e.g. `--budget` refuses a negative value everywhere alike).
 */
import { RUN_NAME_MAX_LENGTH, RUN_NAME_PATTERN } from "../../base/runs/run-name";
import type { FlagSpec } from "./flags";
import { STAND_IN_TOKENIZER } from "../../base/chat/stand-in-tokenizer";
import { environmentFlagHelp } from "./environment-help";
import { SEARCH_SETTING_FORM, SEARCH_SETTING_PATTERN } from "../../base/config";

export const SAMPLING_BACKENDS = ["scripted", "tinker", "local", "transformers"] as const;
export const TRAINING_BACKENDS = ["tinker", "local"] as const;
export const SPLITS = ["val", "test", "train"] as const;

/** Opening the test split needs this explicit flag (recorded in the run's manifest). */
export const TEST_SPLIT_FLAG_NAME = "i-know-this-is-test";
export const TEST_SPLIT_FLAG = `--${TEST_SPLIT_FLAG_NAME}`;

export const DEFAULT_LOCAL_PORT = 8765;

/** gen-tasks' generation prompt (also an experiment arm's, when its spec names none). */
export const DEFAULT_GEN_PROMPT = "data/prompts/gen-tasks.md";

/** Pipeline sizes: the backend's own, or a smoke run that passes through every stage in about a minute. */
export const PIPELINE_SIZES = ["full", "smoke"] as const;

const flag = <S extends FlagSpec>(s: S): S => s;

export const workspace = flag({
  type: "string",
  arg: "DIR",
  default: ".",
  help: "folder holding agent-lab.json, data/ and runs/",
});
export const budget = flag({
  type: "number",
  arg: "USD",
  unit: "USD",
  min: 0,
  config: "budgetUsd",
  help: "stop cleanly before this run's spend would pass USD (0 = no cap)",
});
export const localPort = flag({
  type: "int",
  arg: "P",
  min: 0,
  max: 65535,
  default: DEFAULT_LOCAL_PORT,
  help: "local: reuse the workspace's local backend on this port, else start one",
});
export const topK = flag({ type: "int", arg: "K", min: 1, max: 100, config: "topK", help: "paragraphs per search" });
export const maxSearches = flag({
  type: "int",
  arg: "B",
  min: 1,
  max: 100,
  config: "maxSearches",
  help: "search budget per question",
});
export const maxTokens = flag({
  type: "int",
  arg: "T",
  unit: "tokens",
  min: 1,
  max: 32768,
  config: "maxTokens",
  help: "tokens per model turn",
});
export const concurrency = flag({
  type: "int",
  arg: "C",
  min: 1,
  max: 1024,
  config: "concurrency",
  help: "episodes in flight",
});
export const rank = flag({ type: "int", arg: "R", min: 1, max: 512, config: "loraRank", help: "LoRA rank" });
export const prompt = flag({
  type: "string",
  arg: "FILE",
  help: "system prompt file (config systemPromptFile, else the shipped one)",
});
export const index = flag({ type: "string", arg: "DIR", help: "BM25 index folder (default <dataDir>/bm25)" });
export const searchUrl = flag({
  type: "string",
  arg: "URL",
  config: "searchUrl",
  pattern: { regex: SEARCH_SETTING_PATTERN, describe: SEARCH_SETTING_FORM },
  help: "search an agent-lab serve-search at URL instead of opening the index in process",
});
/** The flag a step that can finish a stopped run declares (the Jobs UI's Resume adds it only where the spec has it). */
export const RESUME_FLAG_NAME = "resume";
export const resume = flag({ type: "boolean", help: "finish an interrupted run (refuses if its settings changed)" });
export const modelPath = flag({
  type: "string",
  arg: "PATH",
  alias: "checkpoint",
  help: "tinker:// sampler checkpoint to sample from (tinker, local)",
});
export const model = flag({
  type: "string",
  arg: "ID",
  help: "tinker: base model (config model); transformers: hub id or folder (config localModel)",
});
export const tokenizer = flag({
  type: "string",
  arg: "ID|FOLDER",
  help: `tokenizer hub id or folder when it is not the model's (${STAND_IN_TOKENIZER}: the offline Qwen3 stand-in of a rehearsal); recorded in the manifest`,
});
export const scriptedDelay = flag({
  type: "int",
  arg: "MS",
  unit: "ms",
  min: 0,
  max: 60_000,
  help: "scripted backend: pause per turn (to watch or test a long run)",
});
export const dryRun = flag({ type: "boolean", help: "print the estimated cost and what would run; run nothing" });
export const env = flag({
  type: "string",
  arg: "ENV",
  config: "env",
  help: environmentFlagHelp(),
});
/** The largest seed a flag or a spec takes (seeds feed 32-bit generators; 1e300 failed phases later). */
export const SEED_MAX = 2 ** 32 - 1;
/** The most questions (or tasks) a flag or a spec may ask a step to run, teach or generate. */
export const QUESTIONS_MAX = 100_000;
/** The largest first-train-question offset. */
export const OFFSET_MAX = 10_000_000;
/** The most GRPO steps between checkpoints (as many as a run's steps may be). */
export const SAVE_EVERY_MAX = 100_000;
export const seed = flag({ type: "int", arg: "S", min: 0, max: SEED_MAX, default: 0, help: "seed" });

export const temperature = (dflt: number) =>
  flag({ type: "number", arg: "T", min: 0, max: 2, default: dflt, help: "sampling temperature" });
export const samplingBackend = (dflt: (typeof SAMPLING_BACKENDS)[number]) =>
  flag({
    type: "string",
    arg: "B",
    choices: SAMPLING_BACKENDS,
    default: dflt,
    help: "where the model samples (scripted = the offline heuristic reader)",
  });
export const trainingBackend = flag({
  type: "string",
  arg: "B",
  choices: TRAINING_BACKENDS,
  default: "tinker",
  help: "where training runs (local = the free stand-in backend)",
});
const runNameForm = { pattern: RUN_NAME_PATTERN, maxLength: RUN_NAME_MAX_LENGTH } as const;
export const runName = (dflt: string) =>
  flag({
    type: "string",
    arg: "NAME",
    ...runNameForm,
    default: dflt,
    help: "run folder under runsDir (and checkpoint prefix for training)",
  });
export const requiredRunName = flag({
  type: "string",
  arg: "NAME",
  ...runNameForm,
  required: true,
  help: "run folder under runsDir",
});
