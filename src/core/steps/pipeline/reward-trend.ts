/**
 * Is GRPO's train reward rising? Per-step mean rewards (metrics.jsonl) summarised two ways: the
 * least-squares slope per step with a 95% t interval, and the mean of the first third of the steps
 * against the last third. Each step samples new questions, so steps are independent draws given
 * the weights; the interval ignores the drift within a third, which is what we are measuring.
 */
import { existsSync, readFileSync } from "node:fs";

export interface RewardTrend {
  steps: number;
  /** Reward per step, in step order. */
  rewards: number[];
  slope: number;
  /** 95% interval of the slope (t with steps − 2 degrees of freedom); null with fewer than 3 steps. */
  slopeCi: [number, number] | null;
  firstThird: number;
  lastThird: number;
}

/** Two-sided 97.5% quantiles of Student's t for 1…30 degrees of freedom. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export function tQuantile975(df: number): number {
  if (df < 1) return Number.NaN;
  return df <= 30 ? T975[df - 1] : 1.96 + 2.4 / df; // close to the exact value above 30
}

export function rewardTrend(rewards: readonly number[]): RewardTrend {
  const n = rewards.length;
  const xs = rewards.map((_, i) => i + 1);
  const mean = (v: readonly number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0);
  const mx = mean(xs);
  const my = mean(rewards);
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (rewards[i] - my);
  }
  const slope = sxx > 0 ? sxy / sxx : 0;
  let slopeCi: [number, number] | null = null;
  if (n >= 3) {
    let sse = 0;
    for (let i = 0; i < n; i++) sse += (rewards[i] - (my + slope * (xs[i] - mx))) ** 2;
    const se = Math.sqrt(sse / (n - 2) / sxx);
    const t = tQuantile975(n - 2);
    slopeCi = [slope - t * se, slope + t * se];
  }
  const third = Math.max(1, Math.floor(n / 3));
  return {
    steps: n,
    rewards: [...rewards],
    slope,
    slopeCi,
    firstThird: mean(rewards.slice(0, third)),
    lastThird: mean(rewards.slice(n - third)),
  };
}

/** Rewards per step from a GRPO run's metrics.jsonl (a torn last line is ignored); the last line of a step wins. */
export function readStepRewards(metricsFile: string): number[] {
  if (!existsSync(metricsFile)) return [];
  const byStep = new Map<number, number>();
  for (const line of readFileSync(metricsFile, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const row = JSON.parse(line) as { step?: unknown; reward?: unknown };
      if (typeof row.step === "number" && typeof row.reward === "number") byStep.set(row.step, row.reward);
    } catch {
      // a torn last line from a killed writer
    }
  }
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
}

export function renderTrend(t: RewardTrend): string {
  if (t.steps === 0) return "GRPO train reward: no steps recorded";
  const ci = t.slopeCi ? ` (95% CI ${fmt(t.slopeCi[0])} to ${fmt(t.slopeCi[1])})` : "";
  const third = Math.max(1, Math.floor(t.steps / 3));
  return (
    `GRPO train reward over ${t.steps} steps: first ${third} step(s) ${t.firstThird.toFixed(3)} → last ${third} ${t.lastThird.toFixed(3)}; ` +
    `slope ${fmt(t.slope)} per step${ci}\n  per step: ${t.rewards.map((r) => r.toFixed(2)).join(" ")}`
  );
}

const fmt = (x: number) => (x >= 0 ? "+" : "") + x.toFixed(4);
