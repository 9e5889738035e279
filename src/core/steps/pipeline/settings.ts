/**
 * The sizes of one pipeline run, for each backend: the offline defaults (the default environment's
 * invented world, which the local stand-in model learns in minutes: its folder's offline.ts declares
 * them) and the recipe's (the default environment's real data on Tinker with Qwen3.5-4B). Every
 * number a run used is written to pipeline.json, so a result can be traced to its settings.
 */
import { existsSync, statSync } from "node:fs";
import { STAND_IN_TOKENIZER } from "../../base/chat";
import { UserError } from "../../base/errors";
import { PIPELINE_SIZES } from "../specs/common-flags";
import { DEFAULT_ENVIRONMENT, offlineWorld } from "../../envs/registry";
import { defaultWorld } from "../recipe/stages";
import type { GrpoSizes, OfflineSizes, OfflineWorld, SftSizes, SplitSizes } from "../../harness/offline-world";

export type PipelineBackend = "local" | "tinker";

/** The environment's records from local files, read as `agent-lab prepare --train … --dev …` reads them (absolute paths). */
export interface PipelineFiles {
  source: "files";
  train: string[];
  dev: string[];
}

export interface PipelineSettings {
  backend: PipelineBackend;
  /**
   * The environment whose offline world the run is on (envs/registry.ts offlineWorld); absent: the
   * default environment's (its world offline, its real data on tinker), as every pipeline.json
   * before the flag recorded it.
   */
  env?: string;
  /** Where the questions come from: the invented world (local), the Hugging Face hub or local files (tinker). */
  data: { source: "synthetic"; seed: number; train: number; dev: number } | { source: "hub" } | PipelineFiles;
  /** Questions of test and val that prepare takes from dev (absent = the recipe's 500 and 200). */
  splits?: SplitSizes;
  /** Set for a rehearsal of the paid path: every step uses and records this stand-in tokenizer. */
  rehearsal?: { tokenizer: string };
  /** Harness settings written to the workspace's agent-lab.json (absent = the recipe's defaults). */
  harness: { topK?: number; maxSearches?: number; maxTokens?: number; loraRank?: number; concurrency?: number };
  /** Offline only: short system prompts written next to the world (recorded in every manifest by hash). */
  offlinePrompts: boolean;
  /** Questions of val each eval runs (undefined = the whole split). */
  evalLimit?: number;
  sftData: {
    questions: number;
    tries: number;
    temperature: number;
    minF1: number;
    role: "self" | "teacher";
    /** Keep only attempts that searched (absent = true, the recipe's rule). */
    requireSearch?: boolean;
  };
  sft: SftSizes;
  grpo: GrpoSizes;
}

/**
 * Offline defaults: the default environment's world at the sizes its folder chose by measurement
 * (see the README's pipeline section), recorded without `env` as every pipeline.json before the flag.
 */
export const LOCAL_SETTINGS: Readonly<PipelineSettings> = Object.freeze(
  worldSettings(undefined, defaultWorld(), defaultWorld().sizes),
);

/** The recipe's sizes (seed 000): SFT 1,500 questions × 4 tries, 3 epochs; GRPO 30 steps × 32 × 8. */
export const TINKER_SETTINGS: Readonly<PipelineSettings> = Object.freeze({
  backend: "tinker",
  data: { source: "hub" },
  harness: {},
  offlinePrompts: false,
  evalLimit: undefined,
  sftData: { questions: 1500, tries: 4, temperature: 0.8, minF1: 0.8, role: "self" },
  sft: { epochs: 3, batch: 32, lr: 2e-4 },
  grpo: { steps: 30, questions: 32, group: 8, lr: 4e-5, temperature: 1, saveEvery: 10, seed: 0 },
} as PipelineSettings);

/** How the pipeline evaluates every checkpoint: greedy on val (the eval step's defaults). */
export const PIPELINE_EVAL = Object.freeze({ split: "val" as const, temperature: 0 });

