/** What GSM8K declares as data (see EnvironmentInfo): listed without loading its code. */
import type { EnvironmentInfo } from "../../harness/environment";

export const GSM8K_NAME = "gsm8k";

export const INFO: EnvironmentInfo = Object.freeze<EnvironmentInfo>({
  name: GSM8K_NAME,
  order: 1,
  version: "1",
  summary:
    "GSM8K grade-school math, single turn, no tools; the cookbook's few-shot prompt and \\boxed{} grader; reward = correct",
  // One 0/1 verdict, no partial credit: it is both the primary and the binary metric.
  metrics: [{ name: "correct", label: "accuracy", kind: "binary", primary: true, test: "mcnemar", format: "0.000" }],
  hasTools: false,
  dataset: "GSM8K",
  // The published evaluation set: the test split.
  evalItems: 1319,
  limitation:
    "GSM8K's test set has been public since 2021 and may be in the model's pre-training data, and only the last \\boxed{} answer is graded (a right answer written otherwise counts as wrong), so accuracy here is not a clean measure of reasoning.",
  // The heuristic reader searches and extracts spans: it has nothing to say about arithmetic.
  sftSources: ["sample", "runs"],
  gradesReplies: true,
  taskAnswerFormat: "number",
  trainsOnTaskSets: true,
  // The cookbook's math_rl recipe (its gsm8k and math datasets) is the task this environment twins.
  cookbookNames: { datasets: ["gsm8k", "math"], recipes: ["math_rl"] },
  prepareSources: {
    hub: { repo: "openai/gsm8k", config: "main" },
    local: {
      roles: [
        { flag: "train", label: "Train files" },
        { flag: "test", label: "Test files" },
      ],
      extensions: ["jsonl", "parquet"],
      formats: "the main config's {question, answer} records as JSONL or parquet",
    },
  },
});

/** The name other modules imported before environments were found from their folders (envs/folders.ts). */
export const GSM8K_INFO = INFO;
