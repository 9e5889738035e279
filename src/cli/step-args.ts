/**
 * Parsing a command's argv from its step spec: flags validated by the one validator, config-backed
 * flags filled from the workspace's effective config, `--help` rendered from the spec.
 */
import { loadConfig, type AgentLabConfig } from "../core/config";
import { parseFlags, withConfigDefaults, type FlagSpecs, type FlagValues } from "../core/steps/flags";
import { stepHelp, type StepSpec } from "../core/steps/spec";

export interface StepArgs<F extends FlagSpecs> {
  values: FlagValues<F>;
  positionals: string[];
  /** Flags the user gave (not defaults). */
  given: Set<keyof F & string>;
  /** The effective config (defaults < agent-lab.json < AGENT_LAB_SETTINGS < these flags). */
  config: AgentLabConfig;
  workspaceDir: string;
}

/** undefined when the user asked for --help (already printed). */
export function parseStepArgs<F extends FlagSpecs>(spec: StepSpec<F>, argv: readonly string[]): StepArgs<F> | undefined {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(stepHelp(spec as unknown as StepSpec));
    return undefined;
  }
  const parsed = parseFlags(spec.flags, argv, { command: `agent-lab ${spec.name}`, allowPositionals: spec.positionals !== undefined });
  const workspaceDir = typeof (parsed.values as Record<string, unknown>).workspace === "string" ? ((parsed.values as Record<string, unknown>).workspace as string) : ".";
  const config = loadConfig(workspaceDir, parsed.overrides as Partial<AgentLabConfig>);
  return { values: withConfigDefaults(spec.flags, parsed.values, config), positionals: parsed.positionals, given: parsed.given, config, workspaceDir };
}
