/**
 * The offline generator: its machinery is harness/tasks/template-generator.ts, and each
 * environment's templates live in its folder's gen-tasks.ts (found through the registry).
 */
export { BREAKAGES, BROKEN_SHARE, type ScriptedGeneratorOptions } from "../../../harness/tasks/template-generator";
// Aliases of the environments' own generators, for importers from before they moved (steps/experiments/arm-tasks.ts).
export { scriptedGsm8kGenerator } from "../../../envs/gsm8k/gen-tasks";
export { readWorldFacts, scriptedWorldGenerator, type WorldFacts } from "../../../envs/hotpotqa/gen-tasks";
