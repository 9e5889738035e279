/** `--dry-run` of a step that can spend: the same estimate the extension confirms, printed. */
import type { AgentLabConfig } from "../core/base/config";
import { dryRunText } from "../core/steps/specs/estimate";
import { estimateStep } from "../core/steps/specs/estimate-context";
import type { FlagSpecs, FlagValues } from "../core/steps/specs/flags";
import type { StepSpec } from "../core/steps/specs/spec";

export function printDryRun<F extends FlagSpecs>(
  spec: StepSpec<F>,
  values: FlagValues<F>,
  config: AgentLabConfig,
  workspaceDir: string,
): void {
  const estimate = estimateStep(spec, values, config, workspaceDir);
  console.log(
    estimate
      ? dryRunText(spec.name, estimate, config.budgetUsd)
      : `agent-lab ${spec.name} with these options spends nothing (no Tinker backend)`,
  );
}
