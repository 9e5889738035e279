/**
 * Reading the prepared data folder, and the guard on the test split: splits.json records the
 * sha256 of test.jsonl (and of each of its lines) when `agent-lab prepare` writes it; every later
 * step that opens the test split calls checkTestSplit, which refuses a file that changed and says
 * what changed.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { FileFormatError, UserError } from "../errors";
import { readJsonl } from "../util/jsonl";
import type { Paragraph, Question, Split } from "./question";

export const SPLITS_FILE = "splits.json";

export interface SplitsRecord {
  /** First 16 hex digits of test.jsonl's sha256 (the form the recipe prints). */
  test_sha256: string;
  test_sha256_full: string;
  counts: { corpus: number; train: number; val: number; test: number };
  source: string;
  created: string;
  files: Record<string, { sha256: string; lines: number }>;
  /** Per line of test.jsonl: its id and the first 16 hex of the line's sha256, to say what changed. */
  test_lines: { id: string; sha256: string }[];
}

export function sha256Hex(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** First 16 hex digits of each line's sha256 (line without its newline). */
export function lineHashes(lines: string[]): string[] {
  return lines.map((line) => sha256Hex(line).slice(0, 16));
}

export function readSplitsRecord(dataDir: string): SplitsRecord {
  const file = join(dataDir, SPLITS_FILE);
  if (!existsSync(file)) {
    throw new UserError(`${file} is missing: run "agent-lab prepare" to write the splits and record the test hash`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new FileFormatError(file, undefined, `not valid JSON (${(e as Error).message})`);
  }
  const rec = parsed as Partial<SplitsRecord>;
  if (typeof rec.test_sha256_full !== "string" || !Array.isArray(rec.test_lines) || typeof rec.counts !== "object") {
    throw new FileFormatError(file, undefined, 'not a splits record (needs "test_sha256_full", "test_lines", "counts")');
  }
  return rec as SplitsRecord;
}

/**
 * Refuses (UserError) a test.jsonl whose sha256 is not the one recorded by prepare, naming what
 * changed: file missing, line count, or the first differing line and its id. Returns the record.
 */
export function checkTestSplit(dataDir: string): SplitsRecord {
  const record = readSplitsRecord(dataDir);
  const file = join(dataDir, "test.jsonl");
  if (!existsSync(file)) throw new UserError(`${file}: file missing (recorded test split ${record.test_sha256}); rerun "agent-lab prepare"`);
  const bytes = readFileSync(file);
  if (sha256Hex(bytes) === record.test_sha256_full) return record;
  const text = bytes.toString("utf8");
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  const hashes = lineHashes(lines);
  const expected = record.test_lines;
  let what: string;
  const firstDiff = expected.findIndex((e, i) => hashes[i] !== e.sha256);
  if (firstDiff >= 0 && firstDiff < lines.length) {
    what = `line ${firstDiff + 1} (id ${expected[firstDiff].id}) differs from the recorded split`;
  } else if (lines.length !== expected.length) {
    what = `it has ${lines.length} lines, the recorded split has ${expected.length}`;
  } else {
    what = "its bytes differ from the recorded split (line endings or final newline)";
  }
  if (lines.length !== expected.length && !what.startsWith("it has")) what += `; it has ${lines.length} lines, recorded ${expected.length}`;
  throw new UserError(
    `${file} changed since "agent-lab prepare" (sha256 ${sha256Hex(bytes).slice(0, 16)}, recorded ${record.test_sha256}): ${what}. ` +
      `The test split must never change; rerun "agent-lab prepare" to rebuild it.`,
  );
}

/** The questions of one split; the test split is checked against its recorded hash first. */
export function loadSplit(dataDir: string, split: Split): Question[] {
  if (split === "test") checkTestSplit(dataDir);
  const file = join(dataDir, `${split}.jsonl`);
  if (!existsSync(file)) throw new UserError(`${file} is missing: run "agent-lab prepare" first`);
  const rows = readJsonl<unknown>(file);
  return rows.map((row, i) => toQuestion(row, file, i + 1));
}

function toQuestion(raw: unknown, file: string, line: number): Question {
  const row = raw as Partial<Question> | null;
  const ok =
    typeof row === "object" && row !== null &&
    typeof row.id === "string" && typeof row.question === "string" &&
    Array.isArray(row.answers) && row.answers.every((a) => typeof a === "string") &&
    typeof row.type === "string" && typeof row.level === "string";
  // blank lines are skipped by readJsonl, so `line` is the row number; good enough for generated files
  if (!ok) throw new FileFormatError(file, line, 'expected {"id", "question", "answers": [...], "type", "level"}');
  return row as Question;
}

/** Streams corpus.jsonl paragraph by paragraph (507k of them: no need to hold the text twice). */
export async function* readCorpus(dataDir: string): AsyncGenerator<Paragraph> {
  const file = join(dataDir, "corpus.jsonl");
  if (!existsSync(file)) throw new UserError(`${file} is missing: run "agent-lab prepare" first`);
  const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (!line.trim()) continue;
    let p: Partial<Paragraph>;
    try {
      p = JSON.parse(line) as Partial<Paragraph>;
    } catch (e) {
      throw new FileFormatError(file, n, `not valid JSON (${(e as Error).message})`);
    }
    if (typeof p.id !== "number" || typeof p.title !== "string" || typeof p.text !== "string") {
      throw new FileFormatError(file, n, 'expected {"id": number, "title", "text"}');
    }
    yield p as Paragraph;
  }
}

/** The whole corpus in memory. */
export async function loadCorpus(dataDir: string): Promise<Paragraph[]> {
  const out: Paragraph[] = [];
  for await (const p of readCorpus(dataDir)) out.push(p);
  return out;
}
