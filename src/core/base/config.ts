/**
 * Every setting of the recipe in one typed place, with the recipe's defaults (but the default
 * environment's name: envs/config.ts, which merges the layers, completes them).
 *
 * Precedence (later wins): defaults < workspace file `agent-lab.json` < environment variable
 * `AGENT_LAB_SETTINGS` (a JSON object of settings: how the VS Code extension hands its settings to
 * the jobs it launches; checked like the file) < CLI flags.
 * The JSON schema for `agent-lab.json` lives in data/schema/agent-lab.schema.json and is checked
 * against these defaults by a unit test, so the two cannot drift apart.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FileFormatError, UserError } from "./errors";

/** USD per 1M tokens. */
export interface ModelPrices {
  prefill: number;
  sample: number;
  train: number;
}

export interface AgentLabConfig {
  /** Tinker id of the model being post-trained. */
  model: string;
  /** Same chat template, small enough to run free on a laptop. */
  localModel: string;
  /** Paragraphs one search returns. */
  topK: number;
  /** Research budget: after this many searches the model must answer. */
  maxSearches: number;
  /** Max tokens the model may write in one turn. */
  maxTokens: number;
  loraRank: number;
  /** Episodes in flight during eval. */
  concurrency: number;
  /** Stop a job before the next batch would take total spend over this many USD (0 = no cap). */
  budgetUsd: number;
  /** Price table per model id (USD per 1M tokens). */
  prices: Record<string, ModelPrices>;
  /** Folder with train/val/test/corpus.jsonl and the index, relative to the workspace. */
  dataDir: string;
  /** Folder holding one sub-folder per run, relative to the workspace. */
  runsDir: string;
  /** System prompt file, relative to the workspace; empty = the environment's shipped default. */
  systemPromptFile: string;
  /** The task environment steps run on when no --env is given (src/core/envs/registry.ts lists them). */
  env: string;
  /** Let the model think before answering where the environment's prompt allows it; off = Qwen's empty think block. */
  thinking: boolean;
  /**
   * The cookbook's format penalty coefficient (reward += c·(format_ok − 1)), for an environment whose
   * grader checks the answer's format (its manifest records the coefficient); the others ignore it. 0 = off.
   */
  formatPenalty: number;
  /**
   * An `agent-lab serve-search` address (http://host:port) that jobs search instead of opening the
   * index themselves; empty = open the index in process.
   */
  searchUrl: string;
}

/** Tinker prices, read from Tinker's Models & Pricing page on 2026-11-01. */
export const DEFAULT_PRICES: Record<string, ModelPrices> = {
  "Qwen/Qwen3.5-4B": { prefill: 0.33, sample: 1.005, train: 0.737 },
};

/**
 * The recipe's defaults, given the default environment: the one list of them, in the settings'
 * order (how they are listed and serialised). `env`'s default is the catalog's first environment,
 * which base cannot name (it sits below envs/), so envs/config.ts DEFAULT_CONFIG supplies it.
 */
export function configDefaults(env: string): Readonly<AgentLabConfig> {
  return Object.freeze({
    model: "Qwen/Qwen3.5-4B",
    localModel: "Qwen/Qwen3.5-0.8B",
    topK: 3,
    maxSearches: 5,
    maxTokens: 512,
    loraRank: 32,
    concurrency: 32,
    budgetUsd: 0,
    prices: DEFAULT_PRICES,
    dataDir: "data",
    runsDir: "runs",
    systemPromptFile: "",
    env,
    thinking: false,
    formatPenalty: 0,
    searchUrl: "",
  });
}

/** Every setting's default but `env`'s: what base and harness read (a default environment is the catalog's). */
export const SETTING_DEFAULTS: Readonly<Omit<AgentLabConfig, "env">> = (() => {
  const { env: _byTheCatalog, ...rest } = configDefaults("");
  return Object.freeze(rest);
})();

/** Every setting's name, in the settings' order. */
export const SETTING_NAMES: readonly (keyof AgentLabConfig)[] = Object.freeze(
  Object.keys(configDefaults("")) as (keyof AgentLabConfig)[],
);

export const CONFIG_FILE = "agent-lab.json";

