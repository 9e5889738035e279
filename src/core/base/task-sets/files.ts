/** The files of a gen-tasks folder: what `gen-tasks` writes and what the steps that train on a task set read. */
export const TASKS_FILE = "tasks.jsonl";
export const REJECTED_FILE = "rejected.jsonl";
export const AUDIT_FILE = "audit.json";
/** The resumable record of sandbox outcomes and solve-rate tries. */
export const RESULTS_FILE = "results.jsonl";
export const AUDIT_FORMAT = "agent-lab.gen-tasks.audit/1";
