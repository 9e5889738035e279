/**
 * A gen-tasks folder as GSM8K's training split (`--train-tasks DIR`): each accepted task of its
 * tasks.jsonl becomes a GSM8K item with the real train split's prompt and grader — the task's
 * answer is the reference, written as the `#### N` line the grader reads. gen-tasks already dropped
 * tasks that overlap the eval items; this loader checks again against the environment's val and
 * test splits (same normalised text or a shared long n-gram), so a folder made elsewhere, or
 * against another eval file, cannot put an eval item into training.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FileFormatError, UserError } from "../../base/errors";
import { sha256File } from "../../base/runs/manifest";
import { readEvalItems } from "../../base/task-sets/candidates";
import { EvalOverlapIndex } from "../../base/task-sets/eval-overlap";
import { TASKS_FILE } from "../../base/task-sets/files";
import { readJsonlLines } from "../../base/util/jsonl";
import type { TrainTasksRecord } from "../../harness/environment";
import type { Gsm8kItem } from "./environment";
import { referenceAnswer } from "./reference";

/** The tasks of `dir`/tasks.jsonl as GSM8K items, in file order, after the eval-overlap check against `dataDir`'s val and test. */
export function loadGsm8kTrainTasks(dir: string, dataDir: string): { items: Gsm8kItem[]; record: TrainTasksRecord } {
  const file = join(dir, TASKS_FILE);
  if (!existsSync(file))
    throw new UserError(`--train-tasks ${dir}: ${TASKS_FILE} is missing (give a folder agent-lab gen-tasks wrote)`);
  const items = readJsonlLines<unknown>(file).map(({ value, line }) => {
    const t = value as Record<string, unknown> | null;
    if (
      typeof t !== "object" ||
      t === null ||
      typeof t.id !== "string" ||
      typeof t.problem !== "string" ||
      typeof t.answer !== "string"
    ) {
      throw new FileFormatError(
        file,
        line,
        'expected a gen-tasks task {"id", "problem", "answer", "solution_sha256", "solve_rate"}',
      );
    }
    const solution = `#### ${t.answer}`;
    if (referenceAnswer(solution) === undefined)
      throw new FileFormatError(file, line, `answer ${JSON.stringify(t.answer)} is not a GSM8K final answer`);
    return { id: t.id, question: t.problem, answers: [referenceAnswer(solution)!], solution, line };
  });
  if (!items.length) throw new UserError(`--train-tasks ${dir}: ${TASKS_FILE} holds no tasks`);
  for (const split of ["val", "test"] as const) {
    const evalFile = join(dataDir, `${split}.jsonl`);
    if (!existsSync(evalFile)) continue;
    const index = new EvalOverlapIndex(readEvalItems(evalFile));
    for (const it of items) {
      const hit = index.find(it.question);
      if (hit)
        throw new FileFormatError(
          file,
          it.line,
          `task ${it.id} overlaps ${split} item on ${evalFile}:${hit.evalLine} (${hit.kind === "exact" ? "same text" : "a shared long n-gram"}); training on it would leak the eval set — drop it (gen-tasks --eval-items ${evalFile} filters these)`,
        );
    }
  }
  return {
    items: items.map(({ line: _line, ...item }) => item),
    record: { tasks_dir: dir, file: TASKS_FILE, sha256: sha256File(file), questions: items.length },
  };
}
