/**
 * The local backend's request checks outside TensorData (validate.ts; the tensor is validate-tensor.test.ts):
 * each body's fields, defaults and limits, every refusal a 400 whose message names the field, and the
 * edges of each limit (at it accepted, one past it refused). Mutation-testing gaps, issue 31.
 */
import { strict as assert } from "node:assert";
import { HttpError } from "../../../src/server/http-error";
import { VOCAB_SIZE } from "../../../src/server/model/tiny-model";
import {
  CONTEXT_LENGTH,
  LIMITS,
  createModelBody,
  createSamplingSessionBody,
  forwardBackwardBody,
  loadWeightsBody,
  modelId,
  object,
  optimStepBody,
  requestId,
  sampleBody,
  saveWeightsBody,
  sessionId,
  tinkerPathField,
  ttlSeconds,
} from "../../../src/server/validate";

function refused(run: () => unknown, message: string): void {
  assert.throws(run, (e: Error) => {
    assert.ok(e instanceof HttpError, `an HttpError, got ${String(e)}`);
    assert.equal(e.status, 400);
    assert.equal(e.message, message);
    return true;
  });
}

const tokens = (n: number, first = 1) => Array.from({ length: n }, (_, i) => first + i);
const input = (...chunks: number[][]) => ({ chunks: chunks.map((t) => ({ type: "encoded_text", tokens: t })) });

/** A cross_entropy datum of `n` tokens (targets and weights dense, one per token). */
const datum = (n: number, over: Record<string, unknown> = {}) => ({
  model_input: input(tokens(n)),
  loss_fn_inputs: {
    target_tokens: { data: tokens(n), dtype: "int64" },
    weights: { data: new Array<number>(n).fill(1), dtype: "float32" },
  },
  ...over,
});
const fb = (over: Record<string, unknown> = {}) => ({
  model_id: "m",
  loss_fn: "cross_entropy",
  data: [datum(2)],
  ...over,
});

describe("server/validate: objects, strings and numbers", () => {
  it("object() takes a plain object and refuses null, an array and a scalar, showing what came", () => {
    assert.deepEqual(object({ a: 1 }, "x"), { a: 1 });
    refused(() => object(null, "body"), "body must be a JSON object, got null");
    refused(() => object([1], "body"), "body must be a JSON object, got [1]");
    refused(() => object("s", "body"), 'body must be a JSON object, got "s"');
    refused(() => object(undefined, "body"), "body must be a JSON object, got undefined");
  });

  it("shows at most 40 characters of a wrong value, then an ellipsis", () => {
    const long = "x".repeat(60);
    refused(() => object(long, "b"), `b must be a JSON object, got ${JSON.stringify(long).slice(0, 40)}…`);
    const exactly40 = "y".repeat(38); // 38 characters and two quotes: shown whole
    refused(() => object(exactly40, "b"), `b must be a JSON object, got ${JSON.stringify(exactly40)}`);
  });

  it("a required id is a non-empty string of at most idChars characters", () => {
    assert.equal(sessionId({ session_id: "s".repeat(LIMITS.idChars) }, "w"), "s".repeat(LIMITS.idChars));
    assert.equal(modelId({ model_id: "m" }, "w"), "m");
    refused(() => sessionId({}, "w"), "w.session_id is required (a string), got undefined");
    refused(() => sessionId({ session_id: "" }, "w"), 'w.session_id is required (a string), got ""');
    refused(() => modelId({ model_id: 7 }, "w"), "w.model_id is required (a string), got 7");
    refused(
      () => modelId({ model_id: "m".repeat(LIMITS.idChars + 1) }, "w"),
      `w.model_id is ${LIMITS.idChars + 1} characters long; the local backend accepts at most ${LIMITS.idChars}`,
    );
    assert.equal(requestId({ request_id: "r" }), "r");
    refused(() => requestId({}), "retrieve_future.request_id is required (a string), got undefined");
  });

  it("a tinker path may be up to pathChars characters", () => {
    const at = "p".repeat(LIMITS.pathChars);
    assert.equal(tinkerPathField({ path: at }, "path", "w"), at);
    refused(
      () => tinkerPathField({ path: at + "p" }, "path", "w"),
      `w.path is ${LIMITS.pathChars + 1} characters long; the local backend accepts at most ${LIMITS.pathChars}`,
    );
  });

  it("ttl_seconds is a whole number above 0, or absent/null for no expiry", () => {
    assert.equal(ttlSeconds({}), null);
    assert.equal(ttlSeconds({ ttl_seconds: null }), null);
    assert.equal(ttlSeconds({ ttl_seconds: 1 }), 1);
    for (const [v, shown] of [
      [0, "0"],
      [-5, "-5"],
      [1.5, "1.5"],
      ["60", '"60"'],
    ] as const)
      refused(
        () => ttlSeconds({ ttl_seconds: v }),
        `ttl_seconds must be a whole number of seconds above 0, or null to remove the expiry; got ${shown}`,
      );
  });
});

