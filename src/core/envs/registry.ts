/**
 * The environments `--env` can name. Adding one is a folder under src/core/envs/ and a line here
 * (README: "Add your own environment").
 */
import { UserError } from "../base/errors";
import { ENVIRONMENT_NAMES, environmentInfo } from "./catalog";
import { GSM8K } from "./gsm8k/environment";
import { HOTPOTQA, HOTPOTQA_NAME } from "./hotpotqa";
import { manifestEnvironment } from "../base/runs/manifest-environment";
import type { EnvItem, Environment } from "../harness/environment";

export const ENVIRONMENTS: readonly Environment<EnvItem>[] = [HOTPOTQA, GSM8K];

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

/** The environment called `name`, or a refusal that lists the known ones. */
export function environmentByName(name: string, flag = "--env"): Environment<EnvItem> {
  const env = ENVIRONMENTS.find((e) => e.name === name);
  if (!env)
    throw new UserError(
      `${flag} ${JSON.stringify(name)}: unknown environment; known: ${environmentNames().join(", ")}`,
    );
  return env;
}

/** The registered environment a run's manifest names; undefined when this build does not know it. */
export function environmentOfManifest(manifest: unknown): Environment<EnvItem> | undefined {
  const id = manifestEnvironment(manifest);
  return ENVIRONMENTS.find((e) => e.name === id.name);
}
