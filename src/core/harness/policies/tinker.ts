/**
 * The harness's Policy over a Tinker sampler: one completion per call, stopping at the model's
 * end-of-turn token, with the sampler's logprobs (which RL needs).
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import type { Policy, PolicyInfo, Sample, SampleOptions } from "../policy";
import type { RetryPolicy } from "../../base/tinker/http";
import type { SamplingClient } from "../../base/tinker/sampling";
import { TinkerService } from "../../base/tinker/service";

export const MISSING_LOGPROBS_MESSAGE = "the sampler returned no logprobs; RL needs them";

export interface TinkerPolicyOptions {
  sampler: SamplingClient;
  tokenizer: ChatTokenizer;
  /** Base model id, for the run manifest. */
  model: string;
  /** tinker://…/sampler_weights/<name> when sampling from a checkpoint. */
  modelPath?: string;
  /** Throw when a sample comes back without logprobs (RL runs). */
  requireLogprobs?: boolean;
  /** Defaults to the tokenizer's <|im_end|>. */
  endToken?: number;
  /** Where the policy should stop the service's heartbeat on close (set by createTinkerPolicy). */
  service?: TinkerService;
  /** Manifest kind: "tinker" (paid, default) or "local-backend" (the free local stand-in). */
  kind?: string;
}

export class TinkerPolicy implements Policy {
  readonly tokenizer: ChatTokenizer;
  readonly endToken: number;

  constructor(private readonly options: TinkerPolicyOptions) {
    this.tokenizer = options.tokenizer;
    this.endToken = options.endToken ?? options.tokenizer.tokenId("<|im_end|>");
  }

  async sample(promptTokens: readonly number[], options: SampleOptions): Promise<Sample> {
    const result = await this.options.sampler
      .sample(
        {
          prompt: promptTokens,
          numSamples: 1,
          maxTokens: options.maxTokens,
          temperature: options.temperature,
          stop: [this.endToken],
          seed: options.seed,
        },
        { signal: options.signal },
      )
      .result();
    const seq = result.sequences[0];
    if (!seq) throw new Error("the Tinker sampler returned no sequence");
    if (this.options.requireLogprobs && !seq.logprobs) throw new Error(MISSING_LOGPROBS_MESSAGE);
    return { tokens: seq.tokens, logprobs: seq.logprobs, stopReason: seq.stopReason };
  }

  describe(): PolicyInfo {
    const info: PolicyInfo = { kind: this.options.kind ?? "tinker", model: this.options.model, logprobs: true };
    if (this.options.modelPath) info.checkpoint = this.options.modelPath;
    return info;
  }

  /** Stops the session heartbeat of a service the factory created. */
  close(): void {
    this.options.service?.close();
  }
}

export interface CreateTinkerPolicyOptions {
  apiKey?: string;
  baseUrl?: string;
  /** Base model, e.g. Qwen/Qwen3.5-4B. */
  model: string;
  /** Sample from this tinker:// sampler checkpoint instead of the base model. */
  modelPath?: string;
  tokenizer: ChatTokenizer;
  requireLogprobs?: boolean;
  env?: NodeJS.ProcessEnv;
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  kind?: string;
}

/** For `agent-lab eval --backend tinker [--model-path tinker://…]`: a ready policy (call close() when done). */
export async function createTinkerPolicy(options: CreateTinkerPolicyOptions): Promise<TinkerPolicy> {
  const service = new TinkerService({
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    env: options.env,
    retry: options.retry,
  });
  try {
    const sampler = await service.createSamplingClient(
      options.modelPath
        ? { modelPath: options.modelPath, signal: options.signal }
        : { baseModel: options.model, signal: options.signal },
    );
    return new TinkerPolicy({
      sampler,
      tokenizer: options.tokenizer,
      model: options.model,
      modelPath: options.modelPath,
      requireLogprobs: options.requireLogprobs,
      service,
      kind: options.kind,
    });
  } catch (e) {
    service.close();
    throw e;
  }
}
