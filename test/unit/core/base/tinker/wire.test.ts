import assert from "node:assert/strict";
import {
  bytesToHex,
  decodeForwardBackwardOutput,
  decodeForwardBackwardRequest,
  decodeSampleResponse,
  encodeForwardBackwardOutput,
  encodeForwardBackwardRequest,
  encodeSampleResponse,
  float32Bytes,
  hexToBytes,
  int64Bytes,
  modelInputFromTokens,
  readBfloat16,
  readFloat32,
  readInt64,
  rlDatum,
  rlDatumFromEpisode,
  sftDatum,
  sftDatumFromEpisode,
  type Datum,
} from "../../../../../src/core/base/tinker/wire";

// Byte examples from spec §3.4 / §3.5 (produced by the real Python SDK).
const FWD_BWD_REQUEST_HEX =
  "0a016d10011a640a100a0e0a0c010000000200000003000000121e0a077765696768747312130a0c000000000000803f0000803f180122010312300a0d7461726765745f746f6b656e73121f0a180200000000000000030000000000000004000000000000001802220103220d63726f73735f656e74726f7079";
const FWD_BWD_OUTPUT_HEX =
  "0a0b41727261795265636f7264123f0a0b41727261795265636f7264122e0a086c6f6770726f627312220a0c000000bf000080bf000000c0121000000000000000000c00000000000000180118011a130a086c6f73733a73756d110000000000000840";
const SAMPLE_RESPONSE_HEX = "0a1c120c0500000006000000070000001a0ccdccccbdcdcc4cbe9a9999be";

function close(actual: readonly number[], expected: readonly number[]): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 1e-6, `index ${i}: ${v} vs ${expected[i]}`));
}

describe("tinker wire: protobuf codec", () => {
  it("encodes a ForwardBackwardRequest byte-for-byte like the Python SDK (spec §3.4)", () => {
    const datum: Datum = {
      model_input: modelInputFromTokens([1, 2, 3]),
      // Insertion order matches the SDK example: weights first.
      loss_fn_inputs: {
        weights: { data: [0, 1, 1], dtype: "float32" },
        target_tokens: { data: [2, 3, 4], dtype: "int64" },
      },
    };
    const bytes = encodeForwardBackwardRequest({ model_id: "m", seq_id: 1, data: [datum], loss_fn: "cross_entropy" });
    assert.equal(bytesToHex(bytes), FWD_BWD_REQUEST_HEX);
  });

  it("decodes the spec's ForwardBackwardRequest bytes", () => {
    const req = decodeForwardBackwardRequest(hexToBytes(FWD_BWD_REQUEST_HEX));
    assert.equal(req.model_id, "m");
    assert.equal(req.seq_id, 1);
    assert.equal(req.loss_fn, "cross_entropy");
    assert.equal(req.forward_only, false);
    assert.deepEqual(req.data[0].model_input, { chunks: [{ type: "encoded_text", tokens: [1, 2, 3] }] });
    assert.deepEqual(req.data[0].loss_fn_inputs.target_tokens, { data: [2, 3, 4], dtype: "int64", shape: [3] });
    assert.deepEqual(req.data[0].loss_fn_inputs.weights, { data: [0, 1, 1], dtype: "float32", shape: [3] });
  });

  it("round-trips loss config, forward_only and sparse tensors", () => {
    const datum = rlDatum([5, 6, 7, 8], [0, -0.5, -0.25, -1], [0, 1, 1, 1]);
    datum.loss_fn_inputs.extra = {
      data: [0.5, 2],
      dtype: "float32",
      shape: [2, 3],
      sparse_crow_indices: [0, 1, 2],
      sparse_col_indices: [2, 0],
    };
    const req = decodeForwardBackwardRequest(
      encodeForwardBackwardRequest({
        model_id: "s:train:0",
        seq_id: 7,
        data: [datum, datum],
        loss_fn: "ppo",
        loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 1.2 },
        forward_only: true,
      }),
    );
    assert.equal(req.seq_id, 7);
    assert.equal(req.forward_only, true);
    assert.deepEqual(req.loss_fn_config, { clip_low_threshold: 0.8, clip_high_threshold: 1.2 });
    assert.equal(req.data.length, 2);
    close(req.data[1].loss_fn_inputs.logprobs.data, [-0.5, -0.25, -1]);
    assert.deepEqual(req.data[1].loss_fn_inputs.extra.sparse_crow_indices, [0, 1, 2]);
    assert.deepEqual(req.data[1].loss_fn_inputs.extra.sparse_col_indices, [2, 0]);
    assert.deepEqual(req.data[1].loss_fn_inputs.extra.shape, [2, 3]);
  });

  it("decodes the spec's ForwardBackwardOutput bytes", () => {
    const out = decodeForwardBackwardOutput(hexToBytes(FWD_BWD_OUTPUT_HEX));
    assert.equal(out.loss_fn_output_type, "ArrayRecord");
    assert.deepEqual(out.metrics, { "loss:sum": 3 });
    assert.equal(out.loss_fn_outputs.length, 1);
    assert.deepEqual(out.loss_fn_outputs[0].logprobs, { data: [-0.5, -1, -2], dtype: "float32", shape: [3] });
  });

  it("encodes a ForwardBackwardOutput identical to the spec example and splits ragged datums", () => {
    const one = encodeForwardBackwardOutput({
      loss_fn_output_type: "ArrayRecord",
      loss_fn_outputs: [{ logprobs: { data: [-0.5, -1, -2], dtype: "float32", shape: [3] } }],
      metrics: { "loss:sum": 3 },
    });
    assert.equal(bytesToHex(one), FWD_BWD_OUTPUT_HEX);
    const ragged = decodeForwardBackwardOutput(
      encodeForwardBackwardOutput({
        loss_fn_output_type: "ArrayRecord",
        loss_fn_outputs: [
          { logprobs: { data: [-1, -2], dtype: "float32", shape: [2] } },
          { logprobs: { data: [-3, -4, -5, -6], dtype: "float32", shape: [4] } },
          { logprobs: { data: [-1, -2, -3, -4], dtype: "float32", shape: [2, 2] } },
        ],
        metrics: { "loss:sum": 21 },
      }),
    );
    assert.deepEqual(
      ragged.loss_fn_outputs.map((o) => o.logprobs.shape),
      [[2], [4], [2, 2]],
    );
    assert.deepEqual(ragged.loss_fn_outputs[1].logprobs.data, [-3, -4, -5, -6]);
  });

  it("decodes the spec's SampleResponse bytes (stop reason absent = stop)", () => {
    const res = decodeSampleResponse(hexToBytes(SAMPLE_RESPONSE_HEX));
    assert.equal(res.sequences.length, 1);
    assert.deepEqual(res.sequences[0].tokens, [5, 6, 7]);
    close(res.sequences[0].logprobs ?? [], [-0.1, -0.2, -0.3]);
    assert.equal(res.sequences[0].stop_reason, "stop");
    assert.equal(res.prompt_logprobs, null);
    assert.equal(res.topk_prompt_logprobs, null);
    assert.equal(res.prompt_cache_hit_tokens, 0);
    const again = encodeSampleResponse({
      sequences: [{ tokens: [5, 6, 7], logprobs: [-0.1, -0.2, -0.3], stop_reason: "stop" }],
      prompt_logprobs: null,
      topk_prompt_logprobs: null,
      prompt_cache_hit_tokens: 0,
    });
    assert.equal(bytesToHex(again), SAMPLE_RESPONSE_HEX);
  });

  it("round-trips prompt logprobs (NaN = null), top-k rows and missing sequence logprobs", () => {
    const res = decodeSampleResponse(
      encodeSampleResponse({
        sequences: [
          { tokens: [9], logprobs: null, stop_reason: "length" },
          { tokens: [], logprobs: [], stop_reason: "stop" },
        ],
        prompt_logprobs: [null, -1.5, -0.25],
        topk_prompt_logprobs: [
          null,
          [
            [4, -0.5],
            [8, -1],
          ],
          [[2, -0.125]],
        ],
        prompt_cache_hit_tokens: 12,
      }),
    );
    assert.deepEqual(res.sequences[0], { tokens: [9], logprobs: null, stop_reason: "length" });
    assert.deepEqual(res.sequences[1], { tokens: [], logprobs: [], stop_reason: "stop" });
    assert.deepEqual(res.prompt_logprobs, [null, -1.5, -0.25]);
    assert.deepEqual(res.topk_prompt_logprobs, [
      null,
      [
        [4, -0.5],
        [8, -1],
      ],
      [[2, -0.125]],
    ]);
    assert.equal(res.prompt_cache_hit_tokens, 12);
  });
});

