/**
 * Tinker request and response bodies with the exact wire field names (spec §2.2, §3). JSON bodies
 * are sent with undefined fields omitted; responses may carry extra fields, which are ignored.
 * Numeric arrays are plain number[] here; the protobuf codec (proto.ts) turns them into raw bytes.
 */

export const PROTOCOL_SDK_VERSION = "0.25.0";

export type LossFn = "cross_entropy" | "importance_sampling" | "ppo" | "cispo" | "dro";
export const LOSS_FNS: readonly LossFn[] = ["cross_entropy", "importance_sampling", "ppo", "cispo", "dro"];

// ---------- data types (§3) ----------

export interface EncodedTextChunk {
  type: "encoded_text";
  tokens: number[];
}
export interface ImageChunk {
  type: "image";
  /** base64 in JSON; raw bytes on the protobuf wire. */
  data: string;
  format: "png" | "jpeg";
  expected_tokens?: number;
}
export type ModelInputChunk = EncodedTextChunk | ImageChunk;
export interface ModelInput {
  chunks: ModelInputChunk[];
}

export type TensorDtype = "int64" | "float32";
/** Public TensorData form: flattened data, optional shape (1-D when absent), optional CSR sparsity. */
export interface TensorData {
  data: number[];
  dtype: TensorDtype;
  shape?: number[];
  sparse_crow_indices?: number[];
  sparse_col_indices?: number[];
}

export interface Datum {
  model_input: ModelInput;
  loss_fn_inputs: Record<string, TensorData>;
}

// ---------- client config / session (§1.4, §2.1) ----------

export interface SdkVersionRequest {
  sdk_version: string;
}

export interface ClientConfigResponse {
  pjwt_auth_enabled?: boolean;
  credential_default_source?: string;
  use_pyqwest_transport?: boolean;
  proto_compress_fwdbwd?: boolean;
  parallel_fwdbwd_chunks?: boolean;
  fwdbwd_max_chunk_len?: number;
  fwdbwd_max_chunk_bytes_count?: number;
  fwdbwd_dispatch_bytes_semaphore_size?: number;
  sample_dispatch_bytes_semaphore_size?: number;
  inflight_response_bytes_semaphore_size?: number;
  sample_max_concurrent_requests?: number;
  sample_no_retries?: boolean;
  sample_enable_stuck_detection?: boolean;
  billing_exception_max_pause_duration_sec?: number;
  create_model_via_load_weights?: boolean;
}

/** The defaults the SDK assumes for fields a server leaves out. */
export const CLIENT_CONFIG_DEFAULTS: Required<ClientConfigResponse> = {
  pjwt_auth_enabled: false,
  credential_default_source: "api_key",
  use_pyqwest_transport: true,
  proto_compress_fwdbwd: false,
  parallel_fwdbwd_chunks: true,
  fwdbwd_max_chunk_len: 1024,
  fwdbwd_max_chunk_bytes_count: 5_000_000,
  fwdbwd_dispatch_bytes_semaphore_size: 50_000_000,
  sample_dispatch_bytes_semaphore_size: 10_485_760,
  inflight_response_bytes_semaphore_size: 52_428_800,
  sample_max_concurrent_requests: 2000,
  sample_no_retries: false,
  sample_enable_stuck_detection: true,
  billing_exception_max_pause_duration_sec: 3600,
  create_model_via_load_weights: false,
};

export interface ClientDynamicConfigResponse {
  refresh_interval_sec?: number;
}

export interface AuthTokenResponse {
  jwt: string;
}

export interface SupportedModel {
  model_name?: string;
  max_context_length?: number;
}
export interface ServerCapabilitiesResponse {
  supported_models: SupportedModel[];
  /** Agent Lab's local backend (`agent-lab serve-local`) says it is a stand-in; the real service does not send it. */
  local_stand_in?: boolean;
}

export interface CreateSessionRequest {
  tags: string[];
  user_metadata: Record<string, unknown>;
  sdk_version: string;
  project_id?: string;
  type: "create_session";
}
export interface CreateSessionResponse {
  session_id: string;
  type?: "create_session";
  info_message?: string;
  warning_message?: string;
  error_message?: string;
}

export interface SessionHeartbeatRequest {
  session_id: string;
  type: "session_heartbeat";
}
export interface SessionHeartbeatResponse {
  type?: "session_heartbeat";
}

