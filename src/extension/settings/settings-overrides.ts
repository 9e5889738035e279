/**
 * VS Code settings → the settings layer a job receives (`AGENT_LAB_SETTINGS`, see src/core/base/config.ts).
 * Only values the user actually set are passed: a VS Code default must not hide `agent-lab.json`.
 * vscode-free so it is tested in plain Node; the glue hands in `inspect()` results.
 */
import { SETTING_NAMES, SETTINGS_ENV, validateOverrides, type AgentLabConfig } from "../../core/base/config";
import { SAMPLING_BACKENDS } from "../../core/steps/specs/common-flags";

/** The section under which every setting lives: `agentLab.topK`, … */
export const SETTINGS_SECTION = "agentLab";

/** Settings that mirror AgentLabConfig one to one (same names, same meaning). */
export const CONFIG_KEYS: (keyof AgentLabConfig)[] = [...SETTING_NAMES];

/** Backends a job may use: the sampling steps' backends (training maps them, cli-args.ts). Extension-only setting (`agentLab.backend`). */
export type JobBackend = (typeof SAMPLING_BACKENDS)[number];
export const DEFAULT_JOB_BACKEND: JobBackend = "local";

/** What `WorkspaceConfiguration.inspect(key)` returns, reduced to the layers a user sets. */
export interface SettingLayers {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The most specific value the user set (folder > workspace > user), or undefined. */
export function explicitValue(layers: SettingLayers | undefined): unknown {
  if (!layers) return undefined;
  return layers.workspaceFolderValue ?? layers.workspaceValue ?? layers.globalValue;
}

/**
 * The overrides to hand to a job: every config key the user set, validated with the same rules as
 * agent-lab.json (a bad setting fails here with its name, not inside the job).
 */
export function settingsOverrides(inspect: (key: string) => SettingLayers | undefined): Partial<AgentLabConfig> {
  const raw: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) {
    const value = explicitValue(inspect(key));
    if (value !== undefined) raw[key] = value;
  }
  return validateOverrides(raw, "VS Code settings (agentLab.*)");
}

/** The environment entry that carries the overrides; empty when the user set nothing. */
export function settingsEnv(overrides: Partial<AgentLabConfig>): Record<string, string> {
  return Object.keys(overrides).length === 0 ? {} : { [SETTINGS_ENV]: JSON.stringify(overrides) };
}

export function jobBackend(raw: unknown): JobBackend {
  return (SAMPLING_BACKENDS as readonly string[]).includes(raw as string) ? (raw as JobBackend) : DEFAULT_JOB_BACKEND;
}
