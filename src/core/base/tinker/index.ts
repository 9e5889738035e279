/**
 * The native Tinker client: service, training and sampling clients, futures.
 *
 *   const tinker = new TinkerService();                    // TINKER_API_KEY, TINKER_BASE_URL
 *   const tc = await tinker.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 32 });
 *   const fb = tc.forwardBackward(data, "cross_entropy");  // both on the wire before any await
 *   const step = tc.optimStep({ learning_rate: 4e-5, eps: 1e-8 });
 *   console.log((await fb.result()).metrics["loss:sum"]); await step.result();
 *   const sampler = await tc.saveWeightsAndGetSamplingClient().result();
 *   tinker.close();                                        // stops the session heartbeat
 */
export { TinkerService, DEFAULT_TINKER_BASE_URL, type TinkerServiceOptions, type CreateLoraOptions } from "./service";
export { TrainingClient, type ForwardBackwardResult, type SaveOptions } from "./training";
export {
  SamplingClient,
  type SampleInput,
  type SampleResult,
  type SampledSequenceResult,
  type CallOptions,
} from "./sampling";
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
export * as wire from "./wire";
