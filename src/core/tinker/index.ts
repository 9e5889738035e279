/** The native Tinker client: service, training and sampling clients, futures, policy adapter. */
export { TinkerService, DEFAULT_TINKER_BASE_URL, type TinkerServiceOptions, type CreateLoraOptions } from "./service";
export { TrainingClient, type ForwardBackwardResult, type SaveOptions } from "./training";
export { SamplingClient, type SampleInput, type SampleResult, type SampledSequenceResult, type CallOptions } from "./sampling";
export { TinkerFuture } from "./futures";
export { DEFAULT_RETRY, type RetryPolicy } from "./http";
export { resolveApiKey } from "./key";
export { parseTinkerPath, tinkerPath, type TinkerPath, type CheckpointKind } from "./paths";
export { chunkData, estimateDatumBytes, mergeForwardBackwardOutputs } from "./chunking";
export {
  TinkerApiError,
  TinkerAuthError,
  TinkerBillingError,
  TinkerConnectionError,
  TinkerFutureExpiredError,
  TinkerKeyError,
  TinkerRequestFailedError,
  redact,
} from "./errors";
export { TinkerPolicy, createTinkerPolicy, MISSING_LOGPROBS_MESSAGE, type CreateTinkerPolicyOptions } from "./policy";
export * as wire from "./wire";