describe("server/validate: create_model and its LoRA config", () => {
  const create = (over: Record<string, unknown> = {}) =>
    createModelBody({ session_id: "s", model_seq_id: 0, base_model: "Qwen/Qwen3-8B", ...over });

  it("defaults: rank 32, every part trained, no seed, no metadata", () => {
    assert.deepEqual(create(), {
      session_id: "s",
      model_seq_id: 0,
      base_model: "Qwen/Qwen3-8B",
      lora_config: { rank: 32, train_unembed: true, train_mlp: true, train_attn: true },
      user_metadata: undefined,
    });
    assert.deepEqual(create({ lora_config: null }).lora_config, create().lora_config);
  });

  it("takes rank 1 … 1024, each part's flag, and a seed of 0 or more", () => {
    const l = create({
      lora_config: { rank: 1024, train_unembed: false, train_mlp: true, train_attn: false, seed: 0 },
    }).lora_config;
    assert.deepEqual(l, { rank: 1024, train_unembed: false, train_mlp: true, train_attn: false, seed: 0 });
    assert.equal(create({ lora_config: { rank: 1, train_mlp: false } }).lora_config.train_mlp, false);
    assert.equal(create({ lora_config: { train_attn: false, train_mlp: false } }).lora_config.train_unembed, true);
  });

  it("refuses a rank outside 1 … 1024, a non-integer, a flag that is not a boolean, and training nothing", () => {
    const w = "create_model.lora_config";
    refused(() => create({ lora_config: { rank: 0 } }), `${w}.rank must be between 1 and 1024, got 0`);
    refused(() => create({ lora_config: { rank: 1025 } }), `${w}.rank must be between 1 and 1024, got 1025`);
    refused(() => create({ lora_config: { rank: 8.5 } }), `${w}.rank must be an integer, got 8.5`);
    refused(() => create({ lora_config: { rank: "8" } }), `${w}.rank must be an integer, got "8"`);
    refused(() => create({ lora_config: { train_mlp: "yes" } }), `${w}.train_mlp must be true or false, got "yes"`);
    refused(
      () => create({ lora_config: { train_unembed: false, train_mlp: false, train_attn: false } }),
      `${w} must train at least one of unembed, mlp, attn`,
    );
    refused(
      () => create({ lora_config: { seed: -1 } }),
      `${w}.seed must be between 0 and ${Number.MAX_SAFE_INTEGER}, got -1`,
    );
    refused(() => create({ lora_config: [] }), `${w} must be a JSON object, got []`);
  });

  it("model_seq_id is 0 … 2^31 − 1", () => {
    assert.equal(create({ model_seq_id: 2 ** 31 - 1 }).model_seq_id, 2 ** 31 - 1);
    refused(
      () => create({ model_seq_id: -1 }),
      `create_model.model_seq_id must be between 0 and ${2 ** 31 - 1}, got -1`,
    );
    refused(
      () => create({ model_seq_id: 2 ** 31 }),
      `create_model.model_seq_id must be between 0 and ${2 ** 31 - 1}, got ${2 ** 31}`,
    );
    refused(() => create({ model_seq_id: undefined }), "create_model.model_seq_id must be an integer, got undefined");
    refused(() => create({ base_model: undefined }), "create_model.base_model is required (a string), got undefined");
  });

  it("user_metadata: strings kept, other values as JSON; at most 64 entries of at most 4096 characters each", () => {
    assert.deepEqual(create({ user_metadata: { a: "x", n: 3, o: { b: true } } }).user_metadata, {
      a: "x",
      n: "3",
      o: '{"b":true}',
    });
    const full = Object.fromEntries(tokens(LIMITS.metadataEntries).map((i) => [`k${i}`, "v"]));
    assert.equal(Object.keys(create({ user_metadata: full }).user_metadata!).length, LIMITS.metadataEntries);
    refused(
      () => create({ user_metadata: { ...full, one_more: "v" } }),
      `create_model.user_metadata has ${LIMITS.metadataEntries + 1} entries; at most ${LIMITS.metadataEntries}`,
    );
    // The key and the value count together.
    const fits = { k: "v".repeat(LIMITS.metadataChars - 1) };
    assert.equal(create({ user_metadata: fits }).user_metadata!.k.length, LIMITS.metadataChars - 1);
    const key = "k".repeat(50);
    refused(
      () => create({ user_metadata: { [key]: "v".repeat(LIMITS.metadataChars - 49) } }),
      `create_model.user_metadata.${"k".repeat(40)} is longer than ${LIMITS.metadataChars} characters`,
    );
    assert.equal(create({ user_metadata: null }).user_metadata, undefined);
    refused(() => create({ user_metadata: "a=b" }), 'create_model.user_metadata must be a JSON object, got "a=b"');
  });
});

