/**
 * The lineage manifest of an SFT data run: everything needed to say where each training trace came
 * from. The SFT checkpoint records this folder and `output.sha256`, so a checkpoint can be traced
 * back to the policy that wrote its data, the rule that chose it, and the exact data files.
 */
import type { AcceptanceRule } from "./select";
import type { TraceSource } from "./sft-files";
import type { HeldOutHit } from "./held-out";

export const SFT_MANIFEST_FORMAT = "agent-lab/sft-data-1";

export interface FileHash {
  file: string;
  sha256: string;
}

export interface SftDataManifest {
  format: typeof SFT_MANIFEST_FORMAT;
  status: "running" | "done" | "interrupted" | "failed";
  /** The experiment: a resumed run must match these fields exactly. */
  fingerprint: {
    /** The task environment; absent = the implied environment (envs/manifest-environment.ts). */
    environment?: { name: string; version: string };
    source: TraceSource & { logprobs: boolean };
    acceptance: AcceptanceRule & { tries: number; rule: string };
    sampling: { temperature: number; max_tokens: number };
    system_prompt: { file: string; sha256: string };
    harness_version: string;
    scorer_version: string;
    tokenizer: string;
    /** A searching environment's settings; absent for environments without search (their own fields follow instead). */
    search?: { top_k: number; max_searches: number; searcher: Record<string, unknown> | null };
    [envField: string]: unknown;
    /** The split questions are drawn from, and the held-out splits they were checked against. */
    data: { train: FileHash; val?: FileHash; test?: FileHash };
  };
  counts: {
    /** Questions decided (kept or rejected), over all jobs of this run. */
    questions: number;
    tries: number;
    episodes: number;
    kept: number;
    /** Questions where some try reached minF1. */
    solved: number;
  };
  /** solved / questions: the recipe's solved@N. */
  solved_at_n: number;
  /** Mean searches of the kept traces. */
  avg_searches: number;
  usd: number;
  output: { file: string; rows: number; sha256: string };
  /** Train questions in the requested range that were left out because val/test hold them. */
  held_out_excluded: HeldOutHit[];
  job: { command: string[]; created: string; updated: string; offset: number; questions: number };
  /** `--from-runs`: the runs that were not used, and why (the used ones are in `fingerprint.from_runs`). */
  skipped_runs?: { name: string; reason: string }[];
}
