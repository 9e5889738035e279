/** The offline arithmetic world's environment: GSM8K's episodes, grader and metrics under the world's name and data folder. */
import { join } from "node:path";
import type { EnvItem, Environment } from "../../harness/environment";
import { GSM8K } from "./environment";
import { GSM8K_WORLD_INFO, GSM8K_WORLD_NAME } from "./world-info";

export const WORLD_ENVIRONMENT: Environment<EnvItem> = Object.freeze({
  ...(GSM8K as unknown as Environment<EnvItem>),
  name: GSM8K_WORLD_NAME,
  version: GSM8K_WORLD_INFO.version,
  summary: GSM8K_WORLD_INFO.summary,
  replyGrader: undefined,
  data: {
    ...(GSM8K.data as unknown as Environment<EnvItem>["data"]),
    dir: (dataDir: string) => join(dataDir, GSM8K_WORLD_NAME),
  },
});
