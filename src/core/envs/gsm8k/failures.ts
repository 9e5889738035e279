/**
 * GSM8K's failure labels: every episode the grader marked wrong gets exactly one, the first rule
 * that matches, in this order:
 *  1. truncated — the reply hit the token limit;
 *  2. no_boxed_answer — the reply has no \boxed{} answer;
 *  3. unparsable_answer — the boxed text is not something the grader reads as a number;
 *  4. reference_in_reasoning — the reference number appears in the reply, but the boxed answer differs;
 *  5. wrong_answer — the rest.
 * The box and the numbers are read by the grader itself (grader.ts), never parsed a second way.
 */
import type { FailureInput, FailureLabels, FailureVerdict } from "../../harness/failures";
import { extractBoxed, gradeAnswer, readsAsNumber } from "./grader";
import { gradedReplyText } from "./reference";

const quote = (s: string) => `'${s.length > 60 ? `${s.slice(0, 57)}...` : s}'`;

/** Number-looking spans of a reply (a sign, digits with thousands separators, a decimal part). */
const NUMBER_SPAN = /-?\d+(?:,\d{3})*(?:\.\d+)?/g;

/**
 * The first number in `text` the grader counts as the reference. The grader is the judge; a span
 * whose plain value differs from a plain-number reference is skipped before asking it (the
 * grader's full normalisation per span is what made 10,000 replies slow).
 */
function referenceSaid(text: string, reference: string): string | undefined {
  const plain = Number(reference);
  for (const m of text.matchAll(NUMBER_SPAN)) {
    if (Number.isFinite(plain) && Number(m[0].replace(/,/g, "")) !== plain) continue;
    if (gradeAnswer(m[0], reference)) return m[0];
  }
  return undefined;
}

/** The reference as the record holds it: the grader's `reference` field, else the first gold answer. */
function referenceOf(record: FailureInput["record"]): string {
  const r = (record as { reference?: unknown }).reference;
  return typeof r === "string" ? r : (record.answers[0] ?? "");
}

/** The boxed answer as graded: the record's `extracted` (null: none), else read from the reply. */
function boxedOf(record: FailureInput["record"], reply: string | undefined): string | undefined {
  const e = (record as { extracted?: unknown }).extracted;
  if (typeof e === "string") return e;
  if (e === null) return undefined;
  return reply === undefined ? undefined : extractBoxed(gradedReplyText(reply));
}

export function labelGsm8kEpisode({ record, texts }: FailureInput): FailureVerdict | null {
  if (record.metrics.correct === 1) return null;
  if (record.end === "length") return { label: "truncated", evidence: "the reply hit the token limit" };
  const reply = texts.replies()?.join("\n");
  const boxed = boxedOf(record, reply);
  if (boxed === undefined) return { label: "no_boxed_answer", evidence: "the reply has no \\boxed{} answer" };
  if (!readsAsNumber(boxed))
    return { label: "unparsable_answer", evidence: `the grader cannot read the boxed ${quote(boxed)} as a number` };
  const reference = referenceOf(record);
  const said = reply === undefined ? undefined : referenceSaid(gradedReplyText(reply), reference);
  if (said)
    return {
      label: "reference_in_reasoning",
      evidence: `the reply says ${quote(said)} (the reference ${quote(reference)}) but boxed ${quote(boxed)}`,
    };
  return {
    label: "wrong_answer",
    evidence: `boxed ${quote(boxed)}, reference ${quote(reference)}${reply === undefined ? " (reply not read: the run's tokenizer is unavailable)" : ""}`,
  };
}

export const FAILURE_LABELS: FailureLabels = {
  version: "1",
  labels: [
    { name: "truncated", description: "the reply hit the token limit" },
    { name: "no_boxed_answer", description: "the reply has no \\boxed{} answer" },
    { name: "unparsable_answer", description: "the boxed text is not a number the grader can read" },
    { name: "reference_in_reasoning", description: "the reference number is in the reply, the boxed answer differs" },
    { name: "wrong_answer", description: "a readable boxed number that is wrong" },
  ],
  label: labelGsm8kEpisode,
};
