/**
 * Step 1 of the recipe (prep_data.py), byte-compatible with it: from HotpotQA train and dev records
 * build
 *   corpus.jsonl  one paragraph per title, first appearance over train then dev,
 *                 {"id": n, "title", "text": "".join(sentences).strip()}
 *   test.jsonl    dev shuffled by random.Random(0), the first 500
 *   val.jsonl     the next 200
 *   train.jsonl   train shuffled by the same generator, continuing
 * every row written as json.dumps(row, ensure_ascii=False). With the full dataset, test.jsonl has
 * the published sha256 prefix cb4ad042f2c0ef38.
 * The sha256 of every split goes to splits.json; later steps refuse a test split that changed.
 * Files are written under a temporary folder and renamed into place at the end, so a failure leaves
 * an earlier good data folder untouched.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { UserError } from "../../base/errors";
import { join } from "node:path";
import type { Question } from "../../base/data/question";
import { readHotpotRecords, type HotpotRecord } from "./records";
import { LineFileWriter } from "../../base/data/line-file-writer";
import { pyJsonDumps } from "../../base/data/python-json";
import { PyRandom } from "../../base/data/python-random";
import { pyStrip } from "../../base/data/python-text";
import {
  describeTestChange,
  lineHashes,
  readSplitsRecord,
  SPLITS_FILE,
  type SplitsRecord,
} from "../../base/data/splits";
import { TEST_SIZE, VAL_SIZE } from "../../base/data/split-sizes";

export { TEST_SIZE, VAL_SIZE };
/** The recipe's published hash of the full dataset's test.jsonl. */
export const PUBLISHED_TEST_SHA256_PREFIX = "cb4ad042f2c0ef38";

export interface PrepareInput {
  /** Train files in order (the hub's are sorted by name). */
  trainFiles: string[];
  /** Dev (validation) files in order. */
  devFiles: string[];
  /** Where the records came from, for splits.json. */
  source: string;
}

export interface SplitSizes {
  test: number;
  val: number;
}

/** The recipe's split sizes. */
export const RECIPE_SPLIT_SIZES: Readonly<SplitSizes> = Object.freeze({ test: TEST_SIZE, val: VAL_SIZE });

export interface PrepareOptions {
  /** Allow replacing a locked test.jsonl whose content changes (the result says what changed). */
  replaceTestSplit?: boolean;
  /**
   * Questions of test and val, taken in that order from the shuffled dev set (default the recipe's
   * 500 and 200). A rehearsal on a few hundred dev questions sets smaller ones so val is not empty.
   */
  sizes?: SplitSizes;
}

export interface PrepareResult {
  counts: { corpus: number; train: number; val: number; test: number };
  testSha256: string;
  /** When a locked test split was replaced (with replaceTestSplit): what changed, in one line. */
  testReplaced?: string;
  /** Human-readable remarks (e.g. a small dev set). */
  notes: string[];
}

/** The recipe's question row, keys in its order. */
export function questionRow(r: HotpotRecord): Question {
  return { id: r.id, question: r.question, answers: [r.answer], type: r.type, level: r.level };
}