// ---------- training (§2.2) ----------

export interface LoraConfig {
  rank: number;
  seed?: number;
  train_unembed: boolean;
  train_mlp: boolean;
  train_attn: boolean;
}
export interface CreateModelRequest {
  session_id: string;
  model_seq_id: number;
  base_model: string;
  lora_config: LoraConfig;
  user_metadata?: Record<string, unknown>;
  type: "create_model";
}
export interface CreateModelResponse {
  model_id: string;
  type?: "create_model";
}

export interface GetInfoRequest {
  model_id: string;
  type: "get_info";
}
export interface GetInfoResponse {
  type?: "get_info";
  model_id: string;
  model_data: { arch?: string; model_name?: string; tokenizer_id?: string };
  is_lora?: boolean;
  lora_rank?: number;
  model_name?: string;
}

export interface UnloadModelRequest {
  model_id: string;
  type: "unload_model";
}

/** In-memory form of the protobuf ForwardBackwardRequest (§3.4). */
export interface ForwardBackwardRequest {
  model_id: string;
  seq_id: number;
  data: Datum[];
  loss_fn: LossFn;
  loss_fn_config?: Record<string, number>;
  forward_only?: boolean;
}
/** In-memory form of ForwardBackwardOutput (§3.5): one TensorData map per request datum, in order. */
export interface ForwardBackwardOutput {
  loss_fn_output_type: string;
  loss_fn_outputs: Array<Record<string, TensorData>>;
  /** Every key has exactly one ':' and a reduction suffix, e.g. "loss:sum". */
  metrics: Record<string, number>;
}

export interface AdamParams {
  learning_rate: number;
  beta1: number;
  beta2: number;
  eps: number;
  weight_decay: number;
  grad_clip_norm: number;
}
/** The SDK's AdamParams defaults; all six are always sent. */
export const ADAM_DEFAULTS: AdamParams = {
  learning_rate: 1e-4,
  beta1: 0.9,
  beta2: 0.95,
  eps: 1e-12,
  weight_decay: 0,
  grad_clip_norm: 0,
};
export interface OptimStepRequest {
  adam_params: AdamParams;
  model_id: string;
  seq_id: number;
  type: "optim_step";
}
export interface OptimStepResponse {
  metrics?: Record<string, number>;
}

export interface SaveWeightsRequest {
  model_id: string;
  /** The checkpoint name, not a URI. */
  path: string;
  seq_id: number;
  ttl_seconds?: number;
  overwrite: boolean;
  type: "save_weights";
}
export interface SaveWeightsResponse {
  path: string;
  type?: "save_weights";
}

export interface SaveWeightsForSamplerRequest {
  model_id: string;
  /** Named mode: the checkpoint name. */
  path?: string;
  /** Ephemeral mode: the session's next sampler counter. */
  sampling_session_seq_id?: number;
  seq_id: number;
  ttl_seconds?: number;
  type: "save_weights_for_sampler";
}
export interface SaveWeightsForSamplerResponse {
  path?: string;
  sampling_session_id?: string;
  type?: "save_weights_for_sampler";
}

export interface LoadWeightsRequest {
  model_id?: string;
  seq_id?: number;
  session_id?: string;
  model_seq_id?: number;
  base_model?: string;
  user_metadata?: Record<string, unknown>;
  path: string;
  optimizer: boolean;
  weights_access_token?: string;
  type: "load_weights";
}
export interface LoadWeightsResponse {
  path?: string;
  model_id?: string;
  type?: "load_weights";
}

export interface WeightsInfoRequest {
  tinker_path: string;
}
export interface WeightsInfoResponse {
  base_model: string;
  is_lora: boolean;
  lora_rank?: number;
  train_unembed?: boolean;
  train_mlp?: boolean;
  train_attn?: boolean;
}

// ---------- sampling (§2.2) ----------

export interface CreateSamplingSessionRequest {
  session_id: string;
  sampling_session_seq_id: number;
  base_model?: string;
  model_path?: string;
  type: "create_sampling_session";
}
export interface CreateSamplingSessionResponse {
  sampling_session_id: string;
  type?: "create_sampling_session";
}

