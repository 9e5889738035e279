/**
 * Every request body checked against its wire type once, at the door, before anything is queued,
 * allocated or registered: field types, id lengths, token ids against the fixed vocabulary, tensor
 * shapes against the data actually sent, prompt + max_tokens against the model's context. A
 * failure is an HttpError 400 whose message names the field; the backend only ever sees typed,
 * bounded requests.
 */
import { HttpError } from "./http-error";
import { LOSS_NAMES, LOSS_INPUTS, type LossName } from "./model/losses";
import { VOCAB_SIZE } from "./model/tiny-model";
import type { AdamParams, TrainDatum } from "./model/train";

/** The local model's context: prompt plus generated tokens, and the longest datum. */
export const CONTEXT_LENGTH = 8192;
export const LIMITS = {
  /** session, model, sampler, request ids and base model names. */
  idChars: 256,
  /** tinker:// paths and checkpoint names. */
  pathChars: 1024,
  numSamples: 64,
  datums: 1024,
  /** Positions of all datums of one forward_backward together. */
  batchTokens: 65_536,
  /** Candidates per position (N×K targets). */
  targetsPerPosition: 64,
  topkPromptLogprobs: 20,
  metadataEntries: 64,
  metadataChars: 4096,
} as const;

type Obj = Record<string, unknown>;

const bad = (message: string) => new HttpError(400, message);
const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 40 ? `${s.slice(0, 40)}…` : s;
};

export function object(v: unknown, what: string): Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw bad(`${what} must be a JSON object, got ${show(v)}`);
  return v as Obj;
}

function string(o: Obj, key: string, where: string, max: number = LIMITS.idChars): string {
  const v = o[key];
  if (typeof v !== "string" || v.length === 0) throw bad(`${where}.${key} is required (a string), got ${show(v)}`);
  if (v.length > max)
    throw bad(`${where}.${key} is ${v.length} characters long; the local backend accepts at most ${max}`);
  return v;
}

function optionalString(o: Obj, key: string, where: string, max: number = LIMITS.idChars): string | undefined {
  return o[key] === undefined || o[key] === null ? undefined : string(o, key, where, max);
}

function integer(o: Obj, key: string, where: string, min: number, max: number): number {
  const v = o[key];
  if (typeof v !== "number" || !Number.isInteger(v)) throw bad(`${where}.${key} must be an integer, got ${show(v)}`);
  if (v < min || v > max) throw bad(`${where}.${key} must be between ${min} and ${max}, got ${v}`);
  return v;
}

function optionalInteger(o: Obj, key: string, where: string, min: number, max: number): number | undefined {
  return o[key] === undefined || o[key] === null ? undefined : integer(o, key, where, min, max);
}

function finite(o: Obj, key: string, where: string, min = -Infinity, max = Infinity): number {
  const v = o[key];
  if (typeof v !== "number" || !Number.isFinite(v))
    throw bad(`${where}.${key} must be a finite number, got ${show(v)}`);
  if (v < min || v > max) throw bad(`${where}.${key} must be between ${min} and ${max}, got ${v}`);
  return v;
}

function optionalFinite(o: Obj, key: string, where: string, min = -Infinity, max = Infinity): number | undefined {
  return o[key] === undefined || o[key] === null ? undefined : finite(o, key, where, min, max);
}

function optionalBool(o: Obj, key: string, where: string): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw bad(`${where}.${key} must be true or false, got ${show(v)}`);
  return v;
}

function metadata(o: Obj, key: string, where: string): Record<string, string> | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  const m = object(v, `${where}.${key}`);
  const entries = Object.entries(m);
  if (entries.length > LIMITS.metadataEntries)
    throw bad(`${where}.${key} has ${entries.length} entries; at most ${LIMITS.metadataEntries}`);
  const out: Record<string, string> = {};
  for (const [k, x] of entries) {
    const text = typeof x === "string" ? x : JSON.stringify(x);
    if (k.length + text.length > LIMITS.metadataChars)
      throw bad(`${where}.${key}.${k.slice(0, 40)} is longer than ${LIMITS.metadataChars} characters`);
    out[k] = text;
  }
  return out;
}

