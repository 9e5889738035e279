/**
 * Sampling client: one sampler (base model, tinker:// sampler checkpoint, or the ephemeral
 * sampler of a training client). Requests go as JSON to /asample, results come back as protobuf.
 * 429 on asample is back-pressure, not an error: the client waits and re-sends (spec §1.9); any
 * retried attempt gets a fresh seq_id, as the SDK's sampling retry handler does (spec §1.7 c).
 */
import { submitAndPoll, type TinkerContext } from "./context";
import { TinkerApiError, TinkerConnectionError, TinkerFutureExpiredError, abortError } from "./errors";
import { TinkerFuture, toSampleResponse } from "./futures";
import { backoffMs, sleep } from "./http";
import {
  modelInputFromTokens,
  modelInputLength,
  type ModelInput,
  type SampleRequest,
  type SampleResponse,
  type SamplingParams,
  type WireStopReason,
} from "./wire";

export interface SampleInput {
  prompt: readonly number[] | ModelInput;
  numSamples?: number;
  maxTokens: number;
  temperature?: number;
  topP?: number;
  /** -1 = off. */
  topK?: number;
  /** Stop token ids or stop strings. */
  stop?: number[] | string[] | string;
  seed?: number;
  includePromptLogprobs?: boolean;
  topkPromptLogprobs?: number;
}

export interface SampledSequenceResult {
  tokens: number[];
  logprobs: number[] | null;
  stopReason: WireStopReason;
}

export interface SampleResult {
  sequences: SampledSequenceResult[];
  promptLogprobs: Array<number | null> | null;
  topkPromptLogprobs: Array<Array<[number, number]> | null> | null;
  promptCacheHitTokens: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

const SMALL_PROMPT_BYTES = 128 * 1024;
const RETRYABLE = (s: number): boolean => s === 408 || s === 409 || s >= 500;

/** Caps concurrent requests (the server's sample_max_concurrent_requests per sampler). */
class Semaphore {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const start = (): void => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = (): void => {
          const i = this.queue.indexOf(start);
          if (i >= 0) this.queue.splice(i, 1);
          reject(abortError(signal));
        };
        this.queue.push(start);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    } else if (signal?.aborted) throw abortError(signal);
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

export class SamplingClient {
  private nextSeqId = 0;
  private readonly slots: Semaphore;

  constructor(
    private readonly ctx: TinkerContext,
    readonly samplingSessionId: string,
    readonly source: { baseModel?: string; modelPath?: string } = {},
  ) {
    this.slots = new Semaphore(Math.max(1, ctx.config.sample_max_concurrent_requests));
  }

  sample(input: SampleInput, options: CallOptions = {}): TinkerFuture<SampleResult> {
    return new TinkerFuture(this.slots.run(() => this.sampleWithRetries(input, options.signal), options.signal));
  }

  /** Logprob of each prompt token given the ones before it (the first is null). */
  computeLogprobs(
    prompt: readonly number[] | ModelInput,
    options: CallOptions = {},
  ): TinkerFuture<Array<number | null>> {
    return this.sample({ prompt, numSamples: 1, maxTokens: 1, includePromptLogprobs: true }, options).map((r) => {
      if (!r.promptLogprobs) throw new Error("the sampler returned no prompt logprobs");
      return r.promptLogprobs;
    });
  }

  private request(input: SampleInput, seqId: number): SampleRequest {
    const params: SamplingParams = {
      max_tokens: input.maxTokens,
      temperature: input.temperature ?? 1,
      top_k: input.topK ?? -1,
      top_p: input.topP ?? 1,
    };
    if (input.seed !== undefined) params.seed = input.seed;
    if (input.stop !== undefined) params.stop = input.stop;
    const prompt = Array.isArray(input.prompt) ? modelInputFromTokens(input.prompt) : (input.prompt as ModelInput);
    return {
      num_samples: input.numSamples ?? 1,
      prompt,
      sampling_params: params,
      sampling_session_id: this.samplingSessionId,
      seq_id: seqId,
      prompt_logprobs: input.includePromptLogprobs ?? false,
      topk_prompt_logprobs: input.topkPromptLogprobs ?? 0,
      type: "sample",
    };
  }

  private async sampleWithRetries(input: SampleInput, signal: AbortSignal | undefined): Promise<SampleResult> {
    const policy = this.ctx.http.retryPolicy;
    const started = Date.now();
    const promptBytes =
      10 * (Array.isArray(input.prompt) ? input.prompt.length : modelInputLength(input.prompt as ModelInput));
    let failures = 0;
    let unreachableSince: number | undefined;
    for (;;) {
      const wait = this.ctx.sampleBackoff.until - Date.now();
      if (wait > 0) await sleep(wait, signal);
      const body = this.request(input, this.nextSeqId++);
      try {
        const result = await submitAndPoll(this.ctx.http, {
          path: "/api/v1/asample",
          json: body,
          requestType: "Sample",
          expectProto: true,
          retry: false,
          headers: { "X-Tinker-Sampling-Backpressure": "1" },
          signal,
        });
        return fromWire(toSampleResponse(result));
      } catch (e) {
        if (signal?.aborted) throw abortError(signal);
        if (e instanceof TinkerApiError && e.status === 429) {
          const pause = promptBytes <= SMALL_PROMPT_BYTES ? policy.sampleBackoffSmallMs : policy.sampleBackoffLargeMs;
          this.ctx.sampleBackoff.until = Math.max(this.ctx.sampleBackoff.until, Date.now() + pause);
          continue;
        }
        const retryable =
          e instanceof TinkerConnectionError ||
          e instanceof TinkerFutureExpiredError ||
          (e instanceof TinkerApiError && RETRYABLE(e.status));
        if (!retryable || this.ctx.config.sample_no_retries) throw e;
        // A server that answers nothing is not "busy": give up after the policy's bound, not the stuck timer's hours.
        if (e instanceof TinkerConnectionError) {
          unreachableSince ??= Date.now();
          if (Date.now() - unreachableSince >= policy.unreachableMs) throw e;
        } else unreachableSince = undefined;
        if (Date.now() - started >= policy.sampleStuckMs) {
          throw new TinkerConnectionError(
            "asample",
            `no progress made in ${Math.round(policy.sampleStuckMs / 1000)} s: ${(e as Error).message}`,
            this.ctx.http.baseUrl,
            this.ctx.http.answered,
          );
        }
        await sleep(backoffMs(policy, Math.min(failures++, 10)), signal);
      }
    }
  }
}

function fromWire(r: SampleResponse): SampleResult {
  return {
    sequences: r.sequences.map((s) => ({ tokens: s.tokens, logprobs: s.logprobs, stopReason: s.stop_reason })),
    promptLogprobs: r.prompt_logprobs,
    topkPromptLogprobs: r.topk_prompt_logprobs,
    promptCacheHitTokens: r.prompt_cache_hit_tokens,
  };
}
