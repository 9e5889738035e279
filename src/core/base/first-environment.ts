/**
 * The recipe's first environment, the one name base/ must know: files from before environments
 * existed name none and mean it (a manifest without `environment` is it at version 1:
 * runs/manifest-environment.ts), and a workspace that names none runs it (the config's `env`
 * default). base/ sits below envs/ (layers), so it cannot ask the catalog; tests check that an
 * environment of this name and version is registered and is envs/registry.ts's DEFAULT_ENVIRONMENT.
 */
export const FIRST_ENVIRONMENT: { readonly name: string; readonly version: string } = Object.freeze({
  name: "hotpotqa",
  version: "1",
});
