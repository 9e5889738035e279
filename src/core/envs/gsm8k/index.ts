/**
 * The GSM8K environment's pieces: data and splits, the cookbook's prompt, and its grader. The
 * environment interface plugs these in; `gradeReply` is the whole verdict on one model reply.
 */
import { extractBoxed, gradeAnswer } from "./grader";
import { MAX_LATEX_NESTING, bracketNesting } from "./latex-text";
import { gradedReplyText, referenceAnswer } from "./reference";

export { extractBoxed, gradeAnswer, normalizeExpr, normalizeMathd } from "./grader";
export { gradedReplyText, referenceAnswer } from "./reference";
export { FEWSHOT_PREFIX, QUESTION_SUFFIX, gsm8kPrompt, type Gsm8kPrompt } from "./prompt";
export {
  GSM8K_CONFIG,
  GSM8K_REPO,
  OFFICIAL_TEST_SHA256_PREFIX,
  VAL_SIZE,
  downloadGsm8k,
  loadGsm8kSplit,
  makeGsm8kSplits,
  readGsm8kRecords,
  writeGsm8kSplits,
  type Gsm8kRecord,
  type Gsm8kRow,
  type Gsm8kSplit,
  type WriteSplitsResult,
} from "./data";

export interface Gsm8kVerdict {
  correct: boolean;
  /** The last \boxed{} content of the graded text; undefined when there is none (graded wrong). */
  extracted: string | undefined;
  reference: string;
  /** Why a wrong verdict was reached without reading the answer (it nests too deep to parse); absent otherwise. */
  reason?: string;
}

/**
 * Grades a model reply against a GSM8K solution (its `####` line gives the reference), as the
 * cookbook's MathEnv.check_answer does. `stopped: false` for a reply cut off by the token limit.
 */
export function gradeReply(reply: string, solution: string, options: { stopped?: boolean } = {}): Gsm8kVerdict {
  const reference = referenceAnswer(solution);
  if (reference === undefined) throw new RangeError('the solution has no "#### N" final answer');
  const extracted = extractBoxed(gradedReplyText(reply, options));
  const correct = gradeAnswer(extracted, reference);
  const nesting = correct || extracted === undefined ? 0 : bracketNesting(extracted);
  if (nesting > MAX_LATEX_NESTING) {
    const reason = `the answer nests brackets ${nesting} deep, over the ${MAX_LATEX_NESTING} the grader parses`;
    return { correct, extracted, reference, reason };
  }
  return { correct, extracted, reference };
}
