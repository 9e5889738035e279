/** The synthetic multi-hop world's environment: HotpotQA's episodes, search and scorer under the world's own name. */
import type { EnvItem, Environment } from "../../harness/environment";
import { HOTPOTQA } from "./index";
import { HOTPOTQA_WORLD_INFO, HOTPOTQA_WORLD_NAME } from "./world-info";

export const WORLD_ENVIRONMENT: Environment<EnvItem> = Object.freeze({
  ...(HOTPOTQA as unknown as Environment<EnvItem>),
  name: HOTPOTQA_WORLD_NAME,
  version: HOTPOTQA_WORLD_INFO.version,
  summary: HOTPOTQA_WORLD_INFO.summary,
});

/** The name other modules imported before environments were found from their folders (envs/folders.ts). */
export const HOTPOTQA_WORLD = WORLD_ENVIRONMENT;
