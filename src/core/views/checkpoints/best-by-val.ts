/**
 * The recipe's rule for the checkpoint to keep ("pick the epoch by val with CIs"): the highest
 * val mean, unless other checkpoints' 95% intervals overlap the leader's — then the data do not
 * tell them apart, and the earliest of them is kept (fewer steps: cheaper to train, and less drift
 * from the base model). The note says which case it was, so the view never hides an overlap.
 */
import type { PrimaryScore } from "../trace/dashboard-view";

/** A scored checkpoint, in training order (parents' checkpoints before their children's, steps ascending). */
export interface ScoredCheckpoint {
  name: string;
  primary: PrimaryScore;
}

export interface BestByVal {
  /** The checkpoint the rule keeps. */
  best: string;
  /** The one with the highest mean (the same as `best` unless an earlier one overlaps it). */
  top: string;
  /** The other checkpoints whose interval overlaps the top one's (training order). */
  overlapping: string[];
  /** One line for the view: which rule decided. */
  note: string;
}

export const BEST_RULE =
  "the highest val mean; when other checkpoints' 95% intervals overlap its interval, the earliest of them all (cheaper, and the data do not tell them apart)";

const overlaps = (a: PrimaryScore, b: PrimaryScore): boolean => a.lo <= b.hi && b.lo <= a.hi;

/** Null when nothing is scored. Ties on the mean go to the earlier checkpoint. */
export function bestByVal(scored: readonly ScoredCheckpoint[], format: (v: number) => string): BestByVal | null {
  if (scored.length === 0) return null;
  let topIndex = 0;
  scored.forEach((c, i) => {
    if (c.primary.mean > scored[topIndex].primary.mean) topIndex = i;
  });
  const top = scored[topIndex];
  const group = scored.filter((c) => c === top || overlaps(c.primary, top.primary));
  const best = group[0];
  const overlapping = group.filter((c) => c !== top).map((c) => c.name);
  const interval = (p: PrimaryScore) => `${format(p.mean)} [${format(p.lo)}, ${format(p.hi)}]`;
  const lead = `${top.name} has the highest val mean, ${interval(top.primary)}`;
  const them = `${overlapping.join(", ")} overlap${overlapping.length === 1 ? "s" : ""} it`;
  const note =
    scored.length === 1
      ? `${top.name} is the only checkpoint with a val score: ${interval(top.primary)}`
      : overlapping.length === 0
        ? `${lead}, and no other checkpoint's interval overlaps it`
        : best === top
          ? `intervals overlap: ${lead}; ${them}, and it is the earliest of them, so it is kept`
          : `intervals overlap: ${lead}, but ${them}; the earlier, cheaper ${best.name}, ${interval(best.primary)}, is kept`;
  return { best: best.name, top: top.name, overlapping, note };
}
