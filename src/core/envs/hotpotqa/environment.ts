/** The folder's environment under the name the registry finds it by (envs/folders.ts); defined in index.ts. */
export { HOTPOTQA as ENVIRONMENT } from "./index";
