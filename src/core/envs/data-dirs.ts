import { join } from "node:path";
import { environmentInfo } from "./catalog";

/**
 * Where an environment keeps its data under the config's dataDir: in dataDir itself when its info
 * says so (the first environment's, so workspaces from before environments keep working), else in
 * dataDir/<name>. Pure, so the cost estimate can find a split's file without loading an environment.
 */
export function environmentDataDir(env: string, dataDir: string): string {
  return environmentInfo(env)?.dataInDataDir ? dataDir : join(dataDir, env);
}
