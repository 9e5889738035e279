/**
 * The environments `--env` can name. Adding one is a folder under src/core/envs/ and a line here
 * (README: "Add your own environment").
 */
import { UserError } from "../base/errors";
import { ENVIRONMENT_NAMES, environmentInfo, WORLD_NAMES } from "./catalog";
import { GSM8K } from "./gsm8k/environment";
import { HOTPOTQA, HOTPOTQA_NAME } from "./hotpotqa";
import { manifestEnvironment } from "../base/runs/manifest-environment";
import type { EnvItem, Environment } from "../harness/environment";
import type { OfflineWorld } from "../harness/offline-world";
import { GSM8K_OFFLINE } from "./gsm8k/offline";
import { HOTPOTQA_WORLD } from "./hotpotqa/world-env";

export const ENVIRONMENTS: readonly Environment<EnvItem>[] = [HOTPOTQA, GSM8K];

/** The offline worlds' environments (catalog.ts WORLD_INFO): a real one's code under the world's name. */
export const WORLD_ENVIRONMENTS: readonly Environment<EnvItem>[] = [HOTPOTQA_WORLD, GSM8K_OFFLINE.env];

/**
 * The offline pipelines environments declare, by the real environment's name. The first
 * environment's world runs through the pipeline's own stages (its world, prepare and index are the
 * recipe's shared stages); the others declare everything here.
 */
const OFFLINE_WORLDS: Readonly<Record<string, OfflineWorld>> = Object.freeze({ [GSM8K.name]: GSM8K_OFFLINE });

if (WORLD_ENVIRONMENTS.map((e) => e.name).join(",") !== WORLD_NAMES.join(",")) {
  throw new Error(
    `envs/catalog.ts lists the worlds ${WORLD_NAMES.join(", ")} but envs/registry.ts registers ${WORLD_ENVIRONMENTS.map((e) => e.name).join(", ")}`,
  );
}

// The light list (catalog.ts) is what the extension and the step specs offer: it must name exactly these.
if (ENVIRONMENTS.map((e) => e.name).join(",") !== ENVIRONMENT_NAMES.join(",")) {
  throw new Error(
    `envs/catalog.ts lists ${ENVIRONMENT_NAMES.join(", ")} but envs/registry.ts registers ${ENVIRONMENTS.map((e) => e.name).join(", ")}`,
  );
}

// What `agent-lab grade` offers (the light list) must be the environments that have a reply grader.
for (const e of ENVIRONMENTS) {
  if (Boolean(e.replyGrader) !== Boolean(environmentInfo(e.name)?.gradesReplies)) {
    throw new Error(`envs/${e.name}: its info's gradesReplies and its environment's replyGrader disagree`);
  }
}

/** The environment of a workspace that names none (config `env`'s default). */
export const DEFAULT_ENVIRONMENT = HOTPOTQA_NAME;

export function environmentNames(): string[] {
  return ENVIRONMENTS.map((e) => e.name);
}

/** The environment called `name` (a world's too: its runs name it), or a refusal that lists the known ones. */
export function environmentByName(name: string, flag = "--env"): Environment<EnvItem> {
  const env = ENVIRONMENTS.find((e) => e.name === name) ?? WORLD_ENVIRONMENTS.find((e) => e.name === name);
  if (!env)
    throw new UserError(
      `${flag} ${JSON.stringify(name)}: unknown environment; known: ${environmentNames().join(", ")}`,
    );
  return env;
}

/** The registered environment a run's manifest names; undefined when this build does not know it. */
export function environmentOfManifest(manifest: unknown): Environment<EnvItem> | undefined {
  const id = manifestEnvironment(manifest);
  return ENVIRONMENTS.find((e) => e.name === id.name) ?? WORLD_ENVIRONMENTS.find((e) => e.name === id.name);
}

/** The world environment of a real one (undefined: it has none). */
export function worldEnvironment(name: string): Environment<EnvItem> | undefined {
  const world = environmentInfo(name) && WORLD_NAMES.find((w) => environmentInfo(w)?.worldOf === name);
  return WORLD_ENVIRONMENTS.find((e) => e.name === world);
}

/** The offline pipeline an environment declares beyond its world's name (undefined: the pipeline's own stages). */
export function offlineWorld(name: string): OfflineWorld | undefined {
  return OFFLINE_WORLDS[name];
}