/**
 * Which setting is which step's flag (step name, flag name). The recipe's sizes (TINKER_SETTINGS)
 * are the steps' defaults: a test fails when one differs from its flag's default in the step specs
 * (catalog.ts), so the pipeline and `agent-lab train-grpo` with no flags run the same recipe.
 */
export const SETTING_FLAGS: Readonly<Record<string, readonly [step: string, flag: string]>> = Object.freeze({
  "sftData.questions": ["sft-data", "questions"],
  "sftData.tries": ["sft-data", "tries"],
  "sftData.temperature": ["sft-data", "temperature"],
  "sftData.minF1": ["sft-data", "min-f1"],
  "sft.epochs": ["train-sft", "epochs"],
  "sft.batch": ["train-sft", "batch"],
  "sft.lr": ["train-sft", "lr"],
  "grpo.steps": ["train-grpo", "steps"],
  "grpo.questions": ["train-grpo", "questions"],
  "grpo.group": ["train-grpo", "group"],
  "grpo.lr": ["train-grpo", "lr"],
  "grpo.temperature": ["train-grpo", "temperature"],
  "grpo.saveEvery": ["train-grpo", "save-every"],
  "grpo.seed": ["train-grpo", "seed"],
});

/**
 * The one place the offline pipeline departs from the steps' defaults on purpose: a tiny CPU model
 * on a small invented world, taught by a scripted teacher (greedy, one try), trained with larger
 * learning rates over smaller batches. Every other mapped setting of LOCAL_SETTINGS equals its flag's
 * default (the same test holds this list exact: an entry that no longer differs is refused too).
 */
export const LOCAL_OWN_SIZES: readonly string[] = Object.freeze([
  "sftData.questions",
  "sftData.tries",
  "sftData.temperature",
  "sft.epochs",
  "sft.batch",
  "sft.lr",
  "grpo.steps",
  "grpo.group",
  "grpo.lr",
]);

export type PipelineSize = (typeof PIPELINE_SIZES)[number];

/**
 * A miniature of the offline recipe: every stage, every file and view, tiny sizes (what the tests
 * and the extension's integration suite run; its numbers mean nothing).
 */
export function smokeSettings(): PipelineSettings {
  return worldSettings(undefined, defaultWorld(), defaultWorld().smoke);
}

/**
 * A rehearsal of the paid path: every stage of the recipe through the Tinker client (whatever server
 * TINKER_BASE_URL names: the local backend, or the real service for a cents-sized dry run) at tiny
 * sizes, with a stand-in tokenizer, since the model's own may not be available. Its numbers mean
 * nothing; what it shows is that every stage runs, end to end, before a paid run spends money.
 * The SFT data keeps an attempt for every question (F1 ≥ 0, searched or not), so train-sft always
 * has data to train on whatever the model scores on a handful of questions.
 */
export function rehearsalSettings(data: PipelineSettings["data"] = { source: "hub" }): PipelineSettings {
  const s = defaultSettings("tinker");
  s.data = data;
  // 200 dev questions (the shared partial set) fill both; the full set gives the same small splits.
  s.splits = { test: 100, val: 100 };
  s.rehearsal = { tokenizer: STAND_IN_TOKENIZER };
  s.harness = { maxSearches: 2, maxTokens: 48, concurrency: 4 };
  s.evalLimit = 3;
  s.sftData = { questions: 4, tries: 2, temperature: 0.8, minF1: 0, role: "self", requireSearch: false };
  s.sft = { epochs: 1, batch: 2, lr: 2e-4 };
  s.grpo = { steps: 1, questions: 2, group: 2, lr: 4e-5, temperature: 1, saveEvery: 1, seed: 0 };
  return s;
}

/**
 * A declared offline world's sizes as the pipeline's settings (local backend, its teacher's one greedy
 * try); `env` absent for the default environment's world. The keys keep their order: a rerun compares
 * the recorded settings as text.
 */
