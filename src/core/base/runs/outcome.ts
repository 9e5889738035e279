/**
 * How an episode ended, in the one vocabulary every view uses (the Runs tree's groups, the trace
 * viewer's filters and list colours): correct = an answer with exact match, wrong = an answer
 * without, and otherwise how the harness stopped it.
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

/** `end` as episodes.jsonl records it, and the episode's binary metric (base/runs/metrics.ts roleValues). */
export function outcomeOf(e: { end: string; binary: number }): Outcome {
  if (e.end === "answer") return e.binary >= 1 ? "correct" : "wrong";
  if (e.end === "no_action" || e.end === "budget" || e.end === "length") return e.end;
  return "other";
}
