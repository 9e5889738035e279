/** A checkpoint's matched val score as one line (the Checkpoints tree's rows): light, so the tree loads it at activation. */
import { f3 } from "../../steps/ablate/format";
import type { PrimaryScore } from "../trace/dashboard-view";

export interface CheckpointValScore {
  /** The primary metric's label ("F1"). */
  metric: string;
  primary: PrimaryScore;
  evalRun: string;
}

/** "F1 0.512 [0.450, 0.570]" */
export const valScoreText = (s: CheckpointValScore): string =>
  `${s.metric} ${f3(s.primary.mean)} [${f3(s.primary.lo)}, ${f3(s.primary.hi)}]`;
