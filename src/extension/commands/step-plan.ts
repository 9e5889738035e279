/**
 * What a job will run and cost, worked out before it starts, exactly as the CLI will: the argv is
 * built from the step's spec, parsed back with the CLI's parser (so defaults and config-backed
 * values are the ones the job will use), and estimated with core's one estimator, the one behind
 * `agent-lab <step> --dry-run`. vscode-free, tested in plain Node against the real CLI.
 */
import { type AgentLabConfig } from "../../core/base/config";
import { loadConfig } from "../../core/envs/config";
import type { Estimate } from "../../core/steps/specs/estimate";
import { estimateStep } from "../../core/steps/specs/estimate-context";
import { parseFlags, withConfigDefaults, type FlagSpecs, type FlagValues } from "../../core/steps/specs/flags";
import type { StepSpec } from "../../core/steps/specs/spec";
import { stepArgs } from "./cli-args";

export interface StepPlan<F extends FlagSpecs> {
  /** argv after `agent-lab`. */
  argv: string[];
  /** Every flag's value as the CLI will see it (defaults and config filled in). */
  values: FlagValues<F>;
  /** The effective config the job will run with. */
  config: AgentLabConfig;
  spendsMoney: boolean;
  /** The cost, when it spends (what --dry-run prints). */
  estimate?: Estimate;
}

export interface PlanWorkspace {
  /** The workspace folder: the job's working directory. */
  folder: string;
  /** The VS Code settings layer the job receives in AGENT_LAB_SETTINGS. */
  overrides: Partial<AgentLabConfig>;
}

export function planStep<F extends FlagSpecs>(
  spec: StepSpec<F>,
  values: Partial<FlagValues<F>>,
  ws: PlanWorkspace,
  positionals: readonly string[] = [],
): StepPlan<F> {
  const argv = stepArgs(spec, values, positionals);
  const parsed = parseFlags(spec.flags, argv.slice(1), {
    command: `agent-lab ${spec.name}`,
    allowPositionals: spec.positionals !== undefined,
  });
  // The job's layers: defaults < agent-lab.json < AGENT_LAB_SETTINGS (the VS Code settings) < flags.
  const config = loadConfig(ws.folder, { ...ws.overrides, ...parsed.overrides } as Partial<AgentLabConfig>, {});
  const full = withConfigDefaults(spec.flags, parsed.values, config);
  const spendsMoney = spec.spends?.(full, positionals, ws.folder) ?? false;
  const estimate = spendsMoney ? estimateStep(spec, full, config, ws.folder, positionals) : undefined;
  return { argv, values: full, config, spendsMoney, ...(estimate ? { estimate } : {}) };
}
