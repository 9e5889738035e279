/**
 * What the training dashboard knows about metric names: which group a metric belongs to (reward,
 * health, length, cost, throughput, optimisation — the order a researcher scans a run in), and
 * the recipe's healthy range for the few metrics that have one, with the advice to show when a
 * value leaves it. Names are matched by their last path segment too, so tinker-cookbook style
 * names (`env/all/reward/total`, `optim/lr`, `time/total`) land in the same groups.
 */

import { ENVIRONMENT_INFO } from "../../envs/catalog";

export const METRIC_GROUPS = ["reward", "health", "length", "cost", "throughput", "optimisation"] as const;
export type MetricGroup = (typeof METRIC_GROUPS)[number] | "other";

/** Every environment's declared episode metrics (what a training step logs its means under), primary first. */
const EPISODE_METRICS: readonly string[] = [
  ...new Set(
    ENVIRONMENT_INFO.flatMap((e) =>
      [...e.metrics].sort((x, y) => Number(Boolean(y.primary)) - Number(Boolean(x.primary))),
    ).map((m) => m.name),
  ),
];

const BY_NAME: Record<string, MetricGroup> = {
  reward: "reward",
  answered: "reward",
  ...Object.fromEntries(EPISODE_METRICS.map((name) => [name, "reward"])),
  skipped_groups: "health",
  skipped_count: "health",
  budget_hit: "health",
  frac_mixed: "health",
  frac_all_good: "health",
  frac_all_bad: "health",
  tokens: "length",
  searches: "length",
  loss_tokens: "length",
  trained_tokens: "length",
  usd: "cost",
  seconds: "throughput",
  datums: "throughput",
  episodes: "throughput",
  groups: "throughput",
  done_frac: "throughput",
  loss: "optimisation",
  lr: "optimisation",
  epoch: "optimisation",
  kl: "optimisation",
  grad_norm: "optimisation",
};

const BY_PREFIX: [string, MetricGroup][] = [
  ["env/all/by_group/", "health"],
  ["env/", "reward"],
  ["optim/", "optimisation"],
  ["time/", "throughput"],
  ["progress/", "throughput"],
];

export function metricGroup(key: string): MetricGroup {
  const direct = BY_NAME[key];
  if (direct) return direct;
  for (const [prefix, group] of BY_PREFIX) if (key.startsWith(prefix)) return group;
  const last = key.split("/").pop() ?? key;
  if (BY_NAME[last]) return BY_NAME[last];
  if (/usd|cost|price/.test(key)) return "cost";
  if (/time|sec|per_s|throughput/.test(key)) return "throughput";
  if (/loss|lr|kl|grad|entropy/.test(key)) return "optimisation";
  return "other";
}

/** Metrics in group order, the recipe's columns first inside a group, then in the order given. */
export function orderMetrics(keys: readonly string[]): string[] {
  const groups: readonly string[] = [...METRIC_GROUPS, "other"];
  const preferred = Object.keys(BY_NAME);
  const rank = (k: string) => {
    const p = preferred.indexOf(k);
    return p < 0 ? preferred.length : p;
  };
  return keys
    .map((k, i) => ({ k, i }))
    .sort(
      (a, b) =>
        groups.indexOf(metricGroup(a.k)) - groups.indexOf(metricGroup(b.k)) || rank(a.k) - rank(b.k) || a.i - b.i,
    )
    .map((x) => x.k);
}

/** A healthy range drawn behind a metric; an open side is undefined. */
export interface HealthyBand {
  lo?: number;
  hi?: number;
  /** The range as the recipe states it, e.g. "0.2–0.6". */
  range: string;
  /** What a value outside the range means and what to do. */
  advice: string;
}

/** "Stable" metrics are judged against the run's own start: the mean of its first steps. */
const BASELINE_STEPS = 3;

function baseline(values: readonly number[]): number | undefined {
  const head = values.filter(Number.isFinite).slice(0, BASELINE_STEPS);
  return head.length ? head.reduce((s, v) => s + v, 0) / head.length : undefined;
}

/**
 * The recipe's healthy range for a metric (GRPO: skipped_groups 0.2–0.6, budget_hit under 5%,
 * searches and tokens stable), or undefined when the recipe sets none. `values` are the run's
 * own, for the ranges defined relative to how the run started.
 */
export function healthyBand(key: string, values: readonly number[]): HealthyBand | undefined {
  if (key === "skipped_groups") {
    return {
      lo: 0.2,
      hi: 0.6,
      range: "0.2–0.6",
      advice:
        "Near 1.0 nearly every question's group is all right or all wrong and teaches nothing: move to harder or easier questions.",
    };
  }
  if (key === "budget_hit") {
    return {
      lo: 0,
      hi: 0.05,
      range: "under 5%",
      advice:
        "Climbing: the model searches in circles until the budget stops it. Lower the search budget or add a penalty.",
    };
  }
  const start = baseline(values);
  if (start === undefined || start <= 0) return undefined;
  if (key === "searches") {
    return {
      lo: start * 0.75,
      range: `stable or rising slightly (started at ${start.toFixed(2)})`,
      advice: "Dropping toward 1: the model is learning to guess instead of research. Read its traces.",
    };
  }
  if (key === "tokens") {
    return {
      lo: start * 0.5,
      hi: start * 1.5,
      range: `stable (started at ${Math.round(start)})`,
      advice: "Growing fast: the model is rambling to stall. Read the traces now.",
    };
  }
  return undefined;
}

/** tinker-cookbook's metric names, in words (the raw name stays in the chart's tooltip). */
const COOKBOOK_LABELS: Record<string, string> = {
  "reward/total": "reward (mean total per episode)",
  "by_group/frac_mixed": "groups mixed (the ones that train)",
  "by_group/frac_all_good": "groups all good (no signal)",
  "by_group/frac_all_bad": "groups all bad (no signal)",
  "optim/kl_sample_train_v1": "KL sampler → learner (v1)",
  "optim/kl_sample_train_v2": "KL sampler → learner (v2)",
  "optim/entropy": "entropy",
  "optim/lr": "learning rate",
  "progress/done_frac": "progress (fraction done)",
  "progress/batch": "batch",
};

/**
 * A metric's label: cookbook names in words — `env/all/reward/total` → "reward (mean total per
 * episode)", a per-tag `env/<tag>/…` with the tag in brackets, `time/x` → "time: x (s)" — and
 * Agent Lab's own names as they are.
 */
export function metricLabel(key: string): string {
  if (COOKBOOK_LABELS[key]) return COOKBOOK_LABELS[key];
  const env = /^env\/([^/]+)\/(.+)$/.exec(key);
  if (env) {
    const inner = COOKBOOK_LABELS[env[2]] ?? env[2].replace(/_/g, " ");
    return env[1] === "all" ? inner : `${inner} [${env[1]}]`;
  }
  if (key.startsWith("time/")) return `time: ${key.slice(5).replace(/_/g, " ")} (s)`;
  if (key.startsWith("optim/")) return key.slice(6).replace(/_/g, " ");
  return key;
}
