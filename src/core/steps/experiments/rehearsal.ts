/**
 * `experiment run SPEC --rehearse`: a Tinker spec at tiny sizes, every phase through the Tinker
 * client against whatever server TINKER_BASE_URL names (agent-lab serve-local: free), with the
 * stand-in tokenizer, as `pipeline --rehearse` does for the recipe. The rehearsal is a spec of its
 * own (`<name>-rehearsal`, written as the record's spec.json, so `experiment validate` checks it
 * like any other) made from the real one by shrinking sizes only; what the real spec would do on
 * Tinker is untouched. Tasks come from the scripted generator with the scripted solve rate: the
 * untrained stand-in solves no task 0/k → every task would be dropped by the policy's solve rate.
 */
import type { ArmSpec, ExperimentSpec, SftRecipe } from "./spec";

export const REHEARSAL_SIZES = Object.freeze({
  /** Scripted drafts per tasks arm (a fifth broken on purpose, so every filter is exercised). */
  drafts: 40,
  solveTries: 4,
  grpo: { steps: 1, questions: 2, group: 2 },
  sftEpochs: 1,
  sftBatch: 2,
  /** Items scored per evaluation, and tokens per reply everywhere. */
  evalItems: 3,
  maxTokens: 24,
  resamples: 1000,
});

const shrinkSft = (s: SftRecipe): SftRecipe => ({
  ...s,
  epochs: REHEARSAL_SIZES.sftEpochs,
  batch: Math.min(s.batch, REHEARSAL_SIZES.sftBatch),
});

function shrinkArm(a: ArmSpec): ArmSpec {
  const out: ArmSpec = { ...a };
  if (a.sft) out.sft = shrinkSft(a.sft);
  if (a.grpo) out.grpo = { ...a.grpo, ...REHEARSAL_SIZES.grpo, save_every: 1 };
  if (a.data?.kind === "tasks" && a.data.generate) {
    const { prompt: _prompt, temperature: _t, max_tokens: _m, ...rest } = a.data.generate;
    out.data = {
      ...a.data,
      generate: {
        ...rest,
        generator: "scripted",
        count: REHEARSAL_SIZES.drafts,
        solve_rate: { mode: "scripted", tries: REHEARSAL_SIZES.solveTries },
      },
    };
  }
  return out;
}

/** The rehearsal of a Tinker spec: same arms, evaluation, criterion and budget, tiny sizes. */
export function rehearsalSpec(spec: ExperimentSpec): ExperimentSpec {
  return {
    ...spec,
    name: `${spec.name}-rehearsal`.slice(0, 61),
    title: `Rehearsal (tiny sizes, numbers mean nothing): ${spec.title}`,
    harness: { ...spec.harness, maxTokens: REHEARSAL_SIZES.maxTokens },
    init: spec.init.kind === "sft" ? { kind: "sft", sft: shrinkSft(spec.init.sft) } : spec.init,
    arms: spec.arms.map(shrinkArm),
    evaluation: {
      ...spec.evaluation,
      n: REHEARSAL_SIZES.evalItems,
      decoding: { ...spec.evaluation.decoding, max_tokens: REHEARSAL_SIZES.maxTokens },
    },
    resamples: REHEARSAL_SIZES.resamples,
  };
}
