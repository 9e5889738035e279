/**
 * The registered environments as everything outside their folders names them: their `--env` name,
 * one line for pickers and `--help`, what their metrics are called, whether they have tools, and
 * the one-line caveat a report carries, and their version. Pure data with no imports, so the extension can list the
 * environments at activation and the step specs can offer them as choices without loading an
 * environment's code (its tokenizer, index, grader). Each environment's folder takes these fields
 * from here; registry.ts checks at load that both lists name the same environments.
 */

export const HOTPOTQA_NAME = "hotpotqa";
export const GSM8K_NAME = "gsm8k";

/**
 * Where `sft-data` can take an environment's examples from: the model's own samples (rejection
 * sampling), the scripted teacher (`--teacher scripted`, the offline heuristic reader, which only
 * knows the search agent's protocol), or episodes of runs already scored (`--from-runs`).
 */
export type SftSource = "sample" | "teacher" | "runs";

export interface EnvironmentInfo {
  name: string;
  /** Bump when what an episode is changes (with HARNESS_VERSION's rules); manifests record it. */
  version: string;
  /** One line, for `--help`, pickers and error messages. */
  summary: string;
  /** What the record's `em` and `f1` mean here, as every view labels them (envs/types.ts). */
  metrics: { em: string; f1: string };
  /** Whether the model calls tools (searches are worth showing). */
  hasTools: boolean;
  /** What the questions are, for report headings ("Results on GSM8K test"). */
  dataset: string;
  /** The caveat a report on this environment's numbers carries. */
  limitation: string;
  /** The SFT data sources `sft-data` accepts for it (Collect SFT Data… offers only these). */
  sftSources: readonly SftSource[];
}

export const ENVIRONMENT_INFO: readonly EnvironmentInfo[] = Object.freeze([
  {
    name: HOTPOTQA_NAME,
    version: "1",
    summary: "HotpotQA distractor questions; the model searches Wikipedia paragraphs (BM25) and answers; reward = F1",
    metrics: { em: "EM", f1: "F1" },
    hasTools: true,
    dataset: "HotpotQA",
    limitation: "the corpus only contains paragraphs that appear in HotpotQA, so it is easier than full Wikipedia.",
    sftSources: ["sample", "teacher", "runs"],
  },
  {
    name: GSM8K_NAME,
    version: "1",
    summary: "GSM8K grade-school math, single turn, no tools; the cookbook's few-shot prompt and \\boxed{} grader; reward = correct",
    metrics: { em: "accuracy", f1: "accuracy" },
    hasTools: false,
    dataset: "GSM8K",
    limitation:
      "GSM8K's test set has been public since 2021 and may be in the model's pre-training data, and only the last \\boxed{} answer is graded (a right answer written otherwise counts as wrong), so accuracy here is not a clean measure of reasoning.",
    // The heuristic reader searches and extracts spans: it has nothing to say about arithmetic.
    sftSources: ["sample", "runs"],
  },
]);

export const ENVIRONMENT_NAMES: readonly string[] = Object.freeze(ENVIRONMENT_INFO.map((e) => e.name));

/** Environments `agent-lab grade` has a reply grader for (src/cli/grade.ts keys its table by these). */
export const GRADED_ENVIRONMENTS = [GSM8K_NAME] as const;
export type GradedEnvironment = (typeof GRADED_ENVIRONMENTS)[number];

/** The environment called `name`; undefined when this build does not know it. */
export function environmentInfo(name: string): EnvironmentInfo | undefined {
  return ENVIRONMENT_INFO.find((e) => e.name === name);
}

/** The HotpotQA agent's info: what a manifest without an `environment` field is (envs/manifest.ts). */
export const HOTPOTQA_INFO: EnvironmentInfo = environmentInfo(HOTPOTQA_NAME)!;

/** An environment's metric labels; an unknown one's are the record fields' own names. */
export function metricLabels(name: string): { em: string; f1: string } {
  return environmentInfo(name)?.metrics ?? { em: "EM", f1: "F1" };
}

/** Whether `sft-data` takes `source` for the environment called `name`; an unknown one is given the benefit of the doubt (its own code decides). */
export function takesSftSource(name: string, source: SftSource): boolean {
  return environmentInfo(name)?.sftSources.includes(source) ?? true;
}

/** True when `em` and `f1` are one metric (no partial credit): views show it once. */
export function hasOneMetric(metrics: { em: string; f1: string }): boolean {
  return metrics.em === metrics.f1;
}
