/**
 * The environments `--env` can name. Adding one is a folder under src/core/envs/ and a line here
 * (README: "Add your own environment").
 */
import { UserError } from "../errors";
import { ENVIRONMENT_NAMES } from "./catalog";
import { GSM8K } from "./gsm8k/environment";
import { HOTPOTQA, HOTPOTQA_NAME } from "./hotpotqa";
import { manifestEnvironment } from "./manifest";
import type { EnvItem, Environment } from "./types";

export const ENVIRONMENTS: readonly Environment<EnvItem>[] = [HOTPOTQA, GSM8K];

// The light list (catalog.ts) is what the extension and the step specs offer: it must name exactly these.
if (ENVIRONMENTS.map((e) => e.name).join(",") !== ENVIRONMENT_NAMES.join(",")) {
  throw new Error(`envs/catalog.ts lists ${ENVIRONMENT_NAMES.join(", ")} but envs/registry.ts registers ${ENVIRONMENTS.map((e) => e.name).join(", ")}`);
}

/** The environment of a workspace that names none (config `env`'s default). */
export const DEFAULT_ENVIRONMENT = HOTPOTQA_NAME;

export function environmentNames(): string[] {
  return ENVIRONMENTS.map((e) => e.name);
}

/** The environment called `name`, or a refusal that lists the known ones. */
export function environmentByName(name: string, flag = "--env"): Environment<EnvItem> {
  const env = ENVIRONMENTS.find((e) => e.name === name);
  if (!env) throw new UserError(`${flag} ${JSON.stringify(name)}: unknown environment; known: ${environmentNames().join(", ")}`);
  return env;
}

/** The registered environment a run's manifest names; undefined when this build does not know it. */
export function environmentOfManifest(manifest: unknown): Environment<EnvItem> | undefined {
  const id = manifestEnvironment(manifest);
  return ENVIRONMENTS.find((e) => e.name === id.name);
}