export function worldSettings(env: string | undefined, world: OfflineWorld, sizes: OfflineSizes): PipelineSettings {
  return {
    backend: "local",
    ...(env !== undefined ? { env } : {}),
    data: { source: "synthetic", ...sizes.world },
    harness: { ...sizes.harness },
    offlinePrompts: world.tools !== undefined,
    evalLimit: sizes.evalLimit,
    sftData: {
      questions: sizes.sftData.questions,
      tries: 1,
      temperature: 0,
      minF1: sizes.sftData.minF1,
      role: "teacher",
    },
    sft: { ...sizes.sft },
    grpo: { ...sizes.grpo },
  };
}

export interface SettingsChoice {
  /** `--env`: an environment with a declared offline world runs on it (local only); the default environment's is the pipeline's own. */
  env?: string;
  size?: PipelineSize;
  /** `--rehearse` (tinker only). */
  rehearse?: boolean;
  /** `--train/--dev` (tinker only; the local pipeline runs on its invented world). */
  files?: PipelineFiles;
}

export function settingsFor(backend: PipelineBackend, choice: SettingsChoice = {}): PipelineSettings {
  const size = choice.size ?? "full";
  // The default environment's world is the pipeline's own: recorded without `env`, with every path open to it.
  const world = choice.env !== undefined && choice.env !== DEFAULT_ENVIRONMENT ? offlineWorld(choice.env) : undefined;
  if (world) {
    if (backend !== "local" || choice.rehearse || choice.files)
      throw new UserError(
        `--env ${choice.env} runs offline only, on its invented world (--backend local, no --rehearse or --train/--dev)`,
      );
    return worldSettings(choice.env, world, size === "smoke" ? world.smoke : world.sizes);
  }
  if (backend === "local" && (choice.rehearse || choice.files)) {
    throw new UserError(
      `${choice.rehearse ? "--rehearse" : "--train/--dev"} needs --backend tinker: the local pipeline runs on its own invented world`,
    );
  }
  if (choice.rehearse) {
    if (size !== "full") throw new UserError("--rehearse sets its own tiny sizes; leave out --size");
    return rehearsalSettings(choice.files);
  }
  if (size === "full") {
    const s = defaultSettings(backend);
    if (choice.files) s.data = choice.files;
    return s;
  }
  if (backend !== "local")
    throw new UserError(
      "--size smoke runs offline only (--backend local); --rehearse is the tinker path at tiny sizes",
    );
  return smokeSettings();
}

export function defaultSettings(backend: PipelineBackend): PipelineSettings {
  return structuredClone(backend === "local" ? LOCAL_SETTINGS : TINKER_SETTINGS) as PipelineSettings;
}

/** Refuses input files that are not there, and sizes that cannot run: GRPO takes its questions after the SFT ones, never reusing one. */
export function checkSettings(s: PipelineSettings): void {
  if (s.data.source === "files") {
    for (const [flag, files] of [
      ["--train", s.data.train],
      ["--dev", s.data.dev],
    ] as const) {
      if (files.length === 0) throw new UserError(`${flag}: no files given (--train and --dev go together)`);
      for (const file of files) {
        if (!existsSync(file) || !statSync(file).isFile())
          throw new UserError(`${flag} ${file}: no such file (${defaultWorld().recipeData?.filesWhat ?? "records"})`);
      }
    }
  }
  if (s.data.source !== "synthetic") return;
  const world = s.env !== undefined ? offlineWorld(s.env) : defaultWorld();
  const train = world ? world.trainQuestions(s.data) : s.data.train;
  const needed = s.sftData.questions + s.grpo.steps * s.grpo.questions;
  if (train < needed) {
    throw new UserError(
      `the world has ${train} train questions; SFT data takes ${s.sftData.questions} and GRPO ${s.grpo.steps} × ${s.grpo.questions} more (${needed} in all)`,
    );
  }
}
