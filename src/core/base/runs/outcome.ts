/**
 * How an episode ended, in the one vocabulary every view uses (the Runs tree's groups, the trace
 * viewer's filters and list colours): correct = an answer whose binary metric (fully right or not,
 * base/runs/metrics.ts) is 1, wrong = an answer whose is not, and otherwise how the harness stopped it.
 */
/** The outcome groups, in the order a researcher reads failures. */
export const OUTCOMES = ["correct", "wrong", "no_action", "budget", "length"] as const;
export type Outcome = (typeof OUTCOMES)[number] | "other";

export const OUTCOME_LABELS: Record<Outcome, string> = {
  correct: "correct",
  wrong: "wrong",
  no_action: "no action",
  budget: "budget",
  length: "length",
  other: "other",
};

/** One line per outcome, for legends and tooltips. */
export const OUTCOME_MEANINGS: Record<Outcome, string> = {
  correct: "answered, exact match with a gold answer",
  wrong: "answered, no exact match (F1 may still be above 0)",
  no_action: "a reply with neither a search nor an answer",
  budget: "stopped at the search budget without an answer",
  length: "stopped at the token limit",
  other: "ended some other way",
};

/** An episode's outcome from how it ended (`end` as episodes.jsonl records it) and its binary metric's value. */
export function outcomeOf(end: string, binary: number): Outcome {
  if (end === "answer") return binary >= 1 ? "correct" : "wrong";
  if (end === "no_action" || end === "budget" || end === "length") return end;
  return "other";
}
