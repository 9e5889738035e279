/** The pipeline's synthetic multi-hop world as its own environment name: HotpotQA's code, search, scorer and metrics on invented entities. */
import type { EnvironmentInfo } from "../../harness/environment";
import { HOTPOTQA_INFO, HOTPOTQA_NAME } from "./info";

export const HOTPOTQA_WORLD_NAME = "hotpotqa-world";

export const WORLD_INFO: EnvironmentInfo = Object.freeze<EnvironmentInfo>({
  ...HOTPOTQA_INFO,
  name: HOTPOTQA_WORLD_NAME,
  summary:
    "the offline multi-hop world: invented people, companies and towns (seeded) in HotpotQA's shape; the model searches them (BM25) and answers; reward = F1",
  // The same heading and caveat as reports on the world made before it had its own name.
  dataset: "the synthetic world's",
  limitation:
    "the questions, titles and paragraphs are an invented offline world, so these numbers show that the recipe runs end to end, not what a model scores on HotpotQA.",
  taskAnswerFormat: undefined,
  // Its data is written by its generator, not fetched or read from files; no cookbook run is on it.
  prepareSources: undefined,
  cookbookNames: undefined,
  // Runs on the world always name it: only the real environment is what files naming none mean.
  impliedVersion: undefined,
  worldOf: HOTPOTQA_NAME,
  preparedSource: "agent-lab pipeline synthetic world",
});

/** The name other modules imported before environments were found from their folders (envs/folders.ts). */
export const HOTPOTQA_WORLD_INFO = WORLD_INFO;
