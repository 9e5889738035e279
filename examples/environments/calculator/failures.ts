/**
 * The calculator's failure labels (a folder's optional failures.ts; README "Add your own
 * environment"): an episode that did not get the sum right is either one that never gave a final
 * answer (the sub-label says how it ended) or one whose final answer is the wrong number.
 */
import type { FailureLabels } from "../../../src/core/harness/failures";

export const FAILURE_LABELS: FailureLabels = {
  version: "1",
  labels: [
    { name: "no_final_answer", description: "ended without a <final> answer" },
    { name: "wrong_sum", description: "a <final> answer that is not the sum" },
  ],
  label: ({ record }) => {
    if (record.metrics.exact === 1) return null;
    if (record.end !== "answer")
      return { label: "no_final_answer", subLabel: record.end, evidence: `ended on ${record.end}` };
    return { label: "wrong_sum", evidence: `answered ${record.prediction}, the sum is ${record.answers[0]}` };
  },
};