function tokenList(v: unknown, what: string, max: number): number[] {
  if (!Array.isArray(v)) throw bad(`${what} must be an array of token ids, got ${show(v)}`);
  if (v.length > max) throw bad(`${what} has ${v.length} tokens; the local model's context is ${max}`);
  for (const t of v) {
    if (typeof t !== "number" || !Number.isInteger(t) || t < 0 || t >= VOCAB_SIZE) {
      throw bad(`${what}: token id ${show(t)} is outside the local model's vocabulary (0 ≤ id < ${VOCAB_SIZE})`);
    }
  }
  return v as number[];
}

/** A ModelInput's text chunks, concatenated. */
function modelInput(v: unknown, what: string, max: number): number[] {
  const chunks = object(v, what).chunks;
  if (!Array.isArray(chunks)) throw bad(`${what}.chunks must be an array, got ${show(chunks)}`);
  const out: number[] = [];
  chunks.forEach((c, i) => {
    const chunk = object(c, `${what}.chunks[${i}]`);
    if (chunk.type !== undefined && chunk.type !== "encoded_text")
      throw bad(`${what}.chunks[${i}]: the local backend reads text only, got a ${show(chunk.type)} chunk`);
    const tokens = tokenList(chunk.tokens, `${what}.chunks[${i}].tokens`, max - out.length);
    for (const t of tokens) out.push(t);
  });
  return out;
}

// ---------- sessions and models ----------

export function sessionId(body: Obj, where: string): string {
  return string(body, "session_id", where);
}

export function modelId(body: Obj, where: string): string {
  return string(body, "model_id", where);
}

export interface LoraRequest {
  rank: number;
  seed?: number;
  train_unembed: boolean;
  train_mlp: boolean;
  train_attn: boolean;
}

function lora(v: unknown, where: string): LoraRequest {
  const o = v === undefined || v === null ? {} : object(v, `${where}.lora_config`);
  const w = `${where}.lora_config`;
  const rank = optionalInteger(o, "rank", w, 1, 1024) ?? 32;
  const l: LoraRequest = {
    rank,
    train_unembed: optionalBool(o, "train_unembed", w) ?? true,
    train_mlp: optionalBool(o, "train_mlp", w) ?? true,
    train_attn: optionalBool(o, "train_attn", w) ?? true,
  };
  if (!l.train_unembed && !l.train_mlp && !l.train_attn)
    throw bad(`${w} must train at least one of unembed, mlp, attn`);
  const seed = optionalInteger(o, "seed", w, 0, Number.MAX_SAFE_INTEGER);
  if (seed !== undefined) l.seed = seed;
  return l;
}

export interface CreateModelBody {
  session_id: string;
  model_seq_id: number;
  base_model: string;
  lora_config: LoraRequest;
  user_metadata?: Record<string, string>;
}

export function createModelBody(body: Obj): CreateModelBody {
  const w = "create_model";
  return {
    session_id: sessionId(body, w),
    model_seq_id: integer(body, "model_seq_id", w, 0, 2 ** 31 - 1),
    base_model: string(body, "base_model", w),
    lora_config: lora(body.lora_config, w),
    user_metadata: metadata(body, "user_metadata", w),
  };
}

/** The seq_id of a training op: absent or 0 means "next" (the protobuf default). */
function trainingSeq(body: Obj, where: string): number | undefined {
  const v = body.seq_id;
  if (v === undefined || v === null || v === 0) return undefined;
  return integer(body, "seq_id", where, 1, 2 ** 31 - 1);
}

export interface ForwardBackwardBody {
  model_id: string;
  seq_id?: number;
  datums: TrainDatum[];
  loss_fn: LossName;
  loss_fn_config: Record<string, number>;
  forward_only: boolean;
}

