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
import { GEN_TASKS_STEP } from "../core/steps/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(GEN_TASKS_STEP, argv);
  if (!args) return;
  const { values } = args;
  if (values["solve-rate"] === undefined) {
    throw new UserError("the solve-rate filter needs the base policy, which gen-tasks cannot run yet: pass --solve-rate off");
  }
  const timeoutMs = values["timeout-ms"];
  const memoryMib = values["memory-mib"];

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