/** The port `serve-search` listens on unless told otherwise (the local backend has 8765). */
export const DEFAULT_SEARCH_PORT = 8766;
/** What a search setting or flag must look like: a plain-HTTP address (the server speaks no TLS). */
export const SEARCH_URL_PATTERN = /^http:\/\/[^\s/?#]+(?:\/[^\s?#]*)?$/;
export const SEARCH_URL_FORM = `an http:// URL, e.g. http://127.0.0.1:${DEFAULT_SEARCH_PORT}`;
/** The setting and the flag: such a URL, or empty for the index opened in process (the JSON schemas say the same). */
export const SEARCH_SETTING_PATTERN = new RegExp(`^$|${SEARCH_URL_PATTERN.source}`);
export const SEARCH_SETTING_FORM = `${SEARCH_URL_FORM}, or "" to open the index in process`;

type Overrides = Partial<AgentLabConfig>;

const POSITIVE_INTS = ["topK", "maxSearches", "maxTokens", "loraRank", "concurrency"] as const;
const STRINGS = ["model", "localModel", "dataDir", "runsDir", "systemPromptFile", "env"] as const;

/** Checks one layer of overrides; `where` names its source in error messages. */
export function validateOverrides(
  raw: unknown,
  where: string,
  lineOf?: (key: string) => number | undefined,
): Overrides {
  const fail = (key: string, problem: string): never => {
    throw new FileFormatError(where, lineOf?.(key), `"${key}" ${problem}`);
  };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new FileFormatError(where, 1, "expected a JSON object of settings");
  }
  const known = new Set<string>(SETTING_NAMES);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === "$schema") continue;
    if (!known.has(key)) fail(key, `is not a setting; known settings: ${[...known].join(", ")}`);
    if ((POSITIVE_INTS as readonly string[]).includes(key)) {
      if (!Number.isInteger(value) || (value as number) < 1) fail(key, "must be a positive integer");
    } else if ((STRINGS as readonly string[]).includes(key)) {
      if (typeof value !== "string") fail(key, "must be a string");
    } else if (key === "budgetUsd" || key === "formatPenalty") {
      if (typeof value !== "number" || value < 0) fail(key, "must be a number ≥ 0");
    } else if (key === "searchUrl") {
      if (typeof value !== "string" || !SEARCH_SETTING_PATTERN.test(value)) fail(key, `must be ${SEARCH_SETTING_FORM}`);
    } else if (key === "thinking") {
      if (typeof value !== "boolean") fail(key, "must be true or false");
    } else if (key === "prices") {
      validatePrices(value, (problem) => fail(key, problem));
    }
    out[key] = value;
  }
  return out as Overrides;
}

function validatePrices(value: unknown, fail: (problem: string) => never): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail("must map model ids to prices");
  for (const [model, p] of Object.entries(value as object)) {
    for (const k of ["prefill", "sample", "train"] as const) {
      const v = (p as Record<string, unknown>)?.[k];
      if (typeof v !== "number" || v < 0) fail(`for ${model}: "${k}" must be a number ≥ 0 (USD per 1M tokens)`);
    }
  }
}

/** Reads `agent-lab.json` from a workspace folder (absent = no overrides). */
export function readWorkspaceConfig(workspaceDir: string): Overrides {
  const file = join(workspaceDir, CONFIG_FILE);
  if (!existsSync(file)) return {};
  const text = readFileSync(file, "utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new FileFormatError(file, jsonErrorLine(text, e as Error), `not valid JSON (${(e as Error).message})`);
  }
  return validateOverrides(raw, file, (key) => lineOfKey(text, key));
}

/** The environment variable that carries settings (a JSON object) from the extension to its jobs. */
export const SETTINGS_ENV = "AGENT_LAB_SETTINGS";

/** Settings from `AGENT_LAB_SETTINGS` (unset or blank = no overrides), validated like the file. */
export function readEnvConfig(env: NodeJS.ProcessEnv = process.env): Overrides {
  const text = env[SETTINGS_ENV];
  if (text === undefined || !text.trim()) return {};
  const where = `environment variable ${SETTINGS_ENV}`;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new FileFormatError(where, undefined, `not valid JSON (${(e as Error).message})`);
  }
  return validateOverrides(raw, where);
}

/** The price row for a model, or a refusal that says how to add one. */
export function pricesFor(config: AgentLabConfig, model: string): ModelPrices {
  const p = config.prices[model];
  if (!p) {
    throw new UserError(
      `no price for model "${model}": add it under "prices" in ${CONFIG_FILE} ` +
        `(USD per 1M tokens: {"prefill": …, "sample": …, "train": …}) before running a step that spends money`,
    );
  }
  return p;
}

function lineOfKey(text: string, key: string): number | undefined {
  const idx = text.indexOf(`"${key}"`);
  return idx < 0 ? undefined : text.slice(0, idx).split("\n").length;
}

/** Line of a JSON.parse error, from the "position N" Node puts in the message. */
export function jsonErrorLine(text: string, error: Error): number | undefined {
  const m = /position (\d+)/.exec(error.message);
  if (m) return text.slice(0, Number(m[1])).split("\n").length;
  const lc = /line (\d+)/.exec(error.message);
  return lc ? Number(lc[1]) : undefined;
}
