/**
 * The verdict as one plain sentence a paper's result box would print, written from the record's
 * numbers and the spec's conditions (never from the stored condition strings, which read as code):
 *
 *   refuted: generated (GRPO on generated tasks) moved val F1 by +0.003 [−0.047, +0.053] over the SFT
 *   warm start, below the +0.020 the hypothesis needs; it recovered 11% [−40%, +60%] of world's gain,
 *   below the 50% the hypothesis needs
 *
 * Every supported condition is said (what the hypothesis needs, met or not), and every refuted
 * condition that holds (why it is refuted). Pure: the record's numbers in, the sentence out.
 */
import type { Interval } from "../../base/stats/bootstrap";
import type { ExperimentNumbers, Verdict } from "../../steps/experiments/analysis";
import type { Condition, Stat } from "../../steps/experiments/spec";

export interface VerdictSentenceInput {
  verdict: Verdict;
  /** The metric as the views label it, with its split ("val F1"). */
  metric: string;
  /** What "base" is ("the base model", "the SFT warm start"). */
  base: string;
  /** The criterion's arms, each with what it trained ("generated (GRPO on generated tasks)"). */
  treatment: string;
  reference: string;
  numbers: Pick<ExperimentNumbers, "minus_base" | "arm_minus_reference" | "recovery">;
  treatmentName: string;
  referenceName: string;
  supported: { condition: Condition; holds: boolean }[];
  refuted: { condition: Condition; holds: boolean }[];
  /** Whether the treatment's metric fell and its train reward kept rising (the drift condition's two halves). */
  drift?: { fell: boolean; rewardRose: boolean };
}

const MINUS = "\u2212";

/** "+0.003", "−0.047": a metric difference, signed, three decimals. */
export function signedNumber(x: number, digits = 3): string {
  const t = Math.abs(x).toFixed(digits);
  return Number(t) === 0 ? t : `${x < 0 ? MINUS : "+"}${t}`;
}

/** "11%", "−40%": a fraction as a percentage. */
export function percent(x: number): string {
  const p = Math.round(x * 100);
  return `${p < 0 ? MINUS : ""}${Math.abs(p)}%`;
}

const withInterval = (point: number, ci: Interval, f: (x: number) => string) =>
  `${f(point)} [${f(ci.lo)}, ${f(ci.hi)}]`;

/** The estimate a condition on `stat` reads (null: undefined, e.g. recovery without a reference gain). */
function estimateOf(i: VerdictSentenceInput, stat: Stat) {
  switch (stat) {
    case "arm_minus_base":
      return i.numbers.minus_base[i.treatmentName] ?? null;
    case "reference_minus_base":
      return i.numbers.minus_base[i.referenceName] ?? null;
    case "arm_minus_reference":
      return i.numbers.arm_minus_reference;
    case "recovery":
      return i.numbers.recovery;
  }
}

/** "below", "above" or "at": where the observed number lies against a threshold. */
const relation = (observed: number, threshold: number) =>
  observed < threshold ? "below" : observed > threshold ? "above" : "at";

/** What a stat's clause says before its thresholds: the number with its interval, in words. */
function statClause(i: VerdictSentenceInput, stat: Stat, subject: string): string | undefined {
  const e = estimateOf(i, stat);
  if (!e)
    return stat === "recovery"
      ? `recovery is undefined (${i.reference} did not move ${i.metric} from ${i.base})`
      : undefined;
  const n = withInterval(e.point, e.ci, signedNumber);
  switch (stat) {
    case "arm_minus_base":
      return `${subject} moved ${i.metric} by ${n} over ${i.base}`;
    case "reference_minus_base":
      return `${i.reference} moved ${i.metric} by ${n} over ${i.base}`;
    case "arm_minus_reference":
      return `${subject} scored ${n} ${i.metric} against ${i.reference}`;
    case "recovery":
      return `${subject} recovered ${withInterval(e.point, e.ci, percent)} of ${i.referenceName}'s gain`;
  }
}

/** ", below the +0.020 the hypothesis needs": one threshold against the number its condition reads. */
function thresholdClause(i: VerdictSentenceInput, c: Condition, role: "supported" | "refuted"): string | undefined {
  if (c.stat === "drift" || c.value === undefined) return undefined;
  const e = estimateOf(i, c.stat);
  if (!e) return undefined;
  const bound = c.bound ?? "point";
  const observed = bound === "point" ? e.point : bound === "ci_lo" ? e.ci.lo : e.ci.hi;
  const f = c.stat === "recovery" ? percent : signedNumber;
  const which = bound === "point" ? "" : `its ${bound === "ci_lo" ? "lower" : "upper"} bound ${f(observed)} `;
  return `${which}${relation(observed, c.value)} the ${f(c.value)} ${role === "supported" ? "the hypothesis needs" : "that refutes it"}`;
}

export function verdictSentence(i: VerdictSentenceInput): string {
  const said: { condition: Condition; role: "supported" | "refuted" }[] = [
    ...i.supported.map((s) => ({ condition: s.condition, role: "supported" as const })),
    ...i.refuted.filter((r) => r.holds).map((r) => ({ condition: r.condition, role: "refuted" as const })),
  ];
  const stats: Stat[] = [];
  for (const s of said)
    if (s.condition.stat !== "drift" && !stats.includes(s.condition.stat)) stats.push(s.condition.stat);
  const clauses: string[] = [];
  for (const stat of stats) {
    // The treatment is named once; later clauses about it say "it".
    const subject = clauses.some((c) => c.includes(i.treatment)) ? "it" : i.treatment;
    const head = statClause(i, stat, subject);
    if (!head) continue;
    const thresholds = said
      .filter((s) => s.condition.stat === stat)
      .map((s) => thresholdClause(i, s.condition, s.role))
      .filter((t): t is string => t !== undefined);
    clauses.push([head, ...thresholds].join(", "));
  }
  if (said.some((s) => s.condition.stat === "drift") && i.drift) {
    const { fell, rewardRose } = i.drift;
    clauses.push(
      `${i.metric} ${fell ? "fell below" : "did not fall below"} ${i.base} while train reward ${rewardRose ? "kept rising" : "did not rise significantly"}`,
    );
  }
  return `${i.verdict}: ${clauses.length ? clauses.join("; ") : "no condition could be measured"}`;
}
