/**
 * What an environment declares to run the offline pipeline on an invented world of its own
 * (`agent-lab pipeline --env NAME`): the world's environment (its runs' name), how the world is
 * written and prepared, the scripted teacher the SFT data is distilled from, the question kinds the
 * report breaks GRPO's gain down by, and the sizes chosen for the local stand-in model. A world whose
 * environment has tools declares the rest of its stages too (`tools`: the search index, the
 * closed-book floor, its short prompts), and an environment whose recipe also runs on real data
 * (`--backend tinker`) declares where that data comes from (`recipeData`). The pipeline
 * (steps/pipeline) runs every stage from this and names no environment; with no `--env` it runs the
 * default environment's declaration.
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
  /** Written to the folder's agent-lab.json in this order (the pipeline's settings record them as they are). */
  harness: { topK?: number; maxSearches?: number; maxTokens?: number; loraRank?: number; concurrency?: number };
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

/** Questions of test and val that prepare takes from the dev records. */
export interface SplitSizes {
  test: number;
  val: number;
}

/** What a world whose environment searches adds to the stages: an index, a closed-book floor, short prompts. */
export interface WorldTools {
  /** The BM25 index over the prepared corpus (file and folder names in the environment's data folder). */
  readonly index: { corpus: string; dir: string };
  /** The system prompts the offline runs use, written to files in the folder (every manifest records their hash). */
  readonly prompts: { system: string; closedBook: string };
}

/** The real records the recipe runs on with `--backend tinker`: from the hub, or local files given as --train/--dev. */
export type RealDataSource = { source: "hub" } | { source: "files"; train: string[]; dev: string[] };

/** Where an environment's real data comes from and how prepare makes splits of it (the paid path and its rehearsal). */
export interface RecipeData {
  /** The recipe's test and val sizes (a run's settings may set smaller ones). */
  readonly splits: SplitSizes;
  /** One line for the plan, and what the world stage leaves (the hub's cache, files read in place). */
  describe(d: RealDataSource): string;
  outputs(d: RealDataSource): string[];
  /** What prepare reads, for the record. */
  reads(d: RealDataSource): string[];
  /** The world stage: fetches the records (the hub) or names them (files); lines to print. */
  fetch(d: RealDataSource, log: (line: string) => void): Promise<string[]>;
  /** One line for the plan: what prepare makes of the records. */
  prepareWhat(splits: SplitSizes): string;
  /** Writes the splits (and corpus) into `dataDir`, as `agent-lab prepare` does; lines to print. */
  prepare(
    dataDir: string,
    d: RealDataSource,
    splits: SplitSizes | undefined,
    log: (line: string) => void,
  ): Promise<string[]>;
  /** What --train/--dev files hold, for the message when one is missing. */
  readonly filesWhat: string;
}

/**
 * The world `agent-lab demo` writes (a world with tools: the demo evaluates the environment's scripted
 * reader with search and closed-book, no model): its own seed, sizes, files and lines.
 */
export interface DemoWorld {
  readonly seed: number;
  /** Problem counts when the demo is given none. */
  readonly train: number;
  readonly dev: number;
  /** The world stage's line, and the files it writes (relative to the workspace). */
  readonly describe: string;
  readonly files: readonly string[];
  write(dir: string, size: WorldSize): void;
  /** Whether the world's files are there (the world stage is then done). */
  written(dir: string): boolean;
  /** The prepare stage's line; prepare writes the environment's splits from the world's files and returns lines to print. */
  readonly prepareWhat: string;
  prepare(dir: string, dataDir: string, size: WorldSize): Promise<string[]>;
  /** Who answers in the demo's evals (the environment's scripted reader), for their lines. */
  readonly readerWhat: string;
}

export interface OfflineWorld {
  /** The world's environment: the real one's code under the world's own name (its info has `worldOf`). */
  readonly env: Environment<EnvItem>;
  /** One line for the plan: what the world is. */
  describe(size: WorldSize): string;
  /** What the world stage writes, relative to the workspace. */
  readonly files: readonly string[];
  /**
   * Writes the world's files under the workspace `dir`; same seed, same bytes. Returns the line to
   * print. Stops between two items once `signal` aborts (throwing its reason), writing nothing.
   */
  write(dir: string, size: WorldSize, signal?: AbortSignal): Promise<string>;
  /** Whether the world's files are there (the world stage is then done). */
  written(dir: string): boolean;
  /** One line for the plan: what prepare makes of the world. */
  readonly prepareWhat: string;
  /** What prepare writes in the environment's data folder (absent: `{train,val,test}.jsonl`). */
  readonly preparedFiles?: string;
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
  /** Absent: the environment has no tools, so no index stage, no closed-book floor and the config's prompt. */
  readonly tools?: WorldTools;
  /** Absent: the environment's pipeline runs on its invented world only (offline). */
  readonly recipeData?: RecipeData;
  /** Absent: `agent-lab demo` cannot run on this environment (the default environment's is the demo's). */
  readonly demo?: DemoWorld;
}
