/**
 * A step of the recipe, declared once: what it does, its flags, the run kind it writes, whether it
 * can spend money and how much (estimated before it starts). The CLI parses from it, the extension
 * builds its argv and confirmation from it, `--help` and the README's command tables are rendered
 * from it. Pure (no file system): the extension bundles it.
 */
import type { AgentLabConfig } from "../../base/config";
import type { Estimate } from "./estimate";
import { describeDefault, describeRange, flagHelpLines, hasRange, type FlagSpecs, type FlagValues } from "./flags";

/** What a step leaves on disk: the kinds of run folder (the manifest's `kind`). */
export type RunKind = "eval" | "sft-data" | "sft" | "grpo" | "pipeline" | "demo" | "gen-tasks" | "experiment";

export interface EstimateContext {
  config: AgentLabConfig;
  /** $/episode measured on earlier paid runs of this model, when the caller knows some. */
  measuredEpisode?: { usd: number; from: string };
  /** Questions in the split an eval would open (the caller counts the file). */
  splitQuestions?: number;
  /** Examples in the SFT data a train-sft would read (the caller counts the file). */
  sftExamples?: number;
  /** Lines of a gen-tasks --candidates file (the caller counts the file). */
  candidateCount?: number;
  /** The step's positional arguments (experiment: "run", SPEC.json) and the folder relative paths resolve in. */
  positionals?: readonly string[];
  workspaceDir?: string;
}

export interface StepSpec<F extends FlagSpecs = FlagSpecs> {
  name: string;
  /** One line, for the command list and the README. */
  summary: string;
  /** Positional arguments as usage shows them ("RUN...", "QUERY"); none when absent. */
  positionals?: string;
  flags: F;
  /** Extra help after the flag list (formats, colours, statistics). */
  notes?: string;
  writes?: RunKind;
  /**
   * Whether these values bill Tinker (absent = never). `positionals` is absent where only the flags
   * are known (help, docs): answer for the worst case then.
   */
  spends?: (values: FlagValues<F>, positionals?: readonly string[], workspaceDir?: string) => boolean;
  /** The cost before it starts, in the ledger's terms (an upper bound). */
  estimate?: (values: FlagValues<F>, context: EstimateContext) => Estimate;
}

/** Declares a step with its flags' types kept (so `values.limit` is `number | undefined`). */
export function defineStep<F extends FlagSpecs>(spec: StepSpec<F>): StepSpec<F> {
  return spec;
}

/** `agent-lab <step> --help`. */
export function stepHelp(spec: StepSpec): string {
  const usage = `usage: agent-lab ${spec.name}${spec.positionals ? ` ${spec.positionals}` : ""} [options]`;
  const parts = [usage, "", spec.summary, "", ...flagHelpLines(spec.flags)];
  if (spec.notes) parts.push("", spec.notes);
  return parts.join("\n");
}

/** Markdown text: table pipes escaped, and "<dataDir>" kept as text rather than read as an HTML tag. */
const md = (s: string) => s.replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The README's table for one step: flag, what it does, allowed values, default. */
export function stepMarkdown(spec: StepSpec): string {
  const rows = Object.entries(spec.flags).map(([name, f]) => {
    const allowed = hasRange(f)
      ? describeRange(f)
      : f.type === "boolean"
        ? "flag"
        : f.type === "list"
          ? "repeatable"
          : "text";
    const dflt = describeDefault(f).replace(/^\(default:? ?|\)$/g, "");
    const names = [
      `\`--${name}\``,
      ...(f.short ? [`\`-${f.short}\``] : []),
      ...(f.alias ? [`\`--${f.alias}\``] : []),
    ].join(", ");
    return `| ${names} | ${md(f.help)} | ${md(allowed)} | ${md(dflt)} |`;
  });
  const spends = spec.spends ? " Can bill Tinker: `--dry-run` prints the estimate." : "";
  const head = `#### \`agent-lab ${spec.name}${spec.positionals ? ` ${spec.positionals}` : ""}\`\n\n${md(spec.summary)}.${spends}\n`;
  return [head, "| flag | what | allowed | default |", "|---|---|---|---|", ...rows].join("\n");
}
