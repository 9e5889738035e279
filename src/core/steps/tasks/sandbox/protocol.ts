/**
 * The wire between the sandbox host (this process) and its worker (a locked-down Node child running
 * Pyodide): one JSON object per line, tasks on the worker's stdin, answers on its stdout. The host
 * treats every line it reads as untrusted: code inside the worker could forge one.
 */

/** Why a solution was not accepted. `blocked:*` means it tried to leave the sandbox. */
export type SandboxReason =
  | "error"
  | "timeout"
  | "memory"
  | "blocked:filesystem"
  | "blocked:network"
  | "blocked:process"
  | "blocked:environment"
  | "blocked:host-bridge"
  | "crash";

export const SANDBOX_REASONS: readonly SandboxReason[] = [
  "error",
  "timeout",
  "memory",
  "blocked:filesystem",
  "blocked:network",
  "blocked:process",
  "blocked:environment",
  "blocked:host-bridge",
  "crash",
];

/** What `solution()` returned: its Python type name and repr (cut to REPR_LIMIT characters). */
export interface PyValue {
  type: string;
  repr: string;
}

export type SandboxOutcome = { ok: true; value: PyValue } | { ok: false; reason: SandboxReason; detail: string };

/** Host → worker. */
export interface TaskRequest {
  id: number;
  code: string;
}

/**
 * Worker → host. `restored`: the task started from the interpreter's snapshot (see snapshot.ts);
 * `retire`: the heap grew so far that a fresh worker is cheaper than zeroing it before every task.
 */
export type WorkerMessage =
  { type: "ready" } | { type: "done"; id: number; outcome: SandboxOutcome; restored: boolean; retire: boolean };

/** Longest line the host reads from a worker; a longer one is a protocol violation (the worker is killed). */
export const MAX_MESSAGE_BYTES = 64 * 1024;
export const REPR_LIMIT = 200;
export const DETAIL_LIMIT = 500;

/** Validates a line from the worker; undefined when it is not a well-formed message. */
export function parseWorkerMessage(line: string): WorkerMessage | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    // A forged or torn line is answered by the caller (it kills the worker); the parse error adds nothing.
    void e;
    return undefined;
  }
  if (typeof raw !== "object" || raw === null) return undefined;
  const m = raw as Record<string, unknown>;
  if (m.type === "ready") return { type: "ready" };
  if (m.type !== "done" || typeof m.id !== "number" || typeof m.outcome !== "object" || m.outcome === null)
    return undefined;
  const o = m.outcome as Record<string, unknown>;
  const flags = { restored: m.restored === true, retire: m.retire === true };
  if (o.ok === true) {
    const v = o.value as Record<string, unknown> | null;
    if (typeof v !== "object" || v === null || typeof v.type !== "string" || typeof v.repr !== "string")
      return undefined;
    return {
      type: "done",
      id: m.id,
      outcome: { ok: true, value: { type: v.type.slice(0, 64), repr: v.repr.slice(0, REPR_LIMIT) } },
      ...flags,
    };
  }
  if (o.ok === false && typeof o.reason === "string" && (SANDBOX_REASONS as readonly string[]).includes(o.reason)) {
    const detail = typeof o.detail === "string" ? o.detail.slice(0, DETAIL_LIMIT) : "";
    return { type: "done", id: m.id, outcome: { ok: false, reason: o.reason as SandboxReason, detail }, ...flags };
  }
  return undefined;
}
