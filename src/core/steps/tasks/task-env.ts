/**
 * The environments generated tasks can train: those whose info.ts declares a `taskAnswerFormat`
 * (what their answers are, for the filters' answer check), built from the light catalog so a new
 * environment folder is offered by `gen-tasks --env` without a line here. Names match `--env`.
 */
import { ENVIRONMENT_INFO } from "../../envs/catalog";
import type { AnswerFormat } from "./answer";

/** Alphabetical, as the flag's choices were listed before they were built from the catalog. */
export const TASK_ENVS: readonly string[] = Object.freeze(
  ENVIRONMENT_INFO.filter((e) => e.taskAnswerFormat)
    .map((e) => e.name)
    .sort(),
);
export type TaskEnv = string;

export const TASK_ANSWER_FORMAT: Readonly<Record<TaskEnv, AnswerFormat>> = Object.freeze(
  Object.fromEntries(ENVIRONMENT_INFO.flatMap((e) => (e.taskAnswerFormat ? [[e.name, e.taskAnswerFormat]] : []))),
);
