/**
 * Parsing a command's argv from its step spec: flags validated by the one validator, config-backed
 * flags filled from the workspace's effective config, `--help` rendered from the spec.
 */
import { validateOverrides, type AgentLabConfig } from "../core/base/config";
import { loadConfig, mergeConfig } from "../core/envs/config";
import { parseFlags, withConfigDefaults, type FlagSpecs, type FlagValues } from "../core/steps/specs/flags";
import { stepHelp, type StepSpec } from "../core/steps/specs/spec";

export interface StepArgs<F extends FlagSpecs> {
  values: FlagValues<F>;
  positionals: string[];
  /** Flags the user gave (not defaults). */
  given: Set<keyof F & string>;
  /** The effective config (defaults < agent-lab.json < AGENT_LAB_SETTINGS < these flags). */
  config: AgentLabConfig;
  workspaceDir: string;
}

/** Whether argv asks for help (before a `--`, after which words are positionals). */
function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** undefined when the user asked for --help (already printed). */
export function parseStepArgs<F extends FlagSpecs>(
  spec: StepSpec<F>,
  argv: readonly string[],
): StepArgs<F> | undefined {
  if (wantsHelp(argv)) {
    console.log(stepHelp(spec as unknown as StepSpec));
    return undefined;
  }
  const parsed = parseFlags(spec.flags, argv, {
    command: `agent-lab ${spec.name}`,
    allowPositionals: spec.positionals !== undefined,
  });
  const raw = parsed.values as Record<string, unknown>;
  const hasWorkspace = "workspace" in spec.flags;
  const workspaceDir = hasWorkspace && typeof raw.workspace === "string" ? raw.workspace : ".";
  // A step without --workspace (score, serve-local, demo, pipeline) does not read the folder's
  // agent-lab.json: a broken one in the current folder must not stop it.
  const config = hasWorkspace
    ? loadConfig(workspaceDir, parsed.overrides as Partial<AgentLabConfig>)
    : mergeConfig(validateOverrides(parsed.overrides, "command-line options"));
  return {
    values: withConfigDefaults(spec.flags, parsed.values, config),
    positionals: parsed.positionals,
    given: parsed.given,
    config,
    workspaceDir,
  };
}
