/**
 * What an environment declares to label its failures (the recipe's Step 2: read the failures, give
 * each a label, fix the most common first). A folder's optional `failures.ts` exports
 * `FAILURE_LABELS` (envs/folder-convention.json), as its info.ts declares its metrics: a version,
 * the labels in the order its rules try them (each with a one-line description), and a pure
 * function from one recorded episode (plus the environment's own data) to one primary label and
 * the evidence that decided it, or null for an episode that did not fail.
 *
 * Decision: labels are computed when a run is read (views/failures), never written into episode
 * files, so old runs get this build's labels and a rule change needs no migration; the version
 * says which rules a table was computed with. No model calls: 10,000 episodes label in well under
 * a second (bench/failure-labels.bench.ts).
 */
import type { EpisodeRecord } from "../base/runs/run-files";

/** One label an environment's rules can give. */
export interface FailureLabelDeclaration {
  /** snake_case, stable across versions of the rules (tables are compared by it). */
  name: string;
  /** One line: what the label means, for legends and `show --failures`. */
  description: string;
}

/** A failed episode's label. */
export interface FailureVerdict {
  label: string;
  /** A finer reason inside the label (e.g. how an episode without an answer ended); absent: none. */
  subLabel?: string;
  /** What decided it, in words a researcher can check against the trace. */
  evidence: string;
}

/**
 * The episode's text, decoded from its tokens on first use (undefined when the run's tokenizer
 * cannot be loaded: rules that need text say so in their evidence).
 */
export interface EpisodeTexts {
  /** The model's reply of each turn, in order. */
  replies(): readonly string[] | undefined;
  /** The harness text inserted after each turn (a tool's result), in order; "" after the last. */
  observations(): readonly string[] | undefined;
}

/** What a rule reads: the record and its decoded text. */
export interface FailureInput {
  record: EpisodeRecord;
  texts: EpisodeTexts;
}

export interface FailureLabels<D = unknown> {
  /** Bumped whenever a rule changes what any episode gets. */
  version: string;
  /** Every label the rules give, in the order they are tried. */
  labels: readonly FailureLabelDeclaration[];
  /**
   * The environment's own data the rules read (e.g. each question's type), from its prepared data
   * folder (its `data.dir`); absent: the rules need none. Missing files give what is there, never an error:
   * labels are a view of a run, and a run copied without its data still opens.
   */
  loadData?(dataDir: string): D;
  /** The episode's label, or null when it did not fail. Pure: the same record and data give the same verdict. */
  label(input: FailureInput, data: D | undefined): FailureVerdict | null;
}

/** Episode texts that are already decoded (tests, benchmarks, and callers that decoded them for other views). */
export function decodedTexts(replies: readonly string[] | undefined, observations?: readonly string[]): EpisodeTexts {
  return { replies: () => replies, observations: () => observations ?? replies?.map(() => "") };
}
