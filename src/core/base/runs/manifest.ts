/**
 * A run's fingerprint: everything that decides its numbers. Two runs are comparable when their
 * fingerprints differ only in the thing under test; `fingerprintDiff` names the fields that differ
 * (compare warns about them, `eval --resume` refuses on any).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Split } from "../data/question";
import { withThinking } from "./manifest-thinking";
import { changedFields } from "./run-folder";

export const MANIFEST_FORMAT = 1;

/**
 * The split name of a run whose questions were typed (the playground), not taken from a split: they
 * have no gold answers, so the run's episodes are unscored (`answers` empty, every metric 0) and no
 * view takes the run for a split's eval. Its manifest's split names no file and hashes the questions.
 */
export const TYPED_QUESTIONS = "typed";

/** What a run's questions came from: a split, or questions typed by hand. */
export type RunSplit = Split | typeof TYPED_QUESTIONS;

/**
 * The manifest field of an episode saved from the playground (each turn's sampling settings): a
 * hand-driven episode, which views that read a checkpoint's val score or a prompt's baseline from
 * evals leave out (one episode is no estimate of a split).
 */
export const PLAYGROUND_FIELD = "playground";

export interface PlaygroundManifestField {
  turns: { temperature: number; max_tokens: number }[];
}

/** Whether a run's manifest is a playground episode's. */
export function isPlaygroundRun(manifest: unknown): boolean {
  return typeof manifest === "object" && manifest !== null && PLAYGROUND_FIELD in manifest;
}

export interface RunManifest {
  format: number;
  /** The task environment; absent = the implied environment (envs/manifest-environment.ts: the environment whose info declares `impliedVersion`). */
  environment?: { name: string; version: string };
  split: {
    name: RunSplit;
    /** File name of the split (no machine path: runs are copied between machines). */
    file: string;
    sha256: string;
  };
  /** Whether this run opened the test split, and the flag that allowed it. */
  test_split: { opened: boolean; flag?: string };
  system_prompt: { file: string; sha256: string };
  harness_version: string;
  scorer_version: string;
  policy: { kind: string; model: string; checkpoint?: string; logprobs: boolean };
  sampling: { temperature: number; max_tokens: number };
  tokenizer: string;
  /**
   * The chat template's enable_thinking the prompts were rendered with (manifest-thinking.ts);
   * absent in runs from before the field (read as off).
   */
  thinking?: boolean;
  /** The search settings of an environment with a search tool; absent for environments without search (their own fields follow instead). */
  search?: {
    closed_book: boolean;
    top_k: number;
    max_searches: number;
    /** The searcher's own describe(): kind, parameters, index hash. null when closed-book. */
    searcher: Record<string, unknown> | null;
  };
  /** The environment's own fingerprint fields (e.g. a grader's settings, its prompt's options). */
  [envField: string]: unknown;
  /** How this run was launched: not part of the fingerprint (resuming with other flags is fine). */
  job: {
    command: string[];
    created: string;
    limit?: number;
    concurrency: number;
  };
}

/** Fields that describe the job, not the experiment; fingerprintDiff skips them. */
const NOT_FINGERPRINT = ["job"];

export function sha256Hex(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

export function sha256File(file: string): string {
  return sha256Hex(readFileSync(file));
}

export interface FieldDifference {
  /** Dotted path, e.g. "search.top_k" or "policy.checkpoint". */
  field: string;
  a: unknown;
  b: unknown;
}

/** Every fingerprint field whose value differs between two manifests (missing counts as different). */
export function fingerprintDiff(a: RunManifest, b: RunManifest): FieldDifference[] {
  // A run from before the thinking field is compared as the setting it is read as, not as "absent".
  return changedFields(withThinking(a), withThinking(b), NOT_FINGERPRINT).map((c) => ({
    field: c.field,
    a: c.was,
    b: c.now,
  }));
}

/** One line per difference, for warnings and refusals. */
export function describeDifferences(diffs: FieldDifference[]): string {
  return diffs
    .map((d) => `${d.field}: ${JSON.stringify(d.a) ?? "(absent)"} → ${JSON.stringify(d.b) ?? "(absent)"}`)
    .join("; ");
}
