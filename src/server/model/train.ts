/**
 * forward / forward_backward over a batch of datums, and the AdamW step, for the tiny model.
 * Gradients accumulate across forward_backward calls until optimStep, as on Tinker.
 */
import { UserInputError } from "./errors";
import { LOSS_INPUTS, tokenLossFor, type LossInputs, type LossName } from "./losses";
import { SequenceState, type TinyModel } from "./tiny-model";

export interface TrainDatum {
  /** model_input token ids (position i predicts targets of row i). */
  input: number[];
  /** target token ids, N×K row-major (K = 1 for ordinary next-token targets). */
  targets: number[];
  /** Candidates per position (K). */
  k: number;
  /** Per-token loss inputs, same length as targets. */
  lossInputs: LossInputs;
}

export interface ForwardResult {
  /** Per datum, the target log-probs (N×K row-major, like the targets). */
  logprobs: Float64Array[];
  /** Summed loss over all tokens of all datums. */
  loss: number;
}

/** Checks shapes, token ids and that each loss has its inputs; throws UserInputError naming the datum. */
export function validateDatums(model: TinyModel, datums: TrainDatum[], lossFn: LossName): void {
  datums.forEach((d, i) => {
    const n = d.input.length;
    if (n === 0) throw new UserInputError(`datum ${i}: model_input is empty`);
    for (const id of d.input) model.checkToken(id, `datum ${i}: model_input token`);
    for (const id of d.targets) model.checkToken(id, `datum ${i}: target token`);
    if (d.k < 1 || d.targets.length !== n * d.k) {
      throw new UserInputError(
        `datum ${i}: target_tokens has ${d.targets.length} values, expected ${n}×K for a model_input of ${n} tokens`,
      );
    }
    for (const key of LOSS_INPUTS[lossFn]) {
      const v = d.lossInputs[key];
      if (!v) throw new UserInputError(`datum ${i}: loss_fn ${lossFn} needs loss_fn_inputs.${key}`);
      if (v.length !== d.targets.length)
        throw new UserInputError(`datum ${i}: ${key} has ${v.length} values, target_tokens has ${d.targets.length}`);
    }
  });
}

/**
 * Teacher-forced pass: log-probs of every target, the summed loss, and (when `backward`) gradients
 * added to the model's .grad buffers. Positions are independent given the weights (the hidden state
 * is not recurrent), so each position's backward runs right after its forward and nothing per
 * position is kept.
 */
export function forwardBackward(
  model: TinyModel,
  datums: TrainDatum[],
  lossFn: LossName,
  lossConfig: Record<string, number>,
  backward: boolean,
): ForwardResult {
  return runToEnd(forwardBackwardSteps(model, datums, lossFn, lossConfig, backward));
}

/** Runs a step generator (see forwardBackwardSteps) to its result. */
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** forwardBackward as a generator that yields after every position, so a scheduler can interleave other work. */
export function* forwardBackwardSteps(
  model: TinyModel,
  datums: TrainDatum[],
  lossFn: LossName,
  lossConfig: Record<string, number>,
  backward: boolean,
): Generator<void, ForwardResult> {
  validateDatums(model, datums, lossFn);
  const tokenLoss = tokenLossFor(lossFn, lossConfig);
  const grad = backward ? model.newGradient() : undefined;
  let loss = 0;
  const logprobs: Float64Array[] = [];
  for (const d of datums) {
    const { input, targets } = d;
    const out = new Float64Array(targets.length);
    const seq = new SequenceState();
    for (let t = 0; t < input.length; t++) {
      model.appendToken(seq, input[t]);
      const ps = model.position(seq, t);
      const ys: number[] = [];
      const dlps: number[] = [];
      for (let k = 0; k < d.k; k++) {
        const i = t * d.k + k;
        const lp = model.logProb(seq, ps, targets[i]);
        out[i] = lp;
        const term = tokenLoss(lp, d.lossInputs, i);
        loss += term.loss;
        ys.push(targets[i]);
        dlps.push(term.dlp);
      }
      // Prompt positions usually carry no gradient (weight or advantage 0): skip their O(V·d) backward.
      if (grad && dlps.some((g) => g !== 0)) model.backwardPosition(seq, ps, ys, dlps, grad);
      yield;
    }
    if (grad) model.finishSequence(seq, grad);
    logprobs.push(out);
  }
  if (grad) model.finishGradient(grad);
  return { logprobs, loss };
}

export interface AdamParams {
  learning_rate: number;
  beta1: number;
  beta2: number;
  eps: number;
  weight_decay: number;
  grad_clip_norm: number;
}

/**
 * One AdamW step over the trainable tensors (decoupled weight decay, bias-corrected moments, as
 * torch.optim.AdamW), after optional global-norm clipping; then gradients are cleared.
 * Returns metrics with Tinker-style "name:reduction" keys.
 */
export function optimStep(model: TinyModel, p: AdamParams): Record<string, number> {
  for (const [k, v] of Object.entries(p)) {
    if (typeof v !== "number" || !Number.isFinite(v))
      throw new UserInputError(`adam_params.${k} must be a finite number`);
  }
  if (p.learning_rate < 0 || p.eps < 0 || p.beta1 < 0 || p.beta1 >= 1 || p.beta2 < 0 || p.beta2 >= 1) {
    throw new UserInputError("adam_params out of range (need learning_rate, eps ≥ 0 and 0 ≤ beta < 1)");
  }
  const norm = model.gradNorm();
  const scale = p.grad_clip_norm > 0 && norm > p.grad_clip_norm ? p.grad_clip_norm / norm : 1;
  model.adamStep += 1;
  const t = model.adamStep;
  const bc1 = 1 - Math.pow(p.beta1, t);
  const bc2 = 1 - Math.pow(p.beta2, t);
  for (const tensor of model.tensors) {
    if (!model.isTrainable(tensor)) continue;
    const w = tensor.data;
    const g = tensor.grad;
    const m = tensor.adamM;
    const v = tensor.adamV;
    for (let i = 0; i < tensor.size; i++) {
      const gi = g[i] * scale;
      w[i] -= p.learning_rate * p.weight_decay * w[i];
      m[i] = p.beta1 * m[i] + (1 - p.beta1) * gi;
      v[i] = p.beta2 * v[i] + (1 - p.beta2) * gi * gi;
      w[i] -= (p.learning_rate * (m[i] / bc1)) / (Math.sqrt(v[i] / bc2) + p.eps);
    }
  }
  model.zeroGrad();
  model.invalidate();
  return { "grad_norm:mean": norm, "learning_rate:mean": p.learning_rate, "step:max": t };
}