export async function prepareData(
  outDir: string,
  input: PrepareInput,
  log: (line: string) => void = () => {},
  options: PrepareOptions = {},
): Promise<PrepareResult> {
  // The lock is read before any work: a damaged record is refused now, not after a long download.
  let locked: SplitsRecord | undefined;
  let unreadableLock: string | undefined;
  if (existsSync(join(outDir, SPLITS_FILE))) {
    try {
      locked = readSplitsRecord(outDir);
    } catch (e) {
      if (!options.replaceTestSplit) throw e;
      unreadableLock = (e as Error).message; // replacing on purpose: the damaged record goes too
    }
  }
  await mkdir(outDir, { recursive: true });
  await removeAbandonedTempDirs(outDir);
  const tmp = await mkdtemp(join(outDir, `${TEMP_PREFIX}${process.pid}-`));
  try {
    const result = await writeAll(tmp, input, log, options.sizes ?? RECIPE_SPLIT_SIZES);
    if (unreadableLock)
      result.testReplaced = `the old record could not be read (${unreadableLock}); new sha256 ${result.testSha256.slice(0, 16)}`;
    if (locked && locked.test_sha256_full !== result.testSha256) {
      const change = describeTestChange(locked, readSplitsRecord(tmp));
      if (!options.replaceTestSplit) {
        // The recipe's first rule: the test hash never changes. Nothing in outDir has been touched.
        throw new UserError(
          `${join(outDir, "test.jsonl")} is locked by ${join(outDir, SPLITS_FILE)} and these inputs would change it (${change}); ` +
            `the data folder was left as it was: prepare from the same files, or add --replace-test-split to replace the test split on purpose`,
        );
      }
      result.testReplaced = change;
    }
    // splits.json last: if anything stops half-way, the old record no longer matches and
    // checkTestSplit refuses, instead of silently accepting a mixed folder.
    for (const name of ["corpus.jsonl", "train.jsonl", "val.jsonl", "test.jsonl", SPLITS_FILE]) {
      await rename(join(tmp, name), join(outDir, name));
    }
    return result;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

const TEMP_PREFIX = ".prepare-";

/** A prepare killed hard (SIGKILL, power loss) leaves its temp folder; remove those whose process is gone. */
async function removeAbandonedTempDirs(outDir: string): Promise<void> {
  for (const name of await readdir(outDir)) {
    const pid = name.startsWith(TEMP_PREFIX) ? Number(name.slice(TEMP_PREFIX.length).split("-")[0]) : NaN;
    if (!Number.isInteger(pid) || pid <= 0 || isAlive(pid)) continue;
    await rm(join(outDir, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

async function writeAll(
  dir: string,
  input: PrepareInput,
  log: (line: string) => void,
  sizes: SplitSizes,
): Promise<PrepareResult> {
  const corpus = await LineFileWriter.create(join(dir, "corpus.jsonl"));
  const seen = new Set<string>();
  const collect = async (files: string[], what: string): Promise<Question[]> => {
    const rows: Question[] = [];
    for (const file of files) {
      for await (const { record } of readHotpotRecords(file)) {
        rows.push(questionRow(record));
        for (const { title, sentences } of record.context) {
          if (seen.has(title)) continue;
          seen.add(title);
          await corpus.write(pyJsonDumps({ id: seen.size - 1, title, text: pyStrip(sentences.join("")) }));
        }
      }
      log(`read ${what} ${file}: ${rows.length.toLocaleString("en-US")} questions so far`);
    }
    return rows;
  };
  let trainRows: Question[];
  let devRows: Question[];
  try {
    trainRows = await collect(input.trainFiles, "train");
    devRows = await collect(input.devFiles, "dev");
  } catch (e) {
    await corpus.abandon();
    throw e;
  }
  const corpusSha = await corpus.close();

  const notes: string[] = [];
  if (devRows.length < sizes.test + sizes.val) {
    notes.push(
      `dev has only ${devRows.length} questions (the full set has 7,405): test gets the first ` +
        `${Math.min(sizes.test, devRows.length)} after shuffling, val the next ${Math.max(0, Math.min(sizes.val, devRows.length - sizes.test))}; ` +
        `the test hash will not match the published one`,
    );
  } else if (sizes.test !== TEST_SIZE) {
    notes.push(
      `test has ${sizes.test} questions instead of the recipe's ${TEST_SIZE}: the test hash will not match the published one`,
    );
  }
  const rng = new PyRandom(0);
  rng.shuffle(devRows);
  const test = devRows.slice(0, sizes.test);
  const val = devRows.slice(sizes.test, sizes.test + sizes.val);
  rng.shuffle(trainRows);

  const write = async (name: string, rows: Question[]) => {
    const w = await LineFileWriter.create(join(dir, name));
    for (const row of rows) await w.write(pyJsonDumps(row));
    return w.close();
  };
  const testSha = await write("test.jsonl", test);
  const valSha = await write("val.jsonl", val);
  const trainSha = await write("train.jsonl", trainRows);

  const counts = { corpus: seen.size, train: trainRows.length, val: val.length, test: test.length };
  const record: SplitsRecord = {
    test_sha256: testSha.slice(0, 16),
    test_sha256_full: testSha,
    counts,
    source: input.source,
    created: new Date().toISOString(),
    files: {
      "test.jsonl": { sha256: testSha, lines: test.length },
      "val.jsonl": { sha256: valSha, lines: val.length },
      "train.jsonl": { sha256: trainSha, lines: trainRows.length },
      "corpus.jsonl": { sha256: corpusSha, lines: seen.size },
    },
    test_lines: lineHashes(test.map((row) => pyJsonDumps(row))).map((sha, i) => ({ id: test[i].id, sha256: sha })),
  };
  const splits = await LineFileWriter.create(join(dir, SPLITS_FILE));
  await splits.write(JSON.stringify(record, null, 2));
  await splits.close();
  return { counts, testSha256: testSha, notes };
}
