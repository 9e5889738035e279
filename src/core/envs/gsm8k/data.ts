/**
 * GSM8K records (`openai/gsm8k`, config `main`: `{question, answer}`, the answer ending `#### N`)
 * from JSONL or parquet files or the Hugging Face hub (the project's hub download: same cache,
 * progress and resume as HotpotQA), and the splits: test = the official test set (1,319) in its
 * order, locked by its sha256 in splits.json (checked by `checkTestSplit`, as for HotpotQA); val =
 * the first VAL_SIZE of the official train set after the project's seeded shuffle
 * (`random.Random(0).shuffle`, Python-compatible); train = the rest, in that shuffled order.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { FileFormatError, UserError } from "../../base/errors";
import { openParquet } from "../../base/data/parquet";
import { downloadHubFile, listHubSplitFiles, type HubOptions } from "../../base/data/hub";
import { LineFileWriter } from "../../base/data/line-file-writer";
import { pyJsonDumps } from "../../base/data/python-json";
import { PyRandom } from "../../base/data/python-random";
import { SPLITS_FILE, checkTestSplit, lineHashes, type SplitsRecord } from "../../base/data/splits";
import { referenceAnswer } from "./reference";

export const GSM8K_REPO = "openai/gsm8k";
export const GSM8K_CONFIG = "main";
export const VAL_SIZE = 500;
export const SHUFFLE_SEED = 0;
/** sha256 prefix of the test.jsonl writeGsm8kSplits makes from the official 1,319 test records. */
export const OFFICIAL_TEST_SHA256_PREFIX = "86945120c62dd024";

export interface Gsm8kRecord {
  question: string;
  /** The worked solution, ending with the `#### N` line. */
  answer: string;
}

/** One row of train/val/test.jsonl. */
export interface Gsm8kRow extends Gsm8kRecord {
  /** "train-00042" / "test-0007": the record's split and index in the official file. */
  id: string;
  /** The final answer after `####`, commas removed (what the grader compares with). */
  reference: string;
}

export type Gsm8kSplit = "train" | "val" | "test";

function toRecord(raw: unknown, file: string, line: number | undefined, label = ""): Gsm8kRecord {
  const fail = (problem: string): never => {
    throw new FileFormatError(file, line, label ? `${label}: ${problem}` : problem);
  };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    fail('expected a JSON object {"question", "answer"}');
  const row = raw as Record<string, unknown>;
  if (typeof row.question !== "string") fail('missing "question" string');
  if (typeof row.answer !== "string") fail('missing "answer" string');
  if (referenceAnswer(row.answer as string) === undefined) fail('"answer" has no "#### N" final answer');
  return { question: row.question as string, answer: row.answer as string };
}

/** The records of one JSONL or .parquet file, in file order; bad rows name file:line (or row). */
export async function readGsm8kRecords(file: string): Promise<Gsm8kRecord[]> {
  if (!existsSync(file)) throw new FileFormatError(file, undefined, "file not found");
  if (file.toLowerCase().endsWith(".parquet")) return readParquet(file);
  const out: Gsm8kRecord[] = [];
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((text, i) => {
    const trimmed = text.replace(/^\ufeff/, "").trim();
    if (!trimmed) return;
    let raw: unknown;
    try {
      raw = JSON.parse(trimmed);
    } catch (e) {
      throw new FileFormatError(file, i + 1, `not valid JSON (${(e as Error).message})`);
    }
    out.push(toRecord(raw, file, i + 1));
  });
  if (!out.length) throw new FileFormatError(file, 1, "no GSM8K records (empty file)");
  return out;
}

async function readParquet(file: string): Promise<Gsm8kRecord[]> {
  const { hyparquet, compressors, buffer, metadata, columns } = await openParquet(file, ["question", "answer"]);
  const rows = await hyparquet.parquetReadObjects({ file: buffer, metadata, columns, compressors });
  if (!rows.length) throw new FileFormatError(file, undefined, "parquet file has no rows");
  return rows.map((row, i) => toRecord(row, file, undefined, `row ${i + 1}`));
}

/** Downloads (or finds in the cache) the hub's train and test parquet files; their local paths. */
export async function downloadGsm8k(
  opts: HubOptions = {},
): Promise<{ train: string[]; test: string[]; description: string }> {
  const hub = { ...opts, repo: opts.repo ?? GSM8K_REPO, config: opts.config ?? GSM8K_CONFIG };
  const files = await listHubSplitFiles(["train", "test"], hub);
  const train: string[] = [];
  const test: string[] = [];
  for (const f of files.train) train.push(await downloadHubFile(f, hub));
  for (const f of files.test) test.push(await downloadHubFile(f, hub));
  return { train, test, description: `${GSM8K_REPO} (${hub.config}) from the hub` };
}