describe("tinker wire: byte helpers and builders", () => {
  it("reads little-endian arrays including int64 and bfloat16", () => {
    assert.equal(bytesToHex(float32Bytes([1])), "0000803f");
    assert.deepEqual(readInt64(int64Bytes([0, 12, 2 ** 40])), [0, 12, 2 ** 40]);
    // bfloat16 0x3f80 = 1.0, 0xc000 = -2.0 (little-endian bytes)
    assert.deepEqual(readBfloat16(hexToBytes("803f00c0")), [1, -2]);
    assert.throws(() => readFloat32(new Uint8Array(3)), /not a multiple of 4/);
  });

  it("modelInputFromTokens drops empty chunks", () => {
    assert.deepEqual(modelInputFromTokens([]), { chunks: [] });
  });

  it("sftDatum shifts tokens and weights by one", () => {
    const d = sftDatum([10, 11, 12, 13], [0, 0, 1, 1]);
    assert.deepEqual(d.model_input, { chunks: [{ type: "encoded_text", tokens: [10, 11, 12] }] });
    assert.deepEqual(d.loss_fn_inputs.target_tokens.data, [11, 12, 13]);
    assert.equal(d.loss_fn_inputs.target_tokens.dtype, "int64");
    assert.deepEqual(d.loss_fn_inputs.weights.data, [0, 1, 1]);
    assert.throws(() => sftDatum([1, 2, 3], [1, 1]), /weights has 2 values for 3 tokens/);
  });

  it("episode datums match the recipe's datums.py (prompt weight 0, tool tokens masked)", () => {
    const ep = { prompt: [1, 2, 3], tokens: [4, 5, 6], sampled: [1, 0, 1], logprobs: [-0.5, 0, -0.25] };
    const sft = sftDatumFromEpisode(ep);
    assert.deepEqual(sft.model_input.chunks[0], { type: "encoded_text", tokens: [1, 2, 3, 4, 5] });
    assert.deepEqual(sft.loss_fn_inputs.weights.data, [0, 0, 1, 0, 1]);
    const rl = rlDatumFromEpisode(ep, 0.5);
    assert.deepEqual(rl.loss_fn_inputs.target_tokens.data, [2, 3, 4, 5, 6]);
    assert.deepEqual(rl.loss_fn_inputs.logprobs.data, [0, 0, -0.5, 0, -0.25]);
    assert.deepEqual(rl.loss_fn_inputs.advantages.data, [0, 0, 0.5, 0, 0.5]);
    assert.throws(() => rlDatumFromEpisode({ ...ep, logprobs: undefined }, 1), /RL needs them/);
  });
});
