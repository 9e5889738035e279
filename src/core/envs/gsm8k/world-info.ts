/** The offline arithmetic world as its own environment name: GSM8K's code, prompt, grader and metrics on invented problems. */
import type { EnvironmentInfo } from "../../harness/environment";
import { GSM8K_INFO, GSM8K_NAME } from "./info";

export const GSM8K_WORLD_NAME = "gsm8k-world";

export const WORLD_INFO: EnvironmentInfo = Object.freeze<EnvironmentInfo>({
  ...GSM8K_INFO,
  name: GSM8K_WORLD_NAME,
  summary:
    "the offline arithmetic world: invented GSM8K-shaped word problems (seeded), GSM8K's prompt and \\boxed{} grader; reward = correct",
  dataset: "the arithmetic world's",
  limitation:
    "the problems are an invented offline world whose answer is always a number the problem names, so these numbers show that the recipe runs end to end, not what a model scores on GSM8K.",
  sftSources: ["sample", "teacher", "runs"],
  // A world is not what gen-tasks makes tasks for, nor what `agent-lab grade` is asked about.
  gradesReplies: false,
  taskAnswerFormat: undefined,
  // Its data is written by its generator, not fetched or read from files; no cookbook run is on it.
  prepareSources: undefined,
  cookbookNames: undefined,
  worldOf: GSM8K_NAME,
});

/** The name other modules imported before environments were found from their folders (envs/folders.ts). */
export const GSM8K_WORLD_INFO = WORLD_INFO;