/** Dense row-major values of a TensorData, after checking its shape against the data actually sent. */
function tensor(v: unknown, what: string, expectRows: number): { values: number[]; shape: number[] } {
  const t = object(v, what);
  if (!Array.isArray(t.data)) throw bad(`${what}.data must be an array of numbers`);
  const data = t.data as unknown[];
  for (const x of data)
    if (typeof x !== "number" || !Number.isFinite(x)) throw bad(`${what}.data: ${show(x)} is not a finite number`);
  const values = data as number[];
  let shape: number[];
  if (t.shape === undefined || t.shape === null) shape = [values.length];
  else {
    if (
      !Array.isArray(t.shape) ||
      t.shape.length < 1 ||
      t.shape.length > 2 ||
      !t.shape.every((n) => typeof n === "number" && Number.isInteger(n) && n >= 0)
    ) {
      throw bad(`${what}.shape must be [N] or [N, K] with non-negative integers, got ${show(t.shape)}`);
    }
    shape = t.shape as number[];
  }
  // Checked before anything is allocated from the shape: it must fit the datum it belongs to.
  const rows = shape[0];
  const cols = shape.length === 2 ? shape[1] : 1;
  if (rows !== expectRows || cols < 1 || cols > LIMITS.targetsPerPosition) {
    throw bad(
      `${what} has shape ${show(shape)}, but model_input has ${expectRows} tokens (expected [${expectRows}] or [${expectRows}, K] with 1 ≤ K ≤ ${LIMITS.targetsPerPosition})`,
    );
  }
  const crow = t.sparse_crow_indices;
  if (crow === undefined || crow === null) {
    if (values.length !== rows * cols)
      throw bad(`${what} has ${values.length} values for shape ${show(shape)} (${rows * cols} expected)`);
    return { values, shape };
  }
  const col = t.sparse_col_indices;
  if (shape.length !== 2) throw bad(`${what}: a sparse tensor needs a 2-D shape`);
  if (!Array.isArray(crow) || crow.length !== rows + 1)
    throw bad(`${what}.sparse_crow_indices must have ${rows + 1} entries (rows + 1)`);
  if (!Array.isArray(col) || col.length !== values.length)
    throw bad(`${what}.sparse_col_indices must have one entry per value (${values.length})`);
  if (crow[0] !== 0 || crow[rows] !== values.length)
    throw bad(`${what}.sparse_crow_indices must start at 0 and end at the number of values`);
  for (let r = 0; r < rows; r++) {
    const a = crow[r] as unknown;
    const b = crow[r + 1] as unknown;
    if (typeof a !== "number" || typeof b !== "number" || !Number.isInteger(b) || b < a)
      throw bad(`${what}.sparse_crow_indices must be non-decreasing integers`);
  }
  for (const c of col)
    if (typeof c !== "number" || !Number.isInteger(c) || c < 0 || c >= cols)
      throw bad(`${what}.sparse_col_indices: ${show(c)} is not a column of ${cols}`);
  const dense = new Array<number>(rows * cols).fill(0);
  for (let r = 0; r < rows; r++)
    for (let j = crow[r] as number; j < (crow[r + 1] as number); j++) dense[r * cols + (col[j] as number)] = values[j];
  return { values: dense, shape };
}

function datum(v: unknown, i: number, lossFn: LossName, budget: number): TrainDatum {
  const what = `forward_backward.data[${i}]`;
  const d = object(v, what);
  const input = modelInput(d.model_input, `${what}.model_input`, Math.min(CONTEXT_LENGTH, budget));
  if (input.length === 0) throw bad(`${what}.model_input is empty`);
  const inputs = object(d.loss_fn_inputs, `${what}.loss_fn_inputs`);
  if (inputs.target_tokens === undefined) throw bad(`${what}.loss_fn_inputs.target_tokens is required`);
  const target = tensor(inputs.target_tokens, `${what}.loss_fn_inputs.target_tokens`, input.length);
  for (const t of target.values) {
    if (!Number.isInteger(t) || t < 0 || t >= VOCAB_SIZE)
      throw bad(
        `${what}.loss_fn_inputs.target_tokens: token id ${t} is outside the local model's vocabulary (0 ≤ id < ${VOCAB_SIZE})`,
      );
  }
  const lossInputs: Record<string, number[]> = {};
  for (const [name, t] of Object.entries(inputs)) {
    if (name === "target_tokens") continue;
    const x = tensor(t, `${what}.loss_fn_inputs.${name}`, input.length);
    if (x.values.length !== target.values.length)
      throw bad(`${what}.loss_fn_inputs.${name} has shape ${show(x.shape)}, target_tokens has ${show(target.shape)}`);
    lossInputs[name] = x.values;
  }
  for (const key of LOSS_INPUTS[lossFn])
    if (!lossInputs[key]) throw bad(`${what}: loss_fn ${lossFn} needs loss_fn_inputs.${key}`);
  return { input, targets: target.values, k: target.shape.length === 2 ? target.shape[1] : 1, lossInputs };
}

