/** A miniature sweep: the miniature experiment's world arm, swept over 2 learning rates × 2 group sizes. */
import { miniatureSpec, type SpecObject } from "./fixtures";

export const SWEEP_ARMS = ["w_lr2e-3_g2", "w_lr2e-3_g3", "w_lr4e-3_g2", "w_lr4e-3_g3"];

export function miniatureSweep(sweep: SpecObject = {}, over: SpecObject = {}): SpecObject {
  const grpo = { steps: 2, questions: 2, group: 2, lr: 0.002, temperature: 1, seed: 0 };
  return miniatureSpec({
    name: "sw",
    arms: [{ name: "w", data: { kind: "env-train", env: "hotpotqa", offset: 16 }, grpo }],
    sweep: {
      arm: "w",
      grid: { "grpo.lr": [0.002, 0.004], "grpo.group": [2, 3] },
      baseline: "w_lr2e-3_g2",
      max_concurrent_arms: 2,
      ...sweep,
    },
    criterion: {
      treatment: "w_lr4e-3_g3",
      reference: "w_lr2e-3_g2",
      supported: [{ stat: "arm_minus_base", op: ">=", value: 0.02 }],
      refuted: [{ stat: "arm_minus_base", op: "<", value: 0.01 }],
    },
    ...over,
  });
}
