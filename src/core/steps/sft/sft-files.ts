/**
 * The files of an SFT data run folder (`runs/<name>/`):
 * - `sft.jsonl`: one kept trace per line, appended the moment its question is decided;
 * - `attempts.jsonl`: one line per question tried, kept or rejected, so `--resume` skips it;
 * - `manifest.json`: the lineage manifest (where the data came from, by which rule, with hashes);
 * - `ledger.jsonl`: what sampling cost (src/core/base/ledger).
 * snake_case on disk, like every run file, so notebooks read them without renaming.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FileFormatError } from "../../base/errors";
import { repairTornTail } from "../../base/runs/run-files";
import { RUN_FILES } from "../../base/runs/run-folder";
import { appendJsonl, readJsonl, readJsonlLines } from "../../base/util/jsonl";

export const SFT_FILE = RUN_FILES.sft;
export const ATTEMPTS_FILE = RUN_FILES.attempts;

/** Who wrote a trace: the model itself (rejection sampling) or a teacher to distil from. */
export interface TraceSource {
  role: "self" | "teacher";
  /** Policy kind: tinker, local-backend, transformers, heuristic, … */
  kind: string;
  model: string;
  checkpoint?: string;
}

/** One line of sft.jsonl: what train-sft needs (prompt, tokens, sampled) and where it came from. */
export interface SftRow {
  id: string;
  question: string;
  answers: string[];
  /** Chat-template tokens of system prompt + question. */
  prompt: number[];
  /** Everything after the prompt: model replies and harness turns. */
  tokens: number[];
  /** Per token of `tokens`: 1 = the model wrote it (trained on), 0 = the harness inserted it. */
  sampled: number[];
  /** Sampler logprobs per token (0 on inserted tokens); null when the source gives none. */
  logprobs: number[] | null;
  searches: string[];
  /** F1 of the kept attempt's answer. */
  reward: number;
  source: TraceSource;
}

/** One try of a question, as attempts.jsonl records it (no tokens: only what the rule looked at). */
export interface TryRecord {
  /** Tokens after the prompt (the length the rule minimises). */
  length: number;
  reward: number;
  searches: number;
  end: string;
}

/** One line of attempts.jsonl. */
export interface AttemptRecord {
  id: string;
  tries: TryRecord[];
  /** Some try reached minF1 (searched or not): counts toward solved@N. */
  solved: boolean;
  /** A trace went to sft.jsonl; `kept_try` is its index in `tries`. */
  kept: boolean;
  kept_try?: number;
  usd: number;
}

export const sftPath = (runDir: string) => join(runDir, SFT_FILE);
export const attemptsPath = (runDir: string) => join(runDir, ATTEMPTS_FILE);

/** Rows of sft.jsonl (a torn last line from `kill -9` is skipped); first row per id wins. */
export function readSftRows(file: string): SftRow[] {
  if (!existsSync(file)) return [];
  const seen = new Set<string>();
  const rows: SftRow[] = [];
  readJsonlLines<SftRow>(file, { tolerateTornTail: true }).forEach(({ value: row, line }) => {
    checkRow(row, file, line);
    if (seen.has(row.id)) return;
    seen.add(row.id);
    rows.push(row);
  });
  return rows;
}

/** Checks the fields train-sft relies on, naming file and record; lengths must line up. */
function checkRow(row: SftRow, file: string, n: number): void {
  const fail = (problem: string): never => {
    throw new FileFormatError(file, n, problem);
  };
  if (typeof row !== "object" || row === null) fail("expected a JSON object");
  if (typeof row.id !== "string") fail('missing string "id"');
  for (const key of ["prompt", "tokens", "sampled"] as const) {
    if (!Array.isArray(row[key]) || !row[key].every((t) => Number.isInteger(t)))
      fail(`"${key}" must be a list of integers`);
  }
  if (row.sampled.length !== row.tokens.length)
    fail(`"sampled" has ${row.sampled.length} flags for ${row.tokens.length} tokens`);
  if (
    row.logprobs !== null &&
    row.logprobs !== undefined &&
    (!Array.isArray(row.logprobs) || row.logprobs.length !== row.tokens.length)
  ) {
    fail(`"logprobs" must be null or one number per token`);
  }
}

export function readAttempts(runDir: string): AttemptRecord[] {
  const file = attemptsPath(runDir);
  if (!existsSync(file)) return [];
  return readJsonl<AttemptRecord>(file, { tolerateTornTail: true });
}

/** Cuts torn tails (a killed writer's half line) off both files before a resumed run appends. */
export function repairSftFiles(runDir: string): void {
  repairTornTail(sftPath(runDir));
  repairTornTail(attemptsPath(runDir));
}

export function appendSftRow(runDir: string, row: SftRow): void {
  appendJsonl(sftPath(runDir), row);
}

export function appendAttempt(runDir: string, record: AttemptRecord): void {
  appendJsonl(attemptsPath(runDir), record);
}

/** sha256 of a file's bytes ("" when absent): the content hash the SFT checkpoint points to. */
export function fileSha256(file: string): string {
  if (!existsSync(file)) return "";
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}
