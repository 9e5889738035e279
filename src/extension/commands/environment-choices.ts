/**
 * The environment pickers' items and the "from existing runs" multi-pick, vscode-free (tested in
 * plain Node). Environments come from core's light list (envs/catalog.ts), never restated here,
 * and never from the registry, which would load every environment's code at activation.
 */
import {
  DEFAULT_ENVIRONMENT_INFO,
  ENVIRONMENT_INFO,
  environmentInfo,
  environmentRoles,
  WORLD_INFO,
  environmentMetrics,
} from "../../core/envs/catalog";
import type { PrepareFileFlag } from "../../core/harness/environment";
import { describeEnvironment, IMPLIED_ENVIRONMENT, manifestEnvironment } from "../../core/envs/manifest-environment";
import { metricValue } from "../../core/base/runs/metrics";
import { readEpisodes } from "../../core/base/runs/run-files";
import type { RunRow } from "../runs/runs-model";

export interface EnvironmentItem {
  label: string;
  description: string;
  detail: string;
  env: string;
}

/**
 * One item per registered environment, the workspace's default (config `env`, from agent-lab.json
 * or the agentLab.env setting) first and marked so. `only`: keep those that pass (closed-book: tools).
 */
export function environmentItems(
  defaultEnv: string,
  only: (hasTools: boolean) => boolean = () => true,
): EnvironmentItem[] {
  // An offline world is listed when it is the workspace's default (the folders `pipeline` and `demo` make name theirs).
  const world = WORLD_INFO.filter((e) => e.name === defaultEnv);
  const listed = [...ENVIRONMENT_INFO, ...world].filter((e) => only(e.hasTools));
  const ordered = [...listed.filter((e) => e.name === defaultEnv), ...listed.filter((e) => e.name !== defaultEnv)];
  return ordered.map((e) => ({
    label: e.name,
    description: e.name === defaultEnv ? "default (agent-lab.json env)" : "",
    detail: e.summary,
    env: e.name,
  }));
}

/** A run's environment as the Runs tree read it (a run whose manifest names none is the implied one's, base/runs). */
export function runEnvironment(row: Pick<RunRow, "environment">): string {
  return row.environment ?? IMPLIED_ENVIRONMENT.name;
}

/** The default eval run name: the recipe's for the default environment (`base`, `test-sft-e2`), prefixed by any other's name. */
export function environmentRunName(env: string, name: string): string {
  return env === DEFAULT_ENVIRONMENT_INFO.name ? name : `${env}-${name}`;
}

export interface SourceRunItem {
  label: string;
  description: string;
  detail: string;
  row: RunRow;
}

/**
 * The eval runs of `env` that `sft-data --from-runs` can take, newest first, each described by
 * what decides whether it may train the model: its environment, its system prompt's hash (only
 * runs whose prompt matches the training prompt are used; the CLI says which it skips), how many
 * scored episodes it holds, and their mean reward (and the environment's primary metric).
 */
export function sourceRunItems(rows: readonly RunRow[], env: string): SourceRunItem[] {
  const primary = environmentRoles(env).primary;
  return rows
    .filter((r) => r.kind === "eval" && r.hasEpisodes && runEnvironment(r) === env)
    .map((row) => {
      const episodes = readEpisodes(row.dir, environmentMetrics);
      const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
      const reward = mean(episodes.map((e) => e.reward));
      const primaryMean = mean(episodes.map((e) => metricValue(e, primary)));
      const prompt = row.manifest?.system_prompt?.sha256?.slice(0, 8) ?? "?";
      const metric = `${primary.label} ${primaryMean.toFixed(3)}`;
      return {
        label: row.name,
        description: `${env} · prompt ${prompt} · ${episodes.length} ep · reward ${reward.toFixed(3)}`,
        detail: [row.summary?.split, metric, row.summary?.model].filter(Boolean).join(" · "),
        row,
      };
    });
}

/** One way to prepare an environment's data: the hub download, or local files (one open dialog per role). */
export interface PrepareSourceItem {
  label: string;
  description: string;
  /** Undefined = `prepare --hub`. */
  local?: {
    roles: readonly { flag: PrepareFileFlag; label: string }[];
    /** The open dialog's filter: the environment's dataset name → the extensions prepare reads. */
    filters: Record<string, string[]>;
  };
}

/** The sources `prepare --env ENV` takes, as the environment's info declares them (the hub only when it declares none). */
export function prepareSourceItems(env: string): PrepareSourceItem[] {
  const info = environmentInfo(env);
  const sources = info?.prepareSources;
  const hub: PrepareSourceItem = {
    label: `Download ${info?.dataset ?? env}`,
    description: sources
      ? `${sources.hub.repo} (${sources.hub.config}), from the Hugging Face hub`
      : "from the Hugging Face hub",
  };
  if (!sources) return [hub];
  const { roles, extensions, formats } = sources.local;
  return [
    hub,
    {
      label: "Use local files…",
      description: `${roles.map((r) => r.label.toLowerCase()).join(" + ")}: ${formats}`,
      local: { roles, filters: { [info!.dataset]: [...extensions] } },
    },
  ];
}

/** The environment (name and version) a run's manifest records; ablate pairs runs only within one. */
function environmentKey(row: Pick<RunRow, "manifest">): string {
  return describeEnvironment(manifestEnvironment(row.manifest));
}

/** The eval runs Compare may pair with `first`: the other eval runs of its environment (name and version). */
export function comparableRuns(rows: readonly RunRow[], first: RunRow): RunRow[] {
  const key = environmentKey(first);
  return rows.filter((r) => r.kind === "eval" && r.dir !== first.dir && environmentKey(r) === key);
}
