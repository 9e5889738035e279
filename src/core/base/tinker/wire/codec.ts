/**
 * Encode/decode the three protobuf messages that travel on Tinker's wire (spec §1.5, §3.4, §3.5):
 * ForwardBackwardRequest (client → server), ForwardBackwardOutput and SampleResponse (server →
 * client). Both directions exist for each so the client and the local backend share one codec.
 * Proto3 default values (0, "", false) are left out, as the Python SDK does.
 */
import { float32Bytes, int32Bytes, int64Bytes, readBfloat16, readFloat32, readInt32, readInt64 } from "./bytes";
import { DTYPE, STOP_REASON, protoType } from "./schema";
import type {
  Datum,
  ForwardBackwardOutput,
  ForwardBackwardRequest,
  LossFn,
  ModelInputChunk,
  SampleResponse,
  SampledSequence,
  TensorData,
} from "./types";

/** int64 fields decode as Long objects when the `long` package is present. */
type Int64 = number | { toNumber(): number };
function num(v: Int64 | undefined | null): number {
  if (v === undefined || v === null) return 0;
  return typeof v === "number" ? v : v.toNumber();
}
/** Unset bytes fields read from protobufjs prototypes may be a plain empty array, not a Uint8Array. */
function raw(v: Uint8Array | number[] | undefined | null): Uint8Array {
  if (v === undefined || v === null) return new Uint8Array();
  return v instanceof Uint8Array ? v : Uint8Array.from(v);
}
function has(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

// ---------- proto object shapes (what protobufjs reads and writes) ----------

interface PTensor {
  dense?: Uint8Array;
  sparse_csr?: { values?: Uint8Array; crow_indices?: Uint8Array; col_indices?: Uint8Array };
  dtype?: number;
  shape?: Int64[];
}
interface PChunk {
  encoded_text?: { tokens?: Uint8Array };
  image?: { data?: Uint8Array; format?: string; expected_tokens?: number };
  dmel?: { dmel?: Uint8Array };
}
interface PDatum {
  model_input?: PChunk[];
  loss_fn_inputs?: Record<string, PTensor>;
}
interface PForwardBackwardRequest {
  model_id?: string;
  seq_id?: number;
  data?: PDatum[];
  loss_fn?: string;
  loss_fn_config?: Record<string, number>;
  forward_only?: boolean;
}
interface PBatchedTensor {
  data?: Uint8Array;
  offsets?: Uint8Array;
  dtype?: number;
  trailing_shape?: Int64[];
}
interface PArrayRecord {
  type_tag?: string;
  fields?: Record<string, PBatchedTensor>;
  num_datums?: Int64;
}
interface PForwardBackwardOutput {
  loss_fn_output_type?: string;
  loss_fn_outputs?: PArrayRecord[];
  metrics?: Record<string, number>;
}
interface PSampledSequence {
  stop_reason?: number;
  tokens?: Uint8Array;
  logprobs?: Uint8Array;
}
interface PTopk {
  token_ids?: Uint8Array;
  logprobs?: Uint8Array;
  k?: number;
  prompt_length?: number;
}
interface PSampleResponse {
  sequences?: PSampledSequence[];
  prompt_logprobs?: Uint8Array;
  topk_prompt_logprobs?: PTopk;
  prompt_cache_hit_tokens?: number;
}

function encodeMessage(typeName: string, obj: object): Uint8Array {
  const type = protoType(typeName);
  return type.encode(type.fromObject(obj as Record<string, unknown>)).finish();
}
function decodeMessage<T>(typeName: string, bytes: Uint8Array): T {
  return protoType(typeName).decode(bytes) as unknown as T;
}

// ---------- tensors ----------

function denseBytes(values: readonly number[], dtype: TensorData["dtype"]): Uint8Array {
  return dtype === "float32" ? float32Bytes(values) : int64Bytes(values);
}
function wireDtype(dtype: TensorData["dtype"]): number {
  return dtype === "float32" ? DTYPE.FLOAT32 : DTYPE.INT64;
}
/** Reads a raw array in a wire dtype; INT32 widens to int64 and BFLOAT16 to float32 (spec §3.5). */
function readTyped(bytes: Uint8Array, dtype: number): { values: number[]; dtype: TensorData["dtype"] } {
  switch (dtype) {
    case DTYPE.FLOAT32:
      return { values: readFloat32(bytes), dtype: "float32" };
    case DTYPE.INT64:
      return { values: readInt64(bytes), dtype: "int64" };
    case DTYPE.INT32:
      return { values: readInt32(bytes), dtype: "int64" };
    case DTYPE.BFLOAT16:
      return { values: readBfloat16(bytes), dtype: "float32" };
    default:
      throw new Error(`tensor has unknown or unspecified dtype ${dtype}`);
  }
}
function dtypeWidth(dtype: number): number {
  return dtype === DTYPE.INT64 ? 8 : dtype === DTYPE.BFLOAT16 ? 2 : 4;
}

function tensorToProto(t: TensorData): PTensor {
  const out: PTensor = { dtype: wireDtype(t.dtype) };
  if (t.sparse_crow_indices !== undefined || t.sparse_col_indices !== undefined) {
    if (!t.shape || !t.sparse_crow_indices || !t.sparse_col_indices) {
      throw new Error("a sparse tensor needs shape, sparse_crow_indices and sparse_col_indices");
    }
    out.sparse_csr = {
      values: denseBytes(t.data, t.dtype),
      crow_indices: int64Bytes(t.sparse_crow_indices),
      col_indices: int64Bytes(t.sparse_col_indices),
    };
  } else {
    out.dense = denseBytes(t.data, t.dtype);
  }
  out.shape = t.shape ?? [t.data.length];
  return out;
}

function tensorFromProto(p: PTensor): TensorData {
  const dtype = p.dtype ?? DTYPE.UNSPECIFIED;
  const shape = (p.shape ?? []).map(num);
  if (p.sparse_csr) {
    const { values, dtype: d } = readTyped(raw(p.sparse_csr.values), dtype);
    return {
      data: values,
      dtype: d,
      shape,
      sparse_crow_indices: readInt64(raw(p.sparse_csr.crow_indices)),
      sparse_col_indices: readInt64(raw(p.sparse_csr.col_indices)),
    };
  }
  const { values, dtype: d } = readTyped(raw(p.dense), dtype);
  return shape.length > 0 ? { data: values, dtype: d, shape } : { data: values, dtype: d };
}

// ---------- ForwardBackwardRequest ----------

function chunkToProto(c: ModelInputChunk): PChunk {
  if (c.type === "encoded_text") return { encoded_text: { tokens: int32Bytes(c.tokens) } };
  if (c.type === "image") {
    const image: NonNullable<PChunk["image"]> = { data: Buffer.from(c.data, "base64"), format: c.format };
    if (c.expected_tokens !== undefined) image.expected_tokens = c.expected_tokens;
    return { image };
  }
  throw new Error(`model input chunk type ${(c as { type: string }).type} cannot be sent as protobuf`);
}

function chunkFromProto(p: PChunk): ModelInputChunk {
  if (p.encoded_text) return { type: "encoded_text", tokens: readInt32(raw(p.encoded_text.tokens)) };
  if (p.image) {
    const format = p.image.format === "jpeg" ? "jpeg" : "png";
    const chunk: ModelInputChunk = {
      type: "image",
      data: Buffer.from(raw(p.image.data)).toString("base64"),
      format,
    };
    if (has(p.image, "expected_tokens")) chunk.expected_tokens = p.image.expected_tokens;
    return chunk;
  }
  throw new Error("model input chunk of an unsupported kind (dmel or empty)");
}

function datumToProto(d: Datum): PDatum {
  const inputs: Record<string, PTensor> = {};
  for (const [name, t] of Object.entries(d.loss_fn_inputs)) inputs[name] = tensorToProto(t);
  return { model_input: d.model_input.chunks.map(chunkToProto), loss_fn_inputs: inputs };
}

export function encodeForwardBackwardRequest(req: ForwardBackwardRequest): Uint8Array {
  const p: PForwardBackwardRequest = { data: req.data.map(datumToProto) };
  if (req.model_id) p.model_id = req.model_id;
  if (req.seq_id) p.seq_id = req.seq_id;
  if (req.loss_fn) p.loss_fn = req.loss_fn;
  if (req.loss_fn_config && Object.keys(req.loss_fn_config).length > 0) p.loss_fn_config = req.loss_fn_config;
  if (req.forward_only) p.forward_only = true;
  return encodeMessage("ForwardBackwardRequest", p);
}

export function decodeForwardBackwardRequest(bytes: Uint8Array): ForwardBackwardRequest {
  const p = decodeMessage<PForwardBackwardRequest>("ForwardBackwardRequest", bytes);
  const data: Datum[] = (p.data ?? []).map((d) => {
    const inputs: Record<string, TensorData> = {};
    for (const [name, t] of Object.entries(d.loss_fn_inputs ?? {})) inputs[name] = tensorFromProto(t);
    return { model_input: { chunks: (d.model_input ?? []).map(chunkFromProto) }, loss_fn_inputs: inputs };
  });
  const req: ForwardBackwardRequest = {
    model_id: p.model_id ?? "",
    seq_id: p.seq_id ?? 0,
    data,
    loss_fn: (p.loss_fn ?? "") as LossFn,
    forward_only: p.forward_only ?? false,
  };
  const config = p.loss_fn_config ?? {};
  if (Object.keys(config).length > 0) req.loss_fn_config = { ...config };
  return req;
}

// ---------- ForwardBackwardOutput ----------

/** Consecutive datums whose fields agree on names, dtypes and trailing shapes share one ArrayRecord. */
function recordSignature(out: Record<string, TensorData>): string {
  return Object.keys(out)
    .sort()
    .map((k) => `${k}:${out[k].dtype}:${(out[k].shape ?? []).slice(1).join("x")}`)
    .join("|");
}

function buildArrayRecord(typeTag: string, outputs: Array<Record<string, TensorData>>): PArrayRecord {
  const fields: Record<string, PBatchedTensor> = {};
  for (const name of Object.keys(outputs[0] ?? {})) {
    const first = outputs[0][name];
    const parts = outputs.map((o) => denseBytes(o[name].data, first.dtype));
    const offsets = [0];
    for (const part of parts) offsets.push(offsets[offsets.length - 1] + part.byteLength);
    fields[name] = {
      data: Buffer.concat(parts),
      offsets: int64Bytes(offsets),
      dtype: wireDtype(first.dtype),
      trailing_shape: (first.shape ?? []).slice(1),
    };
  }
  return { type_tag: typeTag, fields, num_datums: outputs.length };
}

export function encodeForwardBackwardOutput(out: ForwardBackwardOutput): Uint8Array {
  const records: PArrayRecord[] = [];
  let run: Array<Record<string, TensorData>> = [];
  const typeTag = out.loss_fn_output_type || "ArrayRecord";
  for (const o of out.loss_fn_outputs) {
    if (run.length > 0 && recordSignature(run[0]) !== recordSignature(o)) {
      records.push(buildArrayRecord(typeTag, run));
      run = [];
    }
    run.push(o);
  }
  if (run.length > 0) records.push(buildArrayRecord(typeTag, run));
  const p: PForwardBackwardOutput = { loss_fn_outputs: records, metrics: out.metrics };
  if (out.loss_fn_output_type) p.loss_fn_output_type = out.loss_fn_output_type;
  return encodeMessage("ForwardBackwardOutput", p);
}

function splitBatched(name: string, b: PBatchedTensor, numDatums: number): TensorData[] {
  const dtype = b.dtype ?? DTYPE.UNSPECIFIED;
  const data = raw(b.data);
  const offsets = readInt64(raw(b.offsets));
  if (offsets.length !== numDatums + 1) {
    throw new Error(`output field ${name}: ${offsets.length} offsets for ${numDatums} datums`);
  }
  const trailing = (b.trailing_shape ?? []).map(num);
  const perRow = trailing.reduce((a, x) => a * x, 1);
  const width = dtypeWidth(dtype);
  const result: TensorData[] = [];
  for (let i = 0; i < numDatums; i++) {
    const { values, dtype: d } = readTyped(data.subarray(offsets[i], offsets[i + 1]), dtype);
    if (values.length * width !== offsets[i + 1] - offsets[i]) throw new Error(`output field ${name}: bad offsets`);
    const rows = perRow > 0 ? values.length / perRow : 0;
    result.push({ data: values, dtype: d, shape: [rows, ...trailing] });
  }
  return result;
}

export function decodeForwardBackwardOutput(bytes: Uint8Array): ForwardBackwardOutput {
  const p = decodeMessage<PForwardBackwardOutput>("ForwardBackwardOutput", bytes);
  const outputs: Array<Record<string, TensorData>> = [];
  for (const record of p.loss_fn_outputs ?? []) {
    const n = num(record.num_datums);
    const batch: Array<Record<string, TensorData>> = Array.from({ length: n }, () => ({}));
    for (const [name, b] of Object.entries(record.fields ?? {})) {
      splitBatched(name, b, n).forEach((t, i) => (batch[i][name] = t));
    }
    outputs.push(...batch);
  }
  return {
    loss_fn_output_type: p.loss_fn_output_type ?? "",
    loss_fn_outputs: outputs,
    metrics: { ...(p.metrics ?? {}) },
  };
}

// ---------- SampleResponse ----------

const EMPTY_TOPK_LOGPROB = -99999.0;

export function encodeSampleResponse(res: SampleResponse): Uint8Array {
  const p: PSampleResponse = {
    sequences: res.sequences.map((s) => {
      const seq: PSampledSequence = { tokens: int32Bytes(s.tokens) };
      if (s.stop_reason === "length") seq.stop_reason = STOP_REASON.LENGTH;
      if (s.logprobs) seq.logprobs = float32Bytes(s.logprobs);
      return seq;
    }),
  };
  if (res.prompt_logprobs) p.prompt_logprobs = float32Bytes(res.prompt_logprobs.map((x) => (x === null ? NaN : x)));
  if (res.topk_prompt_logprobs) {
    const rows = res.topk_prompt_logprobs;
    const k = Math.max(0, ...rows.map((r) => (r ? r.length : 0)));
    const ids: number[] = [];
    const lps: number[] = [];
    for (const row of rows) {
      for (let j = 0; j < k; j++) {
        const cell = row?.[j];
        ids.push(cell ? cell[0] : 0);
        lps.push(cell ? cell[1] : EMPTY_TOPK_LOGPROB);
      }
    }
    p.topk_prompt_logprobs = {
      token_ids: int32Bytes(ids),
      logprobs: float32Bytes(lps),
      k,
      prompt_length: rows.length,
    };
  }
  if (res.prompt_cache_hit_tokens) p.prompt_cache_hit_tokens = res.prompt_cache_hit_tokens;
  return encodeMessage("SampleResponse", p);
}

function isEmptyCell(id: number, lp: number): boolean {
  return id === 0 && lp === EMPTY_TOPK_LOGPROB;
}

export function decodeSampleResponse(bytes: Uint8Array): SampleResponse {
  const p = decodeMessage<PSampleResponse>("SampleResponse", bytes);
  const sequences: SampledSequence[] = (p.sequences ?? []).map((s) => {
    const tokens = readInt32(raw(s.tokens));
    const logprobs = has(s, "logprobs") ? readFloat32(raw(s.logprobs)) : null;
    if (logprobs && logprobs.length !== tokens.length) {
      throw new Error(`sampled sequence has ${tokens.length} tokens but ${logprobs.length} logprobs`);
    }
    return { tokens, logprobs, stop_reason: s.stop_reason === STOP_REASON.LENGTH ? "length" : "stop" };
  });
  const promptLogprobs = has(p, "prompt_logprobs")
    ? readFloat32(raw(p.prompt_logprobs)).map((x) => (Number.isNaN(x) ? null : x))
    : null;
  let topk: SampleResponse["topk_prompt_logprobs"] = null;
  if (has(p, "topk_prompt_logprobs") && p.topk_prompt_logprobs) {
    const t = p.topk_prompt_logprobs;
    const ids = readInt32(raw(t.token_ids));
    const lps = readFloat32(raw(t.logprobs));
    const k = t.k ?? 0;
    const n = t.prompt_length ?? 0;
    topk = [];
    for (let i = 0; i < n; i++) {
      const row: Array<[number, number]> = [];
      for (let j = 0; j < k; j++) {
        const at = i * k + j;
        if (at >= ids.length || isEmptyCell(ids[at], lps[at])) break;
        row.push([ids[at], lps[at]]);
      }
      topk.push(row.length > 0 ? row : null);
    }
  }
  return {
    sequences,
    prompt_logprobs: promptLogprobs,
    topk_prompt_logprobs: topk,
    prompt_cache_hit_tokens: p.prompt_cache_hit_tokens ?? 0,
  };
}
