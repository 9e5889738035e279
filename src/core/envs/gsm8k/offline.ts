/**
 * GSM8K's offline world for `agent-lab pipeline --env gsm8k`: the arithmetic world (world.ts) written
 * as GSM8K JSONL records, prepared by GSM8K's own split writer into the world environment's data
 * folder, the scripted teacher (teacher.ts), and the sizes chosen on a dev world (README, pipeline).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { offlineTokenizer } from "../../base/chat";
import { pyJsonDumps } from "../../base/data/python-json";
import { writeFileAtomic } from "../../base/util/atomic-write";
import type { OfflineWorld, WorldSize } from "../../harness/offline-world";
import { readGsm8kRecords, VAL_SIZE, writeGsm8kSplits, type Gsm8kRecord } from "./data";
import { ArithmeticTeacher } from "./teacher";
import { buildArithmeticWorld, worldKind } from "./world";
import { runInterruptibly } from "../../base/util/stepwise";
import { WORLD_ENVIRONMENT as GSM8K_WORLD } from "./world-env";

/** Where the world's raw records live in a workspace (GSM8K's JSONL format, as `prepare --env gsm8k --train/--test` reads it). */
export const ARITHMETIC_WORLD_DIR = "arithmetic";
export const ARITHMETIC_TRAIN_FILE = "arithmetic_train.jsonl";
export const ARITHMETIC_TEST_FILE = "arithmetic_test.jsonl";

export const ARITHMETIC_SOURCE = "agent-lab pipeline arithmetic world";

const files = (dir: string) => ({
  train: join(dir, ARITHMETIC_WORLD_DIR, ARITHMETIC_TRAIN_FILE),
  test: join(dir, ARITHMETIC_WORLD_DIR, ARITHMETIC_TEST_FILE),
});

const jsonl = (records: Gsm8kRecord[]) => records.map((r) => pyJsonDumps(r) + "\n").join("");

export const OFFLINE_WORLD: OfflineWorld = Object.freeze<OfflineWorld>({
  env: GSM8K_WORLD,
  describe: (w: WorldSize) =>
    `write the arithmetic world (invented word problems, seed ${w.seed}; the answer is the count, price or stall number the question asks for): ${w.train} train + ${w.dev} test problems in GSM8K's JSONL format`,
  files: [`${ARITHMETIC_WORLD_DIR}/${ARITHMETIC_TRAIN_FILE}`, `${ARITHMETIC_WORLD_DIR}/${ARITHMETIC_TEST_FILE}`],
  write: async (dir: string, w: WorldSize, signal?: AbortSignal) => {
    const world = await runInterruptibly(buildArithmeticWorld({ seed: w.seed, train: w.train, test: w.dev }), signal);
    mkdirSync(join(dir, ARITHMETIC_WORLD_DIR), { recursive: true });
    const f = files(dir);
    writeFileAtomic(f.train, jsonl(world.train));
    // The test file last: its presence marks the world as written.
    writeFileAtomic(f.test, jsonl(world.test));
    return `${world.train.length} train and ${world.test.length} test problems`;
  },
  written: (dir: string) => existsSync(files(dir).test),
  prepareWhat: `GSM8K's splits (val ${VAL_SIZE} from train after its seeded shuffle, train the rest, test the world's test file, locked by its hash)`,
  prepare: async (dir: string, dataDir: string, w: WorldSize) => {
    const f = files(dir);
    const r = await writeGsm8kSplits(
      GSM8K_WORLD.data.dir(dataDir),
      await readGsm8kRecords(f.train),
      await readGsm8kRecords(f.test),
      `${ARITHMETIC_SOURCE} (seed ${w.seed})`,
    );
    return [`train ${r.counts.train} | val ${r.counts.val} | test ${r.counts.test}`];
  },
  trainQuestions: (w: WorldSize) => w.train - VAL_SIZE,
  teacher: async () => new ArithmeticTeacher(await offlineTokenizer("qwen3")),
  teacherWhat:
    "the scripted teacher (boxes the variable a question names; it has no rule for the price asked in words, so the traces hold none)",
  kindOf: (question: string) => worldKind(question),
  sizes: {
    world: { seed: 20261204, train: 1700, dev: 300 },
    harness: { maxTokens: 16, loraRank: 8, concurrency: 8 },
    evalLimit: undefined,
    sftData: { questions: 300, minF1: 0.8 },
    sft: { epochs: 3, batch: 4, lr: 0.01 },
    grpo: {
      steps: 30,
      questions: 16,
      group: 4,
      lr: 1e-3,
      temperature: 1,
      saveEvery: 10,
      seed: 0,
      normalizeAdvantages: true,
    },
  },
  smoke: {
    world: { seed: 7, train: VAL_SIZE + 60, dev: 20 },
    harness: { maxTokens: 16, loraRank: 8, concurrency: 8 },
    evalLimit: 20,
    sftData: { questions: 20, minF1: 0.8 },
    sft: { epochs: 1, batch: 8, lr: 0.01 },
    grpo: {
      steps: 2,
      questions: 2,
      group: 2,
      lr: 2e-3,
      temperature: 1,
      saveEvery: 1,
      seed: 3,
      normalizeAdvantages: true,
    },
  },
});

// The names other modules imported before environments were found from their folders (envs/folders.ts).
export const GSM8K_OFFLINE = OFFLINE_WORLD;
export { GSM8K_WORLD };
