/**
 * HotpotQA's offline world for `agent-lab pipeline` (the default environment's, so also with no
 * --env): the synthetic multi-hop world (synthetic-world.ts, compact style) in HotpotQA's JSON shape,
 * prepared like HotpotQA into splits and a corpus, indexed with BM25, a closed-book floor, short
 * prompts, the scripted teacher (teacher.ts) and the sizes chosen by measurement (README, pipeline);
 * and the real data its paid path runs on (recipe-data.ts).
 */
import { existsSync } from "node:fs";
import { offlineTokenizer } from "../../base/chat";
import type { DemoWorld, OfflineSizes, OfflineWorld, WorldSize } from "../../harness/offline-world";
import { RECIPE_SPLIT_SIZES } from "./prepare";
import { RECIPE_DATA } from "./recipe-data";
import { questionKind } from "./synthetic-world";
import { TeacherPolicy } from "./teacher";
import { WORLD_ENVIRONMENT } from "./world-env";
import {
  prepareHotpot,
  prepareLines,
  WORLD_DEV_FILE,
  WORLD_DIR,
  WORLD_SOURCE,
  WORLD_TRAIN_FILE,
  worldFiles,
  writeSyntheticWorld,
  writeSyntheticWorldInterruptibly,
} from "./world-files";

/** Short prompts for the offline world (written to files: every run's manifest records their hash). */
const SYSTEM_PROMPT =
  "Answer the question about an invented world by searching.\nReply with one action: <search>words</search> or <answer>answer</answer>.\n";
const CLOSED_BOOK_PROMPT =
  "Answer the question about an invented world from memory; you cannot search.\nReply with <answer>answer</answer>.\n";

/**
 * Offline sizes, chosen by measurement (see the README's pipeline section): a compact world with
 * one-token name words, one paragraph per search, two searches (every question is two hops), short
 * turns, and a scripted teacher, because the tiny model starts knowing nothing. GRPO needs many
 * steps over fresh questions to show a trend through the per-step noise (which questions a step
 * draws): 60 × 32 from a 3,000-question world, advantages scaled by group std so the rare right
 * answer of a hard question carries weight.
 */
const SIZES: OfflineSizes = {
  world: { seed: 20261129, train: 3000, dev: 700 },
  harness: { topK: 1, maxSearches: 2, maxTokens: 32, loraRank: 8, concurrency: 8 },
  evalLimit: undefined,
  sftData: { questions: 400, minF1: 0.8 },
  sft: { epochs: 5, batch: 4, lr: 0.01 },
  grpo: {
    steps: 60,
    questions: 32,
    group: 4,
    lr: 2e-3,
    temperature: 1,
    saveEvery: 10,
    seed: 0,
    normalizeAdvantages: true,
  },
};

/** A miniature: every stage, every file and view, tiny sizes (20 val questions: dev 520 less the 500 of test). */
const SMOKE: OfflineSizes = {
  ...SIZES,
  world: { seed: 7, train: 40, dev: 520 },
  sftData: { questions: 20, minF1: 0.8 },
  sft: { epochs: 1, batch: 8, lr: 0.01 },
  grpo: {
    steps: 2,
    questions: 2,
    group: 2,
    lr: 0.002,
    temperature: 1,
    saveEvery: 1,
    seed: 3,
    normalizeAdvantages: true,
  },
};

/** The demo's dev file (the pipeline's world names its own synthetic_dev.json). */
const DEMO_DEV_FILE = "synthetic_dev_distractor.json";
const DEMO_SEED = 20261129;

/** `agent-lab demo`'s world: the generator's default style, 700 dev questions for the recipe's 500 test + 200 val. */
const DEMO: DemoWorld = {
  seed: DEMO_SEED,
  train: 300,
  dev: 700,
  describe: "writing a synthetic multi-hop dataset (invented people, companies, towns) in HotpotQA's JSON shape",
  files: [`${WORLD_DIR}/${WORLD_TRAIN_FILE}`, `${WORLD_DIR}/${DEMO_DEV_FILE}`],
  write: (dir: string, w: WorldSize) => {
    writeSyntheticWorld(dir, { seed: w.seed, train: w.train, dev: w.dev, devFile: DEMO_DEV_FILE });
  },
  // The dev file is written last: with it the world is whole.
  written: (dir: string) => existsSync(worldFiles(dir, { devFile: DEMO_DEV_FILE }).devFile),
  prepareWhat: `prepare: splits (test ${RECIPE_SPLIT_SIZES.test}, val ${RECIPE_SPLIT_SIZES.val}, train) and the paragraph corpus, as for HotpotQA`,
  prepare: async (dir: string, dataDir: string, w: WorldSize) => {
    const f = worldFiles(dir, { devFile: DEMO_DEV_FILE });
    const c = (
      await prepareHotpot(WORLD_ENVIRONMENT.data.dir(dataDir), {
        trainFiles: [f.trainFile],
        devFiles: [f.devFile],
        source: `agent-lab demo synthetic dataset (seed ${w.seed})`,
      })
    ).counts;
    return [`corpus ${c.corpus} paragraphs | train ${c.train} | val ${c.val} | test ${c.test}`];
  },
  readerWhat: "the scripted heuristic reader",
};

export const OFFLINE_WORLD: OfflineWorld = Object.freeze<OfflineWorld>({
  env: WORLD_ENVIRONMENT,
  describe: (w: WorldSize) =>
    `write a synthetic multi-hop world (invented entities, seed ${w.seed}): ${w.train} train + ${w.dev} dev questions in HotpotQA's JSON shape`,
  files: [`${WORLD_DIR}/${WORLD_TRAIN_FILE}`, `${WORLD_DIR}/${WORLD_DEV_FILE}`],
  write: async (dir: string, w: WorldSize, signal?: AbortSignal) => {
    const f = await writeSyntheticWorldInterruptibly(
      dir,
      { seed: w.seed, train: w.train, dev: w.dev, style: "compact" },
      signal,
    );
    return `${f.train} train and ${f.dev} dev questions`;
  },
  // The dev file is written last: with it the world is whole.
  written: (dir: string) => existsSync(worldFiles(dir, {}).devFile),
  prepareWhat: RECIPE_DATA.prepareWhat(RECIPE_SPLIT_SIZES),
  preparedFiles: "{train,val,test,corpus}.jsonl",
  prepare: (dir: string, dataDir: string, w: WorldSize, log: (line: string) => void) => {
    const f = worldFiles(dir, {});
    return prepareLines(
      WORLD_ENVIRONMENT.data.dir(dataDir),
      { trainFiles: [f.trainFile], devFiles: [f.devFile], source: `${WORLD_SOURCE} (compact, seed ${w.seed})` },
      log,
    );
  },
  trainQuestions: (w: WorldSize) => w.train,
  teacher: async () => new TeacherPolicy(await offlineTokenizer("qwen3")),
  teacherWhat:
    "the scripted teacher (the heuristic reader, spans only: no yes/no answers; the tiny model starts from nothing)",
  kindOf: (question: string) => questionKind(question),
  sizes: SIZES,
  smoke: SMOKE,
  tools: {
    index: { corpus: "corpus.jsonl", dir: "bm25" },
    prompts: { system: SYSTEM_PROMPT, closedBook: CLOSED_BOOK_PROMPT },
  },
  recipeData: RECIPE_DATA,
  demo: DEMO,
});
