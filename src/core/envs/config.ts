/**
 * The recipe's settings with every default, the default environment included: base/config.ts
 * holds the settings, their other defaults and the readers of each layer, and the catalog here
 * names the environment a workspace that names none runs. Everything that loads or merges
 * settings imports this module.
 */
import {
  configDefaults,
  DEFAULT_PRICES,
  readEnvConfig,
  readWorkspaceConfig,
  validateOverrides,
  type AgentLabConfig,
} from "../base/config";
import { DEFAULT_ENVIRONMENT_INFO } from "./catalog";

/** Every setting's default; `env`'s is the catalog's first environment (registry.ts DEFAULT_ENVIRONMENT). */
export const DEFAULT_CONFIG: Readonly<AgentLabConfig> = configDefaults(DEFAULT_ENVIRONMENT_INFO.name);

/** Merges layers; prices merge per model so a workspace can add a model without repeating the defaults. */
export function mergeConfig(...layers: Partial<AgentLabConfig>[]): AgentLabConfig {
  const merged: AgentLabConfig = { ...DEFAULT_CONFIG, prices: { ...DEFAULT_PRICES } };
  for (const layer of layers) {
    const { prices, ...rest } = layer;
    Object.assign(merged, rest);
    if (prices) merged.prices = { ...merged.prices, ...prices };
  }
  return merged;
}

/** Defaults, then the workspace file, then `AGENT_LAB_SETTINGS` (VS Code settings), then CLI flags. */
export function loadConfig(
  workspaceDir: string,
  overrides: Partial<AgentLabConfig> = {},
  env: NodeJS.ProcessEnv = process.env,
): AgentLabConfig {
  return mergeConfig(
    readWorkspaceConfig(workspaceDir),
    readEnvConfig(env),
    validateOverrides(overrides, "command-line options"),
  );
}
