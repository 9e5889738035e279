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
import { SWEEP_PARAMS } from "./sweep-spec";

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

/** The value an arm runs with for a swept parameter ("grpo.lr" → its grpo recipe's lr). */
function armValue(a: ArmSpec, param: string): number {
  const p = SWEEP_PARAMS[param];
  const section = (p.section === "data" ? a.data : a[p.section]) as unknown as Record<string, number>;
  return section[p.field];
}

/**
 * The rehearsal as its spec.json writes it (what `experiment validate` reads back). A sweep's arms
 * were expanded, then shrunk, which may change a swept value (steps, group, questions, SFT epochs,
 * batch): its sweep is written as a list of overrides, each arm under its own name with the values
 * it runs with, on the first of them as the template — so the rehearsal runs its arms side by side
 * and its record has the sweep section, checked against the runs' manifests like a real sweep's.
 */
export function rehearsalSpecText(spec: ExperimentSpec): string {
  const { sweep, ...rehearsal } = rehearsalSpec(spec);
  if (!sweep) return JSON.stringify(rehearsal, null, 2) + "\n";
  const own = new Set(sweep.points.map((pt) => pt.name));
  const swept = rehearsal.arms.filter((a) => own.has(a.name));
  const arms = rehearsal.arms.filter((a) => !own.has(a.name));
  arms.splice(rehearsal.arms.indexOf(swept[0]), 0, { ...swept[0], name: sweep.arm });
  const overrides = swept.map((a) => ({
    name: a.name,
    ...Object.fromEntries(sweep.params.map((k) => [k, armValue(a, k)])),
  }));
  const written = {
    arm: sweep.arm,
    arms: overrides,
    baseline: sweep.baseline,
    max_concurrent_arms: sweep.max_concurrent_arms,
  };
  return JSON.stringify({ ...rehearsal, arms, sweep: written }, null, 2) + "\n";
}
