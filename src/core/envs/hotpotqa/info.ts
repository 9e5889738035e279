/** What the HotpotQA agent declares as data (see EnvironmentInfo): listed without loading its code. */
import type { EnvironmentInfo } from "../../harness/environment";

export const HOTPOTQA_NAME = "hotpotqa";

export const INFO: EnvironmentInfo = Object.freeze<EnvironmentInfo>({
  name: HOTPOTQA_NAME,
  // The recipe's first environment: listed first, the default of a workspace that names none.
  order: 0,
  version: "1",
  // Runs from before environments existed were all of it, at its first version: a file naming no environment means it.
  impliedVersion: "1",
  summary: "HotpotQA distractor questions; the model searches Wikipedia paragraphs (BM25) and answers; reward = F1",
  // Exact match pairs by McNemar; token F1 (the reward) is what views sort by.
  metrics: [
    { name: "em", label: "EM", kind: "binary", test: "mcnemar", format: "0.000" },
    { name: "f1", label: "F1", kind: "continuous", primary: true, test: "paired-bootstrap", format: "0.000" },
  ],
  hasTools: true,
  dataset: "HotpotQA",
  // The published evaluation set: the distractor dev questions.
  evalItems: 7405,
  limitation: "the corpus only contains paragraphs that appear in HotpotQA, so it is easier than full Wikipedia.",
  sftSources: ["sample", "teacher", "runs"],
  dataInDataDir: true,
  taskAnswerFormat: "text",
  traceControls: ["searches", "gold-in-results"],
  harderQuestions: "HotpotQA's level column",
  cookbookNames: { datasets: ["hotpotqa"] },
  prepareSources: {
    hub: { repo: "hotpotqa/hotpot_qa", config: "distractor" },
    local: {
      roles: [
        { flag: "train", label: "Train files" },
        { flag: "dev", label: "Dev (validation) files" },
      ],
      extensions: ["json", "jsonl", "parquet"],
      formats: "official JSON lists, JSONL or parquet",
    },
  },
});

/** The name other modules imported before environments were found from their folders (envs/folders.ts). */
export const HOTPOTQA_INFO = INFO;
