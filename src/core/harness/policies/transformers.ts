/**
 * A policy that runs a causal LM on this machine with @huggingface/transformers (ONNX Runtime):
 * the recipe's free local trial (Qwen3.5-0.8B on a laptop) before any money is spent on Tinker.
 *
 * The library's `generate()` drives the model (it knows each architecture's inputs and KV cache);
 * a logits processor of ours picks every token (greedy, or temperature sampling from our own
 * seeded generator) and records its log-probability, so results are reproducible and come with
 * logprobs. Everything the library's generation_config.json would add (repetition penalty, top-k,
 * top-p, …) is switched off: the distribution is the model's, scaled by temperature only.
 */
import { existsSync, statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { loadTokenizer } from "../../base/chat";
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import { UserError } from "../../base/errors";
import type { Policy, PolicyInfo, Sample, SampleOptions } from "../policy";
import { chooseToken, logSoftmaxAt, SeededRandom } from "./transformers/sampling";

export interface TransformersPolicyOptions {
  /** Hugging Face hub id (needs ONNX weights, e.g. an onnx-community export) or a local folder. */
  model: string;
  /** Which ONNX weights to load: "fp32" (onnx/model.onnx), "fp16", "q8", "q4", … Default: the library's choice. */
  dtype?: string;
  /** ONNX Runtime device: "cpu" (default), or e.g. "cuda" / "webgpu" where the runtime has them. */
  device?: string;
  /** Seed of the sampling stream (default 0): the same seed and the same calls give the same samples. */
  seed?: number;
  /** Tokenizer to report and use; default: loaded from the same source as the model. */
  tokenizer?: ChatTokenizer;
  /** Where hub downloads are cached (default: the library's own cache folder). */
  cacheDir?: string;
}

/** The slice of transformers.js' model object this module uses (its own typings are loose). */
interface CausalLm {
  generate(args: Record<string, unknown>): Promise<unknown>;
  dispose(): Promise<unknown>;
}

/** One row of logits as the library hands it to a logits processor. */
interface LogitsTensor {
  dims: number[];
  data: Float32Array;
}

/** Per-call hook that sees each step's logits, chooses the token and forces the library to take it. */
type StepHook = (logits: Float32Array) => void;

/** The folder a model source names, or null for a hub id; a path-like name that is missing is an error, not a download. */
function localFolder(source: string): string | null {
  if (existsSync(source)) {
    if (!statSync(source).isDirectory()) throw new UserError(`model path is not a folder: ${source}`);
    return resolve(source);
  }
  if (/^(\.|\/|~|[A-Za-z]:)/.test(source) || source.includes("\\") || source.split("/").length > 2) {
    throw new UserError(`model folder not found: ${source}`);
  }
  return null;
}

export class TransformersPolicy implements Policy {
  readonly endToken: number;
  private readonly random: SeededRandom;
  /** Calls run one at a time: one ONNX session, and the sampling stream must be consumed in order. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly lm: CausalLm,
    readonly tokenizer: ChatTokenizer,
    private readonly modelName: string,
    private readonly makeHooks: (hook: StepHook, stop: () => boolean) => { processors: unknown[]; criteria: unknown[] },
    seed: number,
  ) {
    this.endToken = tokenizer.tokenId("<|im_end|>");
    this.random = new SeededRandom(seed);
  }

  describe(): PolicyInfo {
    // Logprobs are the model's own log softmax at temperature 1 for each chosen token.
    return { kind: "transformers", model: this.modelName, logprobs: true };
  }

  sample(promptTokens: readonly number[], options: SampleOptions): Promise<Sample> {
    const run = this.queue.then(() => this.sampleNow(promptTokens, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Releases the ONNX session (its memory). The policy cannot sample afterwards. */
  async dispose(): Promise<void> {
    await this.queue;
    await this.lm.dispose();
  }

  private async sampleNow(promptTokens: readonly number[], options: SampleOptions): Promise<Sample> {
    const { temperature, maxTokens, signal } = options;
    if (!(temperature >= 0)) throw new UserError(`temperature must be >= 0, got ${temperature}`);
    if (!Number.isInteger(maxTokens) || maxTokens < 0)
      throw new UserError(`maxTokens must be a whole number >= 0, got ${maxTokens}`);
    if (promptTokens.length === 0) throw new UserError("cannot sample from an empty prompt");
    signal?.throwIfAborted();
    if (maxTokens === 0) return { tokens: [], logprobs: [], stopReason: "length" };

    const tokens: number[] = [];
    const logprobs: number[] = [];
    const hook: StepHook = (logits) => {
      const token = chooseToken(logits, temperature, this.random);
      tokens.push(token);
      logprobs.push(logSoftmaxAt(logits, token));
      // Leave only the chosen token possible, so the library's greedy pick takes exactly it.
      const chosen = logits[token];
      logits.fill(-Infinity);
      logits[token] = chosen;
    };
    const { processors, criteria } = this.makeHooks(hook, () => signal?.aborted ?? false);
    const { Tensor } = await import("@huggingface/transformers");
    const ids = new Tensor(
      "int64",
      BigInt64Array.from(promptTokens, (t) => BigInt(t)),
      [1, promptTokens.length],
    );
    const mask = new Tensor("int64", new BigInt64Array(promptTokens.length).fill(1n), [1, promptTokens.length]);
    const sequences = (await this.lm.generate({
      inputs: ids,
      attention_mask: mask,
      logits_processor: processors,
      stopping_criteria: criteria,
      ...plainGenerationConfig(maxTokens, this.endToken),
    })) as { data: BigInt64Array };
    signal?.throwIfAborted();
    // The model must have been fed exactly the tokens we chose; anything else means the library
    // changed how it applies logits processors, and the samples would be silently wrong.
    const fed = Array.from(sequences.data.subarray(promptTokens.length), Number);
    if (fed.length !== tokens.length || fed.some((t, i) => t !== tokens[i])) {
      throw new Error(`transformers.js generated [${fed.join(",")}] but the policy chose [${tokens.join(",")}]`);
    }

    const stopped = tokens.length > 0 && tokens[tokens.length - 1] === this.endToken;
    return { tokens, logprobs, stopReason: stopped ? "stop" : "length" };
  }
}

/**
 * Generation settings that leave the model's distribution alone, overriding whatever the model's
 * generation_config.json asks for (Qwen's asks for sampling with top-k 20 and top-p 0.8).
 */
function plainGenerationConfig(maxTokens: number, endToken: number): Record<string, unknown> {
  return {
    max_new_tokens: maxTokens,
    min_length: 0,
    min_new_tokens: null,
    do_sample: false, // our processor has already chosen; the library's greedy step just takes it
    num_beams: 1,
    temperature: 1.0,
    top_k: 0,
    top_p: 1.0,
    repetition_penalty: 1.0,
    no_repeat_ngram_size: 0,
    bad_words_ids: null,
    suppress_tokens: null,
    begin_suppress_tokens: null,
    forced_bos_token_id: null,
    forced_eos_token_id: null,
    eos_token_id: endToken,
    pad_token_id: endToken,
  };
}

/**
 * Loads the model and its tokenizer. A local folder is read from disk only (`local_files_only`:
 * the library never contacts the hub for it); a hub id is downloaded once into the cache.
 */
export async function createTransformersPolicy(options: TransformersPolicyOptions): Promise<TransformersPolicy> {
  const lib = await import("@huggingface/transformers");
  const folder = localFolder(options.model);
  if (!folder && options.cacheDir) lib.env.cacheDir = options.cacheDir;
  const source = folder ?? options.model;

  let lm: CausalLm;
  try {
    const loaded = await lib.AutoModelForCausalLM.from_pretrained(source, {
      local_files_only: folder !== null,
      ...(options.dtype ? { dtype: options.dtype as never } : {}),
      ...(options.device ? { device: options.device as never } : {}),
    });
    lm = loaded as unknown as CausalLm;
  } catch (e) {
    const where = folder ? `folder ${folder}` : `"${source}" (hub or its cache)`;
    // transformers.js runs ONNX only: a plain PyTorch repository (such as Qwen/Qwen3.5-0.8B itself)
    // cannot load; an ONNX export of it (config.json, tokenizer files, onnx/model*.onnx) can.
    throw new UserError(
      `could not load a causal LM with ONNX weights from ${where}: ${(e as Error).message}. ` +
        "transformers.js needs an ONNX export (onnx/model.onnx or a quantized variant) next to config.json and the tokenizer files.",
    );
  }
  const tokenizer =
    options.tokenizer ?? (await loadTokenizer(source, options.cacheDir ? { cacheDir: options.cacheDir } : {}));

  // Subclasses of the library's hook classes, defined here because the library is loaded lazily.
  class ChooseToken extends lib.LogitsProcessor {
    constructor(private readonly hook: StepHook) {
      super();
    }
    override _call(_inputIds: bigint[][], logits: unknown): unknown {
      const t = logits as LogitsTensor;
      if (t.dims[0] !== 1) throw new Error(`expected one sequence, got a batch of ${t.dims[0]}`);
      this.hook(t.data);
      return logits;
    }
  }
  class StopWhen extends lib.StoppingCriteria {
    constructor(private readonly stop: () => boolean) {
      super();
    }
    override _call(inputIds: readonly unknown[]): boolean[] {
      return inputIds.map(() => this.stop());
    }
  }
  const makeHooks = (hook: StepHook, stop: () => boolean) => ({
    processors: [new ChooseToken(hook)],
    criteria: [new StopWhen(stop)],
  });

  const name = folder ? basename(folder) : options.model;
  return new TransformersPolicy(lm, tokenizer, name, makeHooks, options.seed ?? 0);
}
