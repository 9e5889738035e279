/**
 * What step help says about environments, built from the light catalog (each folder's info.ts:
 * name, summary, hub dataset, local file roles, answer format, world), so a new environment folder
 * shows up in every help line and README table without a word written here or in the step specs.
 */
import type { EnvironmentInfo, PrepareFileFlag, TaskAnswerFormat } from "../../harness/environment";
import { ENVIRONMENT_INFO, PIPELINE_ENVIRONMENTS, environmentInfo, worldOf } from "../../envs/catalog";

const names = (infos: readonly EnvironmentInfo[]) => infos.map((e) => e.name).join(", ");

/** "names: text", or the text alone when no environment is named (a build without such an environment). */
export const forEnvironments = (list: string, text: string) => (list ? `${list}: ${text}` : text);

/** An environment in a few words: its summary up to the first ";" (the rest says how it is scored). */
const shortSummary = (e: EnvironmentInfo) => e.summary.split(";")[0].trim();

/** `--env`'s help: every registered environment with what it is. */
export function environmentFlagHelp(): string {
  const list = ENVIRONMENT_INFO.map((e) => `${e.name} (${shortSummary(e)})`).join(", ");
  return `task environment: ${list}; unknown names are refused with the list`;
}

/** The hub datasets `prepare --hub` downloads: "repo config" per environment that declares one. */
export function hubDatasets(): string {
  return ENVIRONMENT_INFO.flatMap((e) =>
    e.prepareSources ? [`${e.prepareSources.hub.repo} ${e.prepareSources.hub.config}`] : [],
  ).join(", ");
}

/** The local record formats, "name: formats" per environment that reads local files. */
export function localFormats(infos: readonly EnvironmentInfo[] = ENVIRONMENT_INFO): string {
  return infos.flatMap((e) => (e.prepareSources ? [`${e.name}: ${e.prepareSources.local.formats}`] : [])).join("; ");
}

/** "name: label" per environment whose local files have the role `flag` takes ("…: dev (validation) files"). */
export function localRole(flag: PrepareFileFlag): string {
  return ENVIRONMENT_INFO.flatMap((e) => {
    const role = e.prepareSources?.local.roles.find((r) => r.flag === flag);
    return role ? [`${e.name}: ${role.label.toLowerCase()}`] : [];
  }).join("; ");
}

/**
 * The environments whose local record files are all of the given flags' roles: a step that takes
 * only `--train` and `--test` reads the files of those whose roles are train and test.
 */
export function environmentsWithRoles(flags: readonly PrepareFileFlag[]): string {
  return names(
    ENVIRONMENT_INFO.filter((e) => {
      const roles = e.prepareSources?.local.roles ?? [];
      return roles.length > 0 && roles.every((r) => flags.includes(r.flag));
    }),
  );
}

/** Those of `among` whose model calls tools (the search agent's: a search corpus; a try is a whole episode). */
export function searchingEnvironments(among: readonly string[] = ENVIRONMENT_INFO.map((e) => e.name)): string {
  return among.filter((name) => environmentInfo(name)?.hasTools).join(", ");
}

/** The environments that train on a gen-tasks folder (`--train-tasks DIR`), in the catalog's order. */
export const TASK_SET_ENVIRONMENTS: readonly string[] = Object.freeze(
  ENVIRONMENT_INFO.filter((e) => e.trainsOnTaskSets).map((e) => e.name),
);

/** gen-tasks' filter that drops an answer not of the environment's format (its reason in steps/tasks/filter.ts). */
const ANSWER_FILTER: Readonly<Record<TaskAnswerFormat, string>> = { number: "non-numeric", text: "non-text" };

/** gen-tasks' answer filters with the environments each applies to: "non-numeric (…) or non-text (…)". */
export function answerFilters(): string {
  return (Object.keys(ANSWER_FILTER) as TaskAnswerFormat[])
    .flatMap((format) => {
      const of = ENVIRONMENT_INFO.filter((e) => e.taskAnswerFormat === format);
      return of.length ? [`${ANSWER_FILTER[format]} (${names(of)})`] : [];
    })
    .join(" or ");
}

/** The recipe's environment: `pipeline`'s default, the one its tinker backend runs. */
export function recipeEnvironment(): EnvironmentInfo {
  const info = environmentInfo(PIPELINE_ENVIRONMENTS[0]);
  if (!info) throw new Error("envs/catalog.ts declares no environment with an offline world");
  return info;
}

/** The recipe environment's local files that `flag` takes, by its info's label ("train files"). */
export function recipeRole(flag: PrepareFileFlag): string {
  const role = recipeEnvironment().prepareSources?.local.roles.find((r) => r.flag === flag);
  return role ? role.label.toLowerCase() : `${flag} files`;
}

/** The formats the recipe environment's local files come in ("official JSON lists, JSONL or parquet"). */
export function recipeFormats(): string {
  return recipeEnvironment().prepareSources?.local.formats ?? "the formats agent-lab prepare reads";
}

/** `pipeline`'s notes on the other environments' offline worlds, one line each. */
export function offlineWorldNotes(): string[] {
  return PIPELINE_ENVIRONMENTS.slice(1).map(
    (name) =>
      `--env ${name}: the same recipe offline on its invented world (base, SFT, GRPO; its grader); runs named ${worldOf(name)}.`,
  );
}
