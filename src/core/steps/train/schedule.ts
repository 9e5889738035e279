/** Learning-rate schedules. */

/** The recipe's and cookbook's linear decay: lr · (1 − step/total), step counted from 0, reaching 0 after the last step. */
export function linearLr(peak: number, step: number, totalSteps: number): number {
  if (totalSteps <= 0) return peak;
  return peak * Math.max(0, 1 - step / totalSteps);
}
