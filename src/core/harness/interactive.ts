/**
 * One episode driven a model turn at a time (the playground): the harness's own loop
 * (`runEnvEpisode`) runs unchanged, against a policy that waits before each sample until the caller
 * asks for the next turn, with that turn's temperature and token limit. Stitching, end tokens,
 * observations and the score stay the loop's and the environment's, so a finished episode is the
 * one eval would record for the same sampled tokens.
 *
 * What the caller sees between turns is read off the loop's own traffic: the ids it sends to the
 * next sample are the prompt plus everything recorded so far, and the tokens this policy returned
 * are the sampled ones (everything else after the prompt was inserted by the harness).
 *
 * A cancelled turn is a sample that never happened: the wrapped sampler is aborted, the loop never
 * hears of it and waits for the next request, so nothing recorded so far is lost.
 */
import type { EndReason, EnvEpisode, EnvItem, EpisodeScore, EpisodeTurn, TurnOutcome } from "./environment";
import { runEnvEpisode, type Episode } from "./episode";
import type { Policy, PolicyInfo, Sample, SampleOptions } from "./policy";

/** One turn's sampling settings (the loop's own settings apply to nothing else). */
export interface TurnSettings {
  temperature: number;
  maxTokens: number;
  seed?: number;
}

/** The episode so far, as the trace shows one: every token after the prompt with its flag and logprob. */
export interface Transcript {
  prompt: readonly number[];
  tokens: readonly number[];
  /** Per token: 1 = sampled, 0 = inserted by the harness. */
  sampled: readonly number[];
  /** Per token: the sampler's logprob; 0 for inserted tokens (and when the sampler gave none). */
  logprobs: readonly number[];
  /** The model turns so far, as the environment read them. */
  turns: readonly EpisodeTurn[];
}

/** What one call of `next()` did. */
export type TurnResult =
  | {
      kind: "turn";
      /** Tokens sent to the sampler for this turn, and tokens it produced (what the turn costs). */
      prefill: number;
      generated: number;
      /** The episode goes on (an observation was inserted) or has ended (`episode` is the loop's record). */
      episode?: Episode;
    }
  | { kind: "cancelled" };

interface Request {
  settings: TurnSettings;
  signal: AbortSignal;
}

