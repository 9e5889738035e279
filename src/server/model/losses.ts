/**
 * Tinker's loss functions (spec §4) as per-token terms: each returns the token's loss and
 * dLoss/dlp, where lp is the learner's log-prob of the target. The model chains dlp through its own
 * backward pass, so every loss here has an exact gradient (ppo's is exact except at its kinks, where
 * it takes the one-sided value of whichever branch min() picked). Losses are summed over all tokens
 * of all datums, with no normalisation (the client normalises through weights or advantages).
 *
 *   cross_entropy        −lp·w
 *   importance_sampling  −r·A,                      r = exp(lp − q)
 *   ppo                  −min(r·A, clip(r, lo, hi)·A)           lo/hi default 0.8 / 1.2
 *   cispo                −sg[clip(r, lo, hi)]·lp·A             lo/hi default 0 / 4
 *   dro                  −(lp·A − ½·β·(lp − q)²)                β required
 */
import { UserInputError } from "./errors";

export type LossName = "cross_entropy" | "importance_sampling" | "ppo" | "cispo" | "dro";
export const LOSS_NAMES: readonly LossName[] = ["cross_entropy", "importance_sampling", "ppo", "cispo", "dro"];

/** Which loss_fn_inputs each loss needs (besides target_tokens). */
export const LOSS_INPUTS: Record<LossName, readonly string[]> = {
  cross_entropy: ["weights"],
  importance_sampling: ["logprobs", "advantages"],
  ppo: ["logprobs", "advantages"],
  cispo: ["logprobs", "advantages"],
  dro: ["logprobs", "advantages"],
};

/** Per-token inputs, flattened in the same order as the targets. */
export type LossInputs = Record<string, ArrayLike<number>>;

export interface TokenLoss {
  loss: number;
  dlp: number;
}

export type TokenLossFn = (lp: number, inputs: LossInputs, i: number) => TokenLoss;

const clip = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** Builds the per-token loss for a request; unknown losses or missing config are user errors. */
export function tokenLossFor(name: string, config: Record<string, number> = {}): TokenLossFn {
  switch (name) {
    case "cross_entropy":
      return (lp, inp, i) => {
        const w = inp.weights[i];
        return { loss: -lp * w, dlp: -w };
      };
    case "importance_sampling":
      return (lp, inp, i) => {
        const A = inp.advantages[i];
        const r = Math.exp(lp - inp.logprobs[i]);
        return { loss: -r * A, dlp: -r * A };
      };
    case "ppo": {
      const lo = config.clip_low_threshold ?? 0.8;
      const hi = config.clip_high_threshold ?? 1.2;
      return (lp, inp, i) => {
        const A = inp.advantages[i];
        const r = Math.exp(lp - inp.logprobs[i]);
        const unclipped = r * A;
        const clipped = clip(r, lo, hi) * A;
        // min(): the unclipped branch carries the gradient; the clipped one is flat in lp.
        if (unclipped <= clipped) return { loss: -unclipped, dlp: -r * A };
        return { loss: -clipped, dlp: 0 };
      };
    }
    case "cispo": {
      const lo = config.clip_low_threshold ?? 0;
      const hi = config.clip_high_threshold ?? 4;
      return (lp, inp, i) => {
        const A = inp.advantages[i];
        const w = clip(Math.exp(lp - inp.logprobs[i]), lo, hi);
        return { loss: -w * lp * A, dlp: -w * A };
      };
    }
    case "dro": {
      const beta = config.beta;
      if (beta === undefined || !Number.isFinite(beta))
        throw new UserInputError("loss_fn dro needs loss_fn_config.beta");
      return (lp, inp, i) => {
        const A = inp.advantages[i];
        const diff = lp - inp.logprobs[i];
        return { loss: -(lp * A - 0.5 * beta * diff * diff), dlp: -(A - beta * diff) };
      };
    }
    default:
      throw new UserInputError(`unknown loss_fn "${name}" (expected one of ${LOSS_NAMES.join(", ")})`);
  }
}
