/**
 * Where each environment keeps its data under the config's dataDir: HotpotQA in dataDir itself
 * (workspaces from before environments keep working), every other environment in dataDir/<name>.
 * Pure, so the cost estimate (which the extension loads at activation) can find a split's file
 * without loading an environment.
 */
import { join } from "node:path";
import { HOTPOTQA_NAME } from "./catalog";

export { HOTPOTQA_NAME };

export function environmentDataDir(env: string, dataDir: string): string {
  return env === HOTPOTQA_NAME ? dataDir : join(dataDir, env);
}