export function forwardBackwardBody(body: Obj): ForwardBackwardBody {
  const w = "forward_backward";
  const model_id = modelId(body, w);
  const lossFn = body.loss_fn;
  if (typeof lossFn !== "string" || !LOSS_NAMES.includes(lossFn as LossName))
    throw bad(`${w}.loss_fn must be one of ${LOSS_NAMES.join(", ")}, got ${show(lossFn)}`);
  const config: Record<string, number> = {};
  if (body.loss_fn_config !== undefined && body.loss_fn_config !== null) {
    const c = object(body.loss_fn_config, `${w}.loss_fn_config`);
    for (const key of Object.keys(c)) config[key] = finite(c, key, `${w}.loss_fn_config`);
  }
  if (!Array.isArray(body.data) || body.data.length === 0)
    throw bad(`${w}.data is required (a non-empty array of datums), got ${show(body.data)}`);
  if (body.data.length > LIMITS.datums)
    throw bad(`${w}.data has ${body.data.length} datums; the local backend takes at most ${LIMITS.datums} per call`);
  let budget: number = LIMITS.batchTokens;
  const datums = body.data.map((d, i) => {
    const out = datum(d, i, lossFn as LossName, budget);
    budget -= out.input.length;
    if (budget < 0) throw bad(`${w}: the datums hold more than ${LIMITS.batchTokens} tokens together; split the batch`);
    return out;
  });
  return {
    model_id,
    seq_id: trainingSeq(body, w),
    datums,
    loss_fn: lossFn as LossName,
    loss_fn_config: config,
    forward_only: optionalBool(body, "forward_only", w) ?? false,
  };
}

export interface OptimStepBody {
  model_id: string;
  seq_id?: number;
  adam_params: AdamParams;
}

export function optimStepBody(body: Obj): OptimStepBody {
  const w = "optim_step";
  const p = object(body.adam_params, `${w}.adam_params`);
  const pw = `${w}.adam_params`;
  return {
    model_id: modelId(body, w),
    seq_id: trainingSeq(body, w),
    adam_params: {
      learning_rate: optionalFinite(p, "learning_rate", pw, 0) ?? 1e-4,
      beta1: optionalFinite(p, "beta1", pw, 0, 0.999999) ?? 0.9,
      beta2: optionalFinite(p, "beta2", pw, 0, 0.999999) ?? 0.95,
      eps: optionalFinite(p, "eps", pw, 0) ?? 1e-12,
      weight_decay: optionalFinite(p, "weight_decay", pw, 0) ?? 0,
      grad_clip_norm: optionalFinite(p, "grad_clip_norm", pw, 0) ?? 0,
    },
  };
}

export interface SaveWeightsBody {
  model_id: string;
  seq_id?: number;
  name?: string;
  sampling_session_seq_id?: number;
  ttl_seconds?: number;
  overwrite: boolean;
}

/** save_weights (a name is required) and save_weights_for_sampler (a name, or an ephemeral sampler). */
export function saveWeightsBody(body: Obj, where: "save_weights" | "save_weights_for_sampler"): SaveWeightsBody {
  const name =
    where === "save_weights"
      ? string(body, "path", where, LIMITS.pathChars)
      : optionalString(body, "path", where, LIMITS.pathChars);
  if (name !== undefined && (name.includes("/") || name === "." || name === ".."))
    throw bad(`${where}.path must be a checkpoint name without '/', got ${show(name)}`);
  const ttl = optionalFinite(body, "ttl_seconds", where);
  return {
    model_id: modelId(body, where),
    seq_id: trainingSeq(body, where),
    name,
    sampling_session_seq_id: optionalInteger(body, "sampling_session_seq_id", where, 0, Number.MAX_SAFE_INTEGER),
    ttl_seconds: ttl !== undefined && ttl > 0 ? ttl : undefined,
    overwrite: optionalBool(body, "overwrite", where) ?? false,
  };
}

export interface LoadWeightsBody {
  model_id?: string;
  seq_id?: number;
  session_id?: string;
  model_seq_id?: number;
  base_model?: string;
  user_metadata?: Record<string, string>;
  path: string;
  optimizer: boolean;
}

export function loadWeightsBody(body: Obj): LoadWeightsBody {
  const w = "load_weights";
  const out: LoadWeightsBody = {
    model_id: optionalString(body, "model_id", w),
    seq_id: trainingSeq(body, w),
    session_id: optionalString(body, "session_id", w),
    model_seq_id: optionalInteger(body, "model_seq_id", w, 0, 2 ** 31 - 1),
    base_model: optionalString(body, "base_model", w),
    user_metadata: metadata(body, "user_metadata", w),
    path: string(body, "path", w, LIMITS.pathChars),
    optimizer: optionalBool(body, "optimizer", w) ?? false,
  };
  if (out.model_id === undefined && (out.session_id === undefined || out.model_seq_id === undefined)) {
    throw bad(`${w} needs model_id, or session_id with model_seq_id (create-via-load)`);
  }
  return out;
}