export interface SamplingParams {
  max_tokens?: number;
  seed?: number;
  /** Stop strings or stop token ids. */
  stop?: string | string[] | number[];
  temperature: number;
  top_k: number;
  top_p: number;
}
export interface SampleRequest {
  num_samples: number;
  prompt: ModelInput;
  sampling_params: SamplingParams;
  sampling_session_id: string;
  seq_id: number;
  prompt_logprobs: boolean;
  topk_prompt_logprobs: number;
  base_model?: string;
  model_path?: string;
  type: "sample";
}

export type WireStopReason = "stop" | "length";
export interface SampledSequence {
  tokens: number[];
  logprobs: number[] | null;
  stop_reason: WireStopReason;
}
/** In-memory form of the protobuf SampleResponse (§3.5). */
export interface SampleResponse {
  sequences: SampledSequence[];
  /** First position null (nothing predicts the first token); null when not requested. */
  prompt_logprobs: Array<number | null> | null;
  /** Per prompt position: null, or [token_id, logprob] pairs. */
  topk_prompt_logprobs: Array<Array<[number, number]> | null> | null;
  prompt_cache_hit_tokens: number;
}

export interface SamplerInfoResponse {
  sampler_id: string;
  base_model: string;
  model_path?: string;
}

// ---------- futures (§2.3) ----------

export interface UntypedAPIFuture {
  request_id: string;
  model_id?: string;
}
export interface RetrieveFutureRequest {
  request_id: string;
  allow_metadata_only: boolean;
}
export type QueueState = "active" | "paused_capacity" | "paused_rate_limit";
export interface TryAgainResponse {
  type: "try_again";
  request_id: string;
  queue_state: QueueState;
  queue_state_reason?: string;
}
export interface MetadataOnlyResponse {
  status: "complete_metadata";
  response_payload_size: number;
}
export type ErrorCategory = "unknown" | "server" | "user";
export interface FutureErrorResponse {
  error: string;
  category: ErrorCategory;
}
/** Request types named in X-Tinker-Request-Type on retrieve_future polls. */
export type RequestType =
  | "CreateModel"
  | "Forward"
  | "ForwardBackward"
  | "OptimStep"
  | "SaveWeights"
  | "SaveWeightsForSampler"
  | "LoadWeights"
  | "Sample";

// ---------- REST (§2.1 rows 20-35) ----------

export interface Cursor {
  offset: number;
  limit: number;
  total_count: number;
}
export interface Checkpoint {
  /** "weights/<name>" or "sampler_weights/<name>". */
  checkpoint_id: string;
  checkpoint_type: "training" | "sampler";
  time: string;
  tinker_path: string;
  size_bytes?: number;
  public?: boolean;
  expires_at?: string;
}
export interface TrainingRun {
  training_run_id: string;
  base_model: string;
  model_owner: string;
  is_lora: boolean;
  corrupted?: boolean;
  lora_rank?: number;
  last_request_time: string;
  last_checkpoint?: Checkpoint;
  last_sampler_checkpoint?: Checkpoint;
  user_metadata?: Record<string, string>;
}
export interface TrainingRunsResponse {
  training_runs: TrainingRun[];
  cursor: Cursor;
}
export interface CheckpointsListResponse {
  checkpoints: Checkpoint[];
  cursor?: Cursor;
}
export interface CheckpointArchiveUrlResponse {
  url: string;
  expires: string;
}
export interface TelemetryResponse {
  status: "accepted";
}

// ---------- billing usage (spec §6: GET /api/v1/billing/usage/events) ----------

/** What one hour bucket counts: a tagged union on `type`. */
export type BillingEventInfo =
  | { type: "training"; token_count: number }
  | { type: "sampling_prefill"; cached: boolean; token_count: number }
  | { type: "sampling_sample"; token_count: number }
  | { type: "checkpoint"; count: number }
  | { type: "storage"; gigabyte_hours: number };

export interface BillingUsageEvent {
  /** Inclusive start and exclusive end of the UTC hour bucket (RFC 3339). */
  bucket_start: string;
  bucket_end: string;
  base_model?: string | null;
  user_id?: string | null;
  user_name?: string | null;
  session_id?: string | null;
  project_id?: string | null;
  event_info: BillingEventInfo;
}

export interface BillingUsageResponse {
  data: BillingUsageEvent[];
  sessions: Record<string, { user_metadata?: Record<string, string> | null }>;
}
