/**
 * The environments `--env` can name, with their code: each folder under src/core/envs/ that the
 * catalog lists (folders.ts) gives its environment.ts's ENVIRONMENT, and optionally its offline
 * world's environment (world-env.ts), its offline pipeline (offline.ts), what gen-tasks uses
 * (gen-tasks.ts), its scripted reader for `--backend scripted` (scripted.ts) and its failure labels (failures.ts). Adding one is adding a folder (README: "Add your own environment").
 */
import { UserError } from "../base/errors";
import { ENVIRONMENT_INFO, ENVIRONMENT_NAMES, environmentInfo, WORLD_NAMES } from "./catalog";
import { CODE_FOLDERS } from "./discovered-code";
import { folderExport, type FolderModules } from "./folders";
import { manifestEnvironment } from "./manifest-environment";
import type { EnvItem, Environment } from "../harness/environment";
import type { OfflineWorld } from "../harness/offline-world";
import type { ScriptedReader } from "../harness/policies/scripted";
import type { EnvTaskGeneration } from "../harness/tasks/env-tasks";
import type { FailureLabels } from "../harness/failures";

/** One environment folder's code. */
interface Registered {
  env: Environment<EnvItem>;
  world: Environment<EnvItem> | undefined;
  offline: OfflineWorld | undefined;
  tasks: EnvTaskGeneration | undefined;
  scripted: ScriptedReader | undefined;
  failures: FailureLabels | undefined;
}

function register(f: FolderModules): Registered {
  const env = folderExport<Environment<EnvItem>>(f, "code", "environment")!;
  const world = folderExport<Environment<EnvItem>>(f, "code", "world-env");
  const offline = folderExport<OfflineWorld>(f, "code", "offline");
  if (offline && offline.env !== world)
    throw new Error(`envs/${f.folder}/offline.ts: its OFFLINE_WORLD.env must be world-env.ts's WORLD_ENVIRONMENT`);
  return {
    env,
    world,
    offline,
    tasks: folderExport<EnvTaskGeneration>(f, "code", "gen-tasks"),
    scripted: folderExport<ScriptedReader>(f, "code", "scripted"),
    failures: folderExport<FailureLabels>(f, "code", "failures"),
  };
}

const BY_FOLDER = new Map(CODE_FOLDERS.map((f) => [f.folder, register(f)]));

/** The folders' code in the catalog's order (its folders are the environments' names). */
const REGISTERED: readonly Registered[] = ENVIRONMENT_INFO.map((info) => {
  const r = BY_FOLDER.get(info.name);
  if (!r) throw new Error(`envs/${info.name}: the catalog lists it but its code was not found`);
  return r;
});

export const ENVIRONMENTS: readonly Environment<EnvItem>[] = Object.freeze(REGISTERED.map((r) => r.env));

/** The offline worlds' environments (catalog.ts WORLD_INFO): a real one's code under the world's name. */
export const WORLD_ENVIRONMENTS: readonly Environment<EnvItem>[] = Object.freeze(
  REGISTERED.flatMap((r) => (r.world ? [r.world] : [])),
);

if (WORLD_ENVIRONMENTS.map((e) => e.name).join(",") !== WORLD_NAMES.join(",")) {
  throw new Error(
    `the environment folders declare the worlds ${WORLD_NAMES.join(", ")} (world-info.ts) but register ${WORLD_ENVIRONMENTS.map((e) => e.name).join(", ")} (world-env.ts)`,
  );
}

// The light list (catalog.ts) is what the extension and the step specs offer: it must name exactly these.
if (ENVIRONMENTS.map((e) => e.name).join(",") !== ENVIRONMENT_NAMES.join(",")) {
  throw new Error(
    `the environment folders' info.ts name ${ENVIRONMENT_NAMES.join(", ")} but their environment.ts register ${ENVIRONMENTS.map((e) => e.name).join(", ")}`,
  );
}

// What `agent-lab grade` offers (the light list) must be the environments that have a reply grader.
for (const e of ENVIRONMENTS) {
  if (Boolean(e.replyGrader) !== Boolean(environmentInfo(e.name)?.gradesReplies)) {
    throw new Error(`envs/${e.name}: its info's gradesReplies and its environment's replyGrader disagree`);
  }
}

/** The environment of a workspace that names none (config `env`'s default): the first in the declared order. */
export const DEFAULT_ENVIRONMENT = ENVIRONMENT_NAMES[0];

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
  return REGISTERED[ENVIRONMENT_NAMES.indexOf(name)]?.offline;
}

/** What `gen-tasks --env NAME` generates and solves with (its folder's gen-tasks.ts; undefined: none). */
export function taskGeneration(name: string): EnvTaskGeneration | undefined {
  return REGISTERED[ENVIRONMENT_NAMES.indexOf(name)]?.tasks;
}

/** The environment's own scripted reader for `--backend scripted` (its folder's scripted.ts; undefined: none). */
export function scriptedReader(name: string): ScriptedReader | undefined {
  return REGISTERED[ENVIRONMENT_NAMES.indexOf(name)]?.scripted;
}

/**
 * The failure labels of the environment a run names (its folder's failures.ts; a world's runs are
 * labelled by its folder's rules, as their records have the same shape); undefined: it declares none.
 */
export function failureLabels(name: string): FailureLabels | undefined {
  return REGISTERED.find((r) => r.env.name === name || r.world?.name === name)?.failures;
}
