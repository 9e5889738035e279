/** Training on Tinker (or the local backend): SFT and online GRPO, both registering their checkpoints. */
export {
  trainSft,
  weightedNll,
  COOKBOOK_ADAM,
  type TrainSftOptions,
  type TrainSftResult,
  type SftMetrics,
} from "./sft";
export { readSftData, sftDataHash, type SftData, type SftTrainingRow } from "./sft-data";
export { linearLr } from "./schedule";
export { openTrainTarget, type TrainBackend, type TrainBackendOptions } from "./backend";
export { readRunCheckpoints, METRICS_FILE, RUN_CHECKPOINTS_FILE, type RunCheckpoint } from "./run-log";
export {
  trainGrpo,
  groupAdvantages,
  CONSTANT_GROUP_EPS,
  type TrainGrpoOptions,
  type TrainGrpoResult,
  type GrpoMetrics,
  type GroupRecord,
} from "./grpo";
