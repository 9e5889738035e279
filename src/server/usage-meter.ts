/**
 * What the local backend meters, answered as Tinker's `GET /api/v1/billing/usage/events` (spec §6):
 * training tokens (forward/backward), prefill and sampled tokens, checkpoints saved, and checkpoint
 * storage in gigabyte-hours, in UTC hour buckets. Each metered request is one line of
 * `<dir>/usage.jsonl` (so usage survives a restart, like the checkpoints); storage is worked out
 * from the live checkpoints when asked.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { appendJsonl, readJsonl } from "../core/base/util/jsonl";
import type {
  BillingEventInfo,
  BillingUsageEvent,
  BillingUsageResponse,
  Checkpoint,
} from "../core/base/tinker/wire/types";
import { HttpError } from "./http-error";

export const USAGE_FILE = "usage.jsonl";
/** Version of a usage.jsonl line. */
const USAGE_LINE_VERSION = 1;
const HOUR_MS = 3_600_000;
/** Tinker's longest billing window. */
export const MAX_BILLING_WINDOW_DAYS = 14;

export type MeteredKind = "training" | "sampling_prefill" | "sampling_sample" | "checkpoint";

interface UsageLine {
  v: number;
  time: string;
  type: MeteredKind;
  /** Tokens, or checkpoints for type "checkpoint". */
  n: number;
  base_model: string;
  session_id?: string;
}

export interface BillingWindow {
  start: Date;
  end: Date;
}

function parseHour(raw: string | null, name: string): Date {
  if (raw === null || raw === "")
    throw new HttpError(400, `billing usage needs ${name} (an RFC 3339 time on a UTC hour boundary)`);
  const when = new Date(raw);
  if (Number.isNaN(when.getTime())) throw new HttpError(400, `${name} is not an RFC 3339 time: ${raw.slice(0, 60)}`);
  if (when.getTime() % HOUR_MS !== 0)
    throw new HttpError(400, `${name} must be aligned to a UTC hour boundary, got ${raw.slice(0, 60)}`);
  return when;
}

/** The window of a billing request, checked as Tinker checks it: hour-aligned, ordered, ≤ 14 days, not starting in the future. */
export function billingWindow(starting: string | null, ending: string | null, now = Date.now()): BillingWindow {
  const start = parseHour(starting, "starting_on");
  const end = parseHour(ending, "ending_before");
  if (end.getTime() <= start.getTime())
    throw new HttpError(400, `ending_before (${end.toISOString()}) must be after starting_on (${start.toISOString()})`);
  if (end.getTime() - start.getTime() > MAX_BILLING_WINDOW_DAYS * 24 * HOUR_MS)
    throw new HttpError(
      400,
      `the window from ${start.toISOString()} to ${end.toISOString()} is longer than ${MAX_BILLING_WINDOW_DAYS} days`,
    );
  if (start.getTime() > now) throw new HttpError(400, `starting_on (${start.toISOString()}) is in the future`);
  return { start, end };
}

const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS) * HOUR_MS;

export class UsageMeter {
  readonly file: string;

  constructor(dir: string) {
    this.file = join(dir, USAGE_FILE);
  }

  record(type: MeteredKind, n: number, baseModel: string, sessionId?: string): void {
    if (!(n > 0)) return;
    const line: UsageLine = { v: USAGE_LINE_VERSION, time: new Date().toISOString(), type, n, base_model: baseModel };
    if (sessionId) line.session_id = sessionId;
    appendJsonl(this.file, line);
  }

  /** Hour buckets of the window, ordered by bucket then by quantity, largest first (as Tinker orders them). */
  events(
    window: BillingWindow,
    checkpoints: readonly { checkpoint: Checkpoint; baseModel: string }[],
  ): BillingUsageResponse {
    const from = window.start.getTime();
    const to = window.end.getTime();
    const buckets = new Map<string, BillingUsageEvent>();
    const add = (bucket: number, baseModel: string, sessionId: string | undefined, info: BillingEventInfo): void => {
      const key = `${bucket}\u0000${info.type}\u0000${baseModel}\u0000${sessionId ?? ""}`;
      const existing = buckets.get(key);
      if (existing) {
        const a = existing.event_info;
        if (a.type === "storage" && info.type === "storage") a.gigabyte_hours += info.gigabyte_hours;
        else if (a.type === "checkpoint" && info.type === "checkpoint") a.count += info.count;
        else if ("token_count" in a && "token_count" in info) a.token_count += info.token_count;
        return;
      }
      const event: BillingUsageEvent = {
        bucket_start: new Date(bucket).toISOString(),
        bucket_end: new Date(bucket + HOUR_MS).toISOString(),
        base_model: baseModel,
        ...(sessionId ? { session_id: sessionId } : {}),
        event_info: info,
      };
      buckets.set(key, event);
    };
    for (const line of existsSync(this.file) ? readJsonl<UsageLine>(this.file, { tolerateTornTail: true }) : []) {
      const t = Date.parse(line.time);
      if (!(t >= from && t < to)) continue;
      const info: BillingEventInfo =
        line.type === "checkpoint"
          ? { type: "checkpoint", count: line.n }
          : line.type === "sampling_prefill"
            ? { type: "sampling_prefill", cached: false, token_count: line.n }
            : { type: line.type, token_count: line.n };
      add(hourOf(t), line.base_model, line.session_id, info);
    }
    const now = Date.now();
    for (const { checkpoint, baseModel } of checkpoints) {
      const gb = (checkpoint.size_bytes ?? 0) / 1e9;
      const born = Date.parse(checkpoint.time);
      const gone = Math.min(now, checkpoint.expires_at ? Date.parse(checkpoint.expires_at) : now, to);
      for (let bucket = hourOf(Math.max(born, from)); bucket < gone; bucket += HOUR_MS) {
        const overlap = Math.min(gone, bucket + HOUR_MS) - Math.max(born, bucket);
        if (overlap > 0 && gb > 0)
          add(bucket, baseModel, undefined, { type: "storage", gigabyte_hours: (gb * overlap) / HOUR_MS });
      }
    }
    const quantity = (e: BillingUsageEvent): number => {
      const i = e.event_info;
      return i.type === "storage" ? i.gigabyte_hours : i.type === "checkpoint" ? i.count : i.token_count;
    };
    const data = [...buckets.values()].sort((a, b) =>
      a.bucket_start !== b.bucket_start ? (a.bucket_start < b.bucket_start ? -1 : 1) : quantity(b) - quantity(a),
    );
    const sessions: BillingUsageResponse["sessions"] = {};
    for (const e of data) if (e.session_id) sessions[e.session_id] = { user_metadata: null };
    return { data, sessions };
  }
}
