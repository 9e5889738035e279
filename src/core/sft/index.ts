export * from "./collect-sft";
export * from "./held-out";
export * from "./lineage";
export * from "./select";
export * from "./sft-files";
export { sftFromRuns, type FromRunsOptions, type FromRunsResult, type SkippedRun, type SourceRun } from "./from-runs";
