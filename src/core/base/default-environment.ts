/**
 * The environment a workspace runs when it names none (the config's `env` default): the recipe's
 * first environment. base/ sits below envs/ (layers), so the config cannot ask the catalog; the name
 * is written here once, and tests check it is a registered environment and envs/registry.ts's
 * DEFAULT_ENVIRONMENT.
 */
export const DEFAULT_ENVIRONMENT_NAME = "hotpotqa";
