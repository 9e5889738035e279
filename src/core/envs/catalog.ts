/**
 * The environments as everything outside their folders names them, built from the folders found
 * under src/core/envs/ (folders.ts: each holds an info.ts exporting INFO, pure data: name, version,
 * summary, metrics, tools, SFT sources, report text, order; and optionally a world-info.ts exporting
 * WORLD_INFO), so the extension can list the environments at activation and the step specs can
 * offer them as choices without loading an environment's code. No list here names one: adding an
 * environment is adding a folder. registry.ts loads the same folders' code.
 */
import type { EnvironmentId, EnvironmentInfo, SftSource } from "../harness/environment";
import { metricRoles, UNKNOWN_ENV_METRICS, type MetricDeclaration, type MetricRoles } from "../base/runs/metrics";
import { LIGHT_FOLDERS } from "./discovered-info";
import { folderExport } from "./folders";

export type { EnvironmentInfo, MetricDeclaration, MetricRoles, SftSource };

interface FolderInfo {
  folder: string;
  info: EnvironmentInfo;
  world: EnvironmentInfo | undefined;
}

/** Declared order first (info's `order`, lower first; none after all), then the folder's name. */
function listedBefore(a: FolderInfo, b: FolderInfo): number {
  const [x, y] = [a.info.order ?? Number.POSITIVE_INFINITY, b.info.order ?? Number.POSITIVE_INFINITY];
  if (x !== y) return x < y ? -1 : 1;
  return a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0;
}

const FOLDERS: readonly FolderInfo[] = LIGHT_FOLDERS.map((f) => ({
  folder: f.folder,
  info: folderExport<EnvironmentInfo>(f, "light", "info")!,
  world: folderExport<EnvironmentInfo>(f, "light", "world-info"),
})).sort(listedBefore);

// The folder is the environment's name: `--env NAME`, its data folder and the registry's lookup agree.
for (const f of FOLDERS) {
  if (f.info.name !== f.folder)
    throw new Error(
      `envs/${f.folder}/info.ts names the environment ${JSON.stringify(f.info.name)}: name its folder so`,
    );
}

/** The environments, in their declared order (the first is the default). */
export const ENVIRONMENT_INFO: readonly EnvironmentInfo[] = Object.freeze(FOLDERS.map((f) => f.info));

export const ENVIRONMENT_NAMES: readonly string[] = Object.freeze(ENVIRONMENT_INFO.map((e) => e.name));

/**
 * The environment of a workspace that names none, listed first by pickers: the first in the
 * declared order (config `env`'s default names it; the registry's test checks they agree).
 */
export const DEFAULT_ENVIRONMENT_INFO: EnvironmentInfo = ENVIRONMENT_INFO[0];

/**
 * What a file that names no environment means (a run manifest or a report without `environment`):
 * the one environment whose info declares `impliedVersion`, at that version. Runs from before
 * environments existed name none; manifest-environment.ts reads and writes the field by it.
 */
export const IMPLIED_ENVIRONMENT: EnvironmentId = (() => {
  const implied = [...FOLDERS.map((f) => f.info), ...FOLDERS.flatMap((f) => (f.world ? [f.world] : []))].filter(
    (e) => e.impliedVersion !== undefined,
  );
  if (implied.length !== 1 || !ENVIRONMENT_INFO.includes(implied[0]))
    throw new Error(
      `exactly one environment's info.ts must declare impliedVersion (what files naming no environment mean); found ${implied.length === 0 ? "none" : implied.map((e) => e.name).join(", ")}`,
    );
  return Object.freeze({ name: implied[0].name, version: implied[0].impliedVersion! });
})();

/**
 * The offline worlds, each its own environment name over a real environment's code (its info's
 * `worldOf`): their runs are read, labelled and compared as runs of the world, never of the real
 * dataset. Not `--env` choices of the single steps; `agent-lab pipeline --env` offers the real
 * environments that have one (PIPELINE_ENVIRONMENTS). In ENVIRONMENT_INFO's order.
 */
export const WORLD_INFO: readonly EnvironmentInfo[] = Object.freeze(FOLDERS.flatMap((f) => (f.world ? [f.world] : [])));

/** The world names, in WORLD_INFO's order. */
export const WORLD_NAMES: readonly string[] = Object.freeze(WORLD_INFO.map((e) => e.name));

/** The environments `agent-lab pipeline --env` runs offline: those an offline world is declared for, in ENVIRONMENT_INFO's order. */
export const PIPELINE_ENVIRONMENTS: readonly string[] = Object.freeze(
  ENVIRONMENT_NAMES.filter((name) => WORLD_INFO.some((w) => w.worldOf === name)),
);

/** The offline world's name for a real environment (undefined: it has none). */
export function worldOf(name: string): string | undefined {
  return WORLD_INFO.find((w) => w.worldOf === name)?.name;
}

/** Environments `agent-lab grade` has a reply grader for (their info says `gradesReplies`). */
export const GRADED_ENVIRONMENTS: readonly string[] = Object.freeze(
  ENVIRONMENT_INFO.filter((e) => e.gradesReplies).map((e) => e.name),
);

/** The environment called `name`; undefined when this build does not know it. */
export function environmentInfo(name: string): EnvironmentInfo | undefined {
  return ENVIRONMENT_INFO.find((e) => e.name === name) ?? WORLD_INFO.find((e) => e.name === name);
}

/**
 * An environment's declared metrics; an unknown one's are the v1 record's two slots. `name`
 * undefined: run files that name no environment (base's MetricsOf), which are IMPLIED_ENVIRONMENT's.
 */
export function environmentMetrics(name: string | undefined): readonly MetricDeclaration[] {
  return environmentInfo(name ?? IMPLIED_ENVIRONMENT.name)?.metrics ?? UNKNOWN_ENV_METRICS;
}

/** An environment's primary and binary metric declarations. */
export function environmentRoles(name: string): MetricRoles {
  return metricRoles(environmentMetrics(name));
}

/** Whether `sft-data` takes `source` for the environment called `name`; an unknown one is given the benefit of the doubt (its own code decides). */
export function takesSftSource(name: string, source: SftSource): boolean {
  return environmentInfo(name)?.sftSources.includes(source) ?? true;
}

// Every declaration list must name its roles (a missing primary would blank every view).
for (const e of [...ENVIRONMENT_INFO, ...WORLD_INFO]) metricRoles(e.metrics);
// A world reuses a real environment's code: it must name one, and take its metrics unchanged.
for (const w of WORLD_INFO) {
  const real = ENVIRONMENT_INFO.find((e) => e.name === w.worldOf);
  if (!real || JSON.stringify(real.metrics) !== JSON.stringify(w.metrics))
    throw new Error(`envs/catalog.ts: the world ${w.name} must name a registered environment and keep its metrics`);
}
