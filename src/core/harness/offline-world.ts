/**
 * What an environment declares to run the offline pipeline on an invented world of its own
 * (`agent-lab pipeline --env NAME`): the world's environment (its runs' name), how the world is
 * written and prepared, the scripted teacher the SFT data is distilled from, the question kinds the
 * report breaks GRPO's gain down by, and the sizes chosen for the local stand-in model. The
 * pipeline (steps/pipeline) runs every stage from this and names no environment.
 */
import type { EnvItem, Environment } from "./environment";
import type { Policy } from "./policy";

/** The world's seed and problem counts (the pipeline's settings record them). */
export interface WorldSize {
  seed: number;
  train: number;
  dev: number;
}

/** The sizes of one offline run (the pipeline's settings take these fields as they are). */
export interface OfflineSizes {
  world: WorldSize;
  harness: { maxTokens?: number; loraRank?: number; concurrency?: number };
  /** Questions of val each eval runs (undefined = the whole split). */
  evalLimit?: number;
  sftData: { questions: number; minF1: number };
  sft: SftSizes;
  grpo: GrpoSizes;
}

/** SFT's epochs, batch and learning rate (the pipeline's settings use this very type). */
export interface SftSizes {
  epochs: number;
  batch: number;
  lr: number;
}

/** GRPO's sizes (the pipeline's settings use this very type). */
export interface GrpoSizes {
  steps: number;
  questions: number;
  group: number;
  lr: number;
  temperature: number;
  saveEvery: number;
  /** Fixes GRPO's sampling draws (see trainGrpo), so a rerun of the same settings repeats its metrics. */
  seed: number;
  /** Divide advantages by their group's reward std (absent = false, the recipe's mean-only advantages). */
  normalizeAdvantages?: boolean;
}

export interface OfflineWorld {
  /** The world's environment: the real one's code under the world's own name (its info has `worldOf`). */
  readonly env: Environment<EnvItem>;
  /** One line for the plan: what the world is. */
  describe(size: WorldSize): string;
  /** What the world stage writes, relative to the workspace. */
  readonly files: readonly string[];
  /** Writes the world's files under the workspace `dir`; same seed, same bytes. */
  write(dir: string, size: WorldSize): { train: number; dev: number };
  /** Whether the world's files are there (the world stage is then done). */
  written(dir: string): boolean;
  /** One line for the plan: what prepare makes of the world. */
  readonly prepareWhat: string;
  /** Writes the environment's splits from the world's files (as `agent-lab prepare` reads files); lines to print. */
  prepare(dir: string, dataDir: string, size: WorldSize, log: (line: string) => void): Promise<string[]>;
  /** Train questions the prepared world holds (SFT data and GRPO draw from these, never reusing one). */
  trainQuestions(size: WorldSize): number;
  /** The scripted teacher and one line on what it knows and leaves out. */
  teacher(): Promise<Policy>;
  readonly teacherWhat: string;
  /** The question's kind, for the per-kind line (undefined: not one of the world's). */
  kindOf(question: string): string | undefined;
  /** Sizes chosen by measurement on a dev world (never the reported val), and a miniature for tests. */
  readonly sizes: OfflineSizes;
  readonly smoke: OfflineSizes;
}
