/**
 * The job state machine, apart from any process or UI so it is tested in plain Node.
 *
 *   starting ──spawned──▶ running ──exited 0──▶ done
 *      │                     │ ──exited ≠0──▶ failed   (cancelled instead when a cancel was asked)
 *      └──spawn-failed──▶ failed      └──lost──▶ failed (the process vanished without an exit record)
 *
 * Final states never change again, so a late event (an exit seen twice: once live, once from the
 * record after a reload) cannot flip a finished job.
 */
export type JobState = "starting" | "running" | "done" | "failed" | "cancelled";

export type JobEvent =
  | { type: "spawned"; pid: number }
  | { type: "spawn-failed"; message: string }
  | { type: "cancel-requested" }
  | { type: "exited"; code: number | null; signal: string | null }
  | { type: "lost" };

export interface JobStatus {
  state: JobState;
  pid?: number;
  cancelRequested: boolean;
  exitCode?: number | null;
  signal?: string | null;
  /** Why the job failed, in one line. */
  reason?: string;
}

export const FINAL_STATES: ReadonlySet<JobState> = new Set(["done", "failed", "cancelled"]);

export function isFinal(state: JobState): boolean {
  return FINAL_STATES.has(state);
}

export function initialStatus(): JobStatus {
  return { state: "starting", cancelRequested: false };
}

export function transition(status: JobStatus, event: JobEvent): JobStatus {
  if (isFinal(status.state)) return status;
  switch (event.type) {
    case "spawned":
      return status.state === "starting" ? { ...status, state: "running", pid: event.pid } : status;
    case "spawn-failed":
      return { ...status, state: "failed", reason: `could not start: ${event.message}` };
    case "cancel-requested":
      return { ...status, cancelRequested: true };
    case "exited": {
      const base = { ...status, exitCode: event.code, signal: event.signal };
      if (event.code === 0) return { ...base, state: "done" };
      if (status.cancelRequested) return { ...base, state: "cancelled" };
      const how = event.signal ? `killed by ${event.signal}` : `exit code ${event.code}`;
      return { ...base, state: "failed", reason: how };
    }
    case "lost":
      return status.cancelRequested
        ? { ...status, state: "cancelled" }
        : {
            ...status,
            state: "failed",
            reason: "the process ended without leaving an exit record (killed, or the machine restarted)",
          };
  }
}
