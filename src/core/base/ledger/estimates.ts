/**
 * Cost estimates printed before a job starts and used for the budget check before each batch.
 * They use the recipe's typical episode (≈3 turns, ~2,000 prefill and ~80 generated tokens) until a
 * job has measured its own; like the recipe's cost column they are upper bounds (no prefix cache).
 */
import type { ModelPrices } from "../config";
import { costUsd } from "./ledger";

/** The recipe's typical episode ("Cost, worked out from tokens"). */
export const TYPICAL_EPISODE = Object.freeze({ prefill: 2000, generated: 80 });

/**
 * Tokens of one finished episode's full sequence (prompt + everything after it), what a training
 * step passes through the model. About the final turn's prefill plus its reply: with ~2,000 prefill
 * summed over ~3 growing turns, the last sequence is roughly 900–1,000 tokens.
 */
export const TYPICAL_EPISODE_SEQUENCE = 1000;

export interface EpisodeSize {
  prefill: number;
  generated: number;
}

/** One episode's sampling cost; `size` defaults to the typical episode. */
export function estimateEpisodeUsd(prices: ModelPrices | null, size: EpisodeSize = TYPICAL_EPISODE): number {
  return costUsd(prices, { prefill: size.prefill, sampled: size.generated });
}

/** Eval of N questions (one episode each), or N × tries for rejection sampling. */
export function estimateEpisodesUsd(
  prices: ModelPrices | null,
  episodes: number,
  size: EpisodeSize = TYPICAL_EPISODE,
): number {
  return episodes * estimateEpisodeUsd(prices, size);
}

/** SFT: tokens per epoch × epochs at the train price. */
export function estimateSftUsd(prices: ModelPrices | null, tokensPerEpoch: number, epochs: number): number {
  return costUsd(prices, { trained: tokensPerEpoch * epochs });
}

/** One RL step: sample every episode of every group, then train on their full sequences. */
export function estimateRlStepUsd(
  prices: ModelPrices | null,
  episodes: number,
  size: EpisodeSize = TYPICAL_EPISODE,
  sequenceTokens: number = TYPICAL_EPISODE_SEQUENCE,
): number {
  return estimateEpisodesUsd(prices, episodes, size) + costUsd(prices, { trained: episodes * sequenceTokens });
}

/**
 * The mean size of episodes already run, falling back to the typical one while there are none, so
 * the per-batch budget check follows what this model actually does.
 */
export class EpisodeSizeTracker {
  private n = 0;
  private prefill = 0;
  private generated = 0;

  add(size: EpisodeSize): void {
    this.n++;
    this.prefill += size.prefill;
    this.generated += size.generated;
  }

  get mean(): EpisodeSize {
    if (this.n === 0) return { ...TYPICAL_EPISODE };
    return { prefill: this.prefill / this.n, generated: this.generated / this.n };
  }
}
