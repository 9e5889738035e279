/**
 * `agent-lab gen-tasks --candidates FILE --out DIR [--solve-rate off] [--eval-items FILE]
 *                      [--timeout-ms N] [--memory-mib N]`
 * Filters candidate tasks (JSONL `{problem, solution}`, the solution a Python `solution()` that
 * computes the answer): each solution runs in the sandbox, and errors, timeouts, escapes, non-numeric
 * answers, duplicates and eval-set overlaps are dropped, each counted. Writes DIR/tasks.jsonl,
 * DIR/rejected.jsonl and DIR/audit.json; a rerun continues where the last one stopped.
 */
import { UserError } from "../core/errors";
import { AUDIT_FILE, FILTER_ORDER, filterCandidates, REJECTED_FILE, TASKS_FILE } from "../core/tasks/filter";
import { DEFAULT_SANDBOX_LIMITS } from "../core/tasks/sandbox/sandbox";
import { intFlag, parse } from "./args";

const HELP = `usage: agent-lab gen-tasks --candidates FILE --out DIR [--solve-rate off] [--eval-items FILE]

  --candidates FILE  JSONL, one {"problem": …, "solution": "def solution(): …"} per line
  --out DIR          writes ${TASKS_FILE}, ${REJECTED_FILE} and ${AUDIT_FILE} (a rerun resumes)
  --solve-rate off   skip the base-policy solve-rate filter (required for now: gen-tasks has no
                     policy to try the tasks with yet)
  --eval-items FILE  JSONL of the eval set ({"question": …}, e.g. GSM8K test): drop candidates
                     with the same normalised text or a shared 13-word run
  --timeout-ms N     wall time per solution (default ${DEFAULT_SANDBOX_LIMITS.timeoutMs})
  --memory-mib N     memory per solution, MiB (default ${DEFAULT_SANDBOX_LIMITS.memoryBytes / 2 ** 20})
Filters, in order: ${FILTER_ORDER.join(", ")}.`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parse("gen-tasks", argv, {
    candidates: { type: "string" },
    out: { type: "string" },
    "solve-rate": { type: "string" },
    "eval-items": { type: "string" },
    "timeout-ms": { type: "string" },
    "memory-mib": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (!values.candidates) throw new UserError("--candidates FILE is required (JSONL of {problem, solution})");
  if (!values.out) throw new UserError("--out DIR is required");
  if (values["solve-rate"] === undefined) {
    throw new UserError("the solve-rate filter needs the base policy, which gen-tasks cannot run yet: pass --solve-rate off");
  }
  if (values["solve-rate"] !== "off") throw new UserError(`--solve-rate: only "off" is supported, got "${values["solve-rate"]}"`);
  const timeoutMs = intFlag("timeout-ms", values["timeout-ms"], 100);
  const memoryMib = intFlag("memory-mib", values["memory-mib"], 64);
  if (memoryMib !== undefined && memoryMib > 4096) throw new UserError(`--memory-mib must be at most 4096 (the interpreter is 32-bit), got ${memoryMib}`);

  let lastPrint = 0;
  const audit = await filterCandidates({
    candidatesFile: values.candidates,
    outDir: values.out,
    evalItemsFile: values["eval-items"],
    limits: {
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(memoryMib !== undefined ? { memoryBytes: memoryMib * 2 ** 20 } : {}),
    },
    onProgress: (done, total) => {
      if (Date.now() - lastPrint < 2000 && done < total) return;
      lastPrint = Date.now();
      console.error(`gen-tasks: ${done}/${total} candidates`);
    },
  });
  const reasons = Object.entries(audit.counts).filter(([, n]) => n > 0).map(([r, n]) => `${r} ${n}`);
  console.log(`gen-tasks: ${audit.candidates.count} candidates → ${audit.accepted} tasks (yield ${audit.yield}); rejected ${audit.rejected}${reasons.length ? `: ${reasons.join(", ")}` : ""}`);
  console.log(`gen-tasks: wrote ${values.out}/${TASKS_FILE}, ${REJECTED_FILE}, ${AUDIT_FILE}`);
  if (!values["eval-items"]) console.log("gen-tasks: note: no --eval-items, so no candidate was checked for overlap with an eval set");
}