export interface CreateSamplingSessionBody {
  session_id: string;
  sampling_session_seq_id?: number;
  base_model?: string;
  model_path?: string;
}

export function createSamplingSessionBody(body: Obj): CreateSamplingSessionBody {
  const w = "create_sampling_session";
  const out = {
    session_id: sessionId(body, w),
    sampling_session_seq_id: optionalInteger(body, "sampling_session_seq_id", w, 0, Number.MAX_SAFE_INTEGER),
    base_model: optionalString(body, "base_model", w),
    model_path: optionalString(body, "model_path", w, LIMITS.pathChars),
  };
  if (out.base_model === undefined && out.model_path === undefined) throw bad(`${w} needs base_model or model_path`);
  return out;
}

// ---------- sampling ----------

export interface SampleBody {
  sampling_session_id: string;
  seq_id?: number;
  num_samples: number;
  prompt: number[];
  max_tokens: number;
  temperature: number;
  top_k: number;
  top_p: number;
  seed?: number;
  stop_tokens: number[];
  prompt_logprobs: boolean;
  topk_prompt_logprobs: number;
}

export function sampleBody(body: Obj): SampleBody {
  const w = "asample";
  const sampler = string(body, "sampling_session_id", w);
  const prompt = modelInput(body.prompt, `${w}.prompt`, CONTEXT_LENGTH);
  if (prompt.length === 0) throw bad(`${w}.prompt is empty`);
  const p =
    body.sampling_params === undefined || body.sampling_params === null
      ? {}
      : object(body.sampling_params, `${w}.sampling_params`);
  const pw = `${w}.sampling_params`;
  const maxTokens = optionalInteger(p, "max_tokens", pw, 0, Number.MAX_SAFE_INTEGER) ?? 256;
  if (prompt.length + maxTokens > CONTEXT_LENGTH) {
    throw bad(
      `${pw}.max_tokens ${maxTokens} with a prompt of ${prompt.length} tokens exceeds the local model's context of ${CONTEXT_LENGTH} tokens; ask for at most ${CONTEXT_LENGTH - prompt.length}`,
    );
  }
  let stopTokens: number[] = [];
  const stop = p.stop;
  if (stop !== undefined && stop !== null) {
    const list = Array.isArray(stop) ? stop : [stop];
    if (list.some((s) => typeof s === "string")) {
      throw bad(
        `${pw}.stop: stop strings need a tokenizer, and the local backend has none; pass stop token ids instead`,
      );
    }
    stopTokens = tokenList(list, `${pw}.stop`, 1024);
  }
  return {
    sampling_session_id: sampler,
    seq_id: optionalInteger(body, "seq_id", w, 0, Number.MAX_SAFE_INTEGER),
    num_samples: optionalInteger(body, "num_samples", w, 1, LIMITS.numSamples) ?? 1,
    prompt,
    max_tokens: maxTokens,
    temperature: optionalFinite(p, "temperature", pw, 0, 100) ?? 1,
    top_k: optionalInteger(p, "top_k", pw, -1, VOCAB_SIZE) ?? -1,
    top_p: optionalFinite(p, "top_p", pw, 0, 1) ?? 1,
    seed: optionalInteger(p, "seed", pw, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    stop_tokens: stopTokens,
    prompt_logprobs: optionalBool(body, "prompt_logprobs", w) ?? false,
    topk_prompt_logprobs: optionalInteger(body, "topk_prompt_logprobs", w, 0, LIMITS.topkPromptLogprobs) ?? 0,
  };
}

export function requestId(body: Obj): string {
  return string(body, "request_id", "retrieve_future");
}

export function tinkerPathField(body: Obj, key: string, where: string): string {
  return string(body, key, where, LIMITS.pathChars);
}

/** PUT .../ttl: a whole number of seconds above 0, or null to remove the expiry (a TTL ≤ 0 is refused). */
export function ttlSeconds(body: Obj): number | null {
  const ttl = body.ttl_seconds;
  if (ttl === undefined || ttl === null) return null;
  if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl <= 0)
    throw bad(`ttl_seconds must be a whole number of seconds above 0, or null to remove the expiry; got ${show(ttl)}`);
  return ttl;
}