/** The three splits from the official train and test records (see the module note). */
export function makeGsm8kSplits(
  train: Gsm8kRecord[],
  test: Gsm8kRecord[],
  valSize = VAL_SIZE,
): Record<Gsm8kSplit, Gsm8kRow[]> {
  if (train.length <= valSize)
    throw new UserError(`GSM8K train has ${train.length} records; carving a val split of ${valSize} needs more`);
  const row = (r: Gsm8kRecord, id: string): Gsm8kRow => ({
    id,
    question: r.question,
    answer: r.answer,
    reference: referenceAnswer(r.answer)!,
  });
  const trainRows = train.map((r, i) => row(r, `train-${String(i).padStart(5, "0")}`));
  new PyRandom(SHUFFLE_SEED).shuffle(trainRows);
  return {
    val: trainRows.slice(0, valSize),
    train: trainRows.slice(valSize),
    test: test.map((r, i) => row(r, `test-${String(i).padStart(4, "0")}`)),
  };
}

export interface WriteSplitsResult {
  counts: Record<Gsm8kSplit, number>;
  testSha256: string;
  /** Whether test.jsonl is the official test set as this project writes it (OFFICIAL_TEST_SHA256_PREFIX). */
  officialTest: boolean;
}

/**
 * Writes train/val/test.jsonl and splits.json (the test hash last, so a half-written folder fails
 * checkTestSplit instead of passing) into `outDir`, then checks the test split as every reader will.
 */
export async function writeGsm8kSplits(
  outDir: string,
  train: Gsm8kRecord[],
  test: Gsm8kRecord[],
  source: string,
): Promise<WriteSplitsResult> {
  const splits = makeGsm8kSplits(train, test);
  await mkdir(outDir, { recursive: true });
  const tmp = join(outDir, `.gsm8k-splits-${process.pid}`);
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp);
  try {
    const sha: Partial<Record<Gsm8kSplit, string>> = {};
    for (const split of ["test", "val", "train"] as const) {
      const w = await LineFileWriter.create(join(tmp, `${split}.jsonl`));
      for (const r of splits[split]) await w.write(pyJsonDumps(r));
      sha[split] = await w.close();
    }
    const counts = { train: splits.train.length, val: splits.val.length, test: splits.test.length };
    const record: SplitsRecord = {
      test_sha256: sha.test!.slice(0, 16),
      test_sha256_full: sha.test!,
      counts: { corpus: 0, ...counts },
      source,
      created: new Date().toISOString(),
      files: Object.fromEntries(
        (["test", "val", "train"] as const).map((s) => [`${s}.jsonl`, { sha256: sha[s]!, lines: counts[s] }]),
      ),
      test_lines: lineHashes(splits.test.map((r) => pyJsonDumps(r))).map((h, i) => ({
        id: splits.test[i].id,
        sha256: h,
      })),
    };
    const w = await LineFileWriter.create(join(tmp, SPLITS_FILE));
    await w.write(JSON.stringify(record, null, 2));
    await w.close();
    for (const name of ["train.jsonl", "val.jsonl", "test.jsonl", SPLITS_FILE])
      await rename(join(tmp, name), join(outDir, name));
    checkTestSplit(outDir);
    return { counts, testSha256: sha.test!, officialTest: sha.test!.startsWith(OFFICIAL_TEST_SHA256_PREFIX) };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** The rows of one written split; the test split is checked against its recorded hash first. */
export function loadGsm8kSplit(dataDir: string, split: Gsm8kSplit): Gsm8kRow[] {
  if (split === "test") checkTestSplit(dataDir);
  const file = join(dataDir, `${split}.jsonl`);
  if (!existsSync(file)) throw new UserError(`${file} is missing: write the GSM8K splits first`);
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, i) => {
      if (!line.trim()) return [];
      let row: Partial<Gsm8kRow>;
      try {
        row = JSON.parse(line) as Partial<Gsm8kRow>;
      } catch (e) {
        throw new FileFormatError(file, i + 1, `not valid JSON (${(e as Error).message})`);
      }
      if (typeof row.id !== "string" || typeof row.reference !== "string")
        throw new FileFormatError(file, i + 1, 'expected {"id", "question", "answer", "reference"}');
      return [{ ...toRecord(row, file, i + 1), id: row.id, reference: row.reference }];
    });
}
