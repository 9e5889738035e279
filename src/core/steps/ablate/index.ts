/** Comparing runs with honest statistics: `agent-lab ablate` and the compare panel. */
export {
  ablate,
  loadAblationInputs,
  verdict,
  isExpected,
  VERDICT_RULE,
  DEFAULT_RESAMPLES,
  type AblationInput,
  type AblationOptions,
} from "./ablate";
export {
  bootstrapMeans,
  percentileInterval,
  quantileSorted,
  mean,
  sampleSd,
  type BootstrapOptions,
} from "../../base/stats/bootstrap";
export { mcnemarExact, signFlipTest, holmAdjust } from "../../base/stats/significance";
export { minimumDetectableDelta, questionsForDelta, normalCdf, normalQuantile } from "../../base/stats/power";
export { renderAblationTable, renderMarkdownReport, formatP } from "./render";
export { Xoshiro128 } from "../../base/stats/prng";
export * from "./report-types";
export { readAblationReport, normaliseAblationReport } from "./report-read";
