/**
 * The one bootstrap every interval Agent Lab shows is drawn with — ablate's, so the dashboard,
 * Compare, the pipeline's report and the CLI print the same digits for the same scores: 10,000
 * resamples, seed 0, stream 0, 95% percentile interval, questions in id order (a resample draws
 * positions, so the order is part of the interval).
 */
import { bootstrapMeans, mean, percentileInterval, type Interval } from "./bootstrap";
import { DEFAULT_RESAMPLES } from "./resamples";

export const SHOWN_INTERVAL = { resamples: DEFAULT_RESAMPLES, seed: 0, stream: 0, level: 0.95 } as const;

/** Question ids in the order ablate pairs them (and every shown interval resamples them). */
export function questionOrder(ids: readonly string[]): string[] {
  return [...ids].sort();
}

/** Items in questionOrder of their ids (the one order, not a second comparator); items of one id keep their order. */
export function inQuestionOrder<T extends { id: string }>(items: readonly T[]): T[] {
  const byId = new Map<string, T[]>();
  for (const item of items) {
    const same = byId.get(item.id);
    if (same) same.push(item);
    else byId.set(item.id, [item]);
  }
  return questionOrder([...byId.keys()]).flatMap((id) => byId.get(id)!);
}

/** One run's mean score with its interval, drawn as ablate draws each run's (values in question order). */
export function meanInterval(values: ArrayLike<number>): { mean: number; ci: Interval } {
  const { resamples, seed, stream, level } = SHOWN_INTERVAL;
  const [dist] = bootstrapMeans([values], { resamples, seed, stream });
  return { mean: mean(values), ci: percentileInterval(dist, level) };
}
