/**
 * The environments generated tasks can train: what their answers are (the filters' answer check)
 * and how the base policy's tries are graded. Names match the environments' `--env` names.
 */
import type { AnswerFormat } from "./answer";

export const TASK_ENVS = ["gsm8k", "hotpotqa"] as const;
export type TaskEnv = (typeof TASK_ENVS)[number];

export const TASK_ANSWER_FORMAT: Readonly<Record<TaskEnv, AnswerFormat>> = Object.freeze({ gsm8k: "number", hotpotqa: "text" });
