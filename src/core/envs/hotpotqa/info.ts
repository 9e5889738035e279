/** What the HotpotQA agent declares as data (see EnvironmentInfo): listed without loading its code. */
import type { EnvironmentInfo } from "../../harness/environment";

export const HOTPOTQA_NAME = "hotpotqa";

export const HOTPOTQA_INFO: EnvironmentInfo = Object.freeze<EnvironmentInfo>({
  name: HOTPOTQA_NAME,
  version: "1",
  summary: "HotpotQA distractor questions; the model searches Wikipedia paragraphs (BM25) and answers; reward = F1",
  metrics: { em: "EM", f1: "F1" },
  hasTools: true,
  dataset: "HotpotQA",
  limitation: "the corpus only contains paragraphs that appear in HotpotQA, so it is easier than full Wikipedia.",
  sftSources: ["sample", "teacher", "runs"],
  dataInDataDir: true,
});