describe("server/validate: forward_backward outside the tensors", () => {
  it("reads the call: model, loss, config, seq_id, forward_only, and each datum's input across chunks", () => {
    const b = forwardBackwardBody(
      fb({
        loss_fn_config: { clip_low: 0.8, clip_high: -1.5 },
        seq_id: 7,
        forward_only: true,
        data: [
          {
            ...datum(3),
            model_input: { chunks: [{ tokens: [5] }, { type: "encoded_text", tokens: [6, 7] }] },
          },
        ],
      }),
    );
    assert.equal(b.model_id, "m");
    assert.equal(b.loss_fn, "cross_entropy");
    assert.deepEqual(b.loss_fn_config, { clip_low: 0.8, clip_high: -1.5 });
    assert.equal(b.seq_id, 7);
    assert.equal(b.forward_only, true);
    assert.deepEqual(b.datums[0].input, [5, 6, 7]);
    assert.deepEqual(b.datums[0].targets, [1, 2, 3]);
    assert.deepEqual(b.datums[0].lossInputs, { weights: [1, 1, 1] });
    assert.equal(b.datums[0].k, 1);
    const plain = forwardBackwardBody(fb({ loss_fn_config: null, forward_only: null }));
    assert.deepEqual([plain.loss_fn_config, plain.seq_id, plain.forward_only], [{}, undefined, false]);
  });

  it("a seq_id of 0, null or none is 'next'; otherwise 1 … 2^31 − 1", () => {
    assert.equal(forwardBackwardBody(fb({ seq_id: 0 })).seq_id, undefined);
    assert.equal(forwardBackwardBody(fb({ seq_id: null })).seq_id, undefined);
    assert.equal(forwardBackwardBody(fb({ seq_id: 1 })).seq_id, 1);
    assert.equal(forwardBackwardBody(fb({ seq_id: 2 ** 31 - 1 })).seq_id, 2 ** 31 - 1);
    refused(
      () => forwardBackwardBody(fb({ seq_id: -1 })),
      `forward_backward.seq_id must be between 1 and ${2 ** 31 - 1}, got -1`,
    );
    refused(
      () => forwardBackwardBody(fb({ seq_id: 2 ** 31 })),
      `forward_backward.seq_id must be between 1 and ${2 ** 31 - 1}, got ${2 ** 31}`,
    );
  });

  it("refuses an unknown loss, a non-finite config value, and no data or too much", () => {
    refused(
      () => forwardBackwardBody(fb({ loss_fn: "mse" })),
      'forward_backward.loss_fn must be one of cross_entropy, importance_sampling, ppo, cispo, dro, got "mse"',
    );
    refused(
      () => forwardBackwardBody(fb({ loss_fn: 3 })),
      "forward_backward.loss_fn must be one of cross_entropy, importance_sampling, ppo, cispo, dro, got 3",
    );
    refused(
      () => forwardBackwardBody(fb({ loss_fn_config: { clip: "1" } })),
      'forward_backward.loss_fn_config.clip must be a finite number, got "1"',
    );
    refused(
      () => forwardBackwardBody(fb({ loss_fn_config: { clip: Number.POSITIVE_INFINITY } })),
      "forward_backward.loss_fn_config.clip must be a finite number, got null",
    );
    refused(
      () => forwardBackwardBody(fb({ data: [] })),
      "forward_backward.data is required (a non-empty array of datums), got []",
    );
    refused(
      () => forwardBackwardBody(fb({ data: undefined })),
      "forward_backward.data is required (a non-empty array of datums), got undefined",
    );
    refused(
      () => forwardBackwardBody(fb({ model_id: "" })),
      'forward_backward.model_id is required (a string), got ""',
    );
    const many = new Array(LIMITS.datums + 1).fill(datum(1));
    refused(
      () => forwardBackwardBody(fb({ data: many })),
      `forward_backward.data has ${LIMITS.datums + 1} datums; the local backend takes at most ${LIMITS.datums} per call`,
    );
    assert.equal(forwardBackwardBody(fb({ data: many.slice(1) })).datums.length, LIMITS.datums);
  });

  it("each datum: input of 1 … context tokens within the vocabulary, in text chunks", () => {
    const d0 = "forward_backward.data[0]";
    refused(() => forwardBackwardBody(fb({ data: [datum(0)] })), `${d0}.model_input is empty`);
    refused(
      () => forwardBackwardBody(fb({ data: [datum(2, { model_input: input([1, VOCAB_SIZE]) })] })),
      `${d0}.model_input.chunks[0].tokens: token id ${VOCAB_SIZE} is outside the local model's vocabulary (0 ≤ id < ${VOCAB_SIZE})`,
    );
    for (const [t, shown] of [
      [-1, "-1"],
      [1.5, "1.5"],
      ["3", '"3"'],
    ] as const)
      refused(
        () => forwardBackwardBody(fb({ data: [datum(2, { model_input: input([1, t as number]) })] })),
        `${d0}.model_input.chunks[0].tokens: token id ${shown} is outside the local model's vocabulary (0 ≤ id < ${VOCAB_SIZE})`,
      );
    assert.deepEqual(
      forwardBackwardBody(fb({ data: [datum(2, { model_input: input([0, VOCAB_SIZE - 1]) })] })).datums[0].input,
      [0, VOCAB_SIZE - 1],
    );
    refused(
      () =>
        forwardBackwardBody(fb({ data: [datum(1, { model_input: { chunks: [{ type: "image", tokens: [1] }] } })] })),
      `${d0}.model_input.chunks[0]: the local backend reads text only, got a "image" chunk`,
    );
    refused(
      () => forwardBackwardBody(fb({ data: [datum(1, { model_input: { chunks: "1" } })] })),
      `${d0}.model_input.chunks must be an array, got "1"`,
    );
    refused(
      () => forwardBackwardBody(fb({ data: [datum(1, { model_input: { chunks: [{ tokens: 1 }] } })] })),
      `${d0}.model_input.chunks[0].tokens must be an array of token ids, got 1`,
    );
    refused(
      () => forwardBackwardBody(fb({ data: [datum(1, { model_input: { chunks: [7] } })] })),
      `${d0}.model_input.chunks[0] must be a JSON object, got 7`,
    );
    refused(() => forwardBackwardBody(fb({ data: [5] })), `${d0} must be a JSON object, got 5`);
  });

  it("a datum's input fits the context over all its chunks together", () => {
    const d = (chunks: number[][]) => ({ ...datum(chunks.flat().length), model_input: input(...chunks) });
    const half = tokens(CONTEXT_LENGTH / 2);
    assert.equal(forwardBackwardBody(fb({ data: [d([half, half])] })).datums[0].input.length, CONTEXT_LENGTH);
    refused(
      () => forwardBackwardBody(fb({ data: [d([half, [...half, 1]])] })),
      `forward_backward.data[0].model_input.chunks[1].tokens has ${CONTEXT_LENGTH / 2 + 1} tokens; the local model's context is ${CONTEXT_LENGTH / 2}`,
    );
  });

  it("the datums of one call hold at most batchTokens positions together", () => {
    const perDatum = CONTEXT_LENGTH;
    const fit = LIMITS.batchTokens / perDatum;
    const full = new Array(fit).fill(datum(perDatum));
    assert.equal(forwardBackwardBody(fb({ data: full })).datums.length, fit);
    refused(
      () => forwardBackwardBody(fb({ data: [...full, datum(1)] })),
      `forward_backward.data[${fit}].model_input.chunks[0].tokens has 1 tokens; the local model's context is 0`,
    );
    // What is left of the budget limits the next datum, not the context alone.
    const most = new Array(fit - 1).fill(datum(perDatum));
    refused(
      () => forwardBackwardBody(fb({ data: [...most, datum(perDatum - 1), datum(2)] })),
      `forward_backward.data[${fit}].model_input.chunks[0].tokens has 2 tokens; the local model's context is 1`,
    );
  });

  it("a bad loss input or config is named by its own field", () => {
    refused(
      () =>
        forwardBackwardBody(
          fb({ data: [datum(2, { loss_fn_inputs: { target_tokens: { data: [1, 2] }, weights: { data: "1" } } })] }),
        ),
      "forward_backward.data[0].loss_fn_inputs.weights.data must be an array of numbers",
    );
    refused(
      () => forwardBackwardBody(fb({ loss_fn_config: [1] })),
      "forward_backward.loss_fn_config must be a JSON object, got [1]",
    );
  });

  it("target_tokens: required, ids within the vocabulary", () => {
    const d0 = "forward_backward.data[0]";
    refused(
      () => forwardBackwardBody(fb({ data: [datum(2, { loss_fn_inputs: { weights: { data: [1, 1] } } })] })),
      `${d0}.loss_fn_inputs.target_tokens is required`,
    );
    refused(
      () => forwardBackwardBody(fb({ data: [datum(2, { loss_fn_inputs: 3 })] })),
      `${d0}.loss_fn_inputs must be a JSON object, got 3`,
    );
    for (const t of [-1, 0.5, VOCAB_SIZE])
      refused(
        () =>
          forwardBackwardBody(
            fb({
              data: [datum(2, { loss_fn_inputs: { target_tokens: { data: [1, t] }, weights: { data: [1, 1] } } })],
            }),
          ),
        `${d0}.loss_fn_inputs.target_tokens: token id ${t} is outside the local model's vocabulary (0 ≤ id < ${VOCAB_SIZE})`,
      );
    const edge = forwardBackwardBody(
      fb({
        data: [
          datum(2, { loss_fn_inputs: { target_tokens: { data: [0, VOCAB_SIZE - 1] }, weights: { data: [1, 1] } } }),
        ],
      }),
    );
    assert.deepEqual(edge.datums[0].targets, [0, VOCAB_SIZE - 1]);
  });

  it("every other loss input has target_tokens' shape; each loss's own inputs are required", () => {
    const d0 = "forward_backward.data[0]";
    const wide = { data: [1, 2, 3, 4], shape: [2, 2] };
    refused(
      () =>
        forwardBackwardBody(
          fb({ data: [datum(2, { loss_fn_inputs: { target_tokens: wide, weights: { data: [1, 1] } } })] }),
        ),
      `${d0}.loss_fn_inputs.weights has shape [2], target_tokens has [2,2]`,
    );
    refused(
      () => forwardBackwardBody(fb({ data: [datum(2, { loss_fn_inputs: { target_tokens: { data: [1, 2] } } })] })),
      `${d0}: loss_fn cross_entropy needs loss_fn_inputs.weights`,
    );
    const is = (inputs: Record<string, unknown>) =>
      forwardBackwardBody(
        fb({
          loss_fn: "importance_sampling",
          data: [datum(2, { loss_fn_inputs: { target_tokens: { data: [1, 2] }, ...inputs } })],
        }),
      );
    refused(
      () => is({ logprobs: { data: [-1, -2] } }),
      `${d0}: loss_fn importance_sampling needs loss_fn_inputs.advantages`,
    );
    refused(
      () => is({ advantages: { data: [1, 1] } }),
      `${d0}: loss_fn importance_sampling needs loss_fn_inputs.logprobs`,
    );
    const ok = is({ logprobs: { data: [-1, -2] }, advantages: { data: [0.5, 0.5] }, mask: { data: [1, 0] } });
    assert.deepEqual(ok.datums[0].lossInputs, { logprobs: [-1, -2], advantages: [0.5, 0.5], mask: [1, 0] });
  });
});