/** A promise with its resolvers, created before anything can settle it. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export class InteractiveEpisode {
  private readonly tokens: number[] = [];
  private readonly sampled: number[] = [];
  private readonly logprobs: number[] = [];
  private readonly turns: EpisodeTurn[] = [];
  private readonly prompt: readonly number[];
  /** Settled by `next()`: the request the waiting sample call goes on with. */
  private request = deferred<Request>();
  /** Settled by the sample call when it waits again (after a turn or a cancelled one). */
  private waiting = deferred<TurnResult>();
  private inFlight: AbortController | undefined;
  private finished: Episode | undefined;
  private failed: unknown;
  private readonly closer = new AbortController();
  private readonly result: Promise<Episode>;

  constructor(
    private readonly policy: Policy,
    item: EnvItem,
    env: EnvEpisode,
  ) {
    this.prompt = env.prompt;
    const turns = this.turns;
    // The environment's own episode, with each turn it reads kept (the loop fills in `end` after).
    const watched: EnvEpisode = {
      get prompt() {
        return env.prompt;
      },
      get toolCalls() {
        return env.toolCalls;
      },
      onReply(turn: EpisodeTurn): TurnOutcome | Promise<TurnOutcome> {
        turns.push(turn);
        return env.onReply(turn);
      },
      score(end: EndReason): EpisodeScore {
        return env.score(end);
      },
    };
    this.result = runEnvEpisode(this.gated(), item, watched, { signal: this.closer.signal });
    this.result.then(
      (episode) => {
        this.finished = episode;
      },
      (e: unknown) => {
        this.failed = e;
      },
    );
  }

  /** The episode so far (the finished record's, once it has ended). */
  transcript(): Transcript {
    const ep = this.finished;
    if (ep)
      return { prompt: ep.prompt, tokens: ep.tokens, sampled: ep.sampled, logprobs: ep.logprobs, turns: ep.turns };
    return {
      prompt: this.prompt,
      tokens: this.tokens,
      sampled: this.sampled,
      logprobs: this.logprobs,
      turns: this.turns,
    };
  }

  /** The loop's record, once the environment has ended the episode. */
  get episode(): Episode | undefined {
    return this.finished;
  }

  get busy(): boolean {
    return this.inFlight !== undefined;
  }

  /** Samples the next model turn and lets the environment read it (a tool call runs before this returns). */
  async next(settings: TurnSettings): Promise<TurnResult> {
    if (this.finished) throw new Error("the episode has ended: start a new one");
    if (this.failed !== undefined) throw this.failed;
    if (this.inFlight) throw new Error("a turn is already running");
    const controller = new AbortController();
    this.inFlight = controller;
    const waiting = this.waiting.promise;
    this.request.resolve({ settings, signal: controller.signal });
    try {
      return await Promise.race([
        waiting,
        this.result.then((): TurnResult => ({
          kind: "turn",
          prefill: this.lastPrefill,
          generated: this.lastGenerated,
          episode: this.finished,
        })),
      ]);
    } finally {
      this.inFlight = undefined;
    }
  }

  /** Stops the turn in flight; the episode stays as it was before the turn. */
  cancel(): void {
    this.inFlight?.abort();
  }

  /** Ends the loop (the panel closed); an unfinished episode is dropped. */
  close(): void {
    this.inFlight?.abort();
    this.closer.abort();
    // A sample call waiting for a request ends the loop; with none waiting nothing reads the rejection.
    this.request.promise.catch(() => undefined);
    this.request.reject(this.closer.signal.reason);
    // The loop's rejection is the expected end of a closed episode: nothing waits for it.
    this.result.catch(() => undefined);
  }

  private lastPrefill = 0;
  private lastGenerated = 0;

  /** The policy the loop samples from: each call waits for a request and records what it returns. */
  private gated(): Policy {
    const inner = this.policy;
    return {
      tokenizer: inner.tokenizer,
      endToken: inner.endToken,
      describe: (): PolicyInfo => inner.describe(),
      sample: (ids: readonly number[], options: SampleOptions): Promise<Sample> => this.sampleWhenAsked(ids, options),
    };
  }

  private async sampleWhenAsked(ids: readonly number[], options: SampleOptions): Promise<Sample> {
    // What the loop added since the last sample (an end token, an observation) was inserted.
    for (let i = this.prompt.length + this.tokens.length; i < ids.length; i++) this.record(ids[i], 0, 0);
    // The turn before this call has been recorded (and read by the environment): tell the caller.
    if (this.tokens.length > 0)
      this.settleWaiting({ kind: "turn", prefill: this.lastPrefill, generated: this.lastGenerated });
    for (;;) {
      const asked = this.request.promise;
      const { settings, signal } = await asked;
      this.request = deferred<Request>();
      options.signal?.throwIfAborted();
      let out: Sample;
      try {
        // Cancelled before the sampler was reached (cancel() right after next()).
        signal.throwIfAborted();
        out = await this.policy.sample(ids, {
          temperature: settings.temperature,
          maxTokens: settings.maxTokens,
          ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
          signal: AbortSignal.any([signal, ...(options.signal ? [options.signal] : [])]),
        });
        signal.throwIfAborted();
      } catch (e) {
        if (!signal.aborted || options.signal?.aborted) throw e;
        // Cancelled by the caller: this turn never happened; wait for the next request.
        this.settleWaiting({ kind: "cancelled" });
        continue;
      }
      this.lastPrefill = ids.length;
      this.lastGenerated = out.tokens.length;
      out.tokens.forEach((t, i) => this.record(t, 1, out.logprobs?.[i] ?? 0));
      return out;
    }
  }

  private settleWaiting(result: TurnResult): void {
    const done = this.waiting;
    this.waiting = deferred<TurnResult>();
    done.resolve(result);
  }

  private record(token: number, sampled: 0 | 1, logprob: number): void {
    this.tokens.push(token);
    this.sampled.push(sampled);
    this.logprobs.push(logprob);
  }
}
