/**
 * The Checkpoints view's data, read tolerantly from the registry `<runsDir>/checkpoints.jsonl`
 * (entries: name, sampler_path, state_path, base_model, parent, data_hash, step, kind, run).
 * A torn or bad line is skipped and counted, never fatal: the registry is appended to while
 * training runs. A later entry with the same name replaces the earlier one (as the registry says).
 * vscode-free, tested in plain Node.
 */
import { existsSync, readFileSync } from "node:fs";
import { registryPath } from "../../core/base/checkpoints/registry";
import { readCookbookRun } from "../../core/views/interop/cookbook";
import { valScoreText, type CheckpointValScore } from "../../core/views/checkpoints/val-score-text";

export interface CheckpointEntry {
  name: string;
  sampler_path?: string;
  state_path?: string;
  base_model?: string;
  /** The checkpoint name (or state path) this one was trained from. */
  parent?: string;
  data_hash?: string;
  step?: number;
  epoch?: number;
  kind?: string;
  /** The training run folder (name under runsDir, or a path). */
  run?: string;
  created?: string;
  /**
   * A tinker-cookbook run's checkpoint: the environment its folder names (core's
   * cookbook-environment.ts) and what said so; `environment` undefined: the folder does not say,
   * and Evaluate asks (it never takes the workspace's default for it).
   */
  cookbook?: { environment?: string; from?: string };
}

export interface CheckpointRegistry {
  entries: CheckpointEntry[];
  /** 1-based line numbers that could not be read. */
  badLines: number[];
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);
const int = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

export function parseCheckpointRegistry(text: string): CheckpointRegistry {
  const byName = new Map<string, CheckpointEntry>();
  const badLines: number[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      badLines.push(i + 1);
      return;
    }
    const r = raw as Record<string, unknown>;
    const name = typeof raw === "object" && raw !== null ? str(r.name) : undefined;
    if (!name) {
      badLines.push(i + 1);
      return;
    }
    byName.delete(name); // re-registered: moves to its new position
    byName.set(name, {
      name,
      sampler_path: str(r.sampler_path),
      state_path: str(r.state_path),
      base_model: str(r.base_model),
      parent: str(r.parent),
      data_hash: str(r.data_hash),
      step: int(r.step),
      epoch: int(r.epoch),
      kind: str(r.kind),
      run: str(r.run),
      created: str(r.created),
    });
  });
  return { entries: [...byName.values()], badLines };
}

export function readCheckpointRegistry(runsDir: string): CheckpointRegistry {
  const file = registryPath(runsDir);
  if (!existsSync(file)) return { entries: [], badLines: [] };
  return parseCheckpointRegistry(readFileSync(file, "utf8"));
}

/**
 * The chain from the base model to this checkpoint: ["Qwen/Qwen3.5-4B", "sft-e2", "grpo-s30"].
 * A parent given as a state path is matched to the entry with that state path; a cycle stops.
 */
export function lineage(entry: CheckpointEntry, entries: readonly CheckpointEntry[]): string[] {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const byState = new Map(entries.flatMap((e) => (e.state_path ? [[e.state_path, e] as const] : [])));
  const chain: string[] = [entry.name];
  const seen = new Set([entry.name]);
  let cur: CheckpointEntry | undefined = entry;
  while (cur?.parent) {
    const parent: CheckpointEntry | undefined = byName.get(cur.parent) ?? byState.get(cur.parent);
    if (!parent) {
      chain.unshift(cur.parent);
      return chain;
    }
    if (seen.has(parent.name)) break;
    seen.add(parent.name);
    chain.unshift(parent.name);
    cur = parent;
  }
  if (cur?.base_model) chain.unshift(cur.base_model);
  return chain;
}

export interface CheckpointRow {
  entry: CheckpointEntry;
  label: string;
  description: string;
  tooltip: string;
  /** Detail lines shown as children: label → value (values copyable). */
  details: { label: string; value: string }[];
}

/** A cookbook checkpoint's environment detail when its folder names none. */
export const COOKBOOK_ENVIRONMENT_UNKNOWN = "not named in config.json (Evaluate asks which)";

/**
 * `scores`: checkpoints' matched val scores by name (core's checkpointValScores); a row with one
 * shows it as "F1 0.512 [0.450, 0.570]" after where it was saved, and names the eval in its tooltip.
 */
export function checkpointRows(
  registry: CheckpointRegistry,
  scores: ReadonlyMap<string, CheckpointValScore> = new Map(),
): CheckpointRow[] {
  return [...registry.entries].reverse().map((e) => {
    const chain = lineage(e, registry.entries);
    const score = scores.get(e.name);
    const where = [
      e.kind,
      e.step !== undefined ? `step ${e.step}` : undefined,
      e.epoch !== undefined ? `epoch ${e.epoch}` : undefined,
      score ? valScoreText(score) : undefined,
    ]
      .filter(Boolean)
      .join(" · ");
    const details = [
      { label: "sampler", value: e.sampler_path ?? "(none)" },
      { label: "state", value: e.state_path ?? "(none)" },
      { label: "lineage", value: chain.join(" → ") },
      { label: "data", value: e.data_hash ?? "(unknown)" },
      ...(e.run ? [{ label: "run", value: e.run }] : []),
      ...(score ? [{ label: `val ${score.metric}`, value: `${valScoreText(score)} (${score.evalRun})` }] : []),
      ...(e.cookbook
        ? [
            {
              label: "environment",
              value: e.cookbook.environment
                ? `${e.cookbook.environment} (${e.cookbook.from})`
                : COOKBOOK_ENVIRONMENT_UNKNOWN,
            },
          ]
        : []),
    ];
    return {
      entry: e,
      label: e.name,
      description: where,
      tooltip: [e.name, where, ...details.map((d) => `${d.label}: ${d.value}`), e.created ? `created ${e.created}` : ""]
        .filter(Boolean)
        .join("\n"),
      details,
    };
  });
}

/**
 * A tinker-cookbook run's checkpoints.jsonl as registry entries (kind "cookbook", step = the batch
 * it was saved after), named `<run>-<checkpoint>` so an eval run's default name is a valid one.
 */
export function cookbookCheckpointEntries(dir: string): CheckpointEntry[] {
  const run = readCookbookRun(dir);
  const label = dir.split(/[\\/]/).filter(Boolean).slice(-2).join("-");
  return run.checkpoints.map((c) => ({
    name: `${label}-${c.name}`.replace(/[^A-Za-z0-9._-]+/g, "-"),
    ...(c.sampler_path ? { sampler_path: c.sampler_path } : {}),
    ...(c.state_path ? { state_path: c.state_path } : {}),
    ...(run.model ? { base_model: run.model } : {}),
    ...(c.batch !== undefined ? { step: c.batch } : {}),
    ...(c.epoch !== undefined ? { epoch: c.epoch } : {}),
    kind: c.final ? "cookbook (final)" : "cookbook",
    run: dir,
    cookbook: run.environment ? { environment: run.environment.name, from: run.environment.from } : {},
  }));
}
