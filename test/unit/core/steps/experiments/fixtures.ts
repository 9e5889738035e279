/** Builders for experiment specs: the miniature of the offline spec, with overrides per test. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export type SpecObject = Record<string, unknown>;

/** A miniature of examples/offline-experiment.json: every phase, tiny sizes (about half a minute on 2 cores). */
export function miniatureSpec(over: SpecObject = {}): SpecObject {
  const grpo = { steps: 2, questions: 2, group: 2, lr: 0.002, temperature: 1, seed: 0 };
  return {
    format: "agent-lab.experiment/1",
    name: "mini",
    title: "miniature offline experiment",
    hypothesis: "a miniature of the offline experiment reaches a verdict with a validated record",
    backend: "local",
    base_model: "agent-lab/local-tiny",
    lora_rank: 8,
    world: { kind: "synthetic", seed: 7, train: 60, dev: 520 },
    harness: { topK: 1, maxSearches: 2, maxTokens: 32, concurrency: 8 },
    init: { kind: "sft", sft: { epochs: 1, batch: 8, lr: 0.01, data: { kind: "teacher", questions: 16 } } },
    arms: [
      {
        name: "generated",
        data: {
          kind: "tasks",
          env: "hotpotqa",
          generate: { generator: "scripted", count: 30, seed: 1, solve_rate: { mode: "scripted", tries: 4 } },
        },
        grpo,
      },
      { name: "world", data: { kind: "env-train", env: "hotpotqa", offset: 16 }, grpo },
    ],
    evaluation: { env: "hotpotqa", split: "val", n: 20, decoding: { temperature: 0, max_tokens: 32 } },
    metric: "f1",
    criterion: {
      treatment: "generated",
      reference: "world",
      supported: [
        { stat: "arm_minus_base", op: ">=", value: 0.02 },
        { stat: "recovery", op: ">=", value: 0.5 },
      ],
      refuted: [{ stat: "arm_minus_base", op: "<", value: 0.01 }, { stat: "drift" }],
    },
    budget_usd: 0,
    resamples: 1000,
    seed: 0,
    ...over,
  };
}

export function writeSpec(dir: string, spec: SpecObject, name = "spec.json"): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(spec, null, 2) + "\n");
  return file;
}
