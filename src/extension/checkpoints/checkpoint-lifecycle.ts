/**
 * The Checkpoints rows' lifecycle state, from `agent-lab ckpt status --json`: each registered name's
 * expiry and public flag on the service that holds it, the note a row's description gains, and
 * which checkpoints expire within EXPIRY_WARNING_DAYS. vscode-free, tested in plain Node.
 */
import {
  expiresSoon,
  formatBytes,
  rowLifecycleNote,
  type CheckpointStatus,
  type OutsideCheckpoints,
} from "../../core/base/checkpoints/remote-state";

export type { CheckpointStatus, OutsideCheckpoints };

/** The CLI's JSON (an array) keyed by name; anything else is no information. */
export function parseCheckpointStatus(text: string): Map<string, CheckpointStatus> {
  const out = new Map<string, CheckpointStatus>();
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch {
    // Not JSON (an older CLI, or a crash message): the rows show no lifecycle note.
    return out;
  }
  if (!Array.isArray(rows)) return out;
  for (const r of rows as CheckpointStatus[])
    if (r && typeof r.name === "string") out.set(r.name, { ...r, state: r.state ?? null, sampler: r.sampler ?? null });
  return out;
}

/** `agent-lab ckpt --remote --json`; anything else (a refusal, an older CLI) is no information. */
export function parseOutsideCheckpoints(text: string): OutsideCheckpoints | undefined {
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch {
    // Not JSON: the view shows no group of the service's other checkpoints.
    return undefined;
  }
  const r = report as Partial<OutsideCheckpoints> | null;
  if (!r || typeof r !== "object" || !Array.isArray(r.checkpoints)) return undefined;
  const checkpoints = r.checkpoints.filter((c) => c && typeof c.tinker_path === "string");
  return {
    backend: r.backend === "local" ? "local" : "tinker",
    checkpoints,
    total: typeof r.total === "number" ? r.total : checkpoints.length,
  };
}

/** The group's label: "On the local backend, not in this folder (3)". */
export function outsideGroupLabel(o: OutsideCheckpoints): string {
  return `On ${o.backend === "local" ? "the local backend" : "Tinker"}, not in this folder (${o.checkpoints.length})`;
}

/** An outside checkpoint's row: its id as the label, type, size and lifecycle note as the description. */
export function outsideRow(
  c: OutsideCheckpoints["checkpoints"][number],
  now = Date.now(),
): {
  label: string;
  description: string;
} {
  const size = c.size_bytes === undefined ? undefined : formatBytes(c.size_bytes);
  return {
    label: c.tinker_path.replace(/^tinker:\/\//, ""),
    description: [c.checkpoint_type, size, rowLifecycleNote(c, now)].filter(Boolean).join(" · "),
  };
}

/** "expires in 6.9 days · public", with the sampler's own when it differs; "not on the service" when both are gone. */
export function lifecycleNote(s: CheckpointStatus | undefined, now = Date.now()): string | undefined {
  if (!s) return undefined;
  const primary = s.state ?? s.sampler;
  if (!primary) return `not on ${s.backend === "local" ? "the local backend" : "Tinker"}`;
  const note = rowLifecycleNote(primary, now);
  if (s.state && s.sampler) {
    const other = rowLifecycleNote(s.sampler, now);
    if (other !== note) return `${note} (sampler: ${other})`;
  }
  return note;
}

/** A row's description with its lifecycle note after it. */
export function withLifecycle(description: string, note: string | undefined): string {
  if (!note) return description;
  return description ? `${description} · ${note}` : note;
}

/** The registered checkpoints with a path that expires within EXPIRY_WARNING_DAYS. */
export function expiringSoon(
  statuses: Iterable<CheckpointStatus>,
  now = Date.now(),
): { name: string; path: string; expires: string }[] {
  const out: { name: string; path: string; expires: string }[] = [];
  for (const s of statuses)
    for (const c of [s.state, s.sampler])
      if (c?.expires_at && expiresSoon(c, now)) out.push({ name: s.name, path: c.tinker_path, expires: c.expires_at });
  return out;
}
