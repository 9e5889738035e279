/** Comparing runs with honest statistics: `agent-lab ablate` and the compare panel. */
export { ablate, loadAblationInputs, verdict, isExpected, VERDICT_RULE, DEFAULT_RESAMPLES, type AblationInput, type AblationOptions } from "./ablate";
export { bootstrapMeans, percentileInterval, quantileSorted, mean, sampleSd, type BootstrapOptions } from "./bootstrap";
export { mcnemarExact, signFlipTest, holmAdjust } from "./significance";
export { minimumDetectableDelta, questionsForDelta, normalCdf, normalQuantile } from "./power";
export { renderAblationTable, renderMarkdownReport, formatP } from "./render";
export { Xoshiro128 } from "./prng";
export * from "./report-types";
