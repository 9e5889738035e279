/**
 * Reads SFT rows (`agent-lab sft-data` writes runs/<name>/sft.jsonl: id, question, answers, prompt,
 * tokens, sampled, logprobs, searches, reward) and names the data by the sha256 of its bytes (what
 * sft-data's lineage manifest records as output.sha256).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { FileFormatError, UserError } from "../../base/errors";
import { sha256File } from "../../base/runs/manifest";
import { runFile } from "../../base/runs/run-folder";
import type { Datum } from "../../base/tinker/wire";
import { modelInputLength, sftDatumFromEpisode } from "../../base/tinker/wire/builders";
import type { SftRow } from "../sft/sft-files";

/** The part of an sft.jsonl row (`SftRow`, written by sft-data) that training reads. */
export type SftTrainingRow = Pick<SftRow, "id" | "prompt" | "tokens" | "sampled">;

export interface SftData {
  file: string;
  rows: SftTrainingRow[];
  datums: Datum[];
  /** Model-input tokens of one epoch (what training is billed on). */
  tokensPerEpoch: number;
  /** "sha256:<hex>" of the data's content. */
  hash: string;
  /** Set when the sft-data manifest next to the file disagrees with it. */
  lineageWarning?: string;
  /** The tokenizer the token ids came from, as the sft-data manifest records it (absent without one). */
  tokenizer?: string;
}

const isIntArray = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x));

/** `--data` may name the file or the sft-data run folder holding sft.jsonl. */
export function resolveSftFile(path: string): string {
  if (!existsSync(path))
    throw new UserError(`--data ${path}: no such file or folder (make it with agent-lab sft-data)`);
  return statSync(path).isDirectory() ? runFile(path, "sft") : path;
}

export function readSftData(path: string): SftData {
  const file = resolveSftFile(path);
  if (!existsSync(file)) throw new UserError(`${file} is missing (make it with agent-lab sft-data)`);
  const rows: SftTrainingRow[] = [];
  const datums: Datum[] = [];
  let tokensPerEpoch = 0;
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(line) as Record<string, unknown>;
    } catch (e) {
      throw new FileFormatError(file, i + 1, `not valid JSON (${(e as Error).message})`);
    }
    const { prompt, tokens, sampled } = raw ?? {};
    if (!isIntArray(prompt) || !isIntArray(tokens) || !Array.isArray(sampled)) {
      throw new FileFormatError(file, i + 1, 'expected integer arrays "prompt", "tokens" and an array "sampled"');
    }
    if (sampled.length !== tokens.length)
      throw new FileFormatError(file, i + 1, `"sampled" has ${sampled.length} flags for ${tokens.length} tokens`);
    const mask = sampled.map((s) => (s ? 1 : 0));
    if (!mask.some((m) => m === 1))
      throw new FileFormatError(file, i + 1, "no token is marked sampled: nothing to learn from");
    if (prompt.length + tokens.length < 2) throw new FileFormatError(file, i + 1, "a row needs at least 2 tokens");
    const row: SftTrainingRow = {
      id: typeof raw.id === "string" ? raw.id : `line ${i + 1}`,
      prompt,
      tokens,
      sampled: mask,
    };
    const datum = sftDatumFromEpisode(row);
    rows.push(row);
    datums.push(datum);
    tokensPerEpoch += modelInputLength(datum.model_input);
  });
  if (rows.length === 0) throw new FileFormatError(file, undefined, "no SFT rows");
  return { file, rows, datums, tokensPerEpoch, ...sftDataHash(file) };
}

/**
 * The data's content hash, "sha256:<hex>" of the file's bytes: the same value sft-data's lineage
 * manifest records as `output.sha256` when the file is as it left it. `lineageWarning` says when the
 * manifest next to the file disagrees (the data changed after, or sft-data is still running).
 */
export function sftDataHash(file: string): { hash: string; lineageWarning?: string; tokenizer?: string } {
  const hex = sha256File(file);
  const manifestFile = runFile(dirname(file), "manifest");
  if (!existsSync(manifestFile)) return { hash: `sha256:${hex}` };
  let recorded: unknown;
  let status: unknown;
  let tokenizer: string | undefined;
  try {
    const m = JSON.parse(readFileSync(manifestFile, "utf8")) as {
      output?: { sha256?: unknown };
      status?: unknown;
      fingerprint?: { tokenizer?: unknown };
    };
    recorded = m.output?.sha256;
    status = m.status;
    if (typeof m.fingerprint?.tokenizer === "string") tokenizer = m.fingerprint.tokenizer;
  } catch {
    return {
      hash: `sha256:${hex}`,
      lineageWarning: `${manifestFile} is not valid JSON; the data is named by its own hash`,
    };
  }
  if (typeof recorded === "string" && recorded.replace(/^sha256:/, "") !== hex) {
    return {
      hash: `sha256:${hex}`,
      tokenizer,
      lineageWarning: `${file} differs from what its manifest recorded (status ${String(status)}); the checkpoints record the data as it is now`,
    };
  }
  return { hash: `sha256:${hex}`, tokenizer };
}

/**
 * Token ids only mean something to the tokenizer that made them: Tinker trains `baseModel` on ids of
 * its own tokenizer, so data tokenized by another one (e.g. a scripted teacher on the offline Qwen3
 * tokenizer, whose ids differ entirely from Qwen3.5's) would train on garbage. The local stand-in
 * learns whatever ids it sees, so it accepts any.
 *
 * `given` is the name of the tokenizer the run was told to use (`--tokenizer`, e.g. a rehearsal's
 * stand-in): then the data must record exactly that tokenizer, on any backend, so a stand-in is
 * never mixed with the model's own ids.
 */
export function checkSftTokenizer(
  data: Pick<SftData, "file" | "tokenizer">,
  backend: string,
  baseModel: string,
  given?: string,
): void {
  if (given !== undefined) {
    if (data.tokenizer === given) return;
    throw new UserError(
      data.tokenizer === undefined
        ? `${data.file} has no sft-data manifest recording its tokenizer, so --tokenizer cannot be checked against it; collect it with agent-lab sft-data --tokenizer, or train without --tokenizer`
        : `${data.file} was tokenized with "${data.tokenizer}", not with the --tokenizer given ("${given}"); give the tokenizer the data was collected with`,
    );
  }
  if (backend === "local" || data.tokenizer === undefined) return;
  const tokenizerModel = data.tokenizer.split("+")[0];
  if (tokenizerModel !== baseModel) {
    throw new UserError(
      `${data.file} was tokenized with "${data.tokenizer}", but ${baseModel} needs its own tokenizer's ids; ` +
        `collect the data by sampling that model (agent-lab sft-data --backend tinker); scripted-teacher traces are for the local backend ` +
        `(a rehearsal with a stand-in tokenizer passes the same --tokenizer to sft-data and train-sft)`,
    );
  }
}