describe("server/validate: optim_step, save and load weights, sampling sessions", () => {
  it("optim_step: Adam's defaults, and each parameter's range", () => {
    assert.deepEqual(optimStepBody({ model_id: "m", adam_params: {} }), {
      model_id: "m",
      seq_id: undefined,
      adam_params: { learning_rate: 1e-4, beta1: 0.9, beta2: 0.95, eps: 1e-12, weight_decay: 0, grad_clip_norm: 0 },
    });
    const set = { learning_rate: 0, beta1: 0.999999, beta2: 0, eps: 0, weight_decay: 0.1, grad_clip_norm: 1 };
    assert.deepEqual(optimStepBody({ model_id: "m", seq_id: 3, adam_params: set }), {
      model_id: "m",
      seq_id: 3,
      adam_params: set,
    });
    const w = "optim_step.adam_params";
    refused(
      () => optimStepBody({ model_id: "m", adam_params: { beta1: 1 } }),
      `${w}.beta1 must be between 0 and 0.999999, got 1`,
    );
    refused(
      () => optimStepBody({ model_id: "m", adam_params: { beta2: 1 } }),
      `${w}.beta2 must be between 0 and 0.999999, got 1`,
    );
    for (const key of ["learning_rate", "eps", "weight_decay", "grad_clip_norm", "beta1"])
      refused(
        () => optimStepBody({ model_id: "m", adam_params: { [key]: -0.5 } }),
        `${w}.${key} must be between 0 and ${key === "beta1" ? 0.999999 : Infinity}, got -0.5`,
      );
    refused(() => optimStepBody({ model_id: "m" }), "optim_step.adam_params must be a JSON object, got undefined");
    assert.equal(
      optimStepBody({ model_id: "m", adam_params: { learning_rate: null } }).adam_params.learning_rate,
      1e-4,
      "null is the default",
    );
  });

  it("save_weights needs a name; save_weights_for_sampler may go without (an ephemeral sampler)", () => {
    assert.deepEqual(saveWeightsBody({ model_id: "m", path: "ckpt-1" }, "save_weights"), {
      model_id: "m",
      seq_id: undefined,
      name: "ckpt-1",
      sampling_session_seq_id: undefined,
      ttl_seconds: undefined,
      overwrite: false,
    });
    refused(
      () => saveWeightsBody({ model_id: "m" }, "save_weights"),
      "save_weights.path is required (a string), got undefined",
    );
    const eph = saveWeightsBody({ model_id: "m", sampling_session_seq_id: 0 }, "save_weights_for_sampler");
    assert.deepEqual([eph.name, eph.sampling_session_seq_id], [undefined, 0]);
    refused(
      () => saveWeightsBody({ model_id: "m", path: "p".repeat(LIMITS.pathChars + 1) }, "save_weights_for_sampler"),
      `save_weights_for_sampler.path is ${LIMITS.pathChars + 1} characters long; the local backend accepts at most ${LIMITS.pathChars}`,
    );
  });

  it("a checkpoint name has no '/' and is not . or ..", () => {
    for (const name of ["a/b", ".", ".."])
      refused(
        () => saveWeightsBody({ model_id: "m", path: name }, "save_weights"),
        `save_weights.path must be a checkpoint name without '/', got ${JSON.stringify(name)}`,
      );
    assert.equal(saveWeightsBody({ model_id: "m", path: "..x" }, "save_weights").name, "..x");
  });

  it("a TTL above 0 is kept, 0 or below means none; overwrite is read", () => {
    const s = (over: Record<string, unknown>) => saveWeightsBody({ model_id: "m", path: "c", ...over }, "save_weights");
    assert.equal(s({ ttl_seconds: 0.5 }).ttl_seconds, 0.5);
    assert.equal(s({ ttl_seconds: 0 }).ttl_seconds, undefined);
    assert.equal(s({ ttl_seconds: -3 }).ttl_seconds, undefined);
    assert.equal(s({ overwrite: true, seq_id: 4 }).overwrite, true);
    assert.equal(s({ seq_id: 4 }).seq_id, 4);
    refused(() => s({ ttl_seconds: "1h" }), 'save_weights.ttl_seconds must be a finite number, got "1h"');
    refused(
      () => s({ sampling_session_seq_id: -1 }),
      `save_weights.sampling_session_seq_id must be between 0 and ${Number.MAX_SAFE_INTEGER}, got -1`,
    );
  });

  it("load_weights: a model, or a session with a model_seq_id (create-via-load)", () => {
    assert.deepEqual(loadWeightsBody({ model_id: "m", path: "tinker://x" }), {
      model_id: "m",
      seq_id: undefined,
      session_id: undefined,
      model_seq_id: undefined,
      base_model: undefined,
      user_metadata: undefined,
      path: "tinker://x",
      optimizer: false,
    });
    const viaLoad = loadWeightsBody({
      session_id: "s",
      model_seq_id: 0,
      base_model: "b",
      user_metadata: { k: "v" },
      path: "tinker://x",
      optimizer: true,
      seq_id: 2,
    });
    assert.deepEqual(viaLoad, {
      model_id: undefined,
      seq_id: 2,
      session_id: "s",
      model_seq_id: 0,
      base_model: "b",
      user_metadata: { k: "v" },
      path: "tinker://x",
      optimizer: true,
    });
    const need = "load_weights needs model_id, or session_id with model_seq_id (create-via-load)";
    refused(() => loadWeightsBody({ path: "tinker://x" }), need);
    refused(() => loadWeightsBody({ session_id: "s", path: "tinker://x" }), need);
    refused(() => loadWeightsBody({ model_seq_id: 1, path: "tinker://x" }), need);
    refused(() => loadWeightsBody({ model_id: "m" }), "load_weights.path is required (a string), got undefined");
    refused(
      () => loadWeightsBody({ session_id: "s", model_seq_id: 2 ** 31, path: "tinker://x" }),
      `load_weights.model_seq_id must be between 0 and ${2 ** 31 - 1}, got ${2 ** 31}`,
    );
  });

  it("create_sampling_session: a base model or a model path", () => {
    assert.deepEqual(createSamplingSessionBody({ session_id: "s", base_model: "b" }), {
      session_id: "s",
      sampling_session_seq_id: undefined,
      base_model: "b",
      model_path: undefined,
    });
    assert.deepEqual(
      createSamplingSessionBody({ session_id: "s", sampling_session_seq_id: 3, model_path: "tinker://p" }),
      { session_id: "s", sampling_session_seq_id: 3, base_model: undefined, model_path: "tinker://p" },
    );
    assert.deepEqual(
      createSamplingSessionBody({ session_id: "s", sampling_session_seq_id: null, base_model: "b", model_path: null }),
      { session_id: "s", sampling_session_seq_id: undefined, base_model: "b", model_path: undefined },
      "null (the SDK's None) is absent",
    );
    refused(
      () => createSamplingSessionBody({ session_id: "s" }),
      "create_sampling_session needs base_model or model_path",
    );
  });
});

