/**
 * HotpotQA answer metrics, exactly as the recipe's score.py (the official HotpotQA / SQuAD
 * normalisation): lower-case, drop ASCII punctuation, drop the articles a/an/the as whole words,
 * collapse whitespace; Exact Match and token-level F1, best over several gold answers, and a
 * yes/no/noanswer on either side scores only on an exact token match.
 * Byte-for-byte parity with Python is tested by running python3 on thousands of generated strings.
 */
import { normalizeAnswer } from "../../base/data/answer-text";
import { pySplit } from "../../base/data/python-text";

// The normalisation is SQuAD's, shared with checks that compare texts of any environment (base/data).
export { normalizeAnswer };

/** Bumped whenever a change could alter any score; run manifests record it. */
export const SCORER_VERSION = "hotpotqa-official-1";

const YES_NO = new Set(["yes", "no", "noanswer"]);

/** 1 when the normalised prediction equals any normalised gold answer, else 0. */
export function exactMatch(prediction: string, answers: readonly string[]): number {
  const pred = normalizeAnswer(prediction);
  return answers.some((a) => normalizeAnswer(a) === pred) ? 1 : 0;
}

/** Token-level F1 (multiset overlap), the best over the gold answers; 0 for an empty prediction. */
export function f1Score(prediction: string, answers: readonly string[]): number {
  const pred = pySplit(normalizeAnswer(prediction));
  let best = 0;
  for (const answer of answers) {
    const gold = pySplit(normalizeAnswer(answer));
    // yes/no/noanswer must match exactly, as in the official HotpotQA script
    const yesNo = YES_NO.has(pred.join(" ")) || YES_NO.has(gold.join(" "));
    if (yesNo && !sameTokens(pred, gold)) continue;
    const common = overlap(pred, gold);
    if (common === 0) continue;
    const precision = common / pred.length;
    const recall = common / gold.length;
    best = Math.max(best, (2 * precision * recall) / (precision + recall));
  }
  return best;
}

function sameTokens(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** Size of the multiset intersection, like `sum((Counter(a) & Counter(b)).values())`. */
function overlap(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const t of a) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of b) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      counts.set(t, left - 1);
      common++;
    }
  }
  return common;
}
