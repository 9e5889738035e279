/**
 * A checkpoint as the service reports it (size, created, expiry, public), in words: one line for
 * `agent-lab ckpt info`, a short description for a Checkpoints tree row, and the expiry warning
 * both give when a checkpoint the workspace uses expires soon.
 */
import type { Checkpoint } from "../tinker/wire/types";

/** One line of `agent-lab ckpt status --json`: a registered name and the service's record of each of its paths (null: not there). */
export interface CheckpointStatus {
  name: string;
  backend: "local" | "tinker";
  state: Checkpoint | null;
  sampler: Checkpoint | null;
}

/**
 * `agent-lab ckpt --remote --json`: the account's checkpoints on one service that no registered name
 * points at (the Checkpoints view's "On the service, not in this folder" group), of `total` listed.
 */
export interface OutsideCheckpoints {
  backend: "local" | "tinker";
  checkpoints: Checkpoint[];
  total: number;
}

/** Warn when a checkpoint the workspace uses expires within this many days. */
export const EXPIRY_WARNING_DAYS = 2;
const DAY_MS = 86_400_000;

export function formatBytes(n: number | undefined): string {
  if (n === undefined) return "size unknown";
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/** "in 6.9 days", "in 5 h", "in 12 min" (a time before now reads "expired"). */
export function timeLeft(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  if (ms <= 0) return "expired";
  if (ms >= DAY_MS) return `in ${(ms / DAY_MS).toFixed(1)} days`;
  if (ms >= 3_600_000) return `in ${Math.floor(ms / 3_600_000)} h`;
  return `in ${Math.max(1, Math.floor(ms / 60_000))} min`;
}

/** Whether a checkpoint expires within EXPIRY_WARNING_DAYS. */
export function expiresSoon(c: Pick<Checkpoint, "expires_at">, now = Date.now()): boolean {
  return (
    c.expires_at !== undefined && c.expires_at !== null && Date.parse(c.expires_at) - now < EXPIRY_WARNING_DAYS * DAY_MS
  );
}

/** "expires 2026-12-12T10:00:00Z (in 7.0 days)" or "never expires". */
export function describeExpiry(c: Pick<Checkpoint, "expires_at">, now = Date.now()): string {
  return c.expires_at ? `expires ${c.expires_at} (${timeLeft(c.expires_at, now)})` : "never expires";
}

/** One line: path, type, size, created, expiry, public. */
export function describeRemoteCheckpoint(c: Checkpoint, now = Date.now()): string {
  return [
    c.tinker_path,
    c.checkpoint_type,
    formatBytes(c.size_bytes),
    `created ${c.time}`,
    describeExpiry(c, now),
    c.public ? "public" : "private",
  ].join("  ");
}

/** A tree row's short note: "expires in 6.9 days · public", "no expiry · private". */
export function rowLifecycleNote(c: Checkpoint, now = Date.now()): string {
  const expiry = c.expires_at ? `expires ${timeLeft(c.expires_at, now)}` : "no expiry";
  return `${expiry} · ${c.public ? "public" : "private"}`;
}