describe("server/validate: asample", () => {
  const sample = (over: Record<string, unknown> = {}, params?: Record<string, unknown>) =>
    sampleBody({ sampling_session_id: "sp", prompt: input([1, 2, 3]), sampling_params: params, ...over });
  const pw = "asample.sampling_params";

  it("defaults: one sample, 256 tokens, temperature 1, no top-k/top-p cut, no stops, no prompt logprobs", () => {
    assert.deepEqual(sample(), {
      sampling_session_id: "sp",
      seq_id: undefined,
      num_samples: 1,
      prompt: [1, 2, 3],
      max_tokens: 256,
      temperature: 1,
      top_k: -1,
      top_p: 1,
      seed: undefined,
      stop_tokens: [],
      prompt_logprobs: false,
      topk_prompt_logprobs: 0,
    });
    assert.deepEqual(sample({}, {}), sample());
    assert.deepEqual(sample({ sampling_params: null }), sample());
  });

  it("reads every field within its range", () => {
    const s = sample(
      {
        seq_id: 0,
        num_samples: LIMITS.numSamples,
        prompt_logprobs: true,
        topk_prompt_logprobs: LIMITS.topkPromptLogprobs,
      },
      { max_tokens: 0, temperature: 100, top_k: VOCAB_SIZE, top_p: 0, seed: -5, stop: [7, 8] },
    );
    assert.deepEqual(
      [s.seq_id, s.num_samples, s.prompt_logprobs, s.topk_prompt_logprobs],
      [0, LIMITS.numSamples, true, LIMITS.topkPromptLogprobs],
    );
    assert.deepEqual(
      [s.max_tokens, s.temperature, s.top_k, s.top_p, s.seed, s.stop_tokens],
      [0, 100, VOCAB_SIZE, 0, -5, [7, 8]],
    );
    assert.deepEqual(sample({}, { stop: 9 }).stop_tokens, [9], "one stop token id on its own");
  });

  it("refuses values out of range", () => {
    refused(() => sample({ num_samples: 0 }), `asample.num_samples must be between 1 and ${LIMITS.numSamples}, got 0`);
    refused(
      () => sample({ num_samples: LIMITS.numSamples + 1 }),
      `asample.num_samples must be between 1 and ${LIMITS.numSamples}, got ${LIMITS.numSamples + 1}`,
    );
    refused(
      () => sample({ topk_prompt_logprobs: LIMITS.topkPromptLogprobs + 1 }),
      `asample.topk_prompt_logprobs must be between 0 and ${LIMITS.topkPromptLogprobs}, got ${LIMITS.topkPromptLogprobs + 1}`,
    );
    refused(() => sample({}, { temperature: 100.5 }), `${pw}.temperature must be between 0 and 100, got 100.5`);
    refused(() => sample({}, { temperature: -0.1 }), `${pw}.temperature must be between 0 and 100, got -0.1`);
    refused(() => sample({}, { top_p: 1.01 }), `${pw}.top_p must be between 0 and 1, got 1.01`);
    refused(() => sample({}, { top_k: -2 }), `${pw}.top_k must be between -1 and ${VOCAB_SIZE}, got -2`);
    refused(
      () => sample({}, { max_tokens: -1 }),
      `${pw}.max_tokens must be between 0 and ${Number.MAX_SAFE_INTEGER}, got -1`,
    );
    refused(() => sample({ prompt_logprobs: 1 }), "asample.prompt_logprobs must be true or false, got 1");
    refused(() => sample({}, { seed: 0.5 }), `${pw}.seed must be an integer, got 0.5`);
    refused(() => sample({ sampling_params: [] }), `${pw} must be a JSON object, got []`);
    refused(
      () => sample({ sampling_session_id: undefined }),
      "asample.sampling_session_id is required (a string), got undefined",
    );
  });

  it("prompt plus max_tokens fit the context: at it accepted, one past it refused with what to ask for", () => {
    const prompt = input(tokens(100));
    assert.equal(sample({ prompt }, { max_tokens: CONTEXT_LENGTH - 100 }).max_tokens, CONTEXT_LENGTH - 100);
    refused(
      () => sample({ prompt }, { max_tokens: CONTEXT_LENGTH - 99 }),
      `${pw}.max_tokens ${CONTEXT_LENGTH - 99} with a prompt of 100 tokens exceeds the local model's context of ${CONTEXT_LENGTH} tokens; ask for at most ${CONTEXT_LENGTH - 100}`,
    );
    refused(() => sample({ prompt: input([]) }), "asample.prompt is empty");
    refused(
      () => sample({ prompt: input(tokens(CONTEXT_LENGTH + 1)) }),
      `asample.prompt.chunks[0].tokens has ${CONTEXT_LENGTH + 1} tokens; the local model's context is ${CONTEXT_LENGTH}`,
    );
  });

  it("stop strings are refused (no tokenizer here); stop ids are checked as token ids, at most 1024", () => {
    const text = `${pw}.stop: stop strings need a tokenizer, and the local backend has none; pass stop token ids instead`;
    refused(() => sample({}, { stop: "\n" }), text);
    refused(() => sample({}, { stop: [1, "</s>"] }), text);
    refused(
      () => sample({}, { stop: [VOCAB_SIZE] }),
      `${pw}.stop: token id ${VOCAB_SIZE} is outside the local model's vocabulary (0 ≤ id < ${VOCAB_SIZE})`,
    );
    assert.equal(sample({}, { stop: tokens(1024) }).stop_tokens.length, 1024);
    refused(() => sample({}, { stop: tokens(1025) }), `${pw}.stop has 1025 tokens; the local model's context is 1024`);
    assert.deepEqual(sample({}, { stop: null }).stop_tokens, []);
  });
});
