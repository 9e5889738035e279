/** What the calculator declares as data (see EnvironmentInfo): the light list reads this without its code. */
import type { EnvironmentInfo } from "../../../src/core/harness/environment";

export const INFO: EnvironmentInfo = Object.freeze<EnvironmentInfo>({
  name: "calculator",
  version: "1",
  summary: "two-number sums with a calculator tool (an example environment)",
  // One 0/1 verdict: the right sum or not; primary and binary at once.
  metrics: [{ name: "exact", label: "exact", kind: "binary", primary: true, test: "mcnemar", format: "0.000" }],
  hasTools: true,
  dataset: "calculator sums",
  limitation: "the questions are generated two-number sums: these numbers show the recipe runs, not a model's skill.",
  sftSources: ["sample", "runs"],
});
