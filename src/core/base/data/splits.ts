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
import { jsonErrorLine } from "../config";
import { readJsonlLines } from "../util/jsonl";
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
  return parseSplitsRecord(readFileSync(file, "utf8"), file);
}

const REBUILD = 'rerun "agent-lab prepare" to rewrite it';

/** Checks every field later steps read, so a damaged record is refused here, naming file:line, not printed as "undefined". */
export function parseSplitsRecord(text: string, file: string): SplitsRecord {
  if (!text.trim()) throw new FileFormatError(file, 1, `is empty; ${REBUILD}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new FileFormatError(
      file,
      jsonErrorLine(text, e as Error),
      `not valid JSON (${(e as Error).message}); ${REBUILD}`,
    );
  }
  const lineOf = (key: string): number | undefined => {
    const at = text.indexOf(`"${key}"`);
    return at < 0 ? 1 : text.slice(0, at).split("\n").length;
  };
  const fail = (key: string, problem: string): never => {
    throw new FileFormatError(file, lineOf(key), `"${key}" ${problem}; ${REBUILD}`);
  };
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new FileFormatError(file, 1, `expected a JSON object (a splits record); ${REBUILD}`);
  const rec = parsed as Record<string, unknown>;
  const hex = (key: string, length: number) => {
    const v = rec[key];
    if (typeof v !== "string" || !new RegExp(`^[0-9a-f]{${length}}$`).test(v))
      fail(key, v === undefined ? "is missing" : `must be ${length} hex digits`);
  };
  hex("test_sha256_full", 64);
  hex("test_sha256", 16);
  const counts = rec.counts as Record<string, unknown> | undefined;
  if (typeof counts !== "object" || counts === null) fail("counts", "is missing");
  for (const k of ["corpus", "train", "val", "test"]) {
    if (!Number.isInteger(counts![k]) || (counts![k] as number) < 0) fail("counts", `needs a whole number "${k}"`);
  }
  const lines = rec.test_lines;
  if (!Array.isArray(lines)) fail("test_lines", "is missing (a list of {id, sha256})");
  (lines as unknown[]).forEach((l, i) => {
    const row = l as { id?: unknown; sha256?: unknown } | null;
    if (typeof row?.id !== "string" || typeof row.sha256 !== "string")
      fail("test_lines", `entry ${i + 1} needs string "id" and "sha256"`);
  });
  if ((lines as unknown[]).length !== counts!.test)
    fail("test_lines", `has ${(lines as unknown[]).length} entries but "counts" says test ${String(counts!.test)}`);
  return rec as unknown as SplitsRecord;
}

/** One line on how a new test split differs from the recorded one (for a prepare that replaces it). */
export function describeTestChange(old: SplitsRecord, next: SplitsRecord): string {
  const oldIds = new Set(old.test_lines.map((l) => l.id));
  const nextIds = new Set(next.test_lines.map((l) => l.id));
  const added = [...nextIds].filter((id) => !oldIds.has(id)).length;
  const removed = [...oldIds].filter((id) => !nextIds.has(id)).length;
  const oldById = new Map(old.test_lines.map((l) => [l.id, l.sha256]));
  const edited = next.test_lines.filter((l) => oldById.has(l.id) && oldById.get(l.id) !== l.sha256).length;
  const firstDiff = next.test_lines.findIndex((l, i) => old.test_lines[i]?.sha256 !== l.sha256);
  const where = firstDiff >= 0 ? `; first differing line ${firstDiff + 1} (id ${next.test_lines[firstDiff].id})` : "";
  return (
    `sha256 ${old.test_sha256} → ${next.test_sha256}, ${old.test_lines.length} → ${next.test_lines.length} questions ` +
    `(${added} added, ${removed} removed, ${edited} changed${where})`
  );
}

/**
 * Refuses (UserError) a test.jsonl whose sha256 is not the one recorded by prepare, naming what
 * changed: file missing, line count, or the first differing line and its id. Returns the record.
 */
export function checkTestSplit(dataDir: string): SplitsRecord {
  const record = readSplitsRecord(dataDir);
  const file = join(dataDir, "test.jsonl");
  if (!existsSync(file))
    throw new UserError(`${file}: file missing (recorded test split ${record.test_sha256}); rerun "agent-lab prepare"`);
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
  if (lines.length !== expected.length && !what.startsWith("it has"))
    what += `; it has ${lines.length} lines, recorded ${expected.length}`;
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
  const seen = new Map<string, number>();
  return readJsonlLines<unknown>(file).map(({ value, line }) => {
    const q = toQuestion(value, file, line);
    const first = seen.get(q.id);
    // A question asked twice would be scored twice (n > planned) and weigh double in every mean.
    if (first !== undefined)
      throw new FileFormatError(
        file,
        line,
        `question id ${JSON.stringify(q.id)} is already on line ${first}; ids must be unique (rerun "agent-lab prepare", or remove one of the two lines)`,
      );
    seen.set(q.id, line);
    return q;
  });
}

function toQuestion(raw: unknown, file: string, line: number): Question {
  const row = raw as Partial<Question> | null;
  const ok =
    typeof row === "object" &&
    row !== null &&
    typeof row.id === "string" &&
    typeof row.question === "string" &&
    Array.isArray(row.answers) &&
    row.answers.every((a) => typeof a === "string") &&
    typeof row.type === "string" &&
    typeof row.level === "string";
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
