/**
 * Reads SFT rows (`agent-lab sft-data` writes runs/<name>/sft.jsonl: id, question, answers, prompt,
 * tokens, sampled, logprobs, searches, reward) and names the data by a content hash, taken from the
 * lineage manifest next to the file when it has one, else computed from the file's bytes.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { FileFormatError, UserError } from "../errors";
import { sha256File } from "../runs/manifest";
import type { Datum } from "../tinker/wire";
import { modelInputLength, sftDatumFromEpisode } from "../tinker/wire/builders";

export interface SftRow {
  id: string;
  prompt: number[];
  tokens: number[];
  sampled: number[];
}

export interface SftData {
  file: string;
  rows: SftRow[];
  datums: Datum[];
  /** Model-input tokens of one epoch (what training is billed on). */
  tokensPerEpoch: number;
  /** "sha256:<hex>" of the data's content. */
  hash: string;
}

const isIntArray = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x));

/** `--data` may name the file or the sft-data run folder holding sft.jsonl. */
export function resolveSftFile(path: string): string {
  if (!existsSync(path)) throw new UserError(`--data ${path}: no such file or folder (make it with agent-lab sft-data)`);
  return statSync(path).isDirectory() ? join(path, "sft.jsonl") : path;
}

export function readSftData(path: string): SftData {
  const file = resolveSftFile(path);
  if (!existsSync(file)) throw new UserError(`${file} is missing (make it with agent-lab sft-data)`);
  const rows: SftRow[] = [];
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
    if (sampled.length !== tokens.length) throw new FileFormatError(file, i + 1, `"sampled" has ${sampled.length} flags for ${tokens.length} tokens`);
    const mask = sampled.map((s) => (s ? 1 : 0));
    if (!mask.some((m) => m === 1)) throw new FileFormatError(file, i + 1, "no token is marked sampled: nothing to learn from");
    if (prompt.length + tokens.length < 2) throw new FileFormatError(file, i + 1, "a row needs at least 2 tokens");
    const row: SftRow = { id: typeof raw.id === "string" ? raw.id : `line ${i + 1}`, prompt, tokens, sampled: mask };
    const datum = sftDatumFromEpisode(row);
    rows.push(row);
    datums.push(datum);
    tokensPerEpoch += modelInputLength(datum.model_input);
  });
  if (rows.length === 0) throw new FileFormatError(file, undefined, "no SFT rows");
  return { file, rows, datums, tokensPerEpoch, hash: sftDataHash(file) };
}

/**
 * The content hash recorded by sft-data's manifest.json (same folder) when present, so lineage
 * matches across tools; else sha256 of the file.
 */
export function sftDataHash(file: string): string {
  const manifestFile = join(dirname(file), "manifest.json");
  if (existsSync(manifestFile)) {
    try {
      const m = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, unknown>;
      const found = findHash(m);
      if (found) return found;
    } catch {
      // An unreadable manifest is not ours to judge here; fall back to hashing the data itself.
    }
  }
  return `sha256:${sha256File(file)}`;
}

/** Looks for the data's hash under the key names a lineage manifest plausibly uses. */
function findHash(m: Record<string, unknown>): string | undefined {
  for (const key of ["content_hash", "data_hash", "content_sha256", "sha256"]) {
    const v = m[key];
    if (typeof v === "string" && v) return v.includes(":") ? v : `sha256:${v}`;
  }
  for (const key of ["output", "data", "sft"]) {
    const v = m[key];
    if (v && typeof v === "object") {
      const inner = findHash(v as Record<string, unknown>);
      if (inner) return inner;
    }
  }
  return undefined;
}
